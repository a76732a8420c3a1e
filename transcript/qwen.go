package transcript

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Qwen Code (QwenLM/qwen-code, a fork of Gemini CLI) records each session
// as JSON lines of ChatRecords in <runtime>/projects/<sanitised cwd>/
// chats/<sessionId>.jsonl (earlier builds: <runtime>/tmp/<project hash>/
// chats/), <runtime> being ~/.qwen or $QWEN_RUNTIME_DIR (FORMATS.md; writer
// packages/core/src/services/chatRecordingService.ts and
// packages/core/src/config/storage.ts). Every line is one record:
// {uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, version,
// gitBranch?, message?:{role, parts}, usageMetadata?, model?,
// toolCallResult?, systemPayload?, isSidechain?}. The parts are Gemini API
// parts (text, thought, functionCall, functionResponse), read with the
// Gemini reader's helpers. Written from the writer's code only: no real
// Qwen Code file has been read.
//
// Counting rules:
//   - a "user" record is a user turn, except the ones the CLI itself
//     writes as a user message (subtype notification, cron, goal_runtime),
//     which are system messages; an "assistant" record is an assistant turn
//     (one per model response); records with isSidechain (a sub-agent's)
//     are kept but are not turns. The file is an append-only tree
//     (uuid/parentUuid): a rewind re-roots the chain and leaves the
//     rewound records on a dead branch, but they did happen, so every
//     record counts, as in the Gemini reader's $set rule;
//   - tool calls are the functionCall parts of assistant records, once per
//     id; a tool call failed when its tool_result record says so: the
//     functionResponse carries "error", or toolCallResult has status
//     "error" or a non-null error; a shell command whose output ends with a
//     non-zero "Exit Code:" failed too. "cancelled" (the user stopped it)
//     is no error;
//   - tokens: each assistant record's usageMetadata once per uuid, in the
//     Gemini API shape (promptTokenCount, candidatesTokenCount,
//     cachedContentTokenCount, thoughtsTokenCount, toolUsePromptTokenCount)
//     or the earlier summary ({input, output, cached, thoughts, tool}), by
//     the Gemini rule: input − cached + tool is input, cached is cache
//     read, output + thoughts is output;
//   - cwd, version and the native id are the first record's; branch and
//     model are the last recorded.
//
// Outcome, from the last main-chain record that says something: a
// system turn_result record says it outright (completed, cancelled,
// error); else an assistant answer with no call is success, a failed tool
// result failure, a cancelled one aborted, and a user message or a call
// still waiting unknown.

// /chat save checkpoints (<runtime>/tmp/<project hash>/checkpoint-<tag>.json,
// the Gemini fork's core/logger.ts) keep Gemini's checkpoint shape and are
// read by the Gemini checkpoint reader, under Gemini's counting rules; they
// are told from Gemini's by the setup message the CLI puts first ("This is
// the Qwen Code. We are setting up the context for our chat.",
// core/prompts environment context).

// qwenRoots: the runtime folder is $QWEN_RUNTIME_DIR when set, else
// ~/.qwen (Storage.getRuntimeBaseDir; a settings.json value can move it
// too, which lore does not read). Sessions are under its projects/ (and
// tmp/ in builds before the move). The same on Linux and macOS.
func qwenRoots(e Env) []Root {
	base, source := e.home(".qwen"), "default"
	if v := e.get("QWEN_RUNTIME_DIR"); v != "" && filepath.IsAbs(v) {
		base, source = v, "QWEN_RUNTIME_DIR"
	}
	return []Root{
		{Agent: lore.AgentQwenCode, Path: filepath.Join(base, "projects"), Source: source},
		{Agent: lore.AgentQwenCode, Path: filepath.Join(base, "tmp"), Source: source},
	}
}

// sniffQwen claims a ChatRecord line. Claude Code's lines share uuid,
// sessionId, type, cwd and version, so the claim rests on what only Qwen
// writes: a message of Gemini "parts" (Claude's has "content"), a
// tool_result record, a systemPayload or a toolCallResult.
func sniffQwen(_ string, v *fastjson.Value) bool {
	if !geminiIsString(v, "uuid") || !geminiIsString(v, "sessionId") || !geminiIsString(v, "timestamp") {
		return false
	}
	switch string(v.GetStringBytes("type")) {
	case "user", "assistant", "tool_result", "system":
	default:
		return false
	}
	if p := v.Get("message", "parts"); p != nil && p.Type() == fastjson.TypeArray {
		return true
	}
	for _, k := range []string{"systemPayload", "toolCallResult"} {
		if x := v.Get(k); x != nil && x.Type() == fastjson.TypeObject {
			return true
		}
	}
	return false
}

