package harvest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// turn is one step of a fixture session: a user message, assistant text,
// or a tool call with its result.
type turn struct {
	user, say   string
	tool, input string
	output      string
	failed      bool
	// memory is the path of a subfolder's CLAUDE.md that Claude Code
	// loaded (a nested_memory attachment), output its text.
	memory string
}

func bash(cmd, output string, failed bool) turn {
	in, _ := json.Marshal(map[string]string{"command": cmd, "description": "run"})
	return turn{tool: "Bash", input: string(in), output: output, failed: failed}
}

func toolCall(name string, input map[string]any, output string, failed bool) turn {
	in, _ := json.Marshal(input)
	return turn{tool: name, input: string(in), output: output, failed: failed}
}

// writeClaude writes turns as a Claude Code transcript, the way Claude
// Code writes one: a line per message, tool results as user lines.
func writeClaude(t testing.TB, dir, id, cwd string, turns []turn) string {
	t.Helper()
	var b strings.Builder
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	parent := ""
	n := 0
	line := func(typ string, msg map[string]any) {
		n++
		at = at.Add(20 * time.Second)
		uuid := fmt.Sprintf("%s-%04d", id, n)
		key := "message"
		if typ == "attachment" {
			key = "attachment"
		}
		m := map[string]any{"type": typ, "uuid": uuid, "sessionId": id, "cwd": cwd, "gitBranch": "main",
			"version": "2.1.30", "timestamp": at.Format(time.RFC3339Nano), "isSidechain": false, "userType": "external",
			key: msg}
		if parent != "" {
			m["parentUuid"] = parent
		}
		parent = uuid
		bs, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(bs)
		b.WriteByte('\n')
	}
	for i, tu := range turns {
		switch {
		case tu.user != "":
			line("user", map[string]any{"role": "user", "content": tu.user})
		case tu.memory != "":
			line("attachment", map[string]any{"type": "nested_memory", "path": tu.memory,
				"content": map[string]any{"path": tu.memory, "type": "Project", "content": tu.output, "contentDiffersFromDisk": false}})
		case tu.say != "":
			line("assistant", map[string]any{"role": "assistant", "id": fmt.Sprintf("msg_%s_%d", id, i), "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "text", "text": tu.say}},
				"usage":   map[string]any{"input_tokens": 100, "output_tokens": 20}})
		default:
			callID := fmt.Sprintf("toolu_%s_%d", id, i)
			var input any
			if err := json.Unmarshal([]byte(tu.input), &input); err != nil {
				t.Fatal(err)
			}
			line("assistant", map[string]any{"role": "assistant", "id": fmt.Sprintf("msg_%s_%d", id, i), "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "tool_use", "id": callID, "name": tu.tool, "input": input}},
				"usage":   map[string]any{"input_tokens": 100, "output_tokens": 20}})
			line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": callID, "content": tu.output, "is_error": tu.failed}}})
		}
	}
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
