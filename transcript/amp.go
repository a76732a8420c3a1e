package transcript

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Amp (Sourcegraph): one JSON document a thread, T-<uuid>.json, in
// $XDG_DATA_HOME/amp/threads (~/.local/share/amp/threads), or, for threads
// the VS Code extension has not yet moved there, in the editor's
// globalStorage/sourcegraph.amp/threads3 (FORMATS.md, section Amp). The
// document is {v, id, created, title, env:{initial:{trees:[{uri,
// repository:{url, ref, sha}}]}}, messages:[…]}; a message is {role,
// messageId, content:[blocks], state, usage, meta:{sentAt}} with
// Anthropic-like blocks, except that a tool result is {type:"tool_result",
// toolUseID, run:{status, result | error | reason}}. Written from readers
// of Amp threads (no real thread was available): the format is not
// verified on real files.
//
// Counting rules:
//   - a "user" message with text is a user turn; one holding only
//     tool_result blocks is the tools' answer, not a turn; an "assistant"
//     message is an assistant turn; "info" messages (summaries, notices)
//     are not turns;
//   - tool calls are the tool_use blocks, once per id; a tool result whose
//     run has status "error" is a tool error, and so is a result object
//     that records a non-zero exitCode (the Bash tool's); "cancelled" and
//     "rejected-by-user" (the user stopped or refused it) are not, and
//     such a call gets no result, only a note on the tool message, as it
//     never ran;
//   - tokens: each assistant message's usage once (inputTokens,
//     outputTokens, cacheReadInputTokens, cacheCreationInputTokens); a
//     thread whose messages carry no usage but which has the older
//     usageLedger.events counts those events' input and output instead;
//   - the model is the last assistant usage's; the cwd is the first
//     workspace tree's file URI; the repo and branch are that tree's
//     repository url and ref, when recorded;
//   - handoffs make new threads that continue the work; they are sessions
//     of their own (Amp's sub-agents run inside the thread and leave no
//     file), so nothing is folded.
//
// Outcome, from the last message that is not info: an assistant answer
// with no tool call pending is success, a cancelled one aborted, an
// errored one failure; the last tool results decide when they come last:
// an error is failure, a refused or cancelled call aborted; anything else
// is unknown.

// ampRoots: Amp's CLI and editor extensions share one data folder,
// $XDG_DATA_HOME/amp (~/.local/share/amp on Linux and macOS alike), with
// the threads in threads/. Older extension versions kept them in the
// editor's globalStorage/sourcegraph.amp/threads3 and move them when they
// start.
func ampRoots(e Env) []Root {
	out := []Root{{Agent: lore.AgentAmp, Path: filepath.Join(e.xdg("XDG_DATA_HOME", ".local", "share"), "amp", "threads"), Source: "default"}}
	if e.get("XDG_DATA_HOME") != "" {
		out[0].Source = "XDG_DATA_HOME"
	}
	config := filepath.Join(e.xdg("XDG_CONFIG_HOME", ".config"))
	if e.GOOS == "darwin" {
		config = e.macAppSupport()
	}
	for _, editor := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"} {
		out = append(out, Root{Agent: lore.AgentAmp, Path: filepath.Join(config, editor, "User", "globalStorage", "sourcegraph.amp", "threads3"), Source: "default"})
	}
	return out
}

// sniffAmp claims a thread by its id, T-<uuid>, beside a messages array
// and one of the thread's own fields.
func sniffAmp(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject || !strings.HasPrefix(string(doc.GetStringBytes("id")), "T-") {
		return false
	}
	msgs := doc.Get("messages")
	if msgs == nil || msgs.Type() != fastjson.TypeArray {
		return false
	}
	return has(doc, "v") || has(doc, "created") || has(doc, "env")
}

// turnEnd is what a transcript ended with, for the outcome.
type turnEnd uint8

const (
	endNothing turnEnd = iota
	endUser
	endAnswer    // assistant text, no tool call
	endCalling   // assistant tool calls, results not yet in
	endResults   // tool results, none failed
	endFailed    // a failed tool result, or an errored response
	endCancelled // a cancelled response or a refused tool call
)

