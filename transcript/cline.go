package transcript

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Cline and Roo Code (FORMATS.md section 8): a task folder
// <VS Code user dir>/globalStorage/<extension id>/tasks/<task id>/ holding
// api_conversation_history.json (Anthropic MessageParams, the model's view)
// and ui_messages.json (legacy claude_messages.json; the user's view,
// ClineMessage records with ms times). Both are JSON documents rewritten
// whole. Native id: the task folder's name. Agent: roo-code under
// rooveterinaryinc.roo-cline, kilo-code under kilocode.kilo-code or
// ~/.kilocode/cli/, cline under saoudrizwan.claude-dev; elsewhere
// roo-code when the environment details name a Roo mode ("# Current Mode"
// with a <slug>), else cline.
//
// Counting rules, from api_conversation_history.json when the folder has
// one:
//   - assistant turns are assistant messages (one per API response);
//   - user turns are user messages carrying something the user wrote: the
//     task, typed feedback, answers to questions, resumption instructions,
//     attached images. Tool results, <environment_details>, and the
//     notices Cline and Roo add ("[ERROR] …", "[TASK RESUMPTION] …" without
//     new instructions, "Tool [x] was not executed …") are not turns;
//   - tool calls are tool_use ids, each once; older tasks wrote calls as
//     XML in the answer (<read_file>…</read_file>): the first complete tag
//     of a known tool in an answer is its call (Cline runs one a message),
//     and a "[tool for '…'] Result:" block in the next user message is its
//     result (a result with no call seen counts as a call too);
//   - a tool error is a tool_result with is_error, or a result whose text
//     starts "The tool execution failed with the following error" (what
//     Cline and Roo's formatResponse.toolError write), each call once; a
//     denied tool is not an error.
//
// From ui_messages.json: times (ts), tokens (each api_req_started once:
// tokensIn, tokensOut, cacheReads, cacheWrites), the model (modelInfo),
// the outcome, and — when there is no api history — the counts: user
// turns are "task" and "user_feedback"; an assistant turn is an API
// request (api_req_started) followed by output; tool calls are the tool,
// command, MCP, browser, question, plan and completion messages; a tool
// error is an "error" message after a call, once a call.
//
// Outcome, from the last ui message that is not bookkeeping (checkpoints,
// retries, progress): completion_result or resume_completed_task is
// success; api_req_failed, mistake_limit_reached or error is failure;
// resume_task (a task reopened and left) or a request the user cancelled
// is aborted, a request whose stream failed is failure; anything else is
// unknown. Without ui messages: an answer calling attempt_completion last
// is success, else unknown. Images (base64 in images[] and image blocks)
// are never kept.

const (
	clineAPIFile    = "api_conversation_history.json"
	clineUIFile     = "ui_messages.json"
	clineLegacyFile = "claude_messages.json"
	clineExtCline   = "saoudrizwan.claude-dev"
	clineExtRoo     = "rooveterinaryinc.roo-cline"
	// Kilo Code's extension, a Roo Code fork, and its first CLI
	// (~/.kilocode/cli/global/tasks) write the same task folders
	// (Kilo-Org/kilocode src/shared/globalFileNames.ts); their roots are
	// in opencodeRoots.
	clineExtKilo = "kilocode.kilo-code"
	clineKiloCLI = "/.kilocode/cli/"
)

// clineRoots: the tasks folders of both extensions in the globalStorage of
// VS Code and its forks (VS Code's user data folder: ~/.config/<app> on
// Linux, honouring XDG_CONFIG_HOME; ~/Library/Application Support/<app> on
// macOS; ~/.vscode-server/data for remote sessions), and the Cline CLI's
// $CLINE_DATA_DIR, $CLINE_DIR/data or ~/.cline/data (cline/cline CLI
// initializeCliContext).
func clineRoots(e Env) []Root {
	apps := []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}
	var bases []string
	switch e.GOOS {
	case "darwin":
		for _, a := range apps {
			bases = append(bases, e.macAppSupport(a, "User", "globalStorage"))
		}
	default:
		cfg := e.xdg("XDG_CONFIG_HOME", ".config")
		for _, a := range apps {
			bases = append(bases, filepath.Join(cfg, a, "User", "globalStorage"))
		}
		bases = append(bases, e.home(".vscode-server", "data", "User", "globalStorage"))
	}
	var out []Root
	for _, b := range bases {
		out = append(out,
			Root{Agent: lore.AgentCline, Path: filepath.Join(b, clineExtCline, "tasks"), Source: "default"},
			Root{Agent: lore.AgentRooCode, Path: filepath.Join(b, clineExtRoo, "tasks"), Source: "default"})
	}
	switch {
	case e.get("CLINE_DATA_DIR") != "":
		out = append(out, Root{Agent: lore.AgentCline, Path: filepath.Join(e.get("CLINE_DATA_DIR"), "tasks"), Source: "CLINE_DATA_DIR"})
	case e.get("CLINE_DIR") != "":
		out = append(out, Root{Agent: lore.AgentCline, Path: filepath.Join(e.get("CLINE_DIR"), "data", "tasks"), Source: "CLINE_DIR"})
	default:
		out = append(out, Root{Agent: lore.AgentCline, Path: e.home(".cline", "data", "tasks"), Source: "default"})
	}
	return out
}

