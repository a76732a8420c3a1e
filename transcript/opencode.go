package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// OpenCode (sst/opencode, now anomalyco/opencode) and the Kilo CLI, its
// fork (FORMATS.md sections "OpenCode" and "Kilo Code"). One session model
// in three containers:
//   - an export, `opencode export <id>` (and the shared corpus):
//     {"info": Session.Info, "messages": [{"info": Message, "parts":
//     [Part]}]}, one JSON document;
//   - the JSON storage of versions before 1.2 (and left in place after):
//     <data>/storage/session/<projectID>/<sessionID>.json,
//     storage/message/<sessionID>/<messageID>.json and
//     storage/part/<messageID>/<partID>.json. The storage folder is one
//     input (a dir format) holding every session; a session file named
//     alone is read with its messages and parts from the sibling folders;
//   - the SQLite database of 1.2 and later, <data>/opencode.db (Kilo:
//     kilo.db), tables session, message and part, where message.data and
//     part.data are the same JSON without their ids.
//
// The agent is kilo-code when the file or folder lies in Kilo's data
// folder (a path element "kilo", or a database named kilo*.db), else
// opencode: the two write the same shapes.
//
// Sub-agent sessions (the task tool) are sessions of their own with
// parentID set. They are folded into their parent, as Claude Code's
// sidechains are, where both are read together: in a database and in a
// storage folder always; for exports, when the parent's export lies in
// the same folder and is read in the same run (a walk of the folder, or
// both files named): the child file is then passed over quietly. A
// sub-agent export read without its parent's is a session of its own.
//
// Counting rules:
//   - user turns are user messages with text or a file the user gave (a
//     message of synthetic text only is not a turn); assistant turns are
//     assistant messages (one per model response), sub-agent messages are
//     neither;
//   - tool calls are tool parts, once per callID; a tool error is a tool
//     part with state.status "error" — except "Tool execution aborted",
//     which OpenCode writes on calls the user interrupted — or a bash call
//     whose state.metadata.exit is a non-zero exit code (OpenCode marks
//     those "completed");
//   - tokens: each assistant message's tokens once (input, output plus
//     reasoning, cache read, cache write); a message holding several
//     step-finish parts counts the sum of their tokens, as older versions
//     kept only the last step's on the message;
//   - the model is the last assistant message's modelID; the cwd is the
//     session's directory, else the first assistant message's path.cwd;
//     times are the session's time.created/updated and each message's
//     time.created/completed (ms).
//
// Outcome, from the last message of the main session: an assistant
// message with an error is aborted when the error is MessageAbortedError
// or a tool call in it was aborted, else failure; one with a failed tool
// call (and no "stop" finish) is failure; one with text and no tool call
// is success; anything else (a tool call whose answer never came, a user
// message last) is unknown.

