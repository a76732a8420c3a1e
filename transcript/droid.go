package transcript

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Droid (Factory): ~/.factory/sessions/<cwd with / as ->/<uuid>.jsonl, one
// JSON object a line, beside <uuid>.settings.json (FORMATS.md, section
// Droid). The first line is {type:"session_start", id, title,
// sessionTitle, owner, version, cwd}; the turns are {type:"message", id,
// timestamp, parentId, message:{role:"user"|"assistant", content:[…]}}
// with Anthropic content blocks (text, thinking, tool_use {id, name,
// input}, tool_result {tool_use_id, content, is_error}). The settings file
// holds the session's model and its token totals, {model, providerLock,
// providerLockTimestamp, assistantActiveTimeMs, tokenUsage:{inputTokens,
// outputTokens, cacheCreationTokens, cacheReadTokens, thinkingTokens}}.
// Written from readers of Droid sessions (no real session was available):
// the format is not verified on real files.
//
// Counting rules:
//   - a user message with text of the user's is a user turn; text that is
//     only <system-reminder> blocks the CLI adds, or only tool_result
//     blocks, is not; an assistant message is an assistant turn (a message
//     id met again is the same message, counted once);
//   - tool calls are the tool_use blocks, once per id; a tool result with
//     is_error true is a tool error, and so is one whose text starts with
//     the Execute tool's "Error: Command failed (exit code: N)" for N ≠ 0;
//   - tokens are the settings file's totals, counted once for the session
//     (Droid writes no usage per response); thinking tokens are output;
//   - the model is the settings file's; the cwd is session_start's;
//   - a sub-droid (the Task tool) runs as a session of its own whose title
//     starts "# Task Tool Invocation"; no field links it to its parent, so
//     nothing is folded.
//
// Outcome, from the last message: an assistant answer with no tool call
// pending is success; a failed tool result nobody answered is failure;
// anything else is unknown.

// droidRoots: Factory's CLI keeps everything under ~/.factory, sessions in
// sessions/, on Linux and macOS alike; it reads no variable to move it.
func droidRoots(e Env) []Root {
	return []Root{{Agent: lore.AgentDroid, Path: e.home(".factory", "sessions"), Source: "default"}}
}

// sniffDroid claims a session by its session_start line.
func sniffDroid(_ string, v *fastjson.Value) bool {
	if !is(v, "session_start", "type") {
		return false
	}
	id := v.Get("id")
	return id != nil && id.Type() == fastjson.TypeString && (has(v, "cwd") || has(v, "title") || has(v, "sessionTitle"))
}

const droidReminder = "<system-reminder>"

