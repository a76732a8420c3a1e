package transcript

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// OpenAI Codex CLI: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl
// (also .jsonl.zst, and archived_sessions/), FORMATS.md section 2. Three
// shapes are read:
//   - rollouts since ~0.3x: one {timestamp, type, payload} envelope a line
//     (session_meta, turn_context, response_item, event_msg, compacted, …);
//   - the "bare era" before it: a first line {id, timestamp, instructions,
//     git}, {"record_type":"state"} markers, then bare ResponseItems;
//   - the TypeScript CLI's single JSON {"session":{…},"items":[…]}.
//
// Codex writes most things twice: a response_item message and an event_msg
// agent_message/user_message, a function_call_output and an exec_command_end.
// Turns and tool calls come from the response_item channel alone, because it
// is the only one every shape has; events only add what items lack.
//
// Counting rules:
//   - a user turn is a response_item message of role user holding text or an
//     image the user gave; the context Codex injects as role user
//     (<environment_context>, <user_instructions>, "# AGENTS.md instructions
//     for …", <skill>, <user_shell_command>, <turn_aborted>,
//     <subagent_notification>, …) is not a turn; developer and system
//     messages are not turns;
//   - an assistant turn is one model response: a run of consecutive model
//     output items (reasoning, assistant message, function_call,
//     custom_tool_call, local_shell_call, web_search_call, …), ended by
//     anything else (a tool output, a user message, token_count, a task or
//     turn event, turn_context, compacted). Codex records no response ids, so
//     the run is the response;
//   - a tool call is a call item, counted once per call_id; its result is the
//     matching *_output item;
//   - a tool error is a call the agent marked failed, once per call id,
//     whichever record says so: a non-zero exit code in exec_command_end
//     (not for the user's own "!cmd" shell), a failed patch_apply_end, an MCP
//     call ending in an error, or an output that says so itself — the 0.4x
//     JSON {"output","metadata":{"exit_code"}}, the newer "Exit code: N" and
//     "Process exited with code N" headers, and Codex's own "failed in
//     sandbox:" and "apply_patch verification failed:" prefixes. A call the
//     user declined is not an error;
//   - tokens: token_count events carry the session's running total
//     (total_token_usage); the last total is the session's usage. Codex's
//     input_tokens includes cached_input_tokens, so InputTokens is
//     input_tokens − cached_input_tokens and CacheReadTokens is
//     cached_input_tokens (as with Claude, where input excludes cache reads);
//     OutputTokens is output_tokens, which already includes reasoning tokens.
//     A total that goes down (a resumed process starting again from zero)
//     adds the previous total to the sum, so nothing is lost or counted
//     twice;
//   - a "thread_rolled_back" undo does not remove turns: they happened.
//
// Outcome, from the last of these in the file: task_complete (turn_complete)
// is success; turn_aborted is aborted; an error or stream_error event is
// failure. Files that carry no such events (0.4x did not persist
// task_complete, and the bare and TypeScript shapes have no events) fall back
// to their items, as for Claude Code: an assistant answer with no tool call
// pending is success, a failed tool output nobody answered is failure, and a
// tool call in flight or an unanswered user message is unknown.

// codexRoots: $CODEX_HOME (default ~/.codex) holds sessions/ and
// archived_sessions/ (codex-rs rollout crate, recorder.rs and list.rs; the
// same on Linux and macOS).
func codexRoots(e Env) []Root {
	home, src := e.home(".codex"), "default"
	if v := e.get("CODEX_HOME"); v != "" {
		home, src = v, "CODEX_HOME"
	}
	return []Root{
		{Agent: lore.AgentCodex, Path: filepath.Join(home, "sessions"), Source: src},
		{Agent: lore.AgentCodex, Path: filepath.Join(home, "archived_sessions"), Source: src},
	}
}

// codexEnvelopeTypes are the RolloutItem kinds a rollout line's envelope
// names.
var codexEnvelopeTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "inter_agent_communication": true,
	"inter_agent_communication_metadata": true, "token_usage_record": true,
	"retained_context": true, "security_risk_score": true, "realtime_item": true,
}

func sniffCodex(_ string, v *fastjson.Value) bool {
	typ := string(v.GetStringBytes("type"))
	if codexEnvelopeTypes[typ] {
		p := v.Get("payload")
		return p != nil && p.Type() == fastjson.TypeObject && has(v, "timestamp")
	}
	return typ == "" && codexBareMeta(v)
}