// opencodeRoots: OpenCode's data folder is $XDG_DATA_HOME/opencode
// (xdg-basedir, on macOS too: ~/.local/share/opencode), holding storage/
// and opencode.db ($OPENCODE_DB names another database, absolute or
// relative to the data folder). The Kilo CLI's is $XDG_DATA_HOME/kilo
// with storage/ and kilo.db ($KILO_DB). The Kilo Code VS Code extension
// (a Roo Code fork) keeps Cline-shaped tasks in the globalStorage folder
// kilocode.kilo-code, and its first CLI in ~/.kilocode/cli/global/tasks;
// the Cline reader reads both.
func opencodeRoots(e Env) []Root {
	data := e.xdg("XDG_DATA_HOME", ".local", "share")
	src := "default"
	if e.get("XDG_DATA_HOME") != "" {
		src = "XDG_DATA_HOME"
	}
	var out []Root
	for _, a := range []struct{ agent, dir, db, env string }{
		{lore.AgentOpenCode, "opencode", "opencode.db", "OPENCODE_DB"},
		{lore.AgentKiloCode, "kilo", "kilo.db", "KILO_DB"},
	} {
		base := filepath.Join(data, a.dir)
		out = append(out, Root{Agent: a.agent, Path: filepath.Join(base, "storage"), Source: src})
		if v := e.get(a.env); v != "" && v != ":memory:" {
			if !filepath.IsAbs(v) {
				v = filepath.Join(base, v)
			}
			out = append(out, Root{Agent: a.agent, Path: v, Source: a.env})
		} else {
			out = append(out, Root{Agent: a.agent, Path: filepath.Join(base, a.db), Source: src})
		}
	}
	const kiloExt = "kilocode.kilo-code"
	switch e.GOOS {
	case "darwin":
		for _, app := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"} {
			out = append(out, Root{Agent: lore.AgentKiloCode, Path: e.macAppSupport(app, "User", "globalStorage", kiloExt, "tasks"), Source: "default"})
		}
	default:
		cfg := e.xdg("XDG_CONFIG_HOME", ".config")
		for _, app := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"} {
			out = append(out, Root{Agent: lore.AgentKiloCode, Path: filepath.Join(cfg, app, "User", "globalStorage", kiloExt, "tasks"), Source: "default"})
		}
		out = append(out, Root{Agent: lore.AgentKiloCode, Path: e.home(".vscode-server", "data", "User", "globalStorage", kiloExt, "tasks"), Source: "default"})
	}
	out = append(out, Root{Agent: lore.AgentKiloCode, Path: e.home(".kilocode", "cli", "global", "tasks"), Source: "default"})
	return out
}

// ocAgent tells Kilo's files from OpenCode's by where they lie.
func ocAgent(path string) string {
	base := strings.ToLower(filepath.Base(path))
	if strings.HasPrefix(base, "kilo") && strings.HasSuffix(base, ".db") {
		return lore.AgentKiloCode
	}
	for _, el := range strings.Split(filepath.ToSlash(path), "/") {
		if el == "kilo" {
			return lore.AgentKiloCode
		}
	}
	return lore.AgentOpenCode
}

// ocReader reads the messages of one session (and of its sub-agents).
type ocReader struct {
	b     *builder
	keep  bool
	model string
	cwd   string // the first assistant message's path.cwd
	// the main session's last message, for the outcome
	outcome lore.Outcome
	lastSet bool
	// the message being read
	cur      lore.Message
	results  []lore.ToolResult
	role     string
	side     bool
	text     bool // a non-synthetic text or file part
	steps    int
	step     lore.Usage
	usage    lore.Usage
	aborted  bool // a tool call of the message was aborted
	failed   bool // a tool call of the message failed
	errName  string
	finished string // the message's finish reason
}

func newOCReader(b *builder) *ocReader {
	return &ocReader{b: b, keep: b.keep}
}

// session takes what a session's info says: its id, folder and times.
func (r *ocReader) session(v *fastjson.Value, main bool) {
	if v == nil || v.Type() != fastjson.TypeObject {
		return
	}
	r.b.at(epochOf(v, "time", "created"))
	r.b.at(epochOf(v, "time", "updated"))
	if !main {
		return
	}
	r.b.setNative(str(v, "id"))
	if d := str(v, "directory"); d != "" {
		r.b.s.Cwd = d
	}
	if m := str(v, "model", "id"); m != "" && r.model == "" {
		r.model = m
	}
}

// epochOf reads a time written as epoch milliseconds.
func epochOf(v *fastjson.Value, keys ...string) time.Time {
	return epoch(num(v, keys...))
}

// begin starts a message from its info.
func (r *ocReader) begin(info *fastjson.Value, side bool) {
	r.role, r.side = str(info, "role"), side
	r.text, r.steps, r.aborted, r.failed = false, 0, false, false
	r.step, r.results = lore.Usage{}, nil
	r.errName, r.finished = str(info, "error", "name"), str(info, "finish")
	t := epochOf(info, "time", "created")
	r.b.at(epochOf(info, "time", "completed"))
	r.cur = lore.Message{Time: t, Sidechain: side}
	switch r.role {
	case "user":
		r.cur.Role = lore.RoleUser
	case "assistant":
		r.cur.Role = lore.RoleAssistant
		if m := info.GetStringBytes("modelID"); len(m) > 0 {
			if string(m) != r.model && !side {
				r.model = string(m)
			}
			if r.keep {
				r.cur.Model = string(m)
			}
		}
		if r.cwd == "" && !side {
			r.cwd = str(info, "path", "cwd")
		}
		r.usage = ocUsage(info.Get("tokens"))
		if r.errName != "" && r.keep {
			r.cur.Text = "[" + r.errName + "] " + str(info, "error", "data", "message")
		}
	default:
		r.cur.Role = lore.RoleSystem
	}
}

