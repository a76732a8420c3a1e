package transcript

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Kimi CLI (MoonshotAI/kimi-cli) keeps each session in a folder
// <share>/sessions/<md5 of the work dir>/<session id>/ (a non-local KAOS
// prefixes the hash with "<kaos>_"), <share> being ~/.kimi or
// $KIMI_SHARE_DIR; <share>/kimi.json lists the work dirs
// ({"work_dirs":[{path, kaos, last_session_id}]}). The folder holds
// wire.jsonl, the log of every event the agent sent its UI, and
// context.jsonl, the message history the model sees (rewritten on /clear,
// compaction and revert), with state.json and sub-agents in
// subagents/<agent id>/ (FORMATS.md; writer src/kimi_cli/session.py,
// metadata.py, share.py, wire/file.py, wire/types.py, soul/context.py,
// soul/message.py, packages/kosong). Written from the writer's code only:
// no real Kimi CLI file has been read.
//
// The wire is the fuller record and is read when it holds events: a first
// line {"type":"metadata","protocol_version":"1.x"}, then one
// {"timestamp":<unix seconds>,"message":{"type":<event>,"payload":{…}}} a
// line; content parts and tool call argument chunks are merged before they
// are written. The context is read only when the wire has no events
// (sessions from before the wire was kept): it has no times and no tokens.
//
// Counting rules, over the wire:
//   - TurnBegin and SteerInput are user turns; the content parts, tool
//     calls of one step (StepBegin … the step's tool results) are one
//     assistant turn, when the step said or called anything;
//   - tool calls are ToolCall events, once per id; a tool call failed when
//     its ToolResult's return_value has is_error (ToolError,
//     ToolRuntimeError: the tool itself said so);
//   - tokens: each StatusUpdate's token_usage once per message_id:
//     input_other is input, input_cache_read cache read,
//     input_cache_creation cache write, output output;
//   - a SubagentEvent carries one event of a sub-agent run from a tool
//     call of this session; its messages are kept as sidechain (no turns)
//     and its tool calls (their ids prefixed with the sub-agent's, as
//     models number calls per conversation), errors and tokens count. The
//     sub-agent's own
//     files under subagents/ repeat them and are not read;
//   - the cwd is the work dir kimi.json maps the folder's hash to; the
//     session id is the folder's name. The wire names no model.
//
// Outcome, from the main agent's last event: an answer with no call
// pending is success, a failed tool result failure, StepInterrupted
// aborted, anything else unknown.
//
// Over the context: user, assistant and tool messages as in OpenAI chat;
// a user message that is all <system>…</system> (checkpoint markers) is a
// system message; a tool message whose text starts with "<system>ERROR:"
// is a failed call (soul/message.py tool_result_to_message); roles
// starting with "_" (_system_prompt, _checkpoint, _usage) are bookkeeping.
// The time is the file's modification time.

// kimiRoots: $KIMI_SHARE_DIR/sessions, else ~/.kimi/sessions
// (share.py get_share_dir). The same on Linux and macOS.
func kimiRoots(e Env) []Root {
	if v := e.get("KIMI_SHARE_DIR"); v != "" {
		return []Root{{Agent: lore.AgentKimiCLI, Path: filepath.Join(v, "sessions"), Source: "KIMI_SHARE_DIR"}}
	}
	return []Root{{Agent: lore.AgentKimiCLI, Path: e.home(".kimi", "sessions"), Source: "default"}}
}

const (
	kimiWire    = "wire.jsonl"
	kimiContext = "context.jsonl"
)

// sniffKimiWire claims a wire log by its metadata line, or by a first
// event record when the header is missing (protocol 1.1 files).
func sniffKimiWire(_ string, v *fastjson.Value) bool {
	if is(v, "metadata", "type") {
		return geminiIsString(v, "protocol_version")
	}
	return kimiIsEvent(v)
}

func kimiIsEvent(v *fastjson.Value) bool {
	ts, msg := v.Get("timestamp"), v.Get("message")
	if ts == nil || ts.Type() != fastjson.TypeNumber || msg == nil || msg.Type() != fastjson.TypeObject {
		return false
	}
	p := msg.Get("payload")
	return geminiIsString(msg, "type") && p != nil && p.Type() == fastjson.TypeObject
}

// sniffKimiContext claims a context file by the bookkeeping records Kimi
// writes first: the system prompt or a checkpoint.
func sniffKimiContext(_ string, v *fastjson.Value) bool {
	switch string(v.GetStringBytes("role")) {
	case "_system_prompt":
		return geminiIsString(v, "content")
	case "_checkpoint":
		id := v.Get("id")
		return id != nil && id.Type() == fastjson.TypeNumber
	}
	return false
}