// codexBareMeta reports whether v is the first line of a bare-era rollout:
// {"id","timestamp","instructions","git"} and nothing of other formats.
func codexBareMeta(v *fastjson.Value) bool {
	if has(v, "type") || has(v, "role") || has(v, "sessionId") || has(v, "source") {
		return false
	}
	id, ts := v.Get("id"), v.Get("timestamp")
	if id == nil || id.Type() != fastjson.TypeString || ts == nil || ts.Type() != fastjson.TypeString {
		return false
	}
	if g := v.Get("git"); g != nil && g.Type() == fastjson.TypeObject {
		return true
	}
	return has(v, "instructions")
}

func sniffCodexTS(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject {
		return false
	}
	sess, items := doc.Get("session"), doc.Get("items")
	if sess == nil || sess.Type() != fastjson.TypeObject || items == nil || items.Type() != fastjson.TypeArray {
		return false
	}
	if id := sess.Get("id"); id == nil || id.Type() != fastjson.TypeString {
		return false
	}
	arr := items.GetArray()
	return len(arr) == 0 || codexItemTypes[string(arr[0].GetStringBytes("type"))]
}

// codexItemTypes are the ResponseItem kinds, as a bare-era line or a
// TypeScript item names them.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "tool_search_call": true, "tool_search_output": true,
	"image_generation_call": true, "ghost_snapshot": true, "compaction": true,
	"context_compaction": true, "agent_message": true, "additional_tools": true,
}

type codexEnd int

const (
	codexEndNone codexEnd = iota
	codexEndUser
	codexEndText
	codexEndToolUse
	codexEndToolResult
	codexEndToolError
	codexEndComplete
	codexEndAborted
	codexEndError
)

// codexTotal is a token_count running total.
type codexTotal struct{ input, cached, output int64 }

type codexReader struct {
	b    *builder
	in   *input
	keep bool

	native string
	model  string
	branch string

	// The model response being gathered (see the counting rules).
	run     lore.Message
	runOpen bool
	runText bool

	// failed holds call ids an event marked failed, with the exit code
	// when known, until their output (or the end) is seen; see failCall.
	failed map[string]*int

	last, base codexTotal
	end        codexEnd

	// aux parses JSON inside tool outputs; the input's parser holds the
	// current line.
	aux fastjson.Parser
}

func newCodexReader(in *input) *codexReader {
	return &codexReader{b: in.builder(lore.AgentCodex), in: in, keep: in.opts.Messages}
}

func readCodex(ctx context.Context, in *input, emit emitFunc) error {
	r := newCodexReader(in)
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	err = eachJSONLine(ctx, rc, in.parser(), r.b.warn, func(_ int, v *fastjson.Value) error {
		r.line(v)
		return nil
	})
	if err != nil {
		return err
	}
	return r.emit(emit)
}

// emit finishes the session; one with no turn and no tool call (Codex
// started and quit) is no transcript.
func (r *codexReader) emit(emit emitFunc) error {
	s := r.finish()
	if s.MessageCount() == 0 && s.ToolCalls == 0 {
		return emptySession("a Codex session with no turns")
	}
	emit(r.b.finish(codexFileID(r.in.path)))
	return nil
}

func readCodexTS(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	r := newCodexReader(in)
	sess := doc.Get("session")
	r.native = str(sess, "id")
	r.b.at(timeOf(sess, "timestamp"))
	for i, it := range doc.GetArray("items") {
		if i&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		if it.Type() == fastjson.TypeObject {
			r.item(it, time.Time{})
		}
	}
	return r.emit(emit)
}

// line reads one line of an envelope or bare-era rollout.
func (r *codexReader) line(v *fastjson.Value) {
	if v.Type() != fastjson.TypeObject {
		return
	}
	typ := string(v.GetStringBytes("type"))
	p := v.Get("payload")
	if p == nil || p.Type() != fastjson.TypeObject || !codexEnvelopeTypes[typ] {
		// Bare era: state markers, the meta line, bare ResponseItems.
		switch {
		case has(v, "record_type"):
		case codexItemTypes[typ]:
			r.item(v, time.Time{})
		case typ == "" && r.native == "" && codexBareMeta(v):
			r.meta(v)
		}
		return
	}
	t := timeOf(v, "timestamp")
	r.b.at(t)
	switch typ {
	case "session_meta":
		r.meta(p)
	case "turn_context":
		r.close()
		if m := p.GetStringBytes("model"); len(m) > 0 && string(m) != r.model {
			r.model = string(m)
		}
		if r.b.s.Cwd == "" {
			r.b.s.Cwd = str(p, "cwd")
		}
	case "response_item":
		r.item(p, t)
	case "event_msg":
		r.event(p, t)
	case "compacted":
		r.close()
		if r.keep {
			r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: "[compacted]"})
		}
	}
}