func clineMatch(_ string, names map[string]bool) bool {
	return names[clineAPIFile] || names[clineUIFile] || names[clineLegacyFile]
}

// clineSniffDoc claims a lone ui_messages.json (an array of ClineMessages:
// ms "ts" and a say/ask "type") or a file named
// api_conversation_history.json.
func clineSniffDoc(name string, doc *fastjson.Value) bool {
	arr := doc.GetArray()
	if doc.Type() != fastjson.TypeArray || len(arr) == 0 {
		return false
	}
	first := arr[0]
	if ts := first.Get("ts"); ts != nil && ts.Type() == fastjson.TypeNumber {
		if t := first.GetStringBytes("type"); string(t) == "say" || string(t) == "ask" {
			return true
		}
	}
	return name == clineAPIFile && has(first, "role") && has(first, "content")
}

// clineReadDoc reads one file: the whole task folder when the file has
// its own name inside one (so a file and its folder are the same session),
// else the file alone.
func clineReadDoc(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	name := filepath.Base(in.path)
	switch name {
	case clineAPIFile, clineUIFile, clineLegacyFile:
		dir := *in
		dir.path, dir.size = filepath.Dir(in.path), dirSize(filepath.Dir(in.path))
		return clineReadDir(ctx, &dir, emit)
	}
	c := clineNew(in, in.path)
	if first := doc.GetArray()[0]; has(first, "role") {
		c.readAPI(doc)
	} else {
		c.readUI(doc, true)
	}
	return c.emit(emit, baseID(in.path))
}

func clineReadDir(ctx context.Context, in *input, emit emitFunc) error {
	c := clineNew(in, in.path)
	var uiParser fastjson.Parser
	api, apiErr := c.load(filepath.Join(in.path, clineAPIFile), in.parser())
	ui, uiErr := c.load(filepath.Join(in.path, clineUIFile), &uiParser)
	if ui == nil && uiErr == nil {
		ui, uiErr = c.load(filepath.Join(in.path, clineLegacyFile), &uiParser)
	}
	if api == nil && ui == nil {
		if apiErr != nil {
			return apiErr
		}
		if uiErr != nil {
			return uiErr
		}
		return notTranscript("a Cline task folder with no messages")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	useAPI := api != nil && len(api.GetArray()) > 0
	if useAPI {
		c.readAPI(api)
	}
	if ui != nil {
		c.readUI(ui, !useAPI)
	}
	return c.emit(emit, filepath.Base(in.path))
}

// load parses one file of the task; a missing file is (nil, nil), a
// damaged one a warning.
func (c *clineReader) load(path string, p *fastjson.Parser) (*fastjson.Value, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDocument+1))
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	if len(data) > maxDocument {
		c.b.warn(0, fmt.Errorf("%s: larger than %d MiB, skipped", name, maxDocument>>20))
		return nil, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	v, err := p.ParseBytes(data)
	if err != nil {
		c.b.warn(0, fmt.Errorf("%s: %v", name, jsonDamage(data)))
		return nil, nil
	}
	if v.Type() != fastjson.TypeArray {
		c.b.warn(0, fmt.Errorf("%s: %s, not an array of messages", name, describeValue(v)))
		return nil, nil
	}
	return v, nil
}

type clineEnd int

const (
	clineEndNone clineEnd = iota
	clineEndPending
	clineEndSuccess
	clineEndFailed
	clineEndAborted
)

