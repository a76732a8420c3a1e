package measure

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// TestSameError: an item with an error's signature is about that error
// only when it names what the error names (a script, a symbol, the file
// a missing-file error is about); an agent tool's error, or one that
// names only where it happened, is the same wherever it is met.
func TestSameError(t *testing.T) {
	for _, tt := range []struct {
		line, text string
		want       bool
	}{
		{`npm error Missing script: "lint"`, "`npm run lint` fails with `npm error Missing script: \"lint\"`; `npm run check` works.", true},
		{`npm error Missing script: "check"`, "`npm` can fail with `npm error missing script: <q>`.", false},
		{`go: undefined: parseConfig`, "`go build` fails with `go: undefined: loadConfig`.", false},
		// A missing file's error is about the file: another one's is another error.
		{`zsh:1: no such file or directory: scripts/run.sh`, "`scripts/other.sh` fails with `zsh:1: no such file or directory: scripts/other.sh`.", false},
		{`zsh:1: no such file or directory: /home/me/app/scripts/run.sh`, "`scripts/run.sh` fails with `zsh:1: no such file or directory: scripts/run.sh`.", true},
		{`EISDIR: illegal operation on a directory, read '/src/ui'`, "The Read tool fails with `eisdir: illegal operation on a directory`.", true},
	} {
		if got := sameError(tt.line, tt.text); got != tt.want {
			t.Errorf("sameError(%q, %q) = %v, want %v", tt.line, tt.text, got, tt.want)
		}
	}
}

// TestCascadeNoError: a call cancelled because a parallel one failed is
// not an error the session met; the failure that cancelled it is.
func TestCascadeNoError(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	add := func(typ string, content any) {
		b, _ := json.Marshal(map[string]any{"type": typ, "sessionId": "c1", "cwd": "/home/dev/api", "uuid": typ + string(rune('a'+len(lines))),
			"timestamp": "2026-05-04T09:00:00Z", "message": map[string]any{"role": typ, "content": content}})
		lines = append(lines, string(b))
	}
	add("user", "Run the checks.")
	add("assistant", []any{
		map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]string{"command": "npm run lint"}},
		map[string]any{"type": "tool_use", "id": "t2", "name": "Read", "input": map[string]string{"file_path": "/home/dev/api/a.ts"}},
	})
	add("user", []any{
		map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "npm error Missing script: \"lint\"", "is_error": true},
		map[string]any{"type": "tool_result", "tool_use_id": "t2", "content": "<tool_use_error>Sibling tool call errored</tool_use_error>", "is_error": true},
	})
	path := filepath.Join(dir, "c1.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _, err := read(context.Background(), &lore.Session{ID: "claude-code:c1", Agent: lore.AgentClaudeCode, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.signatures) != 1 || !strings.Contains(f.signatures[0], "missing script") {
		t.Errorf("signatures %q; want the missing script alone", f.signatures)
	}
}