type qwenEnd uint8

const (
	qwenEndNone qwenEnd = iota
	qwenEndText
	qwenEndPending // a call or a result the model has not answered
	qwenEndFailed
	qwenEndCancelled
	qwenEndCompleted
)

type qwenReader struct {
	b       *builder
	native  string
	model   string
	branch  string
	scored  idSet // assistant uuids whose tokens are counted
	last    qwenEnd
	records int // user, assistant and tool_result records
}

func readQwen(ctx context.Context, in *input, emit emitFunc) error {
	r := &qwenReader{b: in.builder(lore.AgentQwenCode)}
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	err = eachJSONLine(ctx, rc, in.parser(), r.b.warn, func(_ int, v *fastjson.Value) error {
		if v.Type() == fastjson.TypeObject {
			r.record(v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r.records == 0 {
		return emptySession("a Qwen Code session with no messages")
	}
	s := r.b.s
	s.Model, s.Branch = r.model, r.branch
	switch r.last {
	case qwenEndText, qwenEndCompleted:
		s.Outcome = lore.OutcomeSuccess
	case qwenEndFailed:
		s.Outcome = lore.OutcomeFailure
	case qwenEndCancelled:
		s.Outcome = lore.OutcomeAborted
	}
	r.b.setNative(r.native)
	emit(r.b.finish(baseID(in.path)))
	return nil
}

func (r *qwenReader) record(v *fastjson.Value) {
	b := r.b
	if r.native == "" {
		r.native = str(v, "sessionId")
	}
	if b.s.Cwd == "" {
		b.s.Cwd = str(v, "cwd")
	}
	if br := v.GetStringBytes("gitBranch"); len(br) > 0 && string(br) != r.branch {
		r.branch = string(br)
	}
	t := timeOf(v, "timestamp")
	side := v.GetBool("isSidechain")
	parts := v.GetArray("message", "parts")
	switch string(v.GetStringBytes("type")) {
	case "user":
		r.records++
		role := lore.RoleUser
		switch string(v.GetStringBytes("subtype")) {
		case "notification", "cron", "goal_runtime":
			role = lore.RoleSystem
		}
		m := lore.Message{Role: role, Time: t, Sidechain: side}
		if b.keep {
			m.Text = qwenPartsText(parts)
			if role == lore.RoleSystem && m.Text == "" {
				m.Text = str(v, "systemPayload", "displayText")
			}
		}
		b.add(m)
		if !side && role == lore.RoleUser {
			r.last = qwenEndNone
		}
	case "assistant":
		r.records++
		r.assistant(v, parts, t, side)
	case "tool_result":
		r.records++
		r.toolResult(v, parts, t, side)
	case "system":
		b.at(t)
		if is(v, "turn_result", "subtype") && !side {
			switch string(v.GetStringBytes("systemPayload", "state")) {
			case "completed":
				r.last = qwenEndCompleted
			case "cancelled":
				r.last = qwenEndCancelled
			case "error":
				r.last = qwenEndFailed
			}
		}
	}
}

func (r *qwenReader) assistant(v *fastjson.Value, parts []*fastjson.Value, t time.Time, side bool) {
	b := r.b
	if model := v.GetStringBytes("model"); len(model) > 0 && string(model) != r.model {
		r.model = string(model)
	}
	if u := v.Get("usageMetadata"); u != nil && u.Type() == fastjson.TypeObject && newUUID(&r.scored, v) {
		b.usage(qwenUsage(u))
	}
	m := lore.Message{Role: lore.RoleAssistant, Time: t, Sidechain: side}
	if b.keep {
		m.Model = r.model
	}
	text := false
	for _, p := range parts {
		switch {
		case has(p, "functionCall"):
			fc := p.Get("functionCall")
			c := lore.ToolCall{ID: str(fc, "id")}
			if b.keep {
				c.Name, c.Input = str(fc, "name"), raw(fc, "args")
			}
			m.ToolCalls = append(m.ToolCalls, c)
		case p.GetBool("thought"):
			if b.keep {
				m.Thinking = joinText(m.Thinking, str(p, "text"))
			}
		case geminiHasText(p):
			text = true
			if b.keep {
				m.Text = joinText(m.Text, str(p, "text"))
			}
		}
	}
	b.add(m)
	if side {
		return
	}
	switch {
	case len(m.ToolCalls) > 0:
		r.last = qwenEndPending
	case text:
		r.last = qwenEndText
	}
}

// newUUID reports whether the record's uuid is new to set, so its tokens
// count once; a record without a uuid always counts.
func newUUID(set *idSet, v *fastjson.Value) bool {
	id := v.GetStringBytes("uuid")
	if len(id) == 0 {
		return true
	}
	if set.has(id) {
		return false
	}
	return set.add(string(id))
}

// qwenUsage reads usageMetadata in either shape the CLI has written.
func qwenUsage(u *fastjson.Value) lore.Usage {
	var in, out, cached, thoughts, tool int64
	if has(u, "promptTokenCount") || has(u, "candidatesTokenCount") {
		in, out = integer(u, "promptTokenCount"), integer(u, "candidatesTokenCount")
		cached, thoughts, tool = integer(u, "cachedContentTokenCount"), integer(u, "thoughtsTokenCount"), integer(u, "toolUsePromptTokenCount")
	} else {
		in, out = integer(u, "input"), integer(u, "output")
		cached, thoughts, tool = integer(u, "cached"), integer(u, "thoughts"), integer(u, "tool")
	}
	cached = min(max(cached, 0), max(in, 0))
	return lore.Usage{
		InputTokens:     max(in-cached, 0) + max(tool, 0),
		CacheReadTokens: cached,
		OutputTokens:    max(out, 0) + max(thoughts, 0),
	}
}

func (r *qwenReader) toolResult(v *fastjson.Value, parts []*fastjson.Value, t time.Time, side bool) {
	b := r.b
	tcr := v.Get("toolCallResult")
	status := string(tcr.GetStringBytes("status"))
	failed := status == "error" || (has(tcr, "error") && tcr.Get("error").Type() != fastjson.TypeNull)
	m := lore.Message{Role: lore.RoleTool, Time: t, Sidechain: side}
	for _, p := range parts {
		fr := p.Get("functionResponse")
		if fr == nil {
			continue
		}
		res := lore.ToolResult{CallID: str(fr, "id"), IsError: failed || has(fr, "response", "error")}
		if res.CallID == "" {
			res.CallID = str(tcr, "callId")
		}
		if !res.IsError && string(fr.GetStringBytes("name")) == geminiShell {
			if code, ok := geminiExitCode(string(fr.GetStringBytes("response", "output"))); ok {
				res.ExitCode, res.IsError = &code, code != 0
			}
		}
		if b.keep {
			if has(fr, "response", "error") {
				res.Output = raw(fr, "response", "error")
			} else {
				res.Output = raw(fr, "response", "output")
			}
			if res.Output == "" {
				if d := tcr.Get("resultDisplay"); d != nil && d.Type() == fastjson.TypeString {
					res.Output = string(d.GetStringBytes())
				}
			}
		}
		m.ToolResults = append(m.ToolResults, res)
	}
	if len(m.ToolResults) == 0 && tcr != nil && has(tcr, "callId") {
		// A result recorded with no functionResponse part: the metadata
		// alone says which call it answers.
		m.ToolResults = append(m.ToolResults, lore.ToolResult{CallID: str(tcr, "callId"), IsError: failed})
	}
	b.add(m)
	if side {
		return
	}
	r.last = qwenEndPending
	for _, res := range m.ToolResults {
		if res.IsError {
			r.last = qwenEndFailed
		}
	}
	if status == "cancelled" {
		r.last = qwenEndCancelled
	}
}

// qwenPartsText joins the text parts of a user message, leaving out
// thoughts and function responses.
func qwenPartsText(parts []*fastjson.Value) string {
	var out string
	for _, p := range parts {
		if has(p, "functionResponse") {
			continue
		}
		out = joinText(out, geminiText(p))
	}
	return out
}

const qwenSetupPrefix = "This is the Qwen Code. We are setting up the context for our chat."

// sniffQwenCheckpoint claims a Gemini-shaped checkpoint whose first entry
// is Qwen Code's setup message (some builds wrap it in a
// <system-reminder>, so it is looked for near the start).
func sniffQwenCheckpoint(name string, doc *fastjson.Value) bool {
	if !sniffGeminiCheckpoint(name, doc) {
		return false
	}
	hist := geminiCheckpointHistory(doc)
	text := geminiText(hist[0].Get("parts"))
	if len(text) > 4096 {
		text = text[:4096]
	}
	return strings.Contains(text, qwenSetupPrefix)
}

func readQwenCheckpoint(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	return readCheckpointOf(ctx, in, doc, emit, lore.AgentQwenCode, qwenSetupPrefix)
}