type clineReader struct {
	b     *builder
	p     fastjson.Parser // api_req_started texts
	model string
	// agentKnown is set when the folder's location named the extension.
	agentKnown bool
	end        clineEnd
	// apiEnd is the outcome the api history alone gives.
	apiEnd clineEnd
	hasUI  bool
}

func clineNew(in *input, path string) *clineReader {
	b := newBuilder(lore.AgentCline, path, in.opts)
	b.s.Size = in.size
	c := &clineReader{b: b}
	switch {
	case strings.Contains(path, clineExtRoo):
		b.s.Agent, c.agentKnown = lore.AgentRooCode, true
	case strings.Contains(path, clineExtKilo) || strings.Contains(filepath.ToSlash(path), clineKiloCLI):
		b.s.Agent, c.agentKnown = lore.AgentKiloCode, true
	case strings.Contains(path, clineExtCline):
		c.agentKnown = true
	}
	return c
}

func (c *clineReader) emit(emit emitFunc, native string) error {
	s := c.b.s
	s.Model = c.model
	end := c.end
	if !c.hasUI {
		end = c.apiEnd
	}
	switch end {
	case clineEndSuccess:
		s.Outcome = lore.OutcomeSuccess
	case clineEndFailed:
		s.Outcome = lore.OutcomeFailure
	case clineEndAborted:
		s.Outcome = lore.OutcomeAborted
	}
	c.b.setNative(native)
	emit(c.b.finish(native))
	return nil
}

// clineXMLTools are the tools Cline and Roo Code called with XML tags
// before native tool calls.
var clineXMLTools = func() [][2][]byte {
	names := []string{
		"execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff",
		"insert_content", "search_and_replace", "search_files", "list_files",
		"list_code_definition_names", "codebase_search", "browser_action", "use_mcp_tool",
		"access_mcp_resource", "ask_followup_question", "attempt_completion",
		"plan_mode_respond", "plan_mode_response", "new_task", "switch_mode",
		"fetch_instructions", "load_mcp_documentation", "web_fetch", "condense",
		"summarize_task", "report_bug", "new_rule", "update_todo_list",
	}
	out := make([][2][]byte, len(names))
	for i, n := range names {
		out[i] = [2][]byte{[]byte("<" + n + ">"), []byte("</" + n + ">")}
	}
	return out
}()

// clineXMLCall returns the name of the first complete known tool tag in
// an answer, or "".
func clineXMLCall(text []byte) string {
	best, at := "", -1
	for _, t := range clineXMLTools {
		i := bytes.Index(text, t[0])
		if i < 0 || (at >= 0 && i >= at) {
			continue
		}
		if bytes.Contains(text[i+len(t[0]):], t[1]) {
			best, at = string(t[0][1:len(t[0])-1]), i
		}
	}
	return best
}

var (
	clineResultTag   = []byte("] Result:")
	clineToolFailed  = []byte("The tool execution failed with the following error")
	clineEnvDetails  = []byte("<environment_details>")
	clineUserMessage = []byte("<user_message>")
	clineFeedbackTag = []byte("<feedback>")
	clineCwdMarkers  = [][]byte{[]byte("# Current Working Directory ("), []byte("# Current Workspace Directory (")}
	clineRooMode     = []byte("# Current Mode\n<slug>")
)

// clineResultMarker recognises "[read_file for 'x'] Result:" at the start
// of a text block and returns what follows it.
func clineResultMarker(s []byte) ([]byte, bool) {
	if len(s) < 3 || s[0] != '[' {
		return nil, false
	}
	first := s
	if nl := bytes.IndexByte(s, '\n'); nl >= 0 {
		first = s[:nl]
	}
	j := bytes.Index(first, clineResultTag)
	if j < 0 {
		return nil, false
	}
	k := 1
	for k < len(first) && (first[k] == '_' || first[k] >= 'a' && first[k] <= 'z' || first[k] >= 'A' && first[k] <= 'Z') {
		k++
	}
	if k == 1 || k >= len(first) || (first[k] != ' ' && first[k] != ']') {
		return nil, false
	}
	return s[j+len(clineResultTag):], true
}

// clineFailed reports whether a tool result's text is Cline's error.
func clineFailed(text []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(text, " \t\r\n"), clineToolFailed)
}