// ocUsage reads a tokens object: {input, output, reasoning, cache{read,
// write}}.
func ocUsage(t *fastjson.Value) lore.Usage {
	if t == nil || t.Type() != fastjson.TypeObject {
		return lore.Usage{}
	}
	return lore.Usage{
		InputTokens:      integer(t, "input"),
		OutputTokens:     integer(t, "output") + integer(t, "reasoning"),
		CacheReadTokens:  integer(t, "cache", "read"),
		CacheWriteTokens: integer(t, "cache", "write"),
	}
}

// ocAborted is what OpenCode writes on a tool call the user interrupted.
const ocAborted = "Tool execution aborted"

// part reads one part of the current message.
func (r *ocReader) part(p *fastjson.Value) {
	if p == nil || p.Type() != fastjson.TypeObject {
		return
	}
	keep := r.keep
	switch string(p.GetStringBytes("type")) {
	case "text":
		if !p.GetBool("synthetic") && !p.GetBool("ignored") {
			r.text = r.text || len(bytes.TrimSpace(p.GetStringBytes("text"))) > 0
		}
		if keep {
			r.cur.Text = joinText(r.cur.Text, str(p, "text"))
		}
	case "file":
		r.text = true
		if keep {
			r.cur.Text = joinText(r.cur.Text, "["+str(p, "filename")+"]")
		}
	case "reasoning":
		if keep {
			r.cur.Thinking = joinText(r.cur.Thinking, str(p, "text"))
		}
	case "step-finish":
		r.steps++
		r.step.Add(ocUsage(p.Get("tokens")))
	case "tool":
		r.tool(p)
	}
}

func (r *ocReader) tool(p *fastjson.Value) {
	keep := r.keep
	st := p.Get("state")
	id := str(p, "callID")
	if id == "" {
		id = str(p, "id")
	}
	call := lore.ToolCall{ID: id}
	if keep {
		call.Name, call.Input = str(p, "tool"), raw(st, "input")
	}
	r.cur.ToolCalls = append(r.cur.ToolCalls, call)
	res := lore.ToolResult{CallID: id}
	switch string(st.GetStringBytes("status")) {
	case "completed":
		if x := st.Get("metadata", "exit"); x != nil && x.Type() == fastjson.TypeNumber {
			code := x.GetInt()
			res.ExitCode = &code
			res.IsError = code != 0
		}
		if keep {
			res.Output = raw(st, "output")
		}
	case "error":
		msg := str(st, "error")
		if strings.HasPrefix(msg, ocAborted) || st.GetBool("metadata", "interrupted") {
			r.aborted = true
		} else {
			res.IsError = true
		}
		if keep {
			res.Output = msg
		}
	default:
		return // pending or running: no result
	}
	r.failed = r.failed || res.IsError
	r.results = append(r.results, res)
}

// end records the current message.
func (r *ocReader) end() {
	b := r.b
	switch r.role {
	case "user":
		if !r.text {
			r.cur.Role = lore.RoleSystem
		}
		b.add(r.cur)
	case "assistant":
		if r.steps > 1 {
			r.usage = r.step
		}
		b.usage(r.usage)
		b.add(r.cur)
		if len(r.results) > 0 {
			b.add(lore.Message{Role: lore.RoleTool, Time: r.cur.Time, ToolResults: r.results, Sidechain: r.side})
		}
	default:
		b.add(r.cur)
	}
	if r.side {
		return
	}
	r.lastSet = true
	switch {
	case r.role == "user":
		r.outcome = lore.OutcomeUnknown
	case r.role != "assistant":
	case r.errName == "MessageAbortedError" || r.aborted:
		r.outcome = lore.OutcomeAborted
	case r.errName != "":
		r.outcome = lore.OutcomeFailure
	case r.failed && r.finished != "stop":
		r.outcome = lore.OutcomeFailure
	case r.text && len(r.cur.ToolCalls) == 0 && r.finished != "tool-calls":
		r.outcome = lore.OutcomeSuccess
	default:
		r.outcome = lore.OutcomeUnknown
	}
}

