package transcript

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Claude Code: ~/.claude/projects/<escaped-cwd>/<session>.jsonl, one JSON
// object a line (FORMATS.md section 1).
//
// Counting rules:
//   - a response streamed over several lines (same message.id and
//     requestId) is one assistant turn, with the usage of its last line;
//   - user turns are lines with text or images from the user; tool results,
//     meta lines, compaction summaries and "[Request interrupted …]" markers
//     are not turns;
//   - sub-agent lines (isSidechain, sibling agent-*.jsonl files and
//     <session>/subagents/) add their tool calls, errors and tokens but no
//     turns;
//   - synthetic API error messages are not turns and have no usage;
//   - a "nested_memory" attachment (a CLAUDE.md of a subfolder, loaded when
//     the agent first works there) is a system message, in the words
//     Claude Code gives it to the model with: "Contents of <path>:" and
//     the file. Other attachments (hook output, reminders, diagnostics) are
//     not read.
//
// Outcome, from the last event of the main chain: an assistant answer
// with no tool call pending is success; a user interruption is aborted; an
// API error, or a failed tool result nobody answered, is failure; anything
// else (a tool call in flight, a user message with no reply) is unknown.

func sniffClaude(_ string, v *fastjson.Value) bool {
	switch string(v.GetStringBytes("type")) {
	case "user", "assistant", "system", "progress", "attachment":
		return has(v, "sessionId") || has(v, "parentUuid") || has(v, "uuid")
	case "summary":
		return has(v, "leafUuid")
	case "file-history-snapshot":
		return has(v, "snapshot") || has(v, "messageId")
	case "queue-operation", "pr-link", "custom-title", "ai-title", "agent-name", "last-prompt",
		"tag", "permission-mode", "mode":
		return has(v, "sessionId")
	}
	return false
}

type claudeEnd int

const (
	endNone claudeEnd = iota
	endUserText
	endAssistantText
	endToolUse
	endToolResult
	endToolError
	endInterrupted
	endAPIError
)

type claudeReader struct {
	b  *builder
	in *input
	// recent and older find a response by message id and request id,
	// within a window of recent responses; evicted sums the usage of
	// responses that left the window; loose is the last response without
	// an id. The
	// lines of a response are nearly always consecutive, so the last
	// response is checked first, without a map lookup.
	recent, older map[string]*claudeResponse
	evicted       lore.Usage
	loose         *claudeResponse
	last          *claudeResponse
	lastKey       []byte
	keyBuf        []byte

	sessionID string
	branch    string
	model     string
	end       claudeEnd
}

func readClaude(ctx context.Context, in *input, emit emitFunc) error {
	r := &claudeReader{b: in.builder(lore.AgentClaudeCode), in: in, recent: make(map[string]*claudeResponse)}
	rc, err := in.open()
	if err != nil {
		return err
	}
	err = r.read(ctx, rc, false, "")
	rc.Close()
	if err != nil {
		return err
	}
	for _, rel := range claudeRelated(in.path, in.related) {
		if err := r.readRelated(ctx, rel); err != nil {
			r.b.warn(0, fmt.Errorf("%s: %w", filepath.Base(rel), cleanPathErr(err)))
		}
	}
	emit(r.finish())
	return nil
}

func (r *claudeReader) readRelated(ctx context.Context, path string) error {
	f, err := regularfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		r.b.s.Size += fi.Size()
	}
	return r.read(ctx, f, true, filepath.Base(path)+" ")
}

// read reads one file of the session; sidechain marks a sub-agent file.
func (r *claudeReader) read(ctx context.Context, rd io.Reader, sidechain bool, label string) error {
	warn := func(line int, err error) {
		if label != "" {
			err = fmt.Errorf("%s%w", label, err)
		}
		r.b.warn(line, err)
	}
	return eachJSONLine(ctx, rd, r.in.parser(), warn, func(_ int, v *fastjson.Value) error {
		r.line(v, sidechain)
		return nil
	})
}