// clineFeedback reports whether a tool result carries words the user
// typed: an answer to a question, or feedback on a denied tool or a
// completion.
func clineFeedback(text []byte) bool {
	t := bytes.TrimLeft(text, " \t\r\n")
	if bytes.HasPrefix(t, []byte("<answer>")) || bytes.HasPrefix(t, clineFeedbackTag) {
		return true
	}
	if !bytes.HasPrefix(t, []byte("The user ")) {
		return false
	}
	if len(t) > 400 {
		t = t[:400]
	}
	return bytes.Contains(t, clineFeedbackTag)
}

// clineBlocks returns a message content as blocks: an array's elements,
// or the value itself for a string.
func clineBlocks(content *fastjson.Value) []*fastjson.Value {
	if content == nil {
		return nil
	}
	if content.Type() == fastjson.TypeArray {
		return content.GetArray()
	}
	return []*fastjson.Value{content}
}

// clineBlockText is the text of a text block or a string content.
func clineBlockText(v *fastjson.Value) []byte {
	if v.Type() == fastjson.TypeString {
		return v.GetStringBytes()
	}
	return v.GetStringBytes("text")
}

// clineResultText is the first text of a tool_result's content, for the
// error and feedback tests.
func clineResultText(v *fastjson.Value) []byte {
	for _, b := range clineBlocks(v.Get("content")) {
		if b.Type() == fastjson.TypeString || is(b, "text", "type") {
			return clineBlockText(b)
		}
	}
	return nil
}

// noteEnv takes the cwd and the Roo mode from environment details.
func (c *clineReader) noteEnv(text []byte) {
	if c.b.s.Cwd == "" {
		for _, m := range clineCwdMarkers {
			if i := bytes.Index(text, m); i >= 0 {
				rest := text[i+len(m):]
				if j := bytes.IndexAny(rest, ")\n"); j > 0 && rest[j] == ')' {
					c.b.s.Cwd = string(rest[:j])
				}
				break
			}
		}
	}
	if !c.agentKnown && bytes.Contains(text, clineRooMode) {
		c.b.s.Agent, c.agentKnown = lore.AgentRooCode, true
	}
}

func (c *clineReader) readAPI(api *fastjson.Value) {
	keep := c.b.keep
	var pending string // id of the XML call awaiting its result
	for i, m := range api.GetArray() {
		if m.Type() != fastjson.TypeObject {
			continue
		}
		t := epoch(num(m, "ts"))
		if id := m.GetStringBytes("modelInfo", "modelId"); len(id) > 0 {
			c.model = string(id)
		}
		blocks := clineBlocks(m.Get("content"))
		switch string(m.GetStringBytes("role")) {
		case "assistant":
			msg := lore.Message{Role: lore.RoleAssistant, Time: t}
			native := false
			var texts [][]byte
			for _, blk := range blocks {
				switch {
				case blk.Type() == fastjson.TypeString || is(blk, "text", "type"):
					texts = append(texts, clineBlockText(blk))
				case is(blk, "thinking", "type") || is(blk, "reasoning", "type"):
					if keep {
						msg.Thinking = joinText(msg.Thinking, str(blk, "thinking")+str(blk, "text"))
					}
				case is(blk, "tool_use", "type"):
					native = true
					tc := lore.ToolCall{ID: str(blk, "id")}
					if keep {
						tc.Name, tc.Input = str(blk, "name"), raw(blk, "input")
					}
					msg.ToolCalls = append(msg.ToolCalls, tc)
				}
			}
			completion := false
			for _, blk := range blocks {
				completion = completion || is(blk, "tool_use", "type") && is(blk, "attempt_completion", "name")
			}
			xml := false
			for _, tx := range texts {
				if keep {
					msg.Text = joinText(msg.Text, string(tx))
				}
				if native || xml {
					continue
				}
				if name := clineXMLCall(tx); name != "" {
					xml = true
					pending = "xml" + strconv.Itoa(i)
					tc := lore.ToolCall{ID: pending}
					if keep {
						tc.Name = name
					}
					msg.ToolCalls = append(msg.ToolCalls, tc)
					completion = completion || name == "attempt_completion"
				}
			}
			c.apiEnd = clineEndPending
			if completion {
				c.apiEnd = clineEndSuccess
			}
			c.b.add(msg)
		case "user":
			c.userAPI(i, blocks, t, &pending)
		}
	}
}