// message reads a message with its parts (an export's entry).
func (r *ocReader) message(m *fastjson.Value, side bool) {
	info := m.Get("info")
	if info == nil || info.Type() != fastjson.TypeObject {
		r.b.warn(0, errors.New("a message with no info; skipped"))
		return
	}
	r.begin(info, side)
	for _, p := range m.GetArray("parts") {
		r.part(p)
	}
	r.end()
}

// finish emits the session.
func (r *ocReader) finish(emit emitFunc, fallback string) error {
	s := r.b.s
	if s.MessageCount() == 0 && s.ToolCalls == 0 {
		return emptySession("an OpenCode session with no messages")
	}
	s.Model = r.model
	if s.Cwd == "" {
		s.Cwd = r.cwd
	}
	if r.lastSet {
		s.Outcome = r.outcome
	}
	emit(r.b.finish(fallback))
	return nil
}

// Exports.

func ocSniffExport(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject {
		return false
	}
	info, msgs := doc.Get("info"), doc.Get("messages")
	if info == nil || info.Type() != fastjson.TypeObject || msgs == nil || msgs.Type() != fastjson.TypeArray {
		return false
	}
	return len(info.GetStringBytes("id")) > 0 && (has(info, "projectID") || has(info, "directory") || has(info, "slug"))
}

// errFoldedInto is matched by the error for a transcript that another
// input of the same read takes in (a sub-agent export beside its parent's).
var errFoldedInto = errors.New("folded into another transcript")

type errFolded string

func (e errFolded) Error() string        { return string(e) }
func (e errFolded) Is(target error) bool { return target == ErrEmpty || target == errFoldedInto }

func ocReadExport(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	info := doc.Get("info")
	id, parent := str(info, "id"), str(info, "parentID")
	dir := filepath.Dir(in.path)
	if parent != "" {
		// Folded when the parent's export is beside it and read too: a
		// walk reads the whole folder; a file named alone is its own
		// session.
		for _, f := range ocExports(dir) {
			if f.id == parent && f.path != in.path && (!in.explicit || in.batch[f.path]) {
				return errFolded("an OpenCode sub-agent session, read with its parent " + filepath.Base(f.path))
			}
		}
	}
	r := newOCReader(in.builder(ocAgent(in.path)))
	r.session(info, true)
	for i, m := range doc.GetArray("messages") {
		if i&1023 == 1023 && ctx.Err() != nil {
			return ctx.Err()
		}
		r.message(m, false)
	}
	if err := ocFoldExports(ctx, r, dir, in.path, id, map[string]bool{id: true}); err != nil {
		return err
	}
	return r.finish(emit, baseID(in.path))
}

// ocFoldExports reads the exports in dir of sub-agents of the session id
// (and theirs) into r.
func ocFoldExports(ctx context.Context, r *ocReader, dir, self, id string, seen map[string]bool) error {
	for _, f := range ocExports(dir) {
		if f.parent != id || f.path == self || seen[f.id] {
			continue
		}
		seen[f.id] = true
		if err := ctx.Err(); err != nil {
			return err
		}
		doc, err := ocLoad(f.path, new(fastjson.Parser))
		if err != nil || !ocSniffExport("", doc) {
			r.b.warn(0, fmt.Errorf("sub-agent %s: %v", filepath.Base(f.path), err))
			continue
		}
		r.session(doc.Get("info"), false)
		for _, m := range doc.GetArray("messages") {
			r.message(m, true)
		}
		if err := ocFoldExports(ctx, r, dir, f.path, f.id, seen); err != nil {
			return err
		}
	}
	return nil
}