// with is how a batch of tool results ends, given one more result's end:
// a failure outweighs a refusal, which outweighs a call still running.
func (e turnEnd) with(r turnEnd) turnEnd {
	rank := func(x turnEnd) int {
		switch x {
		case endFailed:
			return 4
		case endCancelled:
			return 3
		case endCalling:
			return 2
		case endResults:
			return 1
		}
		return 0
	}
	if rank(r) > rank(e) {
		return r
	}
	return e
}

func (e turnEnd) outcome() lore.Outcome {
	switch e {
	case endAnswer:
		return lore.OutcomeSuccess
	case endFailed:
		return lore.OutcomeFailure
	case endCancelled:
		return lore.OutcomeAborted
	}
	return lore.OutcomeUnknown
}

func readAmp(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	b := in.builder(lore.AgentAmp)
	b.setNative(str(doc, "id"))
	b.at(epoch(num(doc, "created")))
	ampEnv(b, doc.Get("env", "initial"))
	end := endNothing
	usages := 0
	for i, m := range doc.GetArray("messages") {
		if i&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		if m.Type() != fastjson.TypeObject {
			b.warn(0, errAmpMessage(i))
			continue
		}
		switch string(m.GetStringBytes("role")) {
		case "user":
			if e := ampUser(b, m); e != endNothing {
				end = e
			}
		case "assistant":
			if ampAssistant(b, m, &end) {
				usages++
			}
		case "info":
			if b.keep {
				if t := ampInfoText(m); t != "" {
					b.add(lore.Message{Role: lore.RoleSystem, Time: ampTime(m), Text: t})
				}
			}
		default:
			b.warn(0, errAmpMessage(i))
		}
	}
	if usages == 0 {
		for _, ev := range doc.GetArray("usageLedger", "events") {
			b.usage(lore.Usage{InputTokens: integer(ev, "tokens", "input"), OutputTokens: integer(ev, "tokens", "output")})
			b.at(timeOf(ev, "timestamp"))
			if m := str(ev, "model"); m != "" {
				b.s.Model = m
			}
		}
	}
	if b.s.MessageCount() == 0 && b.s.ToolCalls == 0 {
		return emptySession("an Amp thread with no messages")
	}
	b.s.Outcome = end.outcome()
	emit(b.finish(baseID(in.path)))
	return nil
}

type errAmpMessage int

func (e errAmpMessage) Error() string {
	return "message " + strconv.Itoa(int(e)) + " is not an Amp message; skipped"
}

// ampEnv takes the cwd, repo and branch from the thread's first workspace
// tree.
func ampEnv(b *builder, initial *fastjson.Value) {
	if initial == nil {
		return
	}
	if cwd := str(initial, "cwd"); cwd != "" {
		b.s.Cwd = cwd
	}
	trees := initial.GetArray("trees")
	if len(trees) == 0 {
		return
	}
	t := trees[0]
	if b.s.Cwd == "" {
		b.s.Cwd = fileURIPath(str(t, "uri"))
	}
	if u := str(t, "repository", "url"); u != "" {
		b.s.Repo = RepoFromURL(u)
	}
	if ref := str(t, "repository", "ref"); ref != "" {
		b.s.Branch = strings.TrimPrefix(ref, "refs/heads/")
	}
}

// ampTime is when a message was sent: meta.sentAt (milliseconds), else
// its usage's timestamp.
func ampTime(m *fastjson.Value) time.Time {
	if f := num(m, "meta", "sentAt"); f > 0 {
		return epoch(f)
	}
	if t := timeOf(m, "usage", "timestamp"); !t.IsZero() {
		return t
	}
	return timeOf(m, "timestamp")
}

// ampUser reads a user message: the user's text, and the tool results it
// carries. It returns how the transcript ends if it ends here.
func ampUser(b *builder, m *fastjson.Value) turnEnd {
	t := ampTime(m)
	var text []string
	var results []lore.ToolResult
	end := endNothing
	content := m.Get("content")
	if content != nil && content.Type() == fastjson.TypeString {
		text = append(text, string(content.GetStringBytes()))
	}
	var stopped string
	for _, c := range content.GetArray() {
		switch string(c.GetStringBytes("type")) {
		case "tool_result":
			r, e := ampResult(b, c)
			end = end.with(e)
			if e == endCancelled {
				// The call never ran: no result, only a note, so that
				// nothing reads it as a command that worked.
				stopped = joinText(stopped, r.Output)
				continue
			}
			results = append(results, r)
		case "text":
			if s := str(c, "text"); strings.TrimSpace(s) != "" {
				text = append(text, s)
			}
		case "image":
			text = append(text, "[image]")
		}
	}
	if len(results) > 0 || stopped != "" {
		m := lore.Message{Role: lore.RoleTool, Time: t, ToolResults: results}
		if b.keep {
			m.Text = stopped
		}
		b.add(m)
	}
	if len(text) > 0 {
		m := lore.Message{Role: lore.RoleUser, Time: t}
		if b.keep {
			m.Text = strings.Join(text, "\n")
		}
		b.add(m)
		return endUser
	}
	return end
}