func (c *clineReader) userAPI(i int, blocks []*fastjson.Value, t time.Time, pending *string) {
	keep := c.b.keep
	var (
		results  []lore.ToolResult
		calls    []lore.ToolCall
		turn     bool
		text     string
		consumed = -1
	)
	for j, blk := range blocks {
		switch {
		case is(blk, "tool_result", "type"):
			rt := clineResultText(blk)
			r := lore.ToolResult{CallID: str(blk, "tool_use_id"), IsError: boolean(blk, "is_error") || clineFailed(rt)}
			if keep {
				r.Output = contentText(blk.Get("content"))
			}
			results = append(results, r)
			turn = turn || clineFeedback(rt)
		case blk.Type() == fastjson.TypeString || is(blk, "text", "type"):
			if j == consumed {
				continue
			}
			s := clineBlockText(blk)
			c.noteEnv(s)
			if rest, ok := clineResultMarker(s); ok {
				if len(bytes.TrimSpace(rest)) == 0 && j+1 < len(blocks) {
					rest, consumed = clineBlockText(blocks[j+1]), j+1
				}
				id := *pending
				if id == "" {
					// A result whose call was not recognised: still a call.
					id = "xmlr" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
					tc := lore.ToolCall{ID: id}
					if keep {
						tc.Name = string(s[1:bytes.IndexAny(s, " ]")])
					}
					calls = append(calls, tc)
				}
				*pending = ""
				r := lore.ToolResult{CallID: id, IsError: clineFailed(rest)}
				if keep {
					r.Output = string(rest)
				}
				results = append(results, r)
				turn = turn || clineFeedback(rest)
				continue
			}
			trimmed := bytes.TrimSpace(s)
			switch {
			case len(trimmed) == 0:
			case bytes.HasPrefix(trimmed, clineEnvDetails):
			case bytes.HasPrefix(trimmed, []byte("[ERROR]")):
			case bytes.HasPrefix(trimmed, []byte("Tool [")) && bytes.Contains(trimmed, []byte("was not executed")):
			case bytes.HasPrefix(trimmed, []byte("[TASK RESUMPTION]")):
				turn = turn || bytes.Contains(trimmed, clineUserMessage)
			default:
				turn = true
				if keep {
					text = joinText(text, string(s))
				}
			}
		case is(blk, "image", "type"):
			turn = true
			if keep {
				text = joinText(text, "[image]")
			}
		}
	}
	if len(results) > 0 || len(calls) > 0 {
		c.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolCalls: calls, ToolResults: results})
	}
	if turn {
		c.b.add(lore.Message{Role: lore.RoleUser, Time: t, Text: text})
		c.apiEnd = clineEndPending
	} else {
		c.b.at(t)
	}
}

// clineAnswerKinds are ui messages that show the model answering.
var clineAnswerKinds = map[string]bool{
	"say:text": true, "say:reasoning": true, "say:completion_result": true, "say:tool": true,
	"say:command": true, "say:browser_action_launch": true, "say:browser_action": true,
	"say:use_mcp_server": true, "say:new_task": true,
	"ask:followup": true, "ask:tool": true, "ask:command": true, "ask:plan_mode_respond": true,
	"ask:use_mcp_server": true, "ask:browser_action_launch": true, "ask:new_task": true,
	"ask:condense": true, "ask:report_bug": true,
}

// clineCallKinds are ui messages that are one tool call each.
var clineCallKinds = map[string]bool{
	"say:tool": true, "ask:tool": true, "say:command": true, "ask:command": true,
	"say:use_mcp_server": true, "ask:use_mcp_server": true,
	"say:browser_action_launch": true, "ask:browser_action_launch": true, "say:browser_action": true,
	"ask:followup": true, "ask:plan_mode_respond": true, "ask:new_task": true, "say:new_task": true,
	"ask:condense": true, "ask:report_bug": true, "say:completion_result": true,
}

// clineBookkeeping are ui messages that say nothing of how a task ended.
var clineBookkeeping = map[string]bool{
	"say:checkpoint_created": true, "say:api_req_finished": true, "say:task_progress": true,
	"say:error_retry": true, "say:api_req_retried": true, "say:deleted_api_reqs": true,
	"say:shell_integration_warning": true, "say:info": true, "say:reasoning": true,
}