// ocExportFile is an OpenCode export in a folder: its session and parent.
type ocExportFile struct{ path, id, parent string }

type ocExportDir struct {
	mod   time.Time
	files []ocExportFile
}

// ocExportDirs caches each folder's exports while the folder is unchanged.
var ocExportDirs sync.Map // folder → ocExportDir

// ocExports lists the OpenCode exports in dir, found by their first
// bytes.
func ocExports(dir string) []ocExportFile {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	if v, ok := ocExportDirs.Load(dir); ok && v.(ocExportDir).mod.Equal(fi.ModTime()) {
		return v.(ocExportDir).files
	}
	entries, _ := os.ReadDir(dir)
	var files []ocExportFile
	buf := make([]byte, 4096)
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		id, parent := ocPeekExport(path, buf)
		if id != "" {
			files = append(files, ocExportFile{path, id, parent})
		}
	}
	ocExportDirs.Store(dir, ocExportDir{fi.ModTime(), files})
	return files
}

// ocPeekExport reads the session id and parent id from the first bytes
// of an export: {"info": {"id": …, …, "parentID": …}, "messages": …}.
func ocPeekExport(path string, buf []byte) (id, parent string) {
	f, err := regularfile.Open(path)
	if err != nil {
		return "", ""
	}
	n, _ := io.ReadFull(f, buf)
	f.Close()
	head := bytes.TrimLeft(buf[:n], " \t\r\n\ufeff")
	if !bytes.HasPrefix(head, []byte("{")) {
		return "", ""
	}
	head = bytes.TrimLeft(head[1:], " \t\r\n")
	if !bytes.HasPrefix(head, []byte(`"info"`)) {
		return "", ""
	}
	if i := bytes.Index(head, []byte(`"messages"`)); i >= 0 {
		head = head[:i]
	}
	return ocPeekString(head, `"id"`), ocPeekString(head, `"parentID"`)
}

// ocPeekString returns the string value after the first key in b.
func ocPeekString(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(b[i+len(key):], " \t\r\n")
	if !bytes.HasPrefix(rest, []byte(":")) {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if !bytes.HasPrefix(rest, []byte(`"`)) {
		return ""
	}
	rest = rest[1:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return ""
	}
	return string(rest[:j])
}

// ocLoad parses one JSON file whole.
func ocLoad(path string, p *fastjson.Parser) (*fastjson.Value, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDocument+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDocument {
		return nil, fmt.Errorf("larger than %d MiB", maxDocument>>20)
	}
	v, err := p.ParseBytes(data)
	if err != nil {
		return nil, jsonDamage(data)
	}
	return v, nil
}

// JSON storage.

// ocMatchStorage claims OpenCode's storage folder: session/, message/ and
// part/ beside each other, and a session file in session/<project>/.
func ocMatchStorage(dir string, names map[string]bool) bool {
	if !names["session"] || !names["message"] || !names["part"] {
		return false
	}
	projects, err := os.ReadDir(filepath.Join(dir, "session"))
	if err != nil {
		return false
	}
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "session", p.Name(), "*.json"))
		for _, f := range files {
			v, err := ocLoad(f, new(fastjson.Parser))
			if err == nil && ocIsSessionInfo(v) {
				return true
			}
		}
	}
	return false
}

// ocIsSessionInfo reports whether v is a Session.Info as storage writes
// it.
func ocIsSessionInfo(v *fastjson.Value) bool {
	return v != nil && v.Type() == fastjson.TypeObject && len(v.GetStringBytes("id")) > 0 &&
		(has(v, "projectID") || has(v, "directory")) && has(v, "time") && !has(v, "messages") && !has(v, "role")
}

// ocStorageSession is one session file of a storage folder.
type ocStorageSession struct{ path, id, parent string }

