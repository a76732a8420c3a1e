package transcript

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Plain OpenAI chat-completions message lists (FORMATS.md section 11): a
// JSON array of messages, a request-like object {"messages": […], "model"?,
// …}, or JSON lines of messages. These are the most general shapes, tried
// last ("openai" and "openai-jsonl" come last in format.go's table), and
// claimed only when every message is a plain chat message: agents that
// write chat messages with more (Hermes' naive "timestamp", Goose's
// "created" and typed items, Cline's "ts" and Anthropic blocks,
// mini-swe-agent's "extra", OpenHands' events) have their own readers and
// are left to them. The native id is the file name.
//
// Counting rules:
//   - user messages are turns; assistant messages are turns (a message of
//     only tool_calls too); system and developer messages are not;
//   - tool calls are tool_calls, each id once, and legacy function_call
//     messages (one call each);
//   - tool and function messages are tool results; the format marks no
//     failure, so only an explicit one counts as a tool error: a result that
//     is a JSON object with a non-zero "exit_code" or "returncode", or a
//     non-empty "error";
//   - tokens only where an assistant message carries a "usage" object
//     (some exporters add it); no times.
//
// Outcome: unknown; a list of messages says nothing of how the session
// ended.

// openaiRoles are the chat-completions roles.
var openaiRoles = map[string]bool{
	"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true,
}

// openaiPartTypes are the content part types of chat completions.
var openaiPartTypes = map[string]bool{
	"text": true, "image_url": true, "input_audio": true, "file": true, "refusal": true,
}

// openaiForeignKeys mark a message written by an agent with its own
// reader: Hermes (timestamp), Goose (created), Cline and Roo (ts),
// mini-swe-agent (extra), Gemini (parts), Claude Code and Codex (type).
var openaiForeignKeys = []string{"timestamp", "created", "ts", "extra", "parts", "type"}

// openaiRequestKeys are the keys a chat-completions request (or a saved
// conversation shaped like one) may hold beside messages.
var openaiRequestKeys = map[string]bool{
	"messages": true, "model": true, "tools": true, "tool_choice": true, "functions": true,
	"function_call": true, "temperature": true, "top_p": true, "n": true, "stream": true,
	"stop": true, "max_tokens": true, "max_completion_tokens": true, "presence_penalty": true,
	"frequency_penalty": true, "logit_bias": true, "user": true, "seed": true,
	"response_format": true, "parallel_tool_calls": true, "reasoning_effort": true,
	"metadata": true, "store": true, "logprobs": true, "top_logprobs": true,
	"stream_options": true, "modalities": true, "service_tier": true, "prediction": true,
}

// openaiForeignNames are files of other agents that can look like plain
// message lists (Cline/Roo task files, Gemini's logs).
var openaiForeignNames = map[string]bool{
	"api_conversation_history.json": true, "ui_messages.json": true,
	"claude_messages.json": true, "logs.json": true,
}

// openaiIsMessage reports whether v is a plain chat-completions message.
func openaiIsMessage(v *fastjson.Value) bool {
	if v == nil || v.Type() != fastjson.TypeObject {
		return false
	}
	if !openaiRoles[string(v.GetStringBytes("role"))] {
		return false
	}
	for _, k := range openaiForeignKeys {
		if v.Exists(k) {
			return false
		}
	}
	c := v.Get("content")
	if c == nil {
		return has(v, "tool_calls") || has(v, "function_call")
	}
	switch c.Type() {
	case fastjson.TypeString, fastjson.TypeNull:
		return true
	case fastjson.TypeArray:
		for _, part := range c.GetArray() {
			if part.Type() != fastjson.TypeObject || !openaiPartTypes[string(part.GetStringBytes("type"))] {
				return false
			}
		}
		return true
	}
	return false
}

// openaiMessages returns the messages of a plain list or request object,
// or nil when doc is not one.
func openaiMessages(doc *fastjson.Value) []*fastjson.Value {
	var msgs []*fastjson.Value
	switch doc.Type() {
	case fastjson.TypeArray:
		msgs = doc.GetArray()
	case fastjson.TypeObject:
		ok := true
		doc.GetObject().Visit(func(k []byte, _ *fastjson.Value) {
			if !openaiRequestKeys[string(k)] {
				ok = false
			}
		})
		if !ok {
			return nil
		}
		msgs = doc.GetArray("messages")
	}
	if len(msgs) == 0 {
		return nil
	}
	for _, m := range msgs {
		if !openaiIsMessage(m) {
			return nil
		}
	}
	return msgs
}

func sniffOpenAIDoc(name string, doc *fastjson.Value) bool {
	if openaiForeignNames[strings.ToLower(name)] {
		return false
	}
	return openaiMessages(doc) != nil
}

func sniffOpenAILine(name string, v *fastjson.Value) bool {
	return !openaiForeignNames[strings.ToLower(name)] && openaiIsMessage(v)
}

type openaiReader struct {
	b       *builder
	p       fastjson.Parser // for tool results written as JSON text
	n       int             // messages read, for synthetic call ids
	lastFn  string          // id of the last legacy function_call
	sawTurn bool
}