// ampResult reads one tool_result block.
func ampResult(b *builder, c *fastjson.Value) (lore.ToolResult, turnEnd) {
	r := lore.ToolResult{CallID: str(c, "toolUseID")}
	if r.CallID == "" {
		r.CallID = str(c, "tool_use_id")
	}
	run := c.Get("run")
	end := endResults
	switch string(run.GetStringBytes("status")) {
	case "error":
		r.IsError, end = true, endFailed
		if b.keep {
			r.Output = raw(run, "error", "message")
			if r.Output == "" {
				r.Output = raw(run, "error")
			}
		}
	case "cancelled", "rejected-by-user":
		end = endCancelled
		if b.keep {
			r.Output = "[" + str(run, "status") + "] " + r.CallID + ": " + raw(run, "reason")
		}
	case "done":
		res := run.Get("result")
		if res != nil && res.Type() == fastjson.TypeObject {
			if code := optInt(res, "exitCode"); code != nil {
				r.ExitCode = code
				if *code != 0 {
					r.IsError, end = true, endFailed
				}
			}
		}
		if b.keep {
			r.Output = ampResultText(run)
		}
	default:
		// in-progress, blocked-on-user: the thread was saved
		// while the tool ran.
		end = endCalling
		if b.keep {
			r.Output = ampResultText(run)
		}
	}
	return r, end
}

// ampResultText is a finished run's output: a string result, the output
// field of an object result (Bash), else the result's JSON.
func ampResultText(run *fastjson.Value) string {
	res := run.Get("result")
	if res == nil || res.Type() == fastjson.TypeNull {
		return raw(run, "progress")
	}
	if res.Type() == fastjson.TypeObject {
		if o := res.Get("output"); o != nil && o.Type() == fastjson.TypeString {
			return string(o.GetStringBytes())
		}
	}
	return raw(run, "result")
}

// ampAssistant reads an assistant message and reports whether it carried
// usage.
func ampAssistant(b *builder, m *fastjson.Value, end *turnEnd) bool {
	msg := lore.Message{Role: lore.RoleAssistant, Time: ampTime(m)}
	text := anthropicBlocks(b, m.GetArray("content"), &msg)
	u := m.Get("usage")
	if model := str(u, "model"); model != "" {
		b.s.Model = model
		msg.Model = model
	}
	calls := len(msg.ToolCalls) > 0
	b.add(msg)
	switch string(m.GetStringBytes("state", "type")) {
	case "cancelled":
		*end = endCancelled
	case "error":
		*end = endFailed
	default:
		switch {
		case calls:
			*end = endCalling
		case text:
			*end = endAnswer
		}
	}
	if u == nil || u.Type() != fastjson.TypeObject {
		return false
	}
	b.usage(lore.Usage{
		InputTokens:      integer(u, "inputTokens"),
		OutputTokens:     integer(u, "outputTokens"),
		CacheReadTokens:  integer(u, "cacheReadInputTokens"),
		CacheWriteTokens: integer(u, "cacheCreationInputTokens"),
	})
	return true
}

// ampInfoText is the text of an info message: its text blocks, or the
// summary it holds.
func ampInfoText(m *fastjson.Value) string {
	var out string
	for _, c := range m.GetArray("content") {
		switch string(c.GetStringBytes("type")) {
		case "text":
			out = joinText(out, str(c, "text"))
		case "summary":
			if s := str(c, "summary", "summary"); s != "" {
				out = joinText(out, "[summary] "+s)
			} else if id := str(c, "summary", "thread"); id != "" {
				out = joinText(out, "[summary of thread "+id+"]")
			}
		}
	}
	return out
}