func readDroid(ctx context.Context, in *input, emit emitFunc) error {
	b := in.builder(lore.AgentDroid)
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	end := endNothing
	started := false
	var seen idSet // message ids: a line written twice counts once
	err = eachJSONLine(ctx, rc, in.parser(), b.warn, func(line int, v *fastjson.Value) error {
		switch string(v.GetStringBytes("type")) {
		case "session_start":
			if !started {
				started = true
				b.setNative(str(v, "id"))
				b.s.Cwd = str(v, "cwd")
			}
		case "message":
			if id := str(v, "id"); id == "" || seen.add(id) {
				droidMessage(b, v, &end)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b.s.MessageCount() == 0 && b.s.ToolCalls == 0 {
		return emptySession("a Droid session with no messages")
	}
	droidSettings(b, in.path)
	b.s.Outcome = end.outcome()
	emit(b.finish(baseID(in.path)))
	return nil
}

// droidMessage reads one message line.
func droidMessage(b *builder, v *fastjson.Value, end *turnEnd) {
	msg := v.Get("message")
	if msg == nil || msg.Type() != fastjson.TypeObject {
		return
	}
	t := timeOf(v, "timestamp")
	content := msg.Get("content")
	switch string(msg.GetStringBytes("role")) {
	case "assistant":
		m := lore.Message{Role: lore.RoleAssistant, Time: t}
		text := anthropicBlocks(b, content.GetArray(), &m)
		if content != nil && content.Type() == fastjson.TypeString {
			text = len(bytes.TrimSpace(content.GetStringBytes())) > 0
			if b.keep {
				m.Text = string(content.GetStringBytes())
			}
		}
		switch {
		case len(m.ToolCalls) > 0:
			*end = endCalling
		case text:
			*end = endAnswer
		}
		b.add(m)
	case "user":
		results, text := droidUserContent(b, content)
		if len(results) > 0 {
			e := endNothing
			for _, r := range results {
				if r.IsError {
					e = e.with(endFailed)
				} else {
					e = e.with(endResults)
				}
			}
			*end = e
			b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: results})
		}
		if text == "" {
			return
		}
		role := lore.RoleUser
		if droidOnlyReminders(text) {
			role = lore.RoleSystem
		} else {
			*end = endUser
		}
		m := lore.Message{Role: role, Time: t}
		if b.keep {
			m.Text = text
		}
		b.add(m)
	}
}

// droidUserContent splits a user message into its tool results and its
// text.
func droidUserContent(b *builder, content *fastjson.Value) ([]lore.ToolResult, string) {
	if content != nil && content.Type() == fastjson.TypeString {
		return nil, strings.TrimSpace(string(content.GetStringBytes()))
	}
	var results []lore.ToolResult
	var text string
	for _, c := range content.GetArray() {
		switch string(c.GetStringBytes("type")) {
		case "tool_result":
			out := contentText(c.Get("content"))
			r := lore.ToolResult{CallID: str(c, "tool_use_id"), IsError: boolean(c, "is_error")}
			if code, ok := droidExitCode(out); ok {
				r.ExitCode = &code
				r.IsError = r.IsError || code != 0
			}
			if b.keep {
				r.Output = out
			}
			results = append(results, r)
		case "text":
			if s := strings.TrimSpace(str(c, "text")); s != "" {
				text = joinText(text, s)
			}
		case "image":
			text = joinText(text, "[image]")
		}
	}
	return results, text
}

// droidExitCode reads the exit code from the Execute tool's failure text,
// "Error: Command failed (exit code: 1)".
func droidExitCode(out string) (int, bool) {
	const prefix = "Error: Command failed (exit code: "
	if !strings.HasPrefix(out, prefix) {
		return 0, false
	}
	rest := out[len(prefix):]
	i := strings.IndexByte(rest, ')')
	if i < 0 {
		return 0, false
	}
	code, err := strconv.Atoi(strings.TrimSpace(rest[:i]))
	return code, err == nil
}

// droidOnlyReminders reports whether text is nothing but the
// <system-reminder> blocks Droid puts before the user's words.
func droidOnlyReminders(text string) bool {
	for {
		text = strings.TrimSpace(text)
		if text == "" {
			return true
		}
		if !strings.HasPrefix(text, droidReminder) {
			return false
		}
		i := strings.Index(text, "</system-reminder>")
		if i < 0 {
			return true
		}
		text = text[i+len("</system-reminder>"):]
	}
}

// maxDroidSettings bounds the settings file read beside a session: it is
// a few hundred bytes.
const maxDroidSettings = 1 << 20

// droidSettings adds the model, tokens and provider lock time from the
// <id>.settings.json beside the session, when there is one.
func droidSettings(b *builder, path string) {
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".zst"), ".jsonl")
	f, err := regularfile.Open(filepath.Join(filepath.Dir(path), name+".settings.json"))
	if err != nil {
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDroidSettings+1))
	f.Close()
	if err != nil || len(data) > maxDroidSettings {
		return
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil || v.Type() != fastjson.TypeObject {
		b.warn(0, errDroidSettings)
		return
	}
	if m := str(v, "model"); m != "" {
		b.s.Model = m
	}
	b.at(timeOf(v, "providerLockTimestamp"))
	if u := v.Get("tokenUsage"); u != nil && u.Type() == fastjson.TypeObject {
		b.usage(lore.Usage{
			InputTokens:      integer(u, "inputTokens"),
			OutputTokens:     integer(u, "outputTokens") + integer(u, "thinkingTokens"),
			CacheReadTokens:  integer(u, "cacheReadTokens"),
			CacheWriteTokens: integer(u, "cacheCreationTokens"),
		})
	}
}

var errDroidSettings = errors.New("the settings file beside the session is not a JSON object; no model or tokens")