// meta reads session_meta's payload or the bare era's first line. Forks
// and resumes may repeat it; the first names this file's session.
func (r *codexReader) meta(p *fastjson.Value) {
	r.b.at(timeOf(p, "timestamp"))
	if r.native != "" {
		return
	}
	r.native = str(p, "id")
	s := r.b.s
	if s.Cwd == "" {
		s.Cwd = str(p, "cwd")
	}
	if br := str(p, "git", "branch"); br != "" {
		r.branch = br
	}
	if u := str(p, "git", "repository_url"); u != "" {
		s.Repo = RepoFromURL(u)
	}
}

// item reads one ResponseItem, enveloped or bare.
func (r *codexReader) item(p *fastjson.Value, t time.Time) {
	typ := p.GetStringBytes("type")
	switch string(typ) {
	case "message":
		switch string(p.GetStringBytes("role")) {
		case "assistant":
			r.open(t)
			content := p.Get("content")
			if codexHasText(content) {
				r.runText = true
			}
			if r.keep {
				r.run.Text = joinText(r.run.Text, contentText(content))
			}
		case "user":
			r.close()
			r.user(p, t)
		default: // developer, system: instructions, not turns
			r.close()
			if r.keep {
				r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(p.Get("content"))})
			}
		}
	case "reasoning":
		r.open(t)
		if r.keep {
			r.run.Thinking = joinText(r.run.Thinking, codexReasoning(p))
		}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call",
		"tool_search_call", "image_generation_call":
		r.open(t)
		c := lore.ToolCall{ID: codexCallID(p)}
		if r.keep {
			c.Name, c.Input = codexCallBody(string(typ), p)
		}
		r.run.ToolCalls = append(r.run.ToolCalls, c)
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		r.close()
		r.output(p, t)
	default:
		// ghost snapshots, compaction items, tool lists: not turns.
		r.close()
	}
}

// open starts gathering a model response unless one is open.
func (r *codexReader) open(t time.Time) {
	if r.runOpen {
		return
	}
	r.runOpen, r.runText = true, false
	r.run.Role, r.run.Time = lore.RoleAssistant, t
	if r.keep {
		r.run.Model = r.model
	}
}

// close ends the model response being gathered and records it as one
// assistant turn.
func (r *codexReader) close() {
	if !r.runOpen {
		return
	}
	r.runOpen = false
	switch {
	case len(r.run.ToolCalls) > 0:
		r.end = codexEndToolUse
	case r.runText:
		r.end = codexEndText
	}
	// Events may have marked a call failed before the call was counted.
	for _, c := range r.run.ToolCalls {
		if _, bad := r.failed[c.ID]; bad && c.ID != "" {
			r.b.fail(c.ID)
		}
	}
	r.b.add(r.run)
	if r.keep {
		r.run = lore.Message{}
	} else {
		r.run.ToolCalls = r.run.ToolCalls[:0]
	}
}

func (r *codexReader) user(p *fastjson.Value, t time.Time) {
	content := p.Get("content")
	real, injected := false, false
	var text string
	items := content.GetArray()
	if content != nil && content.Type() == fastjson.TypeString {
		items = []*fastjson.Value{content}
	}
	for _, it := range items {
		var tb []byte
		switch {
		case it.Type() == fastjson.TypeString:
			tb = it.GetStringBytes()
		case is(it, "input_image", "type"), is(it, "image", "type"):
			real = true
			if r.keep {
				text = joinText(text, "[image]")
			}
			continue
		default:
			tb = it.GetStringBytes("text")
		}
		if len(bytes.TrimSpace(tb)) == 0 {
			continue
		}
		if codexInjected(tb) {
			injected = true
			if r.b.s.Cwd == "" {
				r.b.s.Cwd = codexEnvCwd(tb)
			}
		} else {
			real = true
		}
		if r.keep {
			text = joinText(text, string(tb))
		}
	}
	switch {
	case real:
		r.end = codexEndUser
		r.b.add(lore.Message{Role: lore.RoleUser, Time: t, Text: text})
	case injected && r.keep:
		r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: text})
	default:
		r.b.at(t)
	}
}