func (r *claudeReader) line(v *fastjson.Value, sidechain bool) {
	if v.Type() != fastjson.TypeObject {
		return
	}
	side := sidechain || v.GetBool("isSidechain")
	if sid := v.GetStringBytes("sessionId"); len(sid) > 0 && !sidechain && string(sid) != r.sessionID {
		r.sessionID = string(sid)
	}
	typ := v.GetStringBytes("type")
	switch string(typ) {
	case "user", "assistant", "system":
	case "attachment":
		r.attachment(v, side)
		return
	default:
		return // summaries, snapshots, progress, queue operations: no turns
	}
	if !side {
		s := r.b.s
		if cwd := v.GetStringBytes("cwd"); len(cwd) > 0 && s.Cwd == "" {
			s.Cwd = string(cwd)
		}
		if br := v.GetStringBytes("gitBranch"); len(br) > 0 && string(br) != r.branch {
			r.branch = string(br)
		}
	}
	t := timeOf(v, "timestamp")
	switch string(typ) {
	case "user":
		r.user(v, side, t)
	case "assistant":
		r.assistant(v, side, t)
	case "system":
		r.system(v, side, t)
	}
}

func (r *claudeReader) user(v *fastjson.Value, side bool, t time.Time) {
	content := v.Get("message", "content")
	keep := r.b.keep
	var (
		results  []lore.ToolResult
		nResults int
		failed   bool
		text     string
		hasText  bool
	)
	switch {
	case content == nil:
	case content.Type() == fastjson.TypeString:
		hasText = true
		if keep || !side {
			text = string(content.GetStringBytes())
		}
	case content.Type() == fastjson.TypeArray:
		for _, blk := range content.GetArray() {
			switch string(blk.GetStringBytes("type")) {
			case "tool_result":
				nResults++
				isErr := blk.GetBool("is_error")
				failed = failed || isErr
				if !keep {
					if isErr {
						r.b.failBytes(blk.GetStringBytes("tool_use_id"))
					}
					continue
				}
				results = append(results, lore.ToolResult{
					CallID:  string(blk.GetStringBytes("tool_use_id")),
					IsError: isErr,
					Output:  contentText(blk.Get("content")),
				})
			case "text":
				hasText = true
				text = joinText(text, string(blk.GetStringBytes("text")))
			case "image", "document":
				hasText = true
				if keep {
					text = joinText(text, "["+string(blk.GetStringBytes("type"))+"]")
				}
			}
		}
	}
	if nResults > 0 {
		if keep {
			r.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: results, Sidechain: side})
		} else {
			r.b.at(t)
		}
		if !side {
			r.end = endToolResult
			if failed {
				r.end = endToolError
			}
		}
	}
	if !hasText {
		return
	}
	role := lore.RoleUser
	switch {
	case strings.HasPrefix(text, "[Request interrupted by user"):
		role = lore.RoleSystem
		if !side {
			r.end = endInterrupted
		}
	case v.GetBool("isCompactSummary"), v.GetBool("isMeta"), v.GetBool("isVisibleInTranscriptOnly"):
		role = lore.RoleSystem
	default:
		if !side {
			r.end = endUserText
		}
	}
	if !keep {
		text = ""
	}
	r.b.add(lore.Message{Role: role, Time: t, Text: text, Sidechain: side})
}

