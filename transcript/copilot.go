package transcript

import (
	"context"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// GitHub Copilot's session event log, one JSON event a line:
// {"type", "data", "id", "timestamp", "parentId"} and, for a sub-agent's
// events, "agentId" (FORMATS.md, GitHub Copilot CLI; the event schema is
// github/copilot-sdk nodejs/src/generated/session-events.ts). Two writers
// use it:
//
//   - the Copilot CLI, ~/.copilot/session-state/<id>/events.jsonl (older
//     versions <id>.jsonl), a full log with models, tokens, tool results
//     and resumes (agent copilot-cli);
//   - VS Code's Copilot Chat extension, which since 0.3x keeps the same
//     shape for hooks in workspaceStorage/<hash>/GitHub.copilot-chat/
//     transcripts/<id>.jsonl (microsoft/vscode-copilot-chat
//     src/extension/chat/vscode-node/sessionTranscriptService.ts): only
//     session.start, user and assistant messages, turns and tool
//     executions, with no model or tokens. Its session.start carries
//     "vscodeVersion", which tells it from the CLI (agent copilot-chat).
//
// Counting rules:
//   - a user.message is a user turn unless it has a "source" (system
//     steering, skill context, instruction discovery, another agent's
//     prompt: text the user did not type), which is a system message;
//   - an assistant.message is an assistant turn, once per messageId; its
//     toolRequests are tool calls, once per toolCallId; a
//     tool.execution_start whose id no request named (a tool the user
//     ran) is a call too;
//   - a tool error is a tool.execution_complete with success false, or a
//     shell command (bash, powershell and their read/write tools) whose
//     result says it exited non-zero ("<shellId: N completed with exit
//     code 1>", or a shell_exit content block): the shell tool reports
//     success either way;
//   - events with an agentId are a sub-agent's: its messages are sidechain
//     messages (no turns), its tool calls count;
//   - tokens: the log has each response's outputTokens only; the input
//     and cache tokens are in session.shutdown's modelMetrics, written once
//     per run of the CLI (a resumed session starts counting again, so the
//     shutdowns are added). For each run that ended with a shutdown its
//     totals are taken (input is cache-inclusive there, so InputTokens is
//     input − cache read − cache write), with output the larger of the
//     shutdown's and the run's responses' sum; a run with no shutdown (a
//     crash, /new, a session still going) counts its responses' output;
//   - model: the last main-agent assistant.message's model, else the last model of a
//     turn or tool, a model change, the start's selectedModel or the
//     shutdown's currentModel; cwd and branch from session.start's context
//     (cwd the first, branch the last of the start, resumes and context
//     changes); repo from context.repository; the VS Code transcript's cwd
//     is its workspace's folder (workspaceStorage/<hash>/workspace.json)
//     when the start names none.
//
// Outcome, from the last event that says: an answer with no tool request
// is success, a failed tool call or a session.error or a shutdown of type
// "error" failure, an abort aborted; a request still waiting for its tool
// is unknown.

// copilotRoots: the CLI keeps its state in $COPILOT_HOME, else ~/.copilot
// (docs.github.com copilot-cli-reference/cli-config-dir-reference), on
// Linux and macOS alike; sessions are in its session-state folder.
func copilotRoots(e Env) []Root {
	if v := e.get("COPILOT_HOME"); v != "" {
		return []Root{{Agent: lore.AgentCopilotCLI, Path: filepath.Join(v, "session-state"), Source: "COPILOT_HOME"}}
	}
	return []Root{{Agent: lore.AgentCopilotCLI, Path: e.home(".copilot", "session-state"), Source: "default"}}
}

// sniffCopilot claims a log whose first event is the session start the
// writer puts first: type "session.start" with the session id and the
// producer or version of the Copilot runtime.
func sniffCopilot(_ string, v *fastjson.Value) bool {
	if !is(v, "session.start", "type") {
		return false
	}
	d := v.Get("data")
	if d == nil || d.Type() != fastjson.TypeObject || !geminiIsString(d, "sessionId") {
		return false
	}
	return geminiIsString(d, "producer") || geminiIsString(d, "copilotVersion")
}

// copilotShellTools are the shell tools whose result ends with the exit
// code while the call itself is reported a success.
var copilotShellTools = map[string]bool{
	"bash": true, "read_bash": true, "write_bash": true,
	"powershell": true, "read_powershell": true, "write_powershell": true,
}

// copilotReader holds what a read keeps between events.
type copilotReader struct {
	b      *builder
	native string
	vscode bool
	// model is the last model of a response; other models fall back.
	model, fallbackModel, startModel, shutdownModel string
	branch                                          string
	// names maps tool call ids to their tool names, for the shell rule.
	names map[string]string
	// segOut is the output tokens of the responses since the last
	// shutdown.
	segOut   int64
	outcome  lore.Outcome
	sawTurns bool
}

func readCopilot(ctx context.Context, in *input, emit emitFunc) error {
	b := in.builder(lore.AgentCopilotCLI)
	r := &copilotReader{b: b, names: make(map[string]string), outcome: lore.OutcomeUnknown}
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	err = eachJSONLine(ctx, rc, in.parser(), b.warn, func(_ int, v *fastjson.Value) error {
		if v.Type() == fastjson.TypeObject {
			r.event(v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !r.sawTurns {
		return emptySession("a Copilot session with no messages")
	}
	r.finish(in.path)
	b.setNative(r.native)
	emit(b.finish(copilotFallbackID(in.path)))
	return nil
}

// copilotFallbackID is the session id a file's name gives: the folder of
// an events.jsonl, else the file name.
func copilotFallbackID(path string) string {
	if filepath.Base(path) == "events.jsonl" {
		return filepath.Base(filepath.Dir(path))
	}
	return baseID(path)
}

func (r *copilotReader) event(v *fastjson.Value) {
	b := r.b
	t := timeOf(v, "timestamp")
	d := v.Get("data")
	if d == nil || d.Type() != fastjson.TypeObject {
		b.at(t)
		return
	}
	side := len(v.GetStringBytes("agentId")) > 0
	switch string(v.GetStringBytes("type")) {
	case "session.start":
		if r.native == "" {
			r.native = str(d, "sessionId")
		}
		r.vscode = r.vscode || has(d, "vscodeVersion")
		if m := str(d, "selectedModel"); m != "" && r.startModel == "" {
			r.startModel = m
		}
		b.at(timeOf(d, "startTime"))
		r.context(d.Get("context"))
	case "session.resume", "session.context_changed":
		if c := d.Get("context"); c != nil {
			r.context(c)
		} else {
			r.context(d)
		}
	case "session.model_change":
		if m := str(d, "newModel"); m != "" {
			r.fallbackModel = m
		}
	case "user.message":
		r.sawTurns = true
		role := lore.RoleUser
		if has(d, "source") {
			role = lore.RoleSystem
		}
		m := lore.Message{Role: role, Time: t, Sidechain: side}
		if b.keep {
			m.Text = str(d, "content")
		}
		b.add(m)
		if role == lore.RoleUser && !side {
			r.outcome = lore.OutcomeUnknown
		}
	case "assistant.message":
		r.sawTurns = true
		r.assistant(d, t, side)
	case "assistant.turn_start", "assistant.turn_end":
		if m := str(d, "model"); m != "" {
			r.fallbackModel = m
		}
		b.at(t)
	case "tool.execution_start":
		id := str(d, "toolCallId")
		name := str(d, "toolName")
		if id != "" {
			r.names[id] = name
		}
		if m := str(d, "model"); m != "" {
			r.fallbackModel = m
		}
		if id == "" || !b.calls.has([]byte(id)) {
			m := lore.Message{Role: lore.RoleTool, Time: t, Sidechain: side,
				ToolCalls: []lore.ToolCall{{ID: id}}}
			if b.keep {
				m.ToolCalls[0].Name, m.ToolCalls[0].Input = name, raw(d, "arguments")
			}
			b.add(m)
		} else {
			b.at(t)
		}
	case "tool.execution_complete":
		r.result(d, t, side)
	case "abort":
		if !side {
			r.outcome = lore.OutcomeAborted
		}
		r.note(t, side, "[abort] "+str(d, "reason"))
	case "session.error":
		if !side {
			r.outcome = lore.OutcomeFailure
		}
		r.note(t, side, "[error] "+str(d, "message"))
	case "session.shutdown":
		r.shutdown(d)
		if is(d, "error", "shutdownType") {
			r.outcome = lore.OutcomeFailure
		}
		b.at(t)
	default:
		b.at(t)
	}
}

// note keeps a system message when bodies are kept.
func (r *copilotReader) note(t time.Time, side bool, text string) {
	if r.b.keep {
		r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: text, Sidechain: side})
		return
	}
	r.b.at(t)
}

// context takes the cwd, branch and repository of a working directory
// context.
func (r *copilotReader) context(c *fastjson.Value) {
	if c == nil || c.Type() != fastjson.TypeObject {
		return
	}
	s := r.b.s
	if s.Cwd == "" {
		s.Cwd = str(c, "cwd")
	}
	if br := str(c, "branch"); br != "" {
		r.branch = br
	}
	if repo := str(c, "repository"); repo != "" && s.Repo == "" {
		s.Repo = repo
	}
}

func (r *copilotReader) assistant(d *fastjson.Value, t time.Time, side bool) {
	b := r.b
	m := lore.Message{Role: lore.RoleAssistant, Time: t, Sidechain: side}
	if model := d.GetStringBytes("model"); len(model) > 0 && !side {
		if string(model) != r.model {
			r.model = string(model)
		}
		m.Model = r.model
	}
	reqs := d.GetArray("toolRequests")
	for _, q := range reqs {
		c := lore.ToolCall{ID: str(q, "toolCallId")}
		if c.ID != "" {
			r.names[c.ID] = str(q, "name")
		}
		if b.keep {
			c.Name, c.Input = str(q, "name"), raw(q, "arguments")
		}
		m.ToolCalls = append(m.ToolCalls, c)
	}
	if b.keep {
		m.Text, m.Thinking = str(d, "content"), str(d, "reasoningText")
	}
	key := str(d, "messageId")
	if _, seen := b.keyed[key]; !seen || key == "" {
		r.segOut += integer(d, "outputTokens") // a response once
	}
	b.addKeyed(key, m)
	if side {
		return
	}
	switch {
	case len(reqs) > 0:
		r.outcome = lore.OutcomeUnknown
	case len(d.GetStringBytes("content")) > 0:
		r.outcome = lore.OutcomeSuccess
	}
}

func (r *copilotReader) result(d *fastjson.Value, t time.Time, side bool) {
	b := r.b
	id := str(d, "toolCallId")
	res := lore.ToolResult{CallID: id, IsError: !boolean(d, "success") && has(d, "success")}
	if e := d.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
		res.IsError = true
	}
	content := str(d, "result", "content")
	if copilotShellTools[r.names[id]] {
		if code, ok := copilotExitCode(d, content); ok {
			res.ExitCode = &code
			if code != 0 {
				res.IsError = true
			}
		}
	}
	if m := str(d, "model"); m != "" {
		r.fallbackModel = m
	}
	if b.keep {
		res.Output = content
		if res.Output == "" {
			res.Output = str(d, "error", "message")
		}
	}
	if !side {
		if res.IsError {
			r.outcome = lore.OutcomeFailure
		} else {
			r.outcome = lore.OutcomeUnknown
		}
	}
	b.add(lore.Message{Role: lore.RoleTool, Time: t, Sidechain: side, ToolResults: []lore.ToolResult{res}})
}

// copilotExitCode reads a shell command's exit code from a shell_exit
// block, else from the last line of its result, "<shellId: N completed
// with exit code K>" or "<exited with exit code K>".
func copilotExitCode(d *fastjson.Value, content string) (int, bool) {
	for _, c := range d.GetArray("result", "contents") {
		if is(c, "shell_exit", "type") {
			if n := optInt(c, "exitCode"); n != nil {
				return *n, true
			}
		}
	}
	content = strings.TrimRight(content, " \t\r\n")
	i := strings.LastIndexByte(content, '\n')
	last := content[i+1:]
	const mark = " with exit code "
	if !strings.HasPrefix(last, "<") || !strings.HasSuffix(last, ">") {
		return 0, false
	}
	j := strings.LastIndex(last, mark)
	if j < 0 {
		return 0, false
	}
	code, err := strconv.Atoi(last[j+len(mark) : len(last)-1])
	return code, err == nil
}

// shutdown adds the token totals of one run of the CLI.
func (r *copilotReader) shutdown(d *fastjson.Value) {
	if m := str(d, "currentModel"); m != "" {
		r.shutdownModel = m
	}
	metrics := d.GetObject("modelMetrics")
	if metrics == nil || metrics.Len() == 0 {
		return // the run's responses are counted with the next run's
	}
	var u lore.Usage
	metrics.Visit(func(_ []byte, mv *fastjson.Value) {
		in, cr, cw := integer(mv, "usage", "inputTokens"), integer(mv, "usage", "cacheReadTokens"), integer(mv, "usage", "cacheWriteTokens")
		fresh := in - cr - cw
		if fresh < 0 {
			fresh = 0
		}
		u.InputTokens += fresh
		u.CacheReadTokens += cr
		u.CacheWriteTokens += cw
		u.OutputTokens += integer(mv, "usage", "outputTokens")
	})
	if r.segOut > u.OutputTokens {
		u.OutputTokens = r.segOut
	}
	r.segOut = 0
	r.b.usage(u)
}

func (r *copilotReader) finish(path string) {
	b := r.b
	b.usage(lore.Usage{OutputTokens: r.segOut})
	r.segOut = 0
	for _, m := range []string{r.model, r.fallbackModel, r.startModel, r.shutdownModel} {
		if m != "" {
			b.s.Model = m
			break
		}
	}
	b.s.Branch = r.branch
	b.s.Outcome = r.outcome
	if r.vscode {
		b.s.Agent = lore.AgentCopilotChat
		if b.s.Cwd == "" {
			b.s.Cwd = vscodeWorkspaceFolder(filepath.Dir(filepath.Dir(filepath.Dir(path))))
		}
	}
}

// vscodeWorkspaceFolder reads the folder a VS Code workspace storage
// folder belongs to, from its workspace.json ({"folder":"file:///…"}); ""
// when there is none or it is not a local folder.
func vscodeWorkspaceFolder(storage string) string {
	f, err := regularfile.Open(filepath.Join(storage, "workspace.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return ""
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return ""
	}
	return fileURIPath(str(v, "folder"))
}

// fileURIPath turns a file:// URI into a path; "" for other schemes.
func fileURIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	p := u.Path
	// file:///c%3A/Users/… is a Windows drive.
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return p
}
