package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// VS Code's Copilot Chat sessions, as VS Code itself stores every chat
// panel session (FORMATS.md, VS Code Copilot Chat; writer microsoft/vscode
// src/vs/workbench/contrib/chat/common/model/chatModel.ts toJSON,
// chatSessionStore.ts and objectMutationLog.ts):
//
//   - <user dir>/workspaceStorage/<hash>/chatSessions/<id>.json, one
//     ISerializableChatData document {version, sessionId, creationDate,
//     requesterUsername, responderUsername, initialLocation, requests:[…]},
//     and globalStorage/emptyWindowChatSessions/<id>.json for windows with
//     no folder;
//   - since VS Code 1.10x, <id>.jsonl beside them: an object mutation log
//     whose first line is {"kind":0,"v":<the document>} and whose later
//     lines change it: {"kind":1,"k":path,"v":value} sets, {"kind":2,
//     "k":path,"v":[…],"i":n} cuts an array to n (when i is given) and
//     appends, {"kind":3,"k":path} deletes. The log is replayed into the
//     document, which is then read as a .json one; a line that cannot be
//     applied is a warning. The document must be held whole to be
//     replayed, as VS Code holds it.
//
// A request is one prompt and its answer: {requestId, message:{text,
// parts}, response:[parts], result:{errorDetails, timings, metadata:
// {toolCallRounds, …}, usage?}, modelId, timestamp, isCanceled, usage?}.
//
// Counting rules:
//   - each request with text is a user turn; its answer is one assistant
//     turn per model round (result.metadata.toolCallRounds, as Copilot
//     Chat records them), one when the rounds are not recorded and the
//     response holds anything;
//   - tool calls are the response's toolInvocationSerialized parts, once
//     per toolCallId; when a response has none, the rounds' toolCalls;
//   - a tool error is an invocation whose resultDetails has isError, or a
//     terminal command (toolSpecificData kind "terminal") whose
//     terminalCommandState.exitCode is non-zero;
//   - tokens: the request's (or its result's) usage {promptTokens,
//     completionTokens}, once per request, where VS Code recorded it;
//   - the model is the last request's modelId without its "copilot/"
//     vendor prefix; times are the requests' timestamps (ms) and their
//     answers' end (timestamp + result.timings.totalElapsed), and the
//     document's creationDate and lastMessageDate; the cwd is the
//     workspace's folder (workspaceStorage/<hash>/workspace.json).
//
// Outcome, from the last request: cancelled is aborted, an errorDetails
// failure, a failed tool call last failure, an answer with text success.

// copilotChatRoots: VS Code's user data folder of each build (~/.config/
// <app>/User on Linux, honouring XDG_CONFIG_HOME, ~/Library/Application
// Support/<app>/User on macOS, ~/.vscode-server/data/User for remote
// sessions), its workspaceStorage (chat sessions and Copilot Chat's
// transcripts by workspace) and globalStorage/emptyWindowChatSessions.
func copilotChatRoots(e Env) []Root {
	apps := []string{"Code", "Code - Insiders", "VSCodium"}
	var users []string
	switch e.GOOS {
	case "darwin":
		for _, a := range apps {
			users = append(users, e.macAppSupport(a, "User"))
		}
	default:
		cfg := e.xdg("XDG_CONFIG_HOME", ".config")
		for _, a := range apps {
			users = append(users, filepath.Join(cfg, a, "User"))
		}
		users = append(users, e.home(".vscode-server", "data", "User"), e.home(".vscode-server-insiders", "data", "User"))
	}
	var out []Root
	for _, u := range users {
		out = append(out,
			Root{Agent: lore.AgentCopilotChat, Path: filepath.Join(u, "workspaceStorage"), Source: "default"},
			Root{Agent: lore.AgentCopilotChat, Path: filepath.Join(u, "globalStorage", "emptyWindowChatSessions"), Source: "default"})
	}
	return out
}

// sniffCopilotChatDoc claims a chat session document: requests and the
// responder's name, with a session id or a format version.
func sniffCopilotChatDoc(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject {
		return false
	}
	reqs := doc.Get("requests")
	if reqs == nil || reqs.Type() != fastjson.TypeArray {
		return false
	}
	if !has(doc, "responderUsername") && !has(doc, "requesterUsername") {
		return false
	}
	return has(doc, "sessionId") || has(doc, "version")
}