func (r *claudeReader) assistant(v *fastjson.Value, side bool, t time.Time) {
	msg := v.Get("message")
	model := msg.GetStringBytes("model")
	if v.GetBool("isApiErrorMessage") || string(model) == "<synthetic>" {
		r.b.at(t)
		if !side {
			r.end = endAPIError
		}
		if r.b.keep {
			r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(msg.Get("content")), Sidechain: side})
		}
		return
	}
	if len(model) > 0 && !side && string(model) != r.model {
		r.model = string(model)
	}
	resp, first := r.response(msg.GetStringBytes("id"), v.GetStringBytes("requestId"))
	if u := msg.Get("usage"); u != nil {
		resp.usage = lore.Usage{
			InputTokens:      integer(u, "input_tokens"),
			OutputTokens:     integer(u, "output_tokens"),
			CacheReadTokens:  integer(u, "cache_read_input_tokens"),
			CacheWriteTokens: integer(u, "cache_creation_input_tokens"),
		}
	}
	keep := r.b.keep
	var m lore.Message
	if keep {
		m = lore.Message{Role: lore.RoleAssistant, Time: t, Sidechain: side, Model: string(model)}
	}
	hasText, hasCall := false, false
	content := msg.Get("content")
	if content != nil && content.Type() == fastjson.TypeString {
		hasText = true
		if keep {
			m.Text = string(content.GetStringBytes())
		}
	}
	for _, blk := range content.GetArray() {
		switch string(blk.GetStringBytes("type")) {
		case "text":
			hasText = true
			if keep {
				m.Text = joinText(m.Text, string(blk.GetStringBytes("text")))
			}
		case "thinking":
			if keep {
				m.Thinking = joinText(m.Thinking, string(blk.GetStringBytes("thinking")))
			}
		case "tool_use", "server_tool_use":
			hasCall = true
			if !keep {
				r.b.callBytes(blk.GetStringBytes("id"))
				continue
			}
			m.ToolCalls = append(m.ToolCalls, lore.ToolCall{
				ID:    string(blk.GetStringBytes("id")),
				Name:  string(blk.GetStringBytes("name")),
				Input: raw(blk, "input"),
			})
		}
	}
	if !side {
		switch {
		case hasCall:
			r.end = endToolUse
		case hasText:
			r.end = endAssistantText
		}
	}
	switch {
	case keep && first:
		resp.msg = len(r.b.s.Messages)
		r.b.add(m)
	case keep:
		r.b.merge(resp.msg, m)
	default:
		if first && !side {
			r.b.s.AssistantMessages++
		}
		r.b.at(t)
	}
}

// attachment reads an attachment line: a nested_memory, the one kind
// read, is the instructions file the model was given, which the harvest
// rules look for as they do for a file the agent read (path and text).
// 2.1 writes {type, path, content: {path, type, content}, displayPath}.
func (r *claudeReader) attachment(v *fastjson.Value, side bool) {
	a := v.Get("attachment")
	if string(a.GetStringBytes("type")) != "nested_memory" {
		return
	}
	t := timeOf(v, "timestamp")
	if !r.b.keep {
		r.b.at(t)
		return
	}
	p, text := a.GetStringBytes("path"), a.GetStringBytes("content", "content")
	if len(p) == 0 {
		p = a.GetStringBytes("content", "path")
	}
	if len(p) == 0 || len(text) == 0 {
		r.b.at(t)
		return
	}
	r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: "Contents of " + string(p) + ":\n\n" + string(text), Sidechain: side})
}

// claudeResponse is one model response, however many lines it spans.
type claudeResponse struct {
	usage lore.Usage // of its last line
	msg   int        // index of its message, when messages are kept
}

// claudeWindow bounds how many responses are remembered by key. The lines
// of one response are written together, or a few lines apart when a
// sub-agent runs beside it, so a window of recent responses finds them
// all while memory stays flat however long the transcript.
const claudeWindow = 1 << 14

// response finds the response a line belongs to by its message id and
// request id, and reports whether the line is the response's first. A
// line without a message id is a response of its own.
func (r *claudeReader) response(id, req []byte) (*claudeResponse, bool) {
	if len(id) == 0 {
		r.last = nil
		if r.loose != nil {
			r.evicted.Add(r.loose.usage)
		}
		r.loose = &claudeResponse{}
		return r.loose, true
	}
	r.keyBuf = append(append(append(r.keyBuf[:0], id...), 0), req...)
	key := r.keyBuf
	if r.last != nil && string(key) == string(r.lastKey) {
		return r.last, false
	}
	r.lastKey = append(r.lastKey[:0], key...)
	if resp, ok := r.recent[string(key)]; ok {
		r.last = resp
		return resp, false
	}
	if resp, ok := r.older[string(key)]; ok {
		r.last = resp
		return resp, false
	}
	if len(r.recent) >= claudeWindow {
		for _, resp := range r.older {
			r.evicted.Add(resp.usage)
		}
		r.older, r.recent = r.recent, make(map[string]*claudeResponse, claudeWindow)
	}
	resp := &claudeResponse{}
	r.recent[string(key)] = resp
	r.last = resp
	return resp, true
}

