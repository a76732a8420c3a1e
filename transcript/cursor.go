package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Cursor (the cursor-agent CLI and the Cursor IDE), FORMATS.md section
// "Cursor", in two forms: agent transcripts (this file) and the IDE's
// state.vscdb database (cursordb.go).
//
// Agent transcripts: ~/.cursor/projects/<workspace slug>/agent-transcripts/
// <conversation id>/<conversation id>.jsonl (earlier builds wrote
// <conversation id>.jsonl beside the others), sub-agents in
// <conversation id>/subagents/<sub-agent id>.jsonl. One JSON object a line:
//   - {"role":"user"|"assistant","message":{"content":[block…]}}, a block
//     being {"type":"text","text"} or {"type":"tool_use","name","input"};
//   - control lines {"type":"turn_ended","status":…,"error":…} without a
//     role.
//
// Counting rules:
//   - a user line with text is a user message; an assistant line with text
//     or a tool_use block is an assistant message (Cursor writes one line
//     per message; lines carry no ids, so nothing merges);
//   - each tool_use block is a tool call (no ids: each counts once);
//   - tool errors: none. Cursor writes no tool results to these files, so
//     nothing says a call failed;
//   - tokens, model and per-message times are not recorded: usage stays
//     zero, and the session's time is the file's modification time;
//   - sub-agent files under <id>/subagents/ are folded into the session as
//     sidechain messages: their calls count, their turns do not;
//   - the native id is the file name; the workspace slug does not give the
//     folder back (every character but letters and digits became "-"):
//     cwd is the "Workspace Path:" of a <user_info> block in a user
//     message, when Cursor wrote one, else empty.
//
// Outcome: the last turn_ended line: status "success" is success, "error"
// or "failed" failure, "aborted" or "cancelled" aborted; with none, unknown.

// cursorRoots: the CLI's and the IDE's agent transcripts under
// ~/.cursor/projects, the CLI's chat stores under ~/.cursor/chats
// (cursorstore.go) ($CURSOR_CONFIG_DIR replaces ~/.cursor, the same on
// Linux and macOS), and the IDE's global state.vscdb (cursordb.go).
func cursorRoots(e Env) []Root {
	dir, src := e.get("CURSOR_CONFIG_DIR"), "CURSOR_CONFIG_DIR"
	if dir == "" || !filepath.IsAbs(dir) {
		dir, src = e.home(".cursor"), "default"
	}
	roots := []Root{
		{Agent: lore.AgentCursor, Path: filepath.Join(dir, "projects"), Source: src},
		{Agent: lore.AgentCursor, Path: filepath.Join(dir, "chats"), Source: src},
	}
	return append(roots, cursorDBRoots(e)...)
}

// sniffCursorLine claims a file whose first line is a Cursor message:
// role and a message object holding a content list, and none of the keys
// Claude Code (type, uuid, sessionId) or plain chat logs (content,
// timestamp) put beside them.
func sniffCursorLine(_ string, v *fastjson.Value) bool {
	if has(v, "type") {
		return is(v, "turn_ended", "type") && !has(v, "uuid") && !has(v, "sessionId")
	}
	switch string(v.GetStringBytes("role")) {
	case "user", "assistant":
	default:
		return false
	}
	if has(v, "uuid") || has(v, "sessionId") || has(v, "content") || has(v, "timestamp") || has(v, "created") {
		return false
	}
	c := v.Get("message", "content")
	return c != nil && c.Type() == fastjson.TypeArray
}

type cursorReader struct {
	b   *builder
	in  *input
	end lore.Outcome
}

func readCursorLines(ctx context.Context, in *input, emit emitFunc) error {
	r := &cursorReader{b: in.builder(lore.AgentCursor), in: in, end: lore.OutcomeUnknown}
	rc, err := in.open()
	if err != nil {
		return err
	}
	err = eachJSONLine(ctx, rc, in.parser(), r.b.warn, func(_ int, v *fastjson.Value) error {
		r.line(v, false)
		return nil
	})
	rc.Close()
	if err != nil {
		return err
	}
	for _, sub := range cursorSubagents(in.path) {
		if err := r.readSub(ctx, sub); err != nil {
			r.b.warn(0, fmt.Errorf("%s: %w", filepath.Base(sub), cleanPathErr(err)))
		}
	}
	if r.b.s.MessageCount() == 0 && r.b.s.ToolCalls == 0 {
		return emptySession("a Cursor agent transcript with no message")
	}
	if fi, err := os.Stat(in.path); err == nil {
		r.b.at(fi.ModTime())
	}
	r.b.s.Outcome = r.end
	emit(r.b.finish(baseID(in.path)))
	return nil
}

// cursorSubagents lists the sub-agent transcripts of the conversation at
// path: <id>/subagents/*.jsonl when path is <id>/<id>.jsonl.
func cursorSubagents(path string) []string {
	dir, name := filepath.Dir(path), filepath.Base(path)
	if name != filepath.Base(dir)+".jsonl" {
		return nil
	}
	subs, _ := filepath.Glob(filepath.Join(dir, "subagents", "*.jsonl"))
	sort.Strings(subs)
	return subs
}

func (r *cursorReader) readSub(ctx context.Context, path string) error {
	f, err := regularfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		r.b.s.Size += fi.Size()
	}
	label := filepath.Base(path) + " "
	warn := func(line int, err error) { r.b.warn(line, fmt.Errorf("%s%w", label, err)) }
	return eachJSONLine(ctx, f, r.in.parser(), warn, func(_ int, v *fastjson.Value) error {
		r.line(v, true)
		return nil
	})
}

// line applies the counting rules to one line.
func (r *cursorReader) line(v *fastjson.Value, side bool) {
	if v.Type() != fastjson.TypeObject {
		return
	}
	if is(v, "turn_ended", "type") {
		if !side {
			r.end = cursorTurnOutcome(str(v, "status"))
		}
		return
	}
	var role lore.Role
	switch string(v.GetStringBytes("role")) {
	case "user":
		role = lore.RoleUser
	case "assistant":
		role = lore.RoleAssistant
	default:
		return
	}
	m := lore.Message{Role: role, Sidechain: side}
	if hasText := anthropicBlocks(r.b, v.GetArray("message", "content"), &m); !hasText && (role == lore.RoleUser || len(m.ToolCalls) == 0) {
		return
	}
	if role == lore.RoleUser {
		m.ToolCalls = nil // a user never calls tools
		if r.b.s.Cwd == "" && !side {
			for _, blk := range v.GetArray("message", "content") {
				if p := cursorWorkspacePath(str(blk, "text")); p != "" {
					r.b.s.Cwd = p
					break
				}
			}
		}
	}
	r.b.add(m)
	if !side && role == lore.RoleUser {
		r.end = lore.OutcomeUnknown // a turn begun and not (yet) ended
	}
}

func cursorTurnOutcome(status string) lore.Outcome {
	switch strings.ToLower(status) {
	case "success", "completed":
		return lore.OutcomeSuccess
	case "error", "failed", "failure":
		return lore.OutcomeFailure
	case "aborted", "cancelled", "canceled":
		return lore.OutcomeAborted
	}
	return lore.OutcomeUnknown
}