// output reads a tool call's output item.
func (r *codexReader) output(p *fastjson.Value, t time.Time) {
	id := p.GetStringBytes("call_id")
	o := p.Get("output")
	isErr, code, hasCode := codexOutputFailed(o, &r.aux)
	var evCode *int
	if ec, bad := r.failed[string(id)]; bad && len(id) > 0 {
		delete(r.failed, string(id))
		isErr, evCode = true, ec
	}
	if isErr {
		r.end = codexEndToolError
	} else {
		r.end = codexEndToolResult
	}
	if !r.keep {
		if isErr {
			r.b.failBytes(id)
		}
		r.b.at(t)
		return
	}
	res := lore.ToolResult{CallID: string(id), IsError: isErr, ExitCode: evCode, Output: codexOutputText(o, &r.aux)}
	if hasCode {
		res.ExitCode = &code
	}
	r.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}})
}

func (r *codexReader) event(p *fastjson.Value, t time.Time) {
	switch string(p.GetStringBytes("type")) {
	case "token_count":
		info := p.Get("info")
		if info == nil || info.Type() != fastjson.TypeObject {
			return
		}
		r.close()
		if tot := info.Get("total_token_usage"); tot != nil {
			r.total(codexTotal{
				input:  integer(tot, "input_tokens"),
				cached: integer(tot, "cached_input_tokens"),
				output: integer(tot, "output_tokens"),
			})
		}
	case "task_started", "turn_started", "user_message":
		r.close()
	case "task_complete", "turn_complete":
		r.close()
		r.outcome(codexEndComplete)
	case "turn_aborted":
		r.close()
		r.outcome(codexEndAborted)
	case "error", "stream_error":
		r.close()
		r.outcome(codexEndError)
		if r.keep {
			r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: "[" + str(p, "type") + "] " + str(p, "message")})
		}
	case "exec_command_end":
		if is(p, "user_shell", "source") {
			return // the user's own "!cmd", not a tool call
		}
		if code := optInt(p, "exit_code"); code != nil && *code != 0 {
			r.failCall(str(p, "call_id"), code)
		}
	case "patch_apply_end":
		if x := p.Get("success"); x != nil && x.Type() == fastjson.TypeFalse {
			r.failCall(str(p, "call_id"), nil)
		}
	case "mcp_tool_call_end":
		res := p.Get("result")
		if res == nil {
			return
		}
		if has(res, "Err") || boolean(res, "Ok", "isError") || boolean(res, "Ok", "is_error") {
			r.failCall(str(p, "call_id"), nil)
		}
	}
}

// outcome records an outcome event; items after it decide again.
func (r *codexReader) outcome(e codexEnd) { r.end = e }

// failCall marks a tool call failed. Codex writes the *_end event between
// the call and its output, so the mark waits in r.failed for the output,
// which takes it; a call still in the open response is counted when the
// response closes, and marks no output took are counted at the end.
func (r *codexReader) failCall(id string, code *int) {
	if id == "" {
		return
	}
	if r.failed == nil {
		r.failed = make(map[string]*int)
	}
	if _, seen := r.failed[id]; !seen {
		r.failed[id] = code
	}
}

// total takes a token_count running total.
func (r *codexReader) total(t codexTotal) {
	if t.input < r.last.input || t.output < r.last.output {
		// The count started again (a resumed process): keep what came
		// before.
		r.base.input += r.last.input
		r.base.cached += r.last.cached
		r.base.output += r.last.output
	}
	r.last = t
}

func (r *codexReader) finish() *lore.Session {
	r.close()
	for id := range r.failed {
		r.b.fail(id) // once per id: the builder counts each call once
	}
	s := r.b.s
	in, cached, out := r.base.input+r.last.input, r.base.cached+r.last.cached, r.base.output+r.last.output
	if cached > in {
		cached = in
	}
	s.Usage = lore.Usage{InputTokens: in - cached, CacheReadTokens: cached, OutputTokens: out}
	s.Model = r.model
	s.Branch = r.branch
	r.b.setNative(r.native)
	switch r.end {
	case codexEndText, codexEndComplete:
		s.Outcome = lore.OutcomeSuccess
	case codexEndAborted:
		s.Outcome = lore.OutcomeAborted
	case codexEndToolError, codexEndError:
		s.Outcome = lore.OutcomeFailure
	}
	return s
}