// usage sums the usage of every response.
func (r *claudeReader) usage() lore.Usage {
	u := r.evicted
	for _, m := range []map[string]*claudeResponse{r.older, r.recent} {
		for _, resp := range m {
			u.Add(resp.usage)
		}
	}
	if r.loose != nil {
		u.Add(r.loose.usage)
	}
	return u
}

func (r *claudeReader) system(v *fastjson.Value, side bool, t time.Time) {
	switch string(v.GetStringBytes("subtype")) {
	case "api_error":
		if !side {
			r.end = endAPIError
		}
	case "compact_boundary", "microcompact_boundary":
		if r.b.keep {
			r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: "[" + string(v.GetStringBytes("subtype")) + "]", Sidechain: side})
		}
	}
	r.b.at(t)
}

func (r *claudeReader) finish() *lore.Session {
	s := r.b.s
	s.Usage.Add(r.usage())
	s.Branch = r.branch
	s.Model = r.model
	switch r.end {
	case endAssistantText:
		s.Outcome = lore.OutcomeSuccess
	case endInterrupted:
		s.Outcome = lore.OutcomeAborted
	case endAPIError, endToolError:
		s.Outcome = lore.OutcomeFailure
	}
	r.b.setNative(r.sessionID)
	return r.b.finish(baseID(r.in.path))
}

// claudeRelated lists the sub-agent transcripts that belong to the main
// transcript at path: <session>/subagents/*.jsonl (2.1.x) and sibling
// agent-*.jsonl files of the same session (2.0.x). Extra are further
// files already known to belong.
func claudeRelated(path string, extra []string) []string {
	name := filepath.Base(path)
	if strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
		return extra
	}
	dir, sid := filepath.Dir(path), strings.TrimSuffix(name, ".jsonl")
	out := append([]string(nil), extra...)
	if subs, err := filepath.Glob(filepath.Join(dir, sid, "subagents", "*.jsonl")); err == nil {
		out = append(out, subs...)
	}
	for _, a := range agentSiblings(dir) {
		if a.session == sid {
			out = append(out, a.path)
		}
	}
	return out
}

// agentFile is a sub-agent transcript beside session transcripts, and the
// session it belongs to.
type agentFile struct{ path, session string }

// agentDirs caches each folder's sub-agent files while the folder is
// unchanged: reading every session of a folder of thousands would
// otherwise list the folder and open its agent files once per session.
var agentDirs sync.Map // folder → agentDir

type agentDir struct {
	mod   time.Time
	files []agentFile
}

func agentSiblings(dir string) []agentFile {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	if v, ok := agentDirs.Load(dir); ok && v.(agentDir).mod.Equal(fi.ModTime()) {
		return v.(agentDir).files
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	files := make([]agentFile, len(paths))
	for i, p := range paths {
		files[i] = agentFile{p, peekSessionID(p)}
	}
	agentDirs.Store(dir, agentDir{fi.ModTime(), files})
	return files
}

// foldedAgentFile reports whether name, met while walking dir, is a
// Claude Code sub-agent transcript whose parent session file is beside it,
// so that the parent's read takes it in.
func foldedAgentFile(dir, name string, names map[string]bool) bool {
	if !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
		return false
	}
	sid := peekSessionID(filepath.Join(dir, name))
	return sid != "" && names[sid+".jsonl"]
}

// peekSessionID returns the first "sessionId" value in the first bytes of
// a Claude Code transcript.
func peekSessionID(path string) string {
	f, err := regularfile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	key := []byte(`"sessionId"`)
	i := bytes.Index(buf, key)
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(buf[i+len(key):], " \t")
	rest = bytes.TrimPrefix(rest, []byte(":"))
	rest = bytes.TrimLeft(rest, " \t")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	rest = rest[1:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
