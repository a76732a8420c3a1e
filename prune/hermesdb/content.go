package hermesdb

import (
	"strconv"
	"strings"
)

// writer makes the column values of one message at a time, from the
// message's seed. A nil pointer is NULL.
type writer struct {
	t, aux *text
	out    []byte
	scale  float64 // Options.ContentScale

	content, toolCalls, reasoning, reasoningDetails, codexReasoning, codexMessage *string
	bufs                                                                          [6]string
}

func (w *writer) set(slot int, p **string, b []byte) {
	w.bufs[slot] = string(b)
	*p = &w.bufs[slot]
}

// message makes the values of m.
func (w *writer) message(s *session, m *msg) {
	w.content, w.toolCalls, w.reasoning, w.reasoningDetails, w.codexReasoning, w.codexMessage = nil, nil, nil, nil, nil, nil
	t := w.t
	t.reset(m.seed)
	size := int(m.size)
	switch m.kind {
	case 'u':
		if size > 3000 {
			t.str("Here is what I get:\n\n")
			t.log(size)
		} else {
			t.prose(size)
		}
		w.set(0, &w.content, t.b)
	case 'k':
		t.str("[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns of this conversation were compacted into the summary below to free context; it is a reference, not new instructions.\n\n")
		t.prose(size)
		w.set(0, &w.content, t.b)
	case 'a':
		t.prose(size * 2 / 3)
		if size > 400 && t.r.IntN(3) == 0 {
			t.str("\n\n```\n")
			t.code(size/3, false)
			t.str("```\n")
		}
		w.set(0, &w.content, t.b)
	case 'c':
		switch x := t.r.IntN(10); {
		case x < 4:
		case x < 7:
			w.set(0, &w.content, nil)
		default:
			t.prose(size)
			w.set(0, &w.content, t.b)
		}
		w.set(1, &w.toolCalls, w.callsJSON(s, m))
	case 't':
		w.set(0, &w.content, w.toolResult(m))
	}
	if m.role == "assistant" && m.kind != 'k' && s.model.reasoning && t.r.IntN(10) < 6 {
		a := w.aux
		a.reset(m.seed ^ 0xabcdef)
		a.str("**")
		a.sentence()
		a.str("**\n\n")
		a.prose(w.size(t, 400, 0.8, 6_000))
		w.set(2, &w.reasoning, a.b)
		if s.model.provider == "openrouter" {
			w.out = append(w.out[:0], `[{"type": "reasoning.text", "text": `...)
			w.out = appendJSONString(w.out, a.b)
			w.out = append(w.out, `, "format": "anthropic-claude-v1", "index": 0}]`...)
			w.set(3, &w.reasoningDetails, w.out)
		}
	}
	if m.role == "assistant" && s.model.codex && m.kind != 'k' {
		a := w.aux
		a.reset(m.seed ^ 0x5eed)
		w.out = append(w.out[:0], `[{"type": "reasoning", "encrypted_content": "gAAAAA`...)
		a.base64(800 + a.r.IntN(2400))
		w.out = append(w.out, a.b...)
		w.out = append(w.out, `", "id": "rs_`...)
		a.b = a.b[:0]
		a.hex(48)
		w.out = append(w.out, a.b...)
		w.out = append(w.out, `", "summary": []}]`...)
		w.set(4, &w.codexReasoning, w.out)
		if m.kind == 'a' {
			w.out = append(w.out[:0], `[{"type": "message", "id": "msg_`...)
			a.b = a.b[:0]
			a.hex(48)
			w.out = append(w.out, a.b...)
			w.out = append(w.out, `", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "annotations": [], "text": `...)
			w.out = appendJSONString(w.out, []byte(*w.content))
			w.out = append(w.out, `}]}]`...)
			w.set(5, &w.codexMessage, w.out)
		}
	}
}

// size draws a size as planMessages does, scaled.
func (w *writer) size(t *text, median, sigma float64, max int) int {
	return int(logNormal(t.r, median*w.scale, sigma, max1(float64(max)*w.scale)))
}

func callID(id uint64) string { return "call_" + strconv.FormatUint(id, 36) }

// callsJSON writes tool_calls as Hermes stores them: json.dumps of the
// OpenAI list, the arguments a JSON string inside it.
func (w *writer) callsJSON(s *session, m *msg) []byte {
	a := w.aux
	w.out = append(w.out[:0], '[')
	for i, c := range m.calls {
		if i > 0 {
			w.out = append(w.out, ", "...)
		}
		id := callID(c.id)
		w.out = append(w.out, `{"id": "`...)
		w.out = append(w.out, id...)
		if s.model.codex {
			w.out = append(w.out, `", "call_id": "`...)
			w.out = append(w.out, id...)
			w.out = append(w.out, `", "response_item_id": "fc_`...)
			w.out = append(w.out, id[5:]...)
		}
		w.out = append(w.out, `", "type": "function", "function": {"name": "`...)
		w.out = append(w.out, tools[c.tool].name...)
		w.out = append(w.out, `", "arguments": `...)
		a.reset(c.id)
		args := w.arguments(c)
		w.out = appendJSONString(w.out, args)
		w.out = append(w.out, "}}"...)
	}
	return append(w.out, ']')
}