// codexCallID is a call item's id: call_id, else id (web searches have only
// an id, or none).
func codexCallID(p *fastjson.Value) string {
	if id := p.GetStringBytes("call_id"); len(id) > 0 {
		return string(id)
	}
	return string(p.GetStringBytes("id"))
}

// codexCallBody returns a call item's tool name and input.
func codexCallBody(typ string, p *fastjson.Value) (name, input string) {
	switch typ {
	case "function_call":
		return str(p, "namespace") + str(p, "name"), raw(p, "arguments")
	case "custom_tool_call":
		return str(p, "name"), raw(p, "input")
	case "local_shell_call":
		return "local_shell", raw(p, "action")
	case "web_search_call":
		return "web_search", raw(p, "action")
	case "tool_search_call":
		return "tool_search", raw(p, "arguments")
	}
	return typ, ""
}

// codexHasText reports whether a message's content holds any text.
func codexHasText(content *fastjson.Value) bool {
	if content == nil {
		return false
	}
	if content.Type() == fastjson.TypeString {
		return len(bytes.TrimSpace(content.GetStringBytes())) > 0
	}
	for _, it := range content.GetArray() {
		if len(bytes.TrimSpace(it.GetStringBytes("text"))) > 0 {
			return true
		}
	}
	return false
}

// codexReasoning is the readable part of a reasoning item: its summaries,
// and its content when the provider exposed it.
func codexReasoning(p *fastjson.Value) string {
	var out string
	for _, s := range p.GetArray("summary") {
		out = joinText(out, str(s, "text"))
	}
	for _, c := range p.GetArray("content") {
		out = joinText(out, str(c, "text"))
	}
	return out
}

// codexInjectedTags are the tags of the context Codex sends with role
// user (codex-rs core contextual_user_message.rs and its forerunners).
var codexInjectedTags = []string{
	"environment_context", "user_instructions", "skill", "user_shell_command",
	"turn_aborted", "subagents", "subagent_notification", "hook_prompt",
	"instructions", "permissions instructions", "collaboration_mode", "skills_instructions",
}

// codexInjected reports whether a user text item is context Codex injected
// rather than something the user wrote.
func codexInjected(text []byte) bool {
	t := bytes.TrimLeft(text, " \t\r\n")
	if bytes.HasPrefix(t, []byte("# AGENTS.md instructions for ")) || bytes.HasPrefix(t, []byte("# AGENTS instructions for ")) {
		return true
	}
	if len(t) < 3 || t[0] != '<' {
		return false
	}
	end := bytes.IndexAny(t, "> \n")
	if end < 0 {
		return false
	}
	tag := t[1:end]
	if t[end] == ' ' { // "<permissions instructions>"
		if e2 := bytes.IndexByte(t, '>'); e2 > 0 && e2 < 40 {
			tag = t[1:e2]
		}
	}
	for _, want := range codexInjectedTags {
		if len(tag) == len(want) && strings.EqualFold(string(tag), want) {
			return true
		}
	}
	return false
}

// codexEnvCwd returns the <cwd> of an <environment_context> block.
func codexEnvCwd(text []byte) string {
	i := bytes.Index(text, []byte("<cwd>"))
	if i < 0 {
		return ""
	}
	rest := text[i+len("<cwd>"):]
	j := bytes.Index(rest, []byte("</cwd>"))
	if j < 0 || j > 4096 {
		return ""
	}
	return string(bytes.TrimSpace(rest[:j]))
}

// codexOutputFailed reports whether a tool output says its call failed,
// and the exit code when it names one (ok). p parses JSON found in the
// output.
func codexOutputFailed(o *fastjson.Value, p *fastjson.Parser) (bad bool, code int, ok bool) {
	if o == nil {
		return false, 0, false
	}
	switch o.Type() {
	case fastjson.TypeObject:
		// {content, success}, from builds that wrote the payload whole.
		if x := o.Get("success"); x != nil && x.Type() == fastjson.TypeFalse {
			return true, 0, false
		}
		return codexTextFailed(o.GetStringBytes("content"), p)
	case fastjson.TypeArray:
		for _, it := range o.GetArray() {
			if bad, code, ok := codexTextFailed(it.GetStringBytes("text"), p); bad || ok {
				return bad, code, ok
			}
		}
		return false, 0, false
	case fastjson.TypeString:
		return codexTextFailed(o.GetStringBytes(), p)
	}
	return false, 0, false
}