// readUI reads ui_messages.json; counts says whether it gives the turns
// and calls (no api history).
func (c *clineReader) readUI(ui *fastjson.Value, counts bool) {
	c.hasUI = true
	keep := c.b.keep
	var (
		answer   *lore.Message // the response being read
		reqOpen  bool          // an API request awaits its first output
		lastCall string
		kindBuf  []byte
	)
	flush := func() {
		if answer != nil {
			c.b.add(*answer)
			answer = nil
		}
	}
	for i, m := range ui.GetArray() {
		if m.Type() != fastjson.TypeObject {
			continue
		}
		t := epoch(num(m, "ts"))
		c.b.at(t)
		if id := m.GetStringBytes("modelInfo", "modelId"); len(id) > 0 && string(id) != c.model {
			c.model = string(id)
		}
		typ := m.GetStringBytes("type")
		kindBuf = append(append(append(kindBuf[:0], typ...), ':'), m.GetStringBytes(string(typ))...)
		kind := string(kindBuf) // map lookups with string(bytes) do not allocate
		text := m.GetStringBytes("text")

		if kind == "say:api_req_started" {
			c.end = clineEndPending
			if cancelled := c.request(text); cancelled != clineEndNone {
				c.end = cancelled
			}
			if counts {
				flush()
				reqOpen = true
			}
		} else {
			c.outcome(kind)
		}
		if !counts {
			continue
		}
		switch kind {
		case "say:task", "say:user_feedback":
			flush()
			msg := lore.Message{Role: lore.RoleUser, Time: t}
			if keep {
				msg.Text = string(text)
			}
			c.b.add(msg)
			continue
		case "say:error":
			if lastCall != "" {
				flush()
				c.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{{CallID: lastCall, IsError: true}}})
				lastCall = ""
			}
			continue
		}
		if !clineAnswerKinds[kind] {
			continue
		}
		if answer == nil {
			answer = &lore.Message{Role: lore.RoleAssistant, Time: t}
			if !reqOpen {
				// Output with no request before it (a hand-edited file):
				// part of no counted response, kept as a system message.
				answer.Role = lore.RoleSystem
			}
			reqOpen = false
		}
		if keep {
			switch kind {
			case "say:reasoning":
				answer.Thinking = joinText(answer.Thinking, string(text))
			case "say:text", "say:completion_result", "ask:followup", "ask:plan_mode_respond":
				answer.Text = joinText(answer.Text, string(text))
			}
		}
		if clineCallKinds[kind] {
			lastCall = "ui" + strconv.Itoa(i)
			tc := lore.ToolCall{ID: lastCall}
			if keep {
				tc.Name, tc.Input = strings.TrimPrefix(strings.TrimPrefix(kind, "say:"), "ask:"), string(text)
			}
			answer.ToolCalls = append(answer.ToolCalls, tc)
		}
	}
	flush()
}

// request reads an api_req_started text: its token counts, the cwd in
// the request's environment details, and the end a cancelled request
// gives.
func (c *clineReader) request(text []byte) clineEnd {
	if len(text) == 0 {
		return clineEndNone
	}
	v, err := c.p.ParseBytes(text)
	if err != nil || v.Type() != fastjson.TypeObject {
		c.b.warn(0, fmt.Errorf("api_req_started: %v", jsonDamage(text)))
		return clineEndNone
	}
	c.b.usage(lore.Usage{
		InputTokens:      integer(v, "tokensIn"),
		OutputTokens:     integer(v, "tokensOut"),
		CacheReadTokens:  integer(v, "cacheReads"),
		CacheWriteTokens: integer(v, "cacheWrites"),
	})
	if c.b.s.Cwd == "" || !c.agentKnown {
		c.noteEnv(v.GetStringBytes("request"))
	}
	switch string(v.GetStringBytes("cancelReason")) {
	case "user_cancelled":
		return clineEndAborted
	case "streaming_failed":
		return clineEndFailed
	}
	return clineEndNone
}

// outcome follows the ui messages to the last one that tells how the
// task ended.
func (c *clineReader) outcome(kind string) {
	switch kind {
	case "say:completion_result", "ask:completion_result", "ask:resume_completed_task":
		c.end = clineEndSuccess
	case "ask:resume_task":
		c.end = clineEndAborted
	case "ask:api_req_failed", "ask:mistake_limit_reached", "say:error":
		c.end = clineEndFailed
	default:
		if !clineBookkeeping[kind] {
			c.end = clineEndPending
		}
	}
}
