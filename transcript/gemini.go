package transcript

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Gemini CLI: ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.json (a
// whole ConversationRecord, before April 2026) or .jsonl (a log of records
// since), sub-agents in chats/<parent-session>/<session>.jsonl, and /chat
// save checkpoints tmp/<project>/checkpoint-<tag>.json (FORMATS.md section
// 3; writer google-gemini/gemini-cli packages/core/src/services/
// chatRecordingService.ts and core/logger.ts).
//
// The JSONL log is replayed as Gemini's own loader (loadConversationRecord)
// does: the first line is the metadata; a record with an "id" is a message,
// and a repeated id replaces the earlier message in place (tool calls and
// tokens are streamed that way; last write wins); {"$rewindTo":id} removes
// that message and every later one; {"$set":{…}} updates the metadata. The
// replay holds a small summary per message (ids, kinds, tool call ids and
// states, tokens), and message bodies only when they are kept. Departures
// from the loader, on purpose: a $set (or metadata line) carrying
// "messages" — the CLI syncing masked or compressed history — updates the
// messages it names and adds new ones but erases none, since the turns it
// leaves out did happen; a $rewindTo naming no known message (the writer
// never writes one, so the log is damaged) is a warning, not an erasure of
// the whole history.
//
// Counting rules, over the history that remains:
//   - "user" messages are user turns and "gemini" messages assistant turns
//     (one per message id); "info", "warning" and "error" messages are not
//     turns;
//   - tool calls are a gemini message's toolCalls, once per id; a call with
//     status "error" is a tool error, and so is a shell command whose output
//     says it exited non-zero (its status is "success" all the same);
//     "cancelled" (the user stopped it) is not;
//   - tokens: each gemini message's tokens once (its last write), including
//     responses a rewind removed, since they were spent. Gemini's input
//     (promptTokenCount) includes cached (cachedContentTokenCount), so
//     InputTokens is input − cached + tool (the tool-use prompt, counted
//     apart from the prompt in totalTokenCount), CacheReadTokens is cached,
//     and OutputTokens is output + thoughts (thinking is billed as output);
//   - the model is the last gemini message's; the cwd is the project root
//     Gemini records in tmp/<project>/.project_root (config/projectRegistry.ts),
//     when the file is still in that folder, else the first workspace
//     folder of the setup context the CLI writes as the first user message
//     (setupWorkspace); the metadata names only a hash of it.
//
// Outcome, from the last message that is not info or warning: an error
// message is failure; a gemini message with a cancelled tool call is
// aborted, with a failed one failure, with other tool calls unknown (their
// follow-up never came), and with only text success; a user message is
// unknown.
//
// Checkpoints are Gemini API history, {"history":[Content]} or a bare
// Content[] of {role:"user"|"model", parts:[…]}, with no ids, times, tokens
// or model. They are claimed only when the file is named checkpoint-*.json
// and every entry has that shape: a bare list of role/parts objects alone
// is too plain to tell from other tools' files. The native id is
// "checkpoint-<tag>", prefixed with the project folder when the file is in
// Gemini's tmp/<project>/ layout, as tags repeat across projects; the time
// is the file's modification time, when it was saved. The setup exchange
// the CLI puts first ("This is the Gemini CLI. We are setting up the
// context…", in a <session_context> tag in newer versions, and its "Got it."
// reply) is not a turn; the cwd is .project_root's, else the setup's
// workspace folder. The outcome rule is
// Claude Code's: an answer with no call pending is success, a failed tool
// result last is failure.

// geminiRoots: Gemini keeps everything under homedir()/.gemini, where
// homedir() is $GEMINI_CLI_HOME when set, else the user's home
// (packages/core/src/utils/paths.ts homedir(), used by
// packages/core/src/config/storage.ts Storage.getGlobalGeminiDir();
// transcripts are under its tmp/ folder, Storage.getGlobalTempDir()). The
// same on Linux and macOS.
func geminiRoots(e Env) []Root {
	if v := e.get("GEMINI_CLI_HOME"); v != "" {
		return []Root{{Agent: lore.AgentGeminiCLI, Path: filepath.Join(v, ".gemini", "tmp"), Source: "GEMINI_CLI_HOME"}}
	}
	return []Root{{Agent: lore.AgentGeminiCLI, Path: e.home(".gemini", "tmp"), Source: "default"}}
}

// sniffGeminiLine claims a JSONL log by its metadata line, which has the
// session and project ids (and none of Claude Code's line types).
func sniffGeminiLine(_ string, v *fastjson.Value) bool {
	return geminiIsString(v, "sessionId") && geminiIsString(v, "projectHash") && !has(v, "type")
}

func sniffGeminiDoc(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject || !geminiIsString(doc, "sessionId") {
		return false
	}
	msgs := doc.Get("messages")
	if msgs == nil || msgs.Type() != fastjson.TypeArray {
		return false
	}
	return geminiIsString(doc, "projectHash") || geminiIsString(doc, "startTime")
}

func geminiIsString(v *fastjson.Value, key string) bool {
	x := v.Get(key)
	return x != nil && x.Type() == fastjson.TypeString
}

type geminiKind uint8

const (
	geminiOther geminiKind = iota
	geminiUser
	geminiModel
	geminiInfo
	geminiWarning
	geminiError
)

func geminiKindOf(v *fastjson.Value) geminiKind {
	switch string(v.GetStringBytes("type")) {
	case "user":
		return geminiUser
	case "gemini":
		return geminiModel
	case "info":
		return geminiInfo
	case "warning":
		return geminiWarning
	case "error":
		return geminiError
	}
	return geminiOther
}

type geminiStatus uint8

const (
	geminiCallOther geminiStatus = iota
	geminiCallSuccess
	geminiCallError
	geminiCallCancelled
)

type geminiCall struct {
	id     string
	status geminiStatus
}

// geminiMsg is what the replay keeps of one message.
type geminiMsg struct {
	id    string
	kind  geminiKind
	t     time.Time
	text  bool // has text
	usage lore.Usage
	model string
	calls []geminiCall
	// msgs are the message and its tool results, when bodies are kept.
	msgs []lore.Message
}

// geminiReplay is the message history as a Gemini log builds it.
type geminiReplay struct {
	b     *builder
	order []*geminiMsg
	index map[string]int
	// spent sums the tokens of messages a rewind removed.
	spent lore.Usage
	model string // the last model name seen, shared to save copies
	seen  int    // message records read, rewound ones too
	// cwd is the workspace folder the setup context the CLI writes as
	// the first user message names; sawUser says that message was read.
	cwd     string
	sawUser bool
}

func newGeminiReplay(b *builder) *geminiReplay {
	return &geminiReplay{b: b, index: make(map[string]int)}
}

// upsert adds a message record, or replaces the one with its id.
func (g *geminiReplay) upsert(v *fastjson.Value) {
	if v.Type() != fastjson.TypeObject {
		return
	}
	id := v.GetStringBytes("id")
	if id == nil {
		return
	}
	g.seen++
	if i, ok := g.index[string(id)]; ok {
		g.order[i] = g.message(g.order[i].id, v)
		return
	}
	m := g.message(string(id), v)
	g.index[m.id] = len(g.order)
	g.order = append(g.order, m)
}

// rewind removes the message id and everything after it.
func (g *geminiReplay) rewind(line int, id []byte) {
	i, ok := g.index[string(id)]
	if !ok {
		g.b.warn(line, errors.New("rewind to a message the log does not hold; ignored"))
		return
	}
	for _, m := range g.order[i:] {
		delete(g.index, m.id)
		g.spent.Add(m.usage)
	}
	clear(g.order[i:])
	g.order = g.order[:i]
}

// message builds the summary of one message record.
func (g *geminiReplay) message(id string, v *fastjson.Value) *geminiMsg {
	keep := g.b.keep
	m := &geminiMsg{id: id, kind: geminiKindOf(v), t: timeOf(v, "timestamp")}
	content := v.Get("content")
	m.text = geminiHasText(content)
	if m.kind == geminiUser && !g.sawUser {
		g.sawUser = true
		g.cwd = setupWorkspace(geminiText(content), geminiSetupPrefix)
	}
	if m.kind != geminiModel {
		if keep {
			role, text := lore.RoleSystem, ""
			if m.kind == geminiUser {
				role = lore.RoleUser
				if dc := v.Get("displayContent"); dc != nil && geminiHasText(dc) {
					content = dc
				}
			}
			text = geminiText(content)
			if m.kind == geminiError || m.kind == geminiWarning || m.kind == geminiInfo {
				text = "[" + string(v.GetStringBytes("type")) + "] " + text
			}
			m.msgs = []lore.Message{{Role: role, Time: m.t, Text: text}}
		}
		return m
	}
	if tok := v.Get("tokens"); tok != nil && tok.Type() == fastjson.TypeObject {
		in, cached := integer(tok, "input"), integer(tok, "cached")
		if cached > in {
			cached = in
		}
		m.usage = lore.Usage{
			InputTokens:     in - cached + integer(tok, "tool"),
			CacheReadTokens: cached,
			OutputTokens:    integer(tok, "output") + integer(tok, "thoughts"),
		}
	}
	if model := v.GetStringBytes("model"); len(model) > 0 {
		if string(model) != g.model {
			g.model = string(model)
		}
		m.model = g.model
	}
	calls := v.GetArray("toolCalls")
	if len(calls) > 0 {
		m.calls = make([]geminiCall, 0, len(calls))
	}
	var am, tm lore.Message
	if keep {
		am = lore.Message{Role: lore.RoleAssistant, Time: m.t, Text: geminiText(content), Thinking: geminiThoughts(v), Model: m.model}
		tm = lore.Message{Role: lore.RoleTool, Time: m.t}
	}
	for _, c := range calls {
		gc := geminiCall{id: string(c.GetStringBytes("id"))}
		switch string(c.GetStringBytes("status")) {
		case "success":
			gc.status = geminiCallSuccess
		case "error":
			gc.status = geminiCallError
		case "cancelled":
			gc.status = geminiCallCancelled
		}
		// A shell command that ran and exited non-zero has status
		// "success": Gemini reports the exit code in the output only.
		var exit *int
		if gc.status == geminiCallSuccess && string(c.GetStringBytes("name")) == geminiShell {
			if code, ok := geminiExitCode(geminiResultText(c)); ok {
				exit = &code
				if code != 0 {
					gc.status = geminiCallError
				}
			}
		}
		m.calls = append(m.calls, gc)
		if !keep {
			continue
		}
		am.ToolCalls = append(am.ToolCalls, lore.ToolCall{ID: gc.id, Name: str(c, "name"), Input: raw(c, "args")})
		if has(c, "result") || gc.status != geminiCallOther {
			tm.ToolResults = append(tm.ToolResults, lore.ToolResult{
				CallID:   gc.id,
				IsError:  gc.status == geminiCallError,
				ExitCode: exit,
				Output:   geminiResultText(c),
			})
		}
	}
	if keep {
		m.msgs = []lore.Message{am}
		if len(tm.ToolResults) > 0 {
			m.msgs = append(m.msgs, tm)
		}
	}
	return m
}

// finish records the remaining history on the builder and sets the model
// and outcome.
func (g *geminiReplay) finish() {
	b := g.b
	var last *geminiMsg
	for _, m := range g.order {
		if m.kind == geminiModel {
			b.usage(m.usage)
			if m.model != "" {
				b.s.Model = m.model
			}
		}
		if m.kind != geminiInfo && m.kind != geminiWarning && m.kind != geminiOther {
			last = m
		}
		if b.keep {
			for _, msg := range m.msgs {
				b.add(msg)
			}
			continue
		}
		switch m.kind {
		case geminiUser:
			b.add(lore.Message{Role: lore.RoleUser, Time: m.t})
		case geminiModel:
			msg := lore.Message{Role: lore.RoleAssistant, Time: m.t}
			for _, c := range m.calls {
				msg.ToolCalls = append(msg.ToolCalls, lore.ToolCall{ID: c.id})
			}
			b.add(msg)
			for _, c := range m.calls {
				if c.status == geminiCallError {
					b.fail(c.id)
				}
			}
		default:
			b.at(m.t)
		}
	}
	b.usage(g.spent)
	b.s.Outcome = geminiOutcome(last)
}

func geminiOutcome(last *geminiMsg) lore.Outcome {
	if last == nil {
		return lore.OutcomeUnknown
	}
	switch last.kind {
	case geminiError:
		return lore.OutcomeFailure
	case geminiModel:
		failed, pending := false, false
		for _, c := range last.calls {
			switch c.status {
			case geminiCallCancelled:
				return lore.OutcomeAborted
			case geminiCallError:
				failed = true
			default:
				pending = true
			}
		}
		switch {
		case failed:
			return lore.OutcomeFailure
		case pending:
			return lore.OutcomeUnknown
		case last.text:
			return lore.OutcomeSuccess
		}
	}
	return lore.OutcomeUnknown
}

// geminiMeta is what a reader takes from the metadata line, a $set, or the
// whole record: ids and times, and any messages it carries.
func geminiMeta(b *builder, g *geminiReplay, v *fastjson.Value, native *string) {
	if *native == "" {
		*native = str(v, "sessionId")
	}
	b.at(timeOf(v, "startTime"))
	b.at(timeOf(v, "lastUpdated"))
	for _, m := range v.GetArray("messages") {
		g.upsert(m)
	}
}

func readGeminiLines(ctx context.Context, in *input, emit emitFunc) error {
	b := in.builder(lore.AgentGeminiCLI)
	g := newGeminiReplay(b)
	var native string
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	err = eachJSONLine(ctx, rc, in.parser(), b.warn, func(line int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject {
			return nil
		}
		// The loader's order: rewind, message, $set, metadata.
		if id := v.Get("$rewindTo"); id != nil && id.Type() == fastjson.TypeString {
			g.rewind(line, id.GetStringBytes())
			return nil
		}
		if id := v.Get("id"); id != nil && id.Type() == fastjson.TypeString {
			g.upsert(v)
			return nil
		}
		if set := v.Get("$set"); set != nil && set.Type() == fastjson.TypeObject {
			geminiMeta(b, g, set, &native)
			return nil
		}
		if geminiIsString(v, "sessionId") && geminiIsString(v, "projectHash") {
			geminiMeta(b, g, v, &native)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return geminiEmit(in, b, g, native, emit)
}

// geminiEmit finishes a session read from a log or a whole record.
func geminiEmit(in *input, b *builder, g *geminiReplay, native string, emit emitFunc) error {
	if g.seen == 0 {
		// The CLI writes the metadata line when it starts; a session
		// nobody spoke in is no transcript.
		return emptySession("a Gemini CLI session with no messages")
	}
	g.finish()
	b.setNative(native)
	b.s.Cwd = geminiProjectRoot(in.path)
	if b.s.Cwd == "" {
		b.s.Cwd = g.cwd
	}
	emit(b.finish(baseID(in.path)))
	return nil
}

func readGeminiDoc(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	b := in.builder(lore.AgentGeminiCLI)
	g := newGeminiReplay(b)
	var native string
	geminiMeta(b, g, doc, &native)
	if err := ctx.Err(); err != nil {
		return err
	}
	return geminiEmit(in, b, g, native, emit)
}

// geminiProjectRoot returns the project root Gemini wrote in
// tmp/<project>/.project_root for a file in that project's chats/ (or
// chats/<parent>/ for sub-agents, or the project folder for checkpoints).
func geminiProjectRoot(path string) string {
	dir := filepath.Dir(path)
	var project string
	switch {
	case filepath.Base(dir) == "chats":
		project = filepath.Dir(dir)
	case filepath.Base(filepath.Dir(dir)) == "chats":
		project = filepath.Dir(filepath.Dir(dir))
	case strings.HasPrefix(filepath.Base(path), "checkpoint-"):
		project = dir
	default:
		return ""
	}
	f, err := regularfile.Open(filepath.Join(project, ".project_root"))
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 4097)
	n, _ := io.ReadFull(f, buf)
	if n == 0 || n > 4096 {
		return ""
	}
	root := strings.TrimSpace(string(buf[:n]))
	if strings.ContainsAny(root, "\n\x00") || !(filepath.IsAbs(root) || strings.HasPrefix(root, "/")) {
		return ""
	}
	return root
}

// geminiHasText reports whether a PartListUnion (a string, a Part, or a
// Part[]) holds text other than thoughts.
func geminiHasText(v *fastjson.Value) bool {
	if v == nil {
		return false
	}
	switch v.Type() {
	case fastjson.TypeString:
		return len(bytes.TrimSpace(v.GetStringBytes())) > 0
	case fastjson.TypeObject:
		return !v.GetBool("thought") && len(bytes.TrimSpace(v.GetStringBytes("text"))) > 0
	case fastjson.TypeArray:
		for _, p := range v.GetArray() {
			if geminiHasText(p) {
				return true
			}
		}
	}
	return false
}

// geminiText joins the text of a PartListUnion, leaving out thoughts;
// inline data becomes a placeholder.
func geminiText(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		return string(v.GetStringBytes())
	case fastjson.TypeObject:
		switch {
		case v.GetBool("thought"):
			return ""
		case has(v, "text"):
			return str(v, "text")
		case has(v, "inlineData"), has(v, "fileData"):
			return "[" + str(v, "inlineData", "mimeType") + str(v, "fileData", "mimeType") + "]"
		}
	case fastjson.TypeArray:
		var out string
		for _, p := range v.GetArray() {
			out = joinText(out, geminiText(p))
		}
		return out
	}
	return ""
}

// geminiThoughts joins a gemini message's thought summaries.
func geminiThoughts(v *fastjson.Value) string {
	var out string
	for _, t := range v.GetArray("thoughts") {
		s, d := str(t, "subject"), str(t, "description")
		switch {
		case s != "" && d != "":
			out = joinText(out, s+": "+d)
		default:
			out = joinText(out, s+d)
		}
	}
	return out
}

// geminiResultText is a tool call's output: the functionResponse's output
// or error, else what the CLI displayed.
// geminiShell is the shell tool's name; its output ends with lines such as
// "Exit Code: 1" (packages/core/src/tools/shell.ts), and the call's status
// is "success" whatever the command's exit code.
const geminiShell = "run_shell_command"

// geminiExitCode reads the exit code from a shell tool's output: the last
// line "Exit Code: N". A command killed by a signal has "(none)" there.
func geminiExitCode(out string) (int, bool) {
	const label = "Exit Code: "
	i := strings.LastIndex(out, label)
	if i < 0 || (i > 0 && out[i-1] != '\n') {
		return 0, false
	}
	v := out[i+len(label):]
	if j := strings.IndexByte(v, '\n'); j >= 0 {
		v = v[:j]
	}
	code, err := strconv.Atoi(strings.TrimSpace(v))
	return code, err == nil
}

func geminiResultText(c *fastjson.Value) string {
	var out string
	res := c.Get("result")
	parts := res.GetArray()
	if res != nil && res.Type() == fastjson.TypeObject {
		parts = []*fastjson.Value{res}
	}
	for _, p := range parts {
		fr := p.Get("functionResponse")
		if fr == nil {
			out = joinText(out, geminiText(p))
			continue
		}
		resp := fr.Get("response")
		switch {
		case has(resp, "output"):
			out = joinText(out, raw(resp, "output"))
		case has(resp, "error"):
			out = joinText(out, raw(resp, "error"))
		default:
			out = joinText(out, raw(fr, "response"))
		}
	}
	if out == "" {
		if d := c.Get("resultDisplay"); d != nil && d.Type() == fastjson.TypeString {
			out = string(d.GetStringBytes())
		}
	}
	return out
}

// Checkpoints.

const geminiSetupPrefix = "This is the Gemini CLI. We are setting up the context for our chat."

// setupContext is the body of the setup context a Gemini CLI (or a fork
// whose setup starts with prefix) puts first in a chat, without the
// <session_context> tag newer versions wrap it in; ok is false for any
// other text.
func setupContext(text, prefix string) (body string, ok bool) {
	t := strings.TrimSpace(text)
	t = strings.TrimSpace(strings.TrimPrefix(t, "<session_context>"))
	if !strings.HasPrefix(t, prefix) {
		return "", false
	}
	return t, true
}

// setupWorkspace is the first workspace folder a setup context names, ""
// when text is none or names no absolute folder. The first is the folder
// the CLI was started in (WorkspaceContext puts it before any added with
// --include-directories). packages/core/src/utils/environmentContext.ts
// has written, over time:
//
//	I'm currently working in the directory: /path
//	I'm currently working in the following directories:\n  - /path\n  - …
//	- **Workspace Directories:**\n  - /path\n  - …
//
// The folders come before the directory tree and the user's memory
// (GEMINI.md), so the first match is the CLI's and not a file's text.
func setupWorkspace(text, prefix string) string {
	body, ok := setupContext(text, prefix)
	if !ok {
		return ""
	}
	const (
		one  = "I'm currently working in the directory: "
		list = "I'm currently working in the following directories:"
		ws   = "- **Workspace Directories:**"
	)
	var listed bool // the line before began a list of folders
	for l := range strings.Lines(body) {
		l = strings.TrimSpace(l)
		var dir string
		switch {
		case listed:
			item, ok := strings.CutPrefix(l, "- ")
			if !ok {
				return ""
			}
			dir = item
		case strings.HasPrefix(l, one):
			dir = strings.TrimPrefix(l, one)
		case l == list || l == ws:
			listed = true
			continue
		default:
			continue
		}
		dir = strings.TrimSpace(dir)
		if !absPathAnywhere(dir) {
			return ""
		}
		return dir
	}
	return ""
}

// absPathAnywhere reports whether p is an absolute path on Unix (/home/…)
// or Windows (C:\…, C:/…, \\server\share): the machine that wrote a
// transcript need not be this one.
func absPathAnywhere(p string) bool {
	if strings.ContainsAny(p, "\x00\r\n") {
		return false
	}
	switch {
	case strings.HasPrefix(p, `\\`):
		return len(p) > 2
	case strings.HasPrefix(p, "/"):
		return true
	case len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'):
		c := p[0] | 0x20
		return 'a' <= c && c <= 'z'
	}
	return false
}

func geminiCheckpointHistory(doc *fastjson.Value) []*fastjson.Value {
	switch doc.Type() {
	case fastjson.TypeArray:
		return doc.GetArray()
	case fastjson.TypeObject:
		return doc.GetArray("history")
	}
	return nil
}

func sniffGeminiCheckpoint(name string, doc *fastjson.Value) bool {
	if !strings.HasPrefix(name, "checkpoint-") || !strings.HasSuffix(name, ".json") {
		return false
	}
	hist := geminiCheckpointHistory(doc)
	if len(hist) == 0 {
		return false
	}
	for _, c := range hist {
		role := string(c.GetStringBytes("role"))
		parts := c.Get("parts")
		if role != "user" && role != "model" || parts == nil || parts.Type() != fastjson.TypeArray {
			return false
		}
	}
	return true
}

func readGeminiCheckpoint(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	return readCheckpointOf(ctx, in, doc, emit, lore.AgentGeminiCLI, geminiSetupPrefix)
}

// readCheckpointOf reads a checkpoint of agent, a Gemini CLI or one of its
// forks (Qwen Code), whose setup message starts with setupPrefix.
func readCheckpointOf(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc, agent, setupPrefix string) error {
	b := in.builder(agent)
	keep := b.keep
	if fi, err := os.Stat(in.path); err == nil {
		b.at(fi.ModTime())
	}
	type end int
	const (
		endNone end = iota
		endText
		endCall
		endResult
		endError
	)
	last := endNone
	setup := false
	var workspace string
	for i, c := range geminiCheckpointHistory(doc) {
		if i&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		parts := c.GetArray("parts")
		if is(c, "model", "role") {
			if setup && i == 1 {
				// The model's "Got it." to the setup context.
				if keep {
					b.add(lore.Message{Role: lore.RoleSystem, Text: geminiText(c.Get("parts"))})
				}
				continue
			}
			m := lore.Message{Role: lore.RoleAssistant}
			text := false
			for _, p := range parts {
				switch {
				case has(p, "functionCall"):
					fc := p.Get("functionCall")
					call := lore.ToolCall{ID: str(fc, "id")}
					if keep {
						call.Name, call.Input = str(fc, "name"), raw(fc, "args")
					}
					m.ToolCalls = append(m.ToolCalls, call)
				case p.GetBool("thought"):
					if keep {
						m.Thinking = joinText(m.Thinking, str(p, "text"))
					}
				case geminiHasText(p):
					text = true
					if keep {
						m.Text = joinText(m.Text, str(p, "text"))
					}
				}
			}
			switch {
			case len(m.ToolCalls) > 0:
				last = endCall
			case text:
				last = endText
			}
			b.add(m)
			continue
		}
		// A user entry: what the user wrote, and the results of the
		// model's calls.
		var results []lore.ToolResult
		text := ""
		hasText := false
		for _, p := range parts {
			if fr := p.Get("functionResponse"); fr != nil {
				r := lore.ToolResult{CallID: str(fr, "id"), IsError: has(fr, "response", "error")}
				if !r.IsError && string(fr.GetStringBytes("name")) == geminiShell {
					if code, ok := geminiExitCode(string(fr.GetStringBytes("response", "output"))); ok {
						r.ExitCode, r.IsError = &code, code != 0
					}
				}
				if keep {
					if r.IsError {
						r.Output = raw(fr, "response", "error")
					} else {
						r.Output = raw(fr, "response", "output")
					}
				}
				results = append(results, r)
				continue
			}
			if geminiHasText(p) || has(p, "inlineData") || has(p, "fileData") {
				hasText = true
				if keep || i == 0 {
					text = joinText(text, geminiText(p))
				}
			}
		}
		if len(results) > 0 {
			b.add(lore.Message{Role: lore.RoleTool, ToolResults: results})
			last = endResult
			for _, r := range results {
				if r.IsError {
					last = endError
				}
			}
		}
		if !hasText {
			continue
		}
		if _, ok := setupContext(text, setupPrefix); i == 0 && ok {
			setup = true
			workspace = setupWorkspace(text, setupPrefix)
			if keep {
				b.add(lore.Message{Role: lore.RoleSystem, Text: text})
			}
			continue
		}
		if !keep {
			text = ""
		}
		b.add(lore.Message{Role: lore.RoleUser, Text: text})
		last = endNone
	}
	switch last {
	case endText:
		b.s.Outcome = lore.OutcomeSuccess
	case endError:
		b.s.Outcome = lore.OutcomeFailure
	}
	if b.s.MessageCount() == 0 && b.s.ToolCalls == 0 {
		return emptySession("a %s checkpoint with no turns", agent)
	}
	b.s.Cwd = geminiProjectRoot(in.path)
	if b.s.Cwd == "" {
		b.s.Cwd = workspace
	}
	emit(b.finish(geminiCheckpointID(in.path)))
	return nil
}

// geminiCheckpointID names a checkpoint by its tag ("checkpoint-<tag>",
// the tag URL-decoded as /chat save encodes it), with the project folder
// in front when the file sits in Gemini's tmp/<project>/.
func geminiCheckpointID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	tag := strings.TrimPrefix(name, "checkpoint-")
	if t, err := url.PathUnescape(tag); err == nil {
		tag = t
	}
	id := "checkpoint-" + tag
	dir := filepath.Dir(path)
	if filepath.Base(filepath.Dir(dir)) == "tmp" {
		id = filepath.Base(dir) + "/" + id
	}
	return id
}