var (
	codexTotalLines  = []byte("Total output lines:")
	codexSandboxFail = []byte("failed in sandbox:")
	codexPatchFail   = []byte("apply_patch verification failed")
	codexExitCode    = []byte("Exit code:")
	codexExited      = []byte("Process exited with code")
	codexOutputMark  = []byte("Output:")
	codexMetadataKey = []byte(`"metadata"`)
)

// codexTextFailed reads the failure markers Codex puts at the start of a
// tool output's text (see the counting rules). Only Codex's own header is
// read: what follows "Output:" is the command's output.
func codexTextFailed(text []byte, p *fastjson.Parser) (bad bool, code int, ok bool) {
	t := bytes.TrimLeft(text, " \t\r\n")
	if len(t) == 0 {
		return false, 0, false
	}
	if t[0] == '{' {
		code, ok := codexMetadataExit(t, p)
		return ok && code != 0, code, ok
	}
	if bytes.HasPrefix(t, codexTotalLines) {
		// A truncated output's notice comes first.
		if i := bytes.IndexByte(t, '\n'); i > 0 {
			t = bytes.TrimLeft(t[i:], " \t\r\n")
		}
	}
	if bytes.HasPrefix(t, codexSandboxFail) || bytes.HasPrefix(t, codexPatchFail) {
		return true, 0, false
	}
	for n := 0; n < 8 && len(t) > 0; n++ {
		line, rest := t, []byte(nil)
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			line, rest = t[:i], t[i+1:]
		}
		line = bytes.TrimSpace(line)
		var num []byte
		switch {
		case bytes.Equal(line, codexOutputMark):
			return false, 0, false
		case bytes.HasPrefix(line, codexExitCode):
			num = line[len(codexExitCode):]
		case bytes.HasPrefix(line, codexExited):
			num = line[len(codexExited):]
		}
		if num != nil {
			c, err := strconv.Atoi(string(bytes.TrimSpace(num)))
			if err != nil {
				return false, 0, false
			}
			return c != 0, c, true
		}
		t = rest
	}
	return false, 0, false
}

// codexMetadataExit reads metadata.exit_code from a 0.4x output
// {"output":"…","metadata":{"exit_code":1,"duration_seconds":0.3}}. Serde
// writes metadata last, and a "metadata" key inside the output string would
// be escaped, so the last unescaped key is the real one; only that small
// object is parsed, not the whole output.
func codexMetadataExit(t []byte, p *fastjson.Parser) (code int, ok bool) {
	i := bytes.LastIndex(t, codexMetadataKey)
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(t[i+len(codexMetadataKey):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return 0, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	j := bytes.IndexByte(rest, '}')
	if len(rest) == 0 || rest[0] != '{' || j < 0 {
		return 0, false
	}
	v, err := p.ParseBytes(rest[:j+1])
	if err != nil {
		return 0, false
	}
	x := v.Get("exit_code")
	if x == nil || x.Type() != fastjson.TypeNumber {
		return 0, false
	}
	return int(x.GetFloat64()), true
}

// codexOutputText is a tool output's text, for kept messages.
func codexOutputText(o *fastjson.Value, p *fastjson.Parser) string {
	if o == nil {
		return ""
	}
	switch o.Type() {
	case fastjson.TypeString:
		s := o.GetStringBytes()
		if t := bytes.TrimSpace(s); len(t) > 0 && t[0] == '{' {
			if v, err := p.ParseBytes(t); err == nil && has(v, "metadata") && has(v, "output") {
				return str(v, "output")
			}
		}
		return string(s)
	case fastjson.TypeObject:
		return str(o, "content")
	case fastjson.TypeArray:
		return contentText(o)
	}
	return ""
}

// codexFileID is the session id a rollout's file name carries
// (rollout-2025-10-06T20-15-35-<uuid>.jsonl), else the file's base name.
func codexFileID(path string) string {
	id := baseID(path)
	if len(id) > 36 && strings.HasPrefix(id, "rollout-") && codexIsUUID(id[len(id)-36:]) {
		return id[len(id)-36:]
	}
	return id
}

// codexIsUUID reports whether s is a UUID in its 8-4-4-4-12 hex form.
func codexIsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