func readOpenAIDoc(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	msgs := openaiMessages(doc)
	if msgs == nil {
		return notTranscript("no chat messages")
	}
	b := in.builder(lore.AgentOpenAI)
	r := &openaiReader{b: b}
	for i, m := range msgs {
		if i&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		r.message(m)
	}
	if !r.sawTurn {
		return notTranscript("chat messages without a user or assistant turn")
	}
	if doc.Type() == fastjson.TypeObject {
		b.s.Model = str(doc, "model")
	}
	emit(b.finish(baseID(in.path)))
	return nil
}

func readOpenAILines(ctx context.Context, in *input, emit emitFunc) error {
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	b := in.builder(lore.AgentOpenAI)
	r := &openaiReader{b: b}
	err = eachJSONLine(ctx, rc, in.parser(), b.warn, func(line int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject || !openaiRoles[string(v.GetStringBytes("role"))] {
			b.warn(line, errNotChatMessage)
			return nil
		}
		r.message(v)
		return nil
	})
	if err != nil {
		return err
	}
	if !r.sawTurn && b.s.ToolCalls == 0 {
		return notTranscript("chat messages without a user or assistant turn")
	}
	emit(b.finish(baseID(in.path)))
	return nil
}

var errNotChatMessage = errors.New("not a chat message")

func (r *openaiReader) message(v *fastjson.Value) {
	r.n++
	keep := r.b.keep
	switch role := string(v.GetStringBytes("role")); role {
	case "user":
		r.sawTurn = true
		m := lore.Message{Role: lore.RoleUser}
		if keep {
			m.Text = contentText(v.Get("content"))
		}
		r.b.add(m)
	case "assistant":
		r.sawTurn = true
		m := lore.Message{Role: lore.RoleAssistant}
		if keep {
			m.Text = contentText(v.Get("content"))
			m.Thinking = str(v, "reasoning_content")
		}
		m.ToolCalls = chatToolCalls(v, keep, "m"+strconv.Itoa(r.n)+"-")
		if fc := v.Get("function_call"); fc != nil && fc.Type() == fastjson.TypeObject {
			r.lastFn = "m" + strconv.Itoa(r.n)
			c := lore.ToolCall{ID: r.lastFn}
			if keep {
				c.Name = str(fc, "name")
				c.Input = raw(fc, "arguments")
			}
			m.ToolCalls = append(m.ToolCalls, c)
		}
		if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
			r.b.usage(openhandsCompletionUsage(u))
		}
		r.b.add(m)
	case "tool", "function":
		id := str(v, "tool_call_id")
		if id == "" && role == "function" {
			id, r.lastFn = r.lastFn, ""
		}
		if id == "" {
			return
		}
		r.b.call(id)
		res := lore.ToolResult{CallID: id}
		res.IsError, res.ExitCode = openaiResultError(&r.p, v.Get("content"))
		if keep {
			res.Output = contentText(v.Get("content"))
		}
		r.b.add(lore.Message{Role: lore.RoleTool, ToolResults: []lore.ToolResult{res}})
	default:
		if keep {
			r.b.add(lore.Message{Role: lore.RoleSystem, Text: contentText(v.Get("content"))})
		}
	}
}

// openaiResultError reads the explicit failure a tool result may carry: a
// JSON object with a non-zero exit_code or returncode, or an error.
func openaiResultError(p *fastjson.Parser, c *fastjson.Value) (bool, *int) {
	if c == nil || c.Type() != fastjson.TypeString {
		return false, nil
	}
	s := bytes.TrimSpace(c.GetStringBytes())
	if len(s) < 2 || s[0] != '{' {
		return false, nil
	}
	v, err := p.ParseBytes(s)
	if err != nil {
		return false, nil
	}
	exit := optInt(v, "exit_code")
	if exit == nil {
		exit = optInt(v, "returncode")
	}
	if exit != nil && *exit != 0 {
		return true, exit
	}
	if e := v.Get("error"); e != nil {
		switch e.Type() {
		case fastjson.TypeString:
			return len(bytes.TrimSpace(e.GetStringBytes())) > 0, exit
		case fastjson.TypeObject, fastjson.TypeTrue:
			return true, exit
		}
	}
	return false, exit
}

// chatToolCalls reads the tool_calls of an OpenAI chat message (plain
// lists, SWE-agent history, mini-swe-agent messages). A call without an id
// gets idPrefix and its position. Names and arguments are kept only when
// keep is set.
func chatToolCalls(msg *fastjson.Value, keep bool, idPrefix string) []lore.ToolCall {
	var calls []lore.ToolCall
	for j, tc := range msg.GetArray("tool_calls") {
		c := lore.ToolCall{ID: str(tc, "id")}
		if c.ID == "" {
			c.ID = idPrefix + strconv.Itoa(j)
		}
		if keep {
			c.Name = str(tc, "function", "name")
			c.Input = raw(tc, "function", "arguments")
		}
		calls = append(calls, c)
	}
	return calls
}
