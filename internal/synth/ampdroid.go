package synth

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// amp writes one Amp thread, T-<uuid>.json: a whole JSON document whose
// messages are Anthropic-like blocks, tool results with a run status, and
// usage on each assistant message.
func (g *generator) amp(dir string, i int, target int64) (int64, int, error) {
	id := "T-" + g.uuid()
	f, err := create(filepath.Join(dir, "threads", id+".json"))
	if err != nil {
		return 0, 0, err
	}
	t := g.start.Add(time.Duration(i) * 31 * time.Minute)
	sent := func() obj {
		t = t.Add(time.Duration(1+g.rnd.IntN(20)) * time.Second)
		return obj{"sentAt": t.UnixMilli()}
	}
	project := fmt.Sprintf("project%d", i%40)
	head := obj{"v": 12, "id": id, "created": t.UnixMilli(), "title": g.text(40), "agentMode": "smart",
		"env": obj{"initial": obj{"trees": []obj{{"displayName": project, "uri": "file:///home/dev/" + project,
			"repository": obj{"type": "git", "url": "https://github.com/acme/" + project + ".git", "ref": "refs/heads/main", "sha": g.id("", 40)}}},
			"platform": obj{"os": "linux", "client": "CLI", "clientVersion": "0.0.1767800000"}}}}
	b, _ := json.Marshal(head)
	// The document is written as the head without its closing brace, the
	// messages one by one, a line each, then the close, so a large thread
	// is never held whole.
	f.text(string(b[:len(b)-1]) + `,"messages":[` + "\n")
	n := 0
	msg := func(m obj) {
		m["messageId"] = n
		if n > 0 {
			f.text(",\n")
		}
		b, _ := json.Marshal(m)
		f.text(string(b))
		n++
	}
	for f.n < target {
		msg(obj{"role": "user", "content": []obj{{"type": "text", "text": g.text(40 + g.rnd.IntN(400))}}, "meta": sent()})
		for s := 0; s < 1+g.rnd.IntN(6); s++ {
			call := g.id("toolu_01", 22)
			msg(obj{"role": "assistant", "content": []obj{{"type": "text", "text": g.text(20 + g.rnd.IntN(300))},
				{"type": "tool_use", "id": call, "name": "Bash", "input": obj{"cmd": "go test ./... -run " + g.id("Test", 8)}}},
				"state": obj{"type": "complete", "stopReason": "tool_use"}, "meta": sent(),
				"usage": obj{"model": "claude-sonnet-4-5-20250929", "inputTokens": 3 + g.rnd.IntN(50), "outputTokens": 20 + g.rnd.IntN(400),
					"cacheCreationInputTokens": g.rnd.IntN(3000), "cacheReadInputTokens": g.rnd.IntN(90000)}})
			run := obj{"status": "done", "result": obj{"output": g.text(g.outputSize()), "exitCode": 0}}
			if g.rnd.IntN(12) == 0 {
				run = obj{"status": "error", "error": obj{"message": g.text(80)}}
			}
			msg(obj{"role": "user", "content": []obj{{"type": "tool_result", "toolUseID": call, "run": run}}, "meta": sent()})
		}
		msg(obj{"role": "assistant", "content": []obj{{"type": "text", "text": g.text(100 + g.rnd.IntN(800))}},
			"state": obj{"type": "complete", "stopReason": "end_turn"}, "meta": sent(),
			"usage": obj{"model": "claude-sonnet-4-5-20250929", "inputTokens": 5, "outputTokens": 150, "cacheCreationInputTokens": 100, "cacheReadInputTokens": 20000}})
	}
	f.text("]}\n")
	size, err := f.close()
	return size, 1, err
}

// droid writes one Droid session, <cwd slug>/<uuid>.jsonl with its
// <uuid>.settings.json.
func (g *generator) droid(dir string, i int, target int64) (int64, int, error) {
	sid := g.uuid()
	slug := fmt.Sprintf("-home-dev-project%d", i%40)
	f, err := create(filepath.Join(dir, slug, sid+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	t := g.start.Add(time.Duration(i) * 41 * time.Minute)
	start := t
	var prev string
	line := func(role string, content []obj) {
		t = t.Add(time.Duration(1+g.rnd.IntN(20)) * time.Second)
		id := g.uuid()
		m := obj{"type": "message", "id": id, "timestamp": t.Format("2006-01-02T15:04:05.000Z"), "message": obj{"role": role, "content": content}}
		if prev != "" {
			m["parentId"] = prev
		}
		prev = id
		f.line(m)
	}
	f.line(obj{"type": "session_start", "id": sid, "title": g.text(40), "sessionTitle": g.text(30), "owner": "dev", "version": 2, "cwd": "/home/dev/project" + fmt.Sprint(i%40)})
	for f.n < target {
		line("user", []obj{{"type": "text", "text": "<system-reminder>" + g.text(80) + "</system-reminder>"}, {"type": "text", "text": g.text(40 + g.rnd.IntN(400))}})
		for s := 0; s < 1+g.rnd.IntN(6); s++ {
			call := g.id("toolu_01", 22)
			line("assistant", []obj{{"type": "text", "text": g.text(20 + g.rnd.IntN(300))},
				{"type": "tool_use", "id": call, "name": "Execute", "input": obj{"command": "go test ./... -run " + g.id("Test", 8), "riskLevel": "low"}}})
			out := g.text(g.outputSize())
			res := obj{"type": "tool_result", "tool_use_id": call, "content": out}
			if g.rnd.IntN(12) == 0 {
				res["content"] = "Error: Command failed (exit code: 1)\n" + out
			}
			line("user", []obj{res})
		}
		line("assistant", []obj{{"type": "text", "text": g.text(100 + g.rnd.IntN(800))}})
	}
	n, err := f.close()
	if err != nil {
		return n, 1, err
	}
	s, err := create(filepath.Join(dir, slug, sid+".settings.json"))
	if err != nil {
		return n, 1, err
	}
	s.line(obj{"assistantActiveTimeMs": t.Sub(start).Milliseconds(), "model": "claude-sonnet-4-5-20250929", "reasoningEffort": "medium",
		"autonomyMode": "auto-low", "providerLock": "anthropic", "providerLockTimestamp": start.Format("2006-01-02T15:04:05.000Z"),
		"tokenUsage": obj{"inputTokens": 4000, "outputTokens": 9000, "cacheCreationTokens": 20000, "cacheReadTokens": 900000, "thinkingTokens": 500}})
	m, err := s.close()
	return n + m, 1, err
}