// kimiMatch claims a session folder by the first line of its wire or
// context file.
func kimiMatch(dir string, names map[string]bool) bool {
	return (names[kimiWire] && kimiFirstLineIs(filepath.Join(dir, kimiWire), sniffKimiWire)) ||
		(names[kimiContext] && kimiFirstLineIs(filepath.Join(dir, kimiContext), sniffKimiContext))
}

// kimiFirstLineIs reports whether the file's first non-blank line is a
// JSON object that sniff claims.
func kimiFirstLineIs(path string, sniff func(string, *fastjson.Value) bool) bool {
	f, err := regularfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	head := bytes.TrimLeft(buf[:n], " \t\r\n")
	line := firstLine(head)
	if line == nil {
		if n == len(buf) {
			return false
		}
		line = bytes.TrimSpace(head)
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(line)
	return err == nil && v.Type() == fastjson.TypeObject && sniff(filepath.Base(path), v)
}

// kimiReadDir reads a session folder: the wire when it holds events, else
// the context.
func kimiReadDir(ctx context.Context, in *input, emit emitFunc) error {
	dir := in.path
	wire := filepath.Join(dir, kimiWire)
	if kimiFirstLineIs(wire, sniffKimiWire) {
		err := kimiReadWireFile(ctx, in, wire, dir, emit)
		if err == nil || !errors.Is(err, ErrEmpty) {
			return err
		}
	}
	if kimiFirstLineIs(filepath.Join(dir, kimiContext), sniffKimiContext) {
		return kimiReadContextFile(ctx, in, filepath.Join(dir, kimiContext), dir, emit)
	}
	return emptySession("a Kimi CLI session with no messages")
}

// kimiReadWire reads a wire.jsonl given on its own.
func kimiReadWire(ctx context.Context, in *input, emit emitFunc) error {
	return kimiReadWireFile(ctx, in, in.path, filepath.Dir(in.path), emit)
}

// kimiReadContext reads a context.jsonl given on its own.
func kimiReadContext(ctx context.Context, in *input, emit emitFunc) error {
	return kimiReadContextFile(ctx, in, in.path, filepath.Dir(in.path), emit)
}

// kimiStep is the assistant message a step is building.
type kimiStep struct {
	msg  lore.Message
	open bool
	text bool
}

type kimiWireReader struct {
	b      *builder
	main   kimiStep
	subs   map[string]*kimiStep // sub-agent steps by agent id
	scored idSet                // message ids whose tokens are counted
	last   lore.Outcome
	events int // turns, parts, calls and results seen
}

func kimiReadWireFile(ctx context.Context, in *input, path, sessionDir string, emit emitFunc) error {
	r := &kimiWireReader{b: in.builder(lore.AgentKimiCLI), last: lore.OutcomeUnknown}
	f, err := openFile(path, path == in.path && in.zstd)
	if err != nil {
		return err
	}
	defer f.Close()
	err = eachJSONLine(ctx, f, in.parser(), r.b.warn, func(line int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject || is(v, "metadata", "type") {
			return nil
		}
		if !kimiIsEvent(v) {
			r.b.warn(line, errKimiRecord)
			return nil
		}
		t := epoch(num(v, "timestamp"))
		r.event(v.Get("message"), t, "")
		return nil
	})
	if err != nil {
		return err
	}
	r.flush(&r.main, false)
	for _, s := range r.subs {
		r.flush(s, true)
	}
	if r.events == 0 {
		return emptySession("a Kimi CLI session with no messages")
	}
	r.b.s.Outcome = r.last
	r.b.s.Cwd = kimiWorkDir(sessionDir)
	r.b.setNative(filepath.Base(sessionDir))
	emit(r.b.finish(filepath.Base(sessionDir)))
	return nil
}

var errKimiRecord = errors.New("a wire line that is no event record; skipped")

// event handles one wire event; agent is the sub-agent's id ("" for the
// main agent, "?" for a sub-agent that named none).
func (r *kimiWireReader) event(msg *fastjson.Value, t time.Time, agent string) {
	b := r.b
	side := agent != ""
	p := msg.Get("payload")
	if p == nil || p.Type() != fastjson.TypeObject {
		b.at(t)
		return
	}
	step := &r.main
	if side {
		step = r.sub(agent)
	}
	switch string(msg.GetStringBytes("type")) {
	case "TurnBegin", "SteerInput":
		r.flush(step, side)
		r.events++
		m := lore.Message{Role: lore.RoleUser, Time: t, Sidechain: side}
		if b.keep {
			m.Text = contentText(p.Get("user_input"))
		}
		b.add(m)
		if !side {
			r.last = lore.OutcomeUnknown
		}
	case "StepBegin", "TurnEnd":
		r.flush(step, side)
		b.at(t)
	case "StepInterrupted":
		r.flush(step, side)
		b.at(t)
		if !side {
			r.last = lore.OutcomeAborted
		}
	case "ContentPart":
		r.events++
		r.begin(step, t, side)
		switch string(p.GetStringBytes("type")) {
		case "text":
			if len(bytes.TrimSpace(p.GetStringBytes("text"))) > 0 {
				step.text = true
			}
			if b.keep {
				step.msg.Text += str(p, "text")
			}
		case "think":
			if b.keep {
				step.msg.Thinking += str(p, "think")
			}
		default:
			if b.keep {
				step.msg.Text = joinText(step.msg.Text, "["+str(p, "type")+"]")
			}
		}
	case "ToolCall":
		r.events++
		r.begin(step, t, side)
		c := lore.ToolCall{ID: kimiCallID(agent, p, "id")}
		if b.keep {
			c.Name, c.Input = str(p, "function", "name"), str(p, "function", "arguments")
		}
		step.msg.ToolCalls = append(step.msg.ToolCalls, c)
	case "ToolCallPart":
		// Merged into its ToolCall before the wire is written; a stray
		// chunk still belongs to the last call.
		if n := len(step.msg.ToolCalls); n > 0 && b.keep {
			step.msg.ToolCalls[n-1].Input += str(p, "arguments_part")
		}
	case "ToolResult":
		r.flush(step, side)
		r.events++
		rv := p.Get("return_value")
		res := lore.ToolResult{CallID: kimiCallID(agent, p, "tool_call_id"), IsError: rv.GetBool("is_error")}
		if b.keep {
			res.Output = joinText(str(rv, "message"), contentText(rv.Get("output")))
		}
		b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}, Sidechain: side})
		if !side {
			r.last = lore.OutcomeUnknown
			if res.IsError {
				r.last = lore.OutcomeFailure
			}
		}
	case "StatusUpdate":
		b.at(t)
		u := p.Get("token_usage")
		if u == nil || u.Type() != fastjson.TypeObject {
			return
		}
		if id := p.GetStringBytes("message_id"); len(id) > 0 {
			if r.scored.has(id) {
				return
			}
			r.scored.add(string(id))
		}
		b.usage(lore.Usage{
			InputTokens:      max(integer(u, "input_other"), 0),
			OutputTokens:     max(integer(u, "output"), 0),
			CacheReadTokens:  max(integer(u, "input_cache_read"), 0),
			CacheWriteTokens: max(integer(u, "input_cache_creation"), 0),
		})
	case "SubagentEvent":
		ev := p.Get("event")
		if ev == nil || ev.Type() != fastjson.TypeObject || side {
			b.at(t)
			return
		}
		// The main step's model output is complete once a tool of it
		// runs: its message goes before the sub-agent's.
		r.flush(&r.main, false)
		id := str(p, "agent_id")
		if id == "" {
			id = "?" + str(p, "parent_tool_call_id")
		}
		r.event(ev, t, id)
	default:
		b.at(t)
	}
}

