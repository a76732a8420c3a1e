package synth

import (
	"fmt"
	"path/filepath"
	"time"
)

// copilot writes one Copilot CLI session log, session-state/<id>/
// events.jsonl: a start with its git context, then user prompts, each
// answered by a few model turns with shell tool calls (one in ten exits
// non-zero, one in twenty fails outright) and the hook events the CLI
// writes around them, and a shutdown with the run's token totals.
func (g *generator) copilot(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 23 * time.Minute)
	sid := g.uuid()
	f, err := create(filepath.Join(dir, sid, "events.jsonl"))
	if err != nil {
		return 0, 0, err
	}
	prev := any(nil)
	event := func(typ string, data obj) {
		t = t.Add(time.Duration(1+g.rnd.IntN(9000)) * time.Millisecond)
		id := g.uuid()
		f.line(obj{"type": typ, "data": data, "id": id, "timestamp": t.Format("2006-01-02T15:04:05.000Z"), "parentId": prev})
		prev = id
	}
	event("session.start", obj{"sessionId": sid, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.64",
		"startTime": t.Format("2006-01-02T15:04:05.000Z"), "selectedModel": "claude-sonnet-4.6",
		"context": obj{"cwd": fmt.Sprintf("/home/dev/src/project-%d", i%30), "gitRoot": fmt.Sprintf("/home/dev/src/project-%d", i%30),
			"branch": "main", "repository": fmt.Sprintf("acme/project-%d", i%30), "hostType": "github"}})
	event("system.message", obj{"role": "system", "content": g.text(6000)})
	var out int64
	turn := 0
	for f.n < target {
		event("user.message", obj{"content": g.text(40 + g.rnd.IntN(400)), "attachments": []any{}, "interactionId": g.uuid()})
		for r := 0; r < 1+g.rnd.IntN(4) && f.n < target; r++ {
			tid := fmt.Sprint(turn)
			turn++
			event("assistant.turn_start", obj{"turnId": tid})
			var reqs []obj
			for c := 0; c < g.rnd.IntN(3); c++ {
				reqs = append(reqs, obj{"toolCallId": g.id("toolu_", 24), "name": "bash", "type": "function",
					"arguments": obj{"command": "go test ./...", "description": "Run the tests"}})
			}
			tokens := int64(50 + g.rnd.IntN(900))
			out += tokens
			event("assistant.message", obj{"messageId": g.uuid(), "model": "claude-sonnet-4.6", "content": g.text(30 + g.rnd.IntN(600)),
				"toolRequests": reqs, "turnId": tid, "outputTokens": tokens})
			for _, q := range reqs {
				id := q["toolCallId"]
				event("hook.start", obj{"hookInvocationId": g.uuid(), "hookType": "preToolUse", "input": obj{"toolName": "bash"}})
				event("hook.end", obj{"hookInvocationId": g.uuid(), "hookType": "preToolUse", "success": true})
				event("tool.execution_start", obj{"toolCallId": id, "toolName": "bash", "arguments": q["arguments"], "turnId": tid})
				code := 0
				if g.rnd.IntN(10) == 0 {
					code = 1
				}
				done := obj{"toolCallId": id, "model": "claude-sonnet-4.6", "turnId": tid, "success": true,
					"result": obj{"content": g.text(g.outputSize()) + fmt.Sprintf("\n<shellId: %d completed with exit code %d>", turn, code)}}
				if g.rnd.IntN(20) == 0 {
					done = obj{"toolCallId": id, "turnId": tid, "success": false, "error": obj{"message": "command timed out", "code": "failure"}}
				}
				event("tool.execution_complete", done)
			}
			event("assistant.turn_end", obj{"turnId": tid})
		}
	}
	event("session.shutdown", obj{"shutdownType": "routine", "totalApiDurationMs": 1000 * turn, "sessionStartTime": g.start.UnixMilli(),
		"codeChanges": obj{"linesAdded": 0, "linesRemoved": 0, "filesModified": []any{}},
		"modelMetrics": obj{"claude-sonnet-4.6": obj{"requests": obj{"count": turn, "cost": turn},
			"usage": obj{"inputTokens": 20000 * turn, "outputTokens": out, "cacheReadTokens": 15000 * turn, "cacheWriteTokens": 0}}},
		"currentModel": "claude-sonnet-4.6"})
	n, err := f.close()
	return n, 1, err
}
