package synth

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

func init() { generators["opencode"] = (*generator).opencode }

// opencode writes one OpenCode export (`opencode export`, the shape of
// the shared corpus): {"info": session, "messages": [{"info", "parts"}]},
// indented, every assistant message one step with its tokens, tool parts
// completed, a tenth of them failed and some bash calls exiting 1.
func (g *generator) opencode(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 31 * time.Minute)
	ms := func() int64 {
		t = t.Add(time.Duration(1+g.rnd.IntN(15)) * time.Second)
		return t.UnixMilli()
	}
	sid := g.id("ses_", 26)
	start := ms()
	var msgs []obj
	size := int64(0)
	for size < target {
		uid := g.id("msg_", 26)
		text := g.text(40 + g.rnd.IntN(300))
		msgs = append(msgs, obj{"info": obj{"id": uid, "sessionID": sid, "role": "user", "time": obj{"created": ms()}, "agent": "build"},
			"parts": []obj{{"id": g.id("prt_", 26), "sessionID": sid, "messageID": uid, "type": "text", "text": text}}})
		size += int64(len(text)) + 300
		for s := 0; s < 1+g.rnd.IntN(6); s++ {
			mid := g.id("msg_", 26)
			parts := []obj{{"id": g.id("prt_", 26), "type": "step-start", "snapshot": g.id("", 40)}}
			finish := "stop"
			if g.rnd.IntN(3) > 0 {
				finish = "tool-calls"
				for c := 0; c < 1+g.rnd.IntN(3); c++ {
					out := g.text(g.outputSize())
					state := obj{"status": "completed", "input": obj{"command": "npm test", "description": "Run tests"}, "output": out,
						"title": "npm test", "metadata": obj{"exit": 0, "truncated": false}, "time": obj{"start": ms(), "end": ms()}}
					switch r := g.rnd.IntN(10); {
					case r == 0:
						state = obj{"status": "error", "input": obj{"filePath": "/work/x.go"}, "error": "File not found: /work/x.go", "time": obj{"start": ms(), "end": ms()}}
					case r == 1:
						state["metadata"] = obj{"exit": 1}
					}
					parts = append(parts, obj{"id": g.id("prt_", 26), "type": "tool", "tool": "bash", "callID": g.id("call_", 24), "state": state})
					size += int64(len(out)) + 400
				}
			} else {
				text := g.text(50 + g.rnd.IntN(500))
				parts = append(parts, obj{"id": g.id("prt_", 26), "type": "text", "text": text})
				size += int64(len(text))
			}
			tokens := obj{"total": 16400, "input": 4000, "output": 300, "reasoning": 100, "cache": obj{"read": 12000, "write": 0}}
			parts = append(parts, obj{"id": g.id("prt_", 26), "type": "step-finish", "reason": finish, "tokens": tokens, "cost": 0.01})
			created := ms()
			msgs = append(msgs, obj{"info": obj{"id": mid, "sessionID": sid, "role": "assistant", "parentID": uid, "modelID": "claude-sonnet-4-5",
				"providerID": "anthropic", "mode": "build", "agent": "build", "path": obj{"cwd": "/work/proj", "root": "/work/proj"},
				"cost": 0.01, "tokens": tokens, "time": obj{"created": created, "completed": ms()}, "finish": finish}, "parts": parts})
			size += 900
		}
	}
	doc := obj{"info": obj{"id": sid, "slug": "synthetic", "projectID": fmt.Sprintf("%040x", i%40), "directory": "/work/proj", "title": "synthetic",
		"version": "1.14.30", "time": obj{"created": start, "updated": t.UnixMilli()}}, "messages": msgs}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return 0, 0, err
	}
	f, err := create(filepath.Join(dir, fmt.Sprintf("%02d", i%40), fmt.Sprintf("%s.json", sid)))
	if err != nil {
		return 0, 0, err
	}
	f.text(string(data))
	n, err := f.close()
	return n, 1, err
}