// kimiCallID is a tool call id, prefixed with the sub-agent's id for a
// sub-agent's calls: models number calls per conversation ("Shell:0"), so
// a sub-agent's ids repeat the main agent's.
func kimiCallID(agent string, v *fastjson.Value, key string) string {
	id := str(v, key)
	if agent == "" || id == "" {
		return id
	}
	return agent + "/" + id
}

func (r *kimiWireReader) sub(agent string) *kimiStep {
	if r.subs == nil {
		r.subs = make(map[string]*kimiStep)
	}
	s := r.subs[agent]
	if s == nil {
		s = &kimiStep{}
		r.subs[agent] = s
	}
	return s
}

// begin opens the step's assistant message at its first content.
func (r *kimiWireReader) begin(step *kimiStep, t time.Time, side bool) {
	if step.open {
		return
	}
	*step = kimiStep{open: true, msg: lore.Message{Role: lore.RoleAssistant, Time: t, Sidechain: side}}
}

// flush records the step's assistant message, if it has one.
func (r *kimiWireReader) flush(step *kimiStep, side bool) {
	if !step.open {
		return
	}
	step.open = false
	r.b.add(step.msg)
	if !side {
		switch {
		case len(step.msg.ToolCalls) > 0:
			r.last = lore.OutcomeUnknown
		case step.text:
			r.last = lore.OutcomeSuccess
		}
	}
	step.msg = lore.Message{}
}