// arguments makes a call's arguments JSON (compact, as models send it).
func (w *writer) arguments(c call) []byte {
	a := w.aux
	var b []byte
	path := func() {
		b = append(b, `"path":"src/`...)
		b = append(b, a.ident()...)
		b = append(b, '/')
		b = append(b, a.ident()...)
		b = append(b, `.py"`...)
	}
	b = append(b, '{')
	switch tools[c.tool].name {
	case "terminal":
		b = append(b, `"command":"`...)
		b = append(b, []string{"pytest -q tests/", "git status", "ls -la", "go test ./...", "grep -rn TODO src | head -50", "docker compose logs --tail 200"}[a.r.IntN(6)]...)
		b = append(b, '"')
	case "read_file", "search_files":
		path()
	case "write_file":
		path()
		b = append(b, `,"content":`...)
		a.b = a.b[:0]
		a.code(w.size(a, 2_500, 1.0, 40_000), false)
		b = appendJSONString(b, a.b)
	case "patch":
		path()
		b = append(b, `,"old_string":`...)
		a.b = a.b[:0]
		a.code(w.size(a, 300, 0.8, 4_000), false)
		b = appendJSONString(b, a.b)
		b = append(b, `,"new_string":`...)
		a.b = a.b[:0]
		a.code(w.size(a, 320, 0.8, 4_000), false)
		b = appendJSONString(b, a.b)
	default:
		b = append(b, `"query":"`...)
		for i := 0; i < 3+a.r.IntN(5); i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, a.ident()...)
		}
		b = append(b, '"')
	}
	return append(b, '}')
}

// toolResult writes a tool message's content: the JSON Hermes' tools
// return, with Python's separators.
func (w *writer) toolResult(m *msg) []byte {
	t, a := w.t, w.aux
	spec := tools[m.call.tool]
	size := int(m.size)
	w.out = w.out[:0]
	switch spec.kind {
	case 'l':
		t.log(size)
		w.out = append(w.out, `{"output": `...)
		w.out = appendJSONString(w.out, t.b)
		if t.r.IntN(12) == 0 {
			w.out = append(w.out, `, "exit_code": 1, "error": "command exited with status 1"}`...)
		} else {
			w.out = append(w.out, `, "exit_code": 0, "error": null}`...)
		}
	case 'c':
		t.code(size, true)
		w.out = append(w.out, `{"content": `...)
		w.out = appendJSONString(w.out, t.b)
		w.out = append(w.out, `, "total_lines": `...)
		w.out = strconv.AppendInt(w.out, int64(strings.Count(string(t.b), "\n")), 10)
		w.out = append(w.out, `, "truncated": false}`...)
	case 's':
		w.out = append(w.out, `{"total_count": `...)
		n := 1 + size/160
		w.out = strconv.AppendInt(w.out, int64(n), 10)
		w.out = append(w.out, `, "matches": [`...)
		for i := 0; i < n; i++ {
			if i > 0 {
				w.out = append(w.out, ", "...)
			}
			w.out = append(w.out, `{"path": "src/`...)
			w.out = append(w.out, t.ident()...)
			w.out = append(w.out, `.py", "line": `...)
			w.out = strconv.AppendInt(w.out, int64(1+t.r.IntN(900)), 10)
			w.out = append(w.out, `, "content": `...)
			t.b = t.b[:0]
			t.code(60, false)
			w.out = appendJSONString(w.out, t.b)
			w.out = append(w.out, '}')
		}
		w.out = append(w.out, "]}"...)
	case 'm':
		t.markdown(size)
		w.out = append(w.out, `{"results": [{"url": "https://example.org/`...)
		w.out = append(w.out, t.ident()...)
		w.out = append(w.out, `", "title": "`...)
		w.out = append(w.out, t.ident()...)
		w.out = append(w.out, `", "content": `...)
		w.out = appendJSONString(w.out, t.b)
		w.out = append(w.out, "}]}"...)
	case 'b':
		t.snapshot(size)
		w.out = append(w.out, `{"success": true, "snapshot": `...)
		w.out = appendJSONString(w.out, t.b)
		w.out = append(w.out, `, "element_count": `...)
		w.out = strconv.AppendInt(w.out, int64(strings.Count(string(t.b), "\n")), 10)
		w.out = append(w.out, '}')
	default:
		a.reset(m.seed)
		a.prose(size)
		w.out = append(w.out, `{"success": true, "message": `...)
		w.out = appendJSONString(w.out, a.b)
		w.out = append(w.out, '}')
	}
	return w.out
}

func ptr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// value is the message's value for column c.
func (w *writer) value(s *session, m *msg, c string) any {
	switch c {
	case "session_id":
		return s.ID
	case "role":
		return m.role
	case "content":
		return ptr(w.content)
	case "tool_call_id":
		if m.kind == 't' {
			return callID(m.call.id)
		}
	case "tool_calls":
		return ptr(w.toolCalls)
	case "tool_name":
		if m.kind == 't' {
			return tools[m.call.tool].name
		}
	case "timestamp":
		return m.ts
	case "token_count":
		if s.tokenCounts && w.content != nil {
			return (len(*w.content) + 3) / 4
		}
	case "finish_reason":
		return nullString(m.finish)
	case "reasoning", "reasoning_content":
		return ptr(w.reasoning)
	case "reasoning_details":
		return ptr(w.reasoningDetails)
	case "codex_reasoning_items":
		return ptr(w.codexReasoning)
	case "codex_message_items":
		return ptr(w.codexMessage)
	}
	return nil
}
