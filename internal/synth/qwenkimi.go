package synth

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// qwen writes a Qwen Code session: ChatRecord lines under
// projects/<sanitised cwd>/chats/<sessionId>.jsonl, a user record, then
// model responses with function calls and tool_result records.
func (g *generator) qwen(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 27 * time.Minute)
	sid := g.uuid()
	cwd := fmt.Sprintf("/home/dev/project-%d", i%30)
	f, err := create(filepath.Join(dir, "projects", fmt.Sprintf("-home-dev-project-%d", i%30), "chats", sid+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	parent := any(nil)
	rec := func(typ string, fields obj) {
		t = t.Add(time.Duration(1+g.rnd.IntN(15)) * time.Second)
		id := g.uuid()
		r := obj{"uuid": id, "parentUuid": parent, "sessionId": sid, "timestamp": t.Format("2006-01-02T15:04:05.000Z"),
			"type": typ, "cwd": cwd, "version": "0.6.2", "gitBranch": "main"}
		for k, v := range fields {
			r[k] = v
		}
		f.line(r)
		parent = id
	}
	for f.n < target {
		rec("user", obj{"message": obj{"role": "user", "parts": []obj{{"text": g.text(40 + g.rnd.IntN(300))}}}})
		for s := 0; s < g.rnd.IntN(5); s++ {
			cid := g.id("call_", 24)
			rec("assistant", obj{"model": "qwen3-coder-plus", "message": obj{"role": "model", "parts": []obj{
				{"text": g.text(20 + g.rnd.IntN(200))},
				{"functionCall": obj{"id": cid, "name": "run_shell_command", "args": obj{"command": "npm test"}}}}},
				"usageMetadata": obj{"promptTokenCount": 12000, "candidatesTokenCount": 300, "cachedContentTokenCount": 4000, "totalTokenCount": 12300}})
			status, resp := "success", obj{"output": g.text(g.outputSize())}
			if g.rnd.IntN(10) == 0 {
				status, resp = "error", obj{"error": g.text(60)}
			}
			rec("tool_result", obj{"message": obj{"role": "user", "parts": []obj{{"functionResponse": obj{"id": cid, "name": "run_shell_command", "response": resp}}}},
				"toolCallResult": obj{"callId": cid, "status": status}})
		}
		rec("assistant", obj{"model": "qwen3-coder-plus", "message": obj{"role": "model", "parts": []obj{{"text": g.text(50 + g.rnd.IntN(500))}}},
			"usageMetadata": obj{"promptTokenCount": 12500, "candidatesTokenCount": 200, "cachedContentTokenCount": 4000, "totalTokenCount": 12700}})
	}
	n, err := f.close()
	return n, 1, err
}

// kimi writes a Kimi CLI session folder sessions/<hash>/<id>/ with its
// wire.jsonl: turns of steps, each with text, tool calls, a status update
// with the step's tokens, and the tool results.
func (g *generator) kimi(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 31 * time.Minute)
	f, err := create(filepath.Join(dir, "sessions", fmt.Sprintf("%032x", i%30), g.uuid(), "wire.jsonl"))
	if err != nil {
		return 0, 0, err
	}
	f.line(obj{"type": "metadata", "protocol_version": "1.10"})
	ev := func(typ string, payload obj) {
		t = t.Add(time.Duration(200+g.rnd.IntN(5000)) * time.Millisecond)
		f.line(obj{"timestamp": float64(t.UnixMilli()) / 1000, "message": obj{"type": typ, "payload": payload}})
	}
	for f.n < target {
		ev("TurnBegin", obj{"user_input": g.text(40 + g.rnd.IntN(300))})
		steps := 1 + g.rnd.IntN(5)
		for s := 1; s <= steps; s++ {
			ev("StepBegin", obj{"n": s})
			ev("ContentPart", obj{"type": "text", "text": g.text(20 + g.rnd.IntN(300))})
			var calls []string
			if s < steps {
				for c := 0; c <= g.rnd.IntN(2); c++ {
					cid := fmt.Sprintf("Shell:%d", g.rnd.IntN(1<<20))
					args, _ := json.Marshal(obj{"command": "npm test"})
					ev("ToolCall", obj{"type": "function", "id": cid, "function": obj{"name": "Shell", "arguments": string(args)}, "extras": nil})
					calls = append(calls, cid)
				}
			}
			ev("StatusUpdate", obj{"token_usage": obj{"input_other": 1200, "output": 300, "input_cache_read": 9000, "input_cache_creation": 0},
				"message_id": g.id("chatcmpl-", 20), "context_usage": 0.1, "plan_mode": false})
			for _, cid := range calls {
				isErr := g.rnd.IntN(10) == 0
				ev("ToolResult", obj{"tool_call_id": cid, "return_value": obj{"is_error": isErr, "output": g.text(g.outputSize()), "message": "", "display": []obj{}, "extras": nil}})
			}
		}
		ev("TurnEnd", obj{})
	}
	n, err := f.close()
	return n, 1, err
}