// ocListStorage lists the sessions of a storage folder.
func ocListStorage(storage string, p *fastjson.Parser) []ocStorageSession {
	files, _ := filepath.Glob(filepath.Join(storage, "session", "*", "*.json"))
	sort.Strings(files)
	var out []ocStorageSession
	for _, f := range files {
		v, err := ocLoad(f, p)
		if err != nil || !ocIsSessionInfo(v) {
			continue
		}
		out = append(out, ocStorageSession{f, strings.TrimSuffix(filepath.Base(f), ".json"), str(v, "parentID")})
	}
	return out
}

func ocReadStorage(ctx context.Context, in *input, emit emitFunc) error {
	p := in.parser()
	sessions := ocListStorage(in.path, p)
	ids := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		ids[s.id] = true
	}
	n := 0
	for _, s := range sessions {
		if s.parent != "" && ids[s.parent] {
			continue // read with its parent
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := ocReadStorageSession(ctx, in, in.path, s, sessions, emit)
		if err != nil && !errors.Is(err, ErrEmpty) {
			return err
		}
		if err == nil {
			n++
		}
	}
	if n == 0 {
		return emptySession("an OpenCode storage folder with no messages")
	}
	return nil
}

// ocReadStorageSession reads one session of a storage folder, with the
// sub-agent sessions of all (the storage's sessions) folded in.
func ocReadStorageSession(ctx context.Context, in *input, storage string, s ocStorageSession, all []ocStorageSession, emit emitFunc) error {
	b := newBuilder(ocAgent(storage), s.path, in.opts)
	r := newOCReader(b)
	p := in.parser()
	size := int64(0)
	var read func(s ocStorageSession, side bool, seen map[string]bool) error
	read = func(s ocStorageSession, side bool, seen map[string]bool) error {
		seen[s.id] = true
		if v, err := ocLoad(s.path, p); err == nil {
			r.session(v, !side)
			if !side {
				b.setNative(s.id)
			}
		} else {
			b.warn(0, fmt.Errorf("%s: %v", filepath.Base(s.path), err))
		}
		var pp fastjson.Parser
		msgs, _ := filepath.Glob(filepath.Join(storage, "message", s.id, "*.json"))
		sort.Strings(msgs)
		for _, mf := range msgs {
			if err := ctx.Err(); err != nil {
				return err
			}
			info, err := ocLoad(mf, p)
			if err != nil || info.Type() != fastjson.TypeObject {
				b.warn(0, fmt.Errorf("message %s: %v", filepath.Base(mf), err))
				continue
			}
			size += fileSize(mf)
			r.begin(info, side)
			parts, _ := filepath.Glob(filepath.Join(storage, "part", strings.TrimSuffix(filepath.Base(mf), ".json"), "*.json"))
			sort.Strings(parts)
			for _, pf := range parts {
				pv, err := ocLoad(pf, &pp)
				if err != nil {
					b.warn(0, fmt.Errorf("part %s: %v", filepath.Base(pf), err))
					continue
				}
				size += fileSize(pf)
				r.part(pv)
			}
			r.end()
		}
		for _, c := range all {
			if c.parent == s.id && !seen[c.id] {
				if err := read(c, true, seen); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := read(s, false, map[string]bool{}); err != nil {
		return err
	}
	b.s.Size = size
	return r.finish(emit, s.id)
}

func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

// ocSniffSessionFile claims a storage session file named alone:
// storage/session/<project>/<id>.json beside storage/message/.
func ocSniffSessionFile(name string, doc *fastjson.Value) bool {
	return ocIsSessionInfo(doc) && name == str(doc, "id")+".json"
}

func ocReadSessionFile(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	storage := filepath.Dir(filepath.Dir(filepath.Dir(in.path)))
	if filepath.Base(filepath.Dir(filepath.Dir(in.path))) != "session" {
		return notTranscript("an OpenCode session record outside its storage folder (no messages beside it)")
	}
	if fi, err := os.Stat(filepath.Join(storage, "message")); err != nil || !fi.IsDir() {
		return notTranscript("an OpenCode session record with no message folder beside it")
	}
	s := ocStorageSession{in.path, str(doc, "id"), str(doc, "parentID")}
	all := ocListStorage(storage, new(fastjson.Parser))
	return ocReadStorageSession(ctx, in, storage, s, all, emit)
}