func kimiReadContextFile(ctx context.Context, in *input, path, sessionDir string, emit emitFunc) error {
	b := in.builder(lore.AgentKimiCLI)
	var t time.Time
	if fi, err := os.Stat(path); err == nil {
		t = fi.ModTime()
		b.at(t)
	}
	f, err := openFile(path, path == in.path && in.zstd)
	if err != nil {
		return err
	}
	defer f.Close()
	turns := 0
	last := lore.OutcomeUnknown
	err = eachJSONLine(ctx, f, in.parser(), b.warn, func(_ int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject {
			return nil
		}
		content := v.Get("content")
		switch string(v.GetStringBytes("role")) {
		case "user":
			turns++
			text := contentText(content)
			role := lore.RoleUser
			if kimiAllSystem(text) {
				role = lore.RoleSystem
			} else {
				last = lore.OutcomeUnknown
			}
			if !b.keep {
				text = ""
			}
			b.add(lore.Message{Role: role, Time: t, Text: text})
		case "assistant":
			turns++
			m := lore.Message{Role: lore.RoleAssistant, Time: t}
			for _, c := range v.GetArray("tool_calls") {
				call := lore.ToolCall{ID: str(c, "id")}
				if b.keep {
					call.Name, call.Input = str(c, "function", "name"), str(c, "function", "arguments")
				}
				m.ToolCalls = append(m.ToolCalls, call)
			}
			text := kimiContextText(content, "text")
			if b.keep {
				m.Text, m.Thinking = text, kimiContextText(content, "think")
			}
			b.add(m)
			switch {
			case len(m.ToolCalls) > 0:
				last = lore.OutcomeUnknown
			case strings.TrimSpace(text) != "":
				last = lore.OutcomeSuccess
			}
		case "tool":
			turns++
			text := contentText(content)
			res := lore.ToolResult{CallID: str(v, "tool_call_id"), IsError: strings.HasPrefix(strings.TrimSpace(text), "<system>ERROR:")}
			if b.keep {
				res.Output = text
			}
			b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}})
			last = lore.OutcomeUnknown
			if res.IsError {
				last = lore.OutcomeFailure
			}
		case "system":
			if b.keep {
				b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(content)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if turns == 0 {
		return emptySession("a Kimi CLI context with no messages")
	}
	b.s.Outcome = last
	b.s.Cwd = kimiWorkDir(sessionDir)
	b.setNative(filepath.Base(sessionDir))
	emit(b.finish(filepath.Base(sessionDir)))
	return nil
}

// kimiContextText joins the parts of one kind ("text" or "think") of a
// message content, which is a string when it is one text part.
func kimiContextText(content *fastjson.Value, kind string) string {
	if content == nil {
		return ""
	}
	if content.Type() == fastjson.TypeString {
		if kind == "text" {
			return string(content.GetStringBytes())
		}
		return ""
	}
	var out string
	for _, p := range content.GetArray() {
		if is(p, kind, "type") {
			out = joinText(out, str(p, kind))
		}
	}
	return out
}

// kimiAllSystem reports whether a user message is nothing but
// <system>…</system> blocks, which the CLI writes itself.
func kimiAllSystem(text string) bool {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "<system>") {
		return false
	}
	for text != "" {
		if !strings.HasPrefix(text, "<system>") {
			return false
		}
		end := strings.Index(text, "</system>")
		if end < 0 {
			return false
		}
		text = strings.TrimSpace(text[end+len("</system>"):])
	}
	return true
}

// kimiWorkDir finds the work dir of a session folder
// <share>/sessions/<hash>/<id> in <share>/kimi.json, whose work dirs are
// told apart by the MD5 of their path.
func kimiWorkDir(sessionDir string) string {
	hashDir := filepath.Dir(sessionDir)
	if filepath.Base(filepath.Dir(hashDir)) != "sessions" {
		return ""
	}
	hash := filepath.Base(hashDir)
	f, err := regularfile.Open(filepath.Join(filepath.Dir(filepath.Dir(hashDir)), "kimi.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return ""
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return ""
	}
	for _, wd := range v.GetArray("work_dirs") {
		path := str(wd, "path")
		if path == "" {
			continue
		}
		sum := md5.Sum([]byte(path))
		h := hex.EncodeToString(sum[:])
		if kaos := str(wd, "kaos"); kaos != "" && kaos != "local" {
			h = kaos + "_" + h
		}
		if h == hash {
			return path
		}
	}
	return ""
}