// sniffCopilotChatLog claims a mutation log by its first, initial entry.
func sniffCopilotChatLog(_ string, v *fastjson.Value) bool {
	if integer(v, "kind") != 0 || !has(v, "kind") {
		return false
	}
	doc := v.Get("v")
	return doc != nil && sniffCopilotChatDoc("", doc)
}

func readCopilotChatDoc(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	b := in.builder(lore.AgentCopilotChat)
	return copilotChatSession(ctx, in, b, doc, emit)
}

// readCopilotChatLog replays a mutation log into its document.
func readCopilotChatLog(ctx context.Context, in *input, emit emitFunc) error {
	b := in.builder(lore.AgentCopilotChat)
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	var state any
	err = eachJSONLine(ctx, rc, in.parser(), b.warn, func(line int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject {
			b.warn(line, errors.New("not a mutation entry"))
			return nil
		}
		if e := copilotChatApply(&state, v); e != nil {
			b.warn(line, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if state == nil {
		return notTranscript("a chat session log with no initial state")
	}
	data, err := json.Marshal(state)
	if err != nil {
		return err
	}
	doc, err := in.parser().ParseBytes(data)
	if err != nil {
		return err
	}
	return copilotChatSession(ctx, in, b, doc, emit)
}

// copilotChatApply applies one mutation entry to the state.
func copilotChatApply(state *any, v *fastjson.Value) error {
	var val any
	if x := v.Get("v"); x != nil {
		if err := json.Unmarshal(x.MarshalTo(nil), &val); err != nil {
			return err
		}
	}
	kind := integer(v, "kind")
	if kind == 0 {
		*state = val
		return nil
	}
	if *state == nil {
		return errors.New("a change before the initial state")
	}
	var path []any
	if k := v.Get("k"); k != nil {
		if err := json.Unmarshal(k.MarshalTo(nil), &path); err != nil {
			return err
		}
	}
	if len(path) == 0 {
		if kind == 1 {
			*state = val
			return nil
		}
		return errors.New("a change with no path")
	}
	parent, ok := copilotChatWalk(*state, path[:len(path)-1])
	if !ok {
		return errors.New("a change to a path the session does not hold")
	}
	last := path[len(path)-1]
	switch kind {
	case 1, 3:
		switch p := parent.(type) {
		case map[string]any:
			key, ok := last.(string)
			if !ok {
				return errors.New("a number key in an object")
			}
			if kind == 3 {
				delete(p, key)
			} else {
				p[key] = val
			}
			return nil
		case []any:
			i, ok := copilotChatIndex(last, len(p))
			if !ok {
				return errors.New("an index out of its array")
			}
			if kind == 3 {
				p[i] = nil
			} else {
				p[i] = val
			}
			return nil
		}
		return errors.New("a change inside a value that is no object or array")
	case 2:
		arr, _ := copilotChatGet(parent, last)
		a, isArr := arr.([]any)
		if arr != nil && !isArr {
			return errors.New("a push to a value that is no array")
		}
		if cut := v.Get("i"); cut != nil && cut.Type() == fastjson.TypeNumber {
			n := cut.GetInt()
			if n >= 0 && n < len(a) {
				a = a[:n]
			}
		}
		items, _ := val.([]any)
		a = append(a, items...)
		return copilotChatSet(parent, last, a)
	}
	return errors.New("an unknown mutation kind")
}

func copilotChatWalk(cur any, path []any) (any, bool) {
	for _, k := range path {
		next, ok := copilotChatGet(cur, k)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

func copilotChatGet(cur, k any) (any, bool) {
	switch c := cur.(type) {
	case map[string]any:
		key, ok := k.(string)
		if !ok {
			return nil, false
		}
		v, ok := c[key]
		return v, ok
	case []any:
		i, ok := copilotChatIndex(k, len(c))
		if !ok {
			return nil, false
		}
		return c[i], true
	}
	return nil, false
}

func copilotChatSet(parent, k, v any) error {
	switch p := parent.(type) {
	case map[string]any:
		key, ok := k.(string)
		if !ok {
			return errors.New("a number key in an object")
		}
		p[key] = v
		return nil
	case []any:
		i, ok := copilotChatIndex(k, len(p))
		if !ok {
			return errors.New("an index out of its array")
		}
		p[i] = v
		return nil
	}
	return errors.New("a change inside a value that is no object or array")
}

func copilotChatIndex(k any, n int) (int, bool) {
	f, ok := k.(float64)
	if !ok || f < 0 || f != float64(int(f)) || int(f) >= n {
		return 0, false
	}
	return int(f), true
}

// copilotChatSession reads one chat session document.
func copilotChatSession(ctx context.Context, in *input, b *builder, doc *fastjson.Value, emit emitFunc) error {
	b.setNative(str(doc, "sessionId"))
	b.at(copilotChatTime(doc.Get("creationDate")))
	b.at(copilotChatTime(doc.Get("lastMessageDate")))
	turns := false
	for i, req := range doc.GetArray("requests") {
		if i&255 == 255 && ctx.Err() != nil {
			return ctx.Err()
		}
		if req.Type() != fastjson.TypeObject {
			b.warn(0, errors.New("a request that is no object"))
			continue
		}
		if copilotChatRequest(b, req) {
			turns = true
		}
	}
	if !turns {
		return emptySession("a Copilot Chat session with no requests")
	}
	// chatSessions/<id>.json in workspaceStorage/<hash>/.
	b.s.Cwd = vscodeWorkspaceFolder(filepath.Dir(filepath.Dir(in.path)))
	emit(b.finish(baseID(in.path)))
	return nil
}

// copilotChatRequest records one request and its answer; it reports
// whether there was anything.
func copilotChatRequest(b *builder, req *fastjson.Value) bool {
	keep := b.keep
	t := copilotChatTime(req.Get("timestamp"))
	text := str(req, "message", "text")
	if text == "" {
		text = str(req, "message")
	}
	found := false
	if strings.TrimSpace(text) != "" {
		found = true
		m := lore.Message{Role: lore.RoleUser, Time: t}
		if keep {
			m.Text = text
		}
		b.add(m)
	}
	res := req.Get("result")
	end := t
	if el := integer(res, "timings", "totalElapsed"); el > 0 && !t.IsZero() {
		end = t.Add(time.Duration(el) * time.Millisecond)
	}
	if model := str(req, "modelId"); model != "" {
		b.s.Model = strings.TrimPrefix(model, "copilot/")
	}
	// The response parts: text, thinking, tool invocations.
	am := lore.Message{Role: lore.RoleAssistant, Time: end, Model: b.s.Model}
	tm := lore.Message{Role: lore.RoleTool, Time: end}
	hasText, lastFailed := false, false
	for _, p := range req.GetArray("response") {
		switch string(p.GetStringBytes("kind")) {
		case "", "markdownContent", "markdownVuln":
			s := copilotChatString(p.Get("value"))
			if strings.TrimSpace(s) != "" {
				hasText, lastFailed = true, false
				if keep {
					am.Text += s
				}
			}
		case "thinking":
			if keep {
				am.Thinking = joinText(am.Thinking, copilotChatString(p.Get("value")))
			}
		case "toolInvocation", "toolInvocationSerialized":
			c, r := copilotChatTool(p, keep)
			am.ToolCalls = append(am.ToolCalls, c)
			tm.ToolResults = append(tm.ToolResults, r)
			lastFailed = r.IsError
		}
	}
	rounds := res.GetArray("metadata", "toolCallRounds")
	if len(am.ToolCalls) == 0 {
		for _, r := range rounds {
			for _, c := range r.GetArray("toolCalls") {
				call := lore.ToolCall{ID: str(c, "id")}
				if keep {
					call.Name, call.Input = str(c, "name"), str(c, "arguments")
				}
				am.ToolCalls = append(am.ToolCalls, call)
			}
		}
	}
	if keep && am.Text == "" && len(rounds) > 0 {
		for _, r := range rounds {
			am.Text = joinText(am.Text, str(r, "response"))
		}
	}
	answered := hasText || len(am.ToolCalls) > 0 || len(rounds) > 0
	if answered {
		found = true
		b.add(am)
		// A round past the first is a further model response.
		for i := 1; i < len(rounds); i++ {
			b.add(lore.Message{Role: lore.RoleAssistant, Time: end})
		}
		if len(tm.ToolResults) > 0 {
			b.add(tm)
		}
	}
	b.at(t)
	b.at(end)
	b.usage(copilotChatUsage(req))
	switch {
	case req.GetBool("isCanceled"):
		b.s.Outcome = lore.OutcomeAborted
	case has(res, "errorDetails") && res.Get("errorDetails").Type() == fastjson.TypeObject:
		b.s.Outcome = lore.OutcomeFailure
	case lastFailed:
		b.s.Outcome = lore.OutcomeFailure
	case hasText:
		b.s.Outcome = lore.OutcomeSuccess
	default:
		b.s.Outcome = lore.OutcomeUnknown
	}
	if keep && b.s.Outcome == lore.OutcomeFailure && has(res, "errorDetails") {
		b.add(lore.Message{Role: lore.RoleSystem, Time: end, Text: "[error] " + str(res, "errorDetails", "message")})
	}
	return found
}

// copilotChatTool reads one tool invocation part.
func copilotChatTool(p *fastjson.Value, keep bool) (lore.ToolCall, lore.ToolResult) {
	id := str(p, "toolCallId")
	c := lore.ToolCall{ID: id}
	r := lore.ToolResult{CallID: id, IsError: p.GetBool("resultDetails", "isError")}
	data := p.Get("toolSpecificData")
	if is(data, "terminal", "kind") {
		if code := optInt(data, "terminalCommandState", "exitCode"); code != nil {
			r.ExitCode = code
			if *code != 0 {
				r.IsError = true
			}
		}
	}
	if !keep {
		return c, r
	}
	c.Name = str(p, "toolId")
	switch {
	case is(data, "terminal", "kind"):
		c.Input = str(data, "commandLine", "original")
		r.Output = str(data, "terminalCommandOutput", "text")
	case has(data, "rawInput"):
		c.Input = raw(data, "rawInput")
	default:
		c.Input = str(p, "resultDetails", "input")
	}
	if r.Output == "" {
		for _, o := range p.GetArray("resultDetails", "output") {
			r.Output = joinText(r.Output, str(o, "value"))
		}
	}
	if r.Output == "" {
		r.Output = copilotChatString(p.Get("pastTenseMessage"))
	}
	return c, r
}

// copilotChatUsage is a request's token usage, where VS Code recorded it.
func copilotChatUsage(req *fastjson.Value) lore.Usage {
	u := req.Get("usage")
	if u == nil || u.Type() != fastjson.TypeObject {
		u = req.Get("result", "usage")
	}
	if u == nil || u.Type() != fastjson.TypeObject {
		md := req.Get("result", "metadata")
		return lore.Usage{InputTokens: integer(md, "promptTokens"), OutputTokens: integer(md, "outputTokens")}
	}
	return lore.Usage{InputTokens: integer(u, "promptTokens"), OutputTokens: integer(u, "completionTokens")}
}

// copilotChatString reads a string or an IMarkdownString {value}, or an
// array of either.
func copilotChatString(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		return string(v.GetStringBytes())
	case fastjson.TypeObject:
		return str(v, "value")
	case fastjson.TypeArray:
		var sb bytes.Buffer
		for _, x := range v.GetArray() {
			sb.WriteString(copilotChatString(x))
		}
		return sb.String()
	}
	return ""
}

// copilotChatTime reads a time in epoch milliseconds (or an ISO string).
func copilotChatTime(v *fastjson.Value) time.Time {
	if v == nil {
		return time.Time{}
	}
	switch v.Type() {
	case fastjson.TypeNumber:
		ms := v.GetFloat64()
		if ms <= 0 || ms > 1e14 {
			return time.Time{}
		}
		return time.UnixMilli(int64(ms)).UTC()
	case fastjson.TypeString:
		return parseTimeBytes(v.GetStringBytes())
	}
	return time.Time{}
}
