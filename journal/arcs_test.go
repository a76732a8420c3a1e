package journal

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

func TestEdits(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: src/a.go\n@@ func f\n-old\n+new\n*** Add File: b.txt\n+hello\n*** Delete File: c.go\n*** End Patch"
	for _, c := range []struct {
		name, tool, input string
		files             []string
	}{
		{"claude edit", "Edit", `{"file_path":"/r/a.go","old_string":"x","new_string":"y"}`, []string{"/r/a.go"}},
		{"claude multiedit", "MultiEdit", `{"file_path":"/r/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`, []string{"/r/a.go", "/r/a.go"}},
		{"claude write", "Write", `{"file_path":"/r/n.go","content":"package n\n"}`, []string{"/r/n.go"}},
		{"gemini replace", "replace", `{"file_path":"/r/a.go","old_string":"x","new_string":"y","instruction":"i"}`, []string{"/r/a.go"}},
		{"opencode edit", "edit", `{"filePath":"/r/a.go","oldString":"x","newString":"y"}`, []string{"/r/a.go"}},
		{"editor str_replace", "str_replace_editor", `{"command":"str_replace","path":"/r/a.go","old_str":"x","new_str":"y"}`, []string{"/r/a.go"}},
		{"editor insert", "str_replace_editor", `{"command":"insert","path":"/r/a.go","insert_line":3,"new_str":"y"}`, []string{"/r/a.go"}},
		{"editor create", "create", `{"path":"/r/a.go","file_text":"x"}`, []string{"/r/a.go"}},
		{"editor view", "str_replace_editor", `{"command":"view","path":"/r/a.go"}`, nil},
		{"todo write", "TodoWrite", `{"todos":[{"content":"x"}]}`, nil},
		{"todo with content and path", "todowrite", `{"content":"x","path":"/r/a"}`, nil},
		{"write to a process", "write_stdin", `{"chars":"y\n","session_id":3}`, nil},
		{"raw patch", "apply_patch", patch, []string{"src/a.go", "b.txt", "c.go"}},
		{"patch in json", "apply_patch", `{"patchText":` + quote(patch) + `}`, []string{"src/a.go", "b.txt", "c.go"}},
		{"broken json", "Edit", `{"file_path":"/r/a.go","old_string":`, nil},
		{"shell", "Bash", `{"command":"go test ./..."}`, nil},
		{"patch in a shell", "shell", `{"command":["bash","-lc","apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch\nEOF"]}`, []string{"a.go"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var files []string
			es, _ := callEdits(c.tool, c.input)
			for _, e := range es {
				files = append(files, e.file)
			}
			if !slices.Equal(files, c.files) {
				t.Errorf("files %q, want %q", files, c.files)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestDiff(t *testing.T) {
	e := edit{file: "a.go", old: "l1\nl2\nl3\nl4\nold\nl6\nl7\nl8\nl9\n", new: "l1\nl2\nl3\nl4\nnew\nnewer\nl6\nl7\nl8\nl9\n"}
	want := "--- a/a.go\n+++ b/a.go\n@@\n l2\n l3\n l4\n-old\n+new\n+newer\n l6\n l7\n l8\n"
	if got := e.diff(); got != want {
		t.Errorf("diff\n%s\nwant\n%s", got, want)
	}
	w := edit{file: "n.go", new: "a\nb", whole: true}
	if got := w.diff(); got != "--- a/n.go\n+++ b/n.go\n@@ whole file @@\n+a\n+b\n" {
		t.Errorf("write's diff\n%s", got)
	}
	p := patchEdits("*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n-x\n+y\n*** End of File\n*** End Patch\n")
	if len(p) != 1 || p[0].diff() != "--- a/a.go\n+++ b/a.go\n@@ moved to b.go @@\n@@\n-x\n+y\n" {
		t.Errorf("patch's diff %+v", p)
	}
}

func TestRepoPath(t *testing.T) {
	for _, c := range []struct{ cwd, file, want string }{
		{"/home/u/p", "/home/u/p/src/a.go", "src/a.go"},
		{"/home/u/p/", "/home/u/p/a.go", "a.go"},
		{"/home/u/p", "/home/u/pq/a.go", ""},
		{"/home/u/p", "/tmp/x.go", ""},
		{"/home/u/p", "src/./b.go", "src/b.go"},
		{"/home/u/p", "../q/b.go", ""},
		{"", "/abs/a.go", ""},
		{`C:\Users\u\p`, `C:\Users\u\p\web\x.tsx`, "web/x.tsx"},
		{"/home/u/p", "/home/u/p/.claude/worktrees/fix/cmd/main.go", "cmd/main.go"},
		{"/home/u/p", "/home/u/p/.worktrees/fix/a.go", "a.go"},
		{"/home/u/p", "/home/u/p/docs/worktrees/a.md", "docs/worktrees/a.md"},
	} {
		if got := repoPath(c.cwd, c.file); got != c.want {
			t.Errorf("repoPath(%q, %q) = %q, want %q", c.cwd, c.file, got, c.want)
		}
	}
}

// session builds a session from steps: "user: TEXT", "edit: FILE" (an Edit
// that worked), "badedit: FILE" (one refused), "run: CMD" (passed),
// "fail: CMD" (failed).
func session(steps ...string) *lore.Session {
	s := &lore.Session{ID: "claude-code:x", Agent: lore.AgentClaudeCode, Repo: "o/r", Cwd: "/w/r"}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, st := range steps {
		kind, arg, _ := strings.Cut(st, ": ")
		at := t0.Add(time.Duration(i) * time.Minute)
		if kind == "user" {
			s.Messages = append(s.Messages, lore.Message{Index: len(s.Messages), Role: lore.RoleUser, Time: at, Text: arg})
			continue
		}
		id := "c" + string(rune('a'+i))
		call := lore.ToolCall{ID: id, Name: "Bash", Input: `{"command":` + quote(arg) + `}`}
		res := lore.ToolResult{CallID: id, Output: "ok " + arg}
		switch kind {
		case "edit", "badedit":
			call = lore.ToolCall{ID: id, Name: "Edit", Input: `{"file_path":` + quote(arg) + `,"old_string":"a","new_string":"b"}`}
			res.IsError = kind == "badedit"
		case "fail":
			res.IsError, res.Output = true, "Exit code 1\nFAIL "+arg
		}
		s.Messages = append(s.Messages,
			lore.Message{Index: len(s.Messages), Role: lore.RoleAssistant, Time: at, ToolCalls: []lore.ToolCall{call}},
			lore.Message{Index: len(s.Messages) + 1, Role: lore.RoleTool, Time: at, ToolResults: []lore.ToolResult{res}})
	}
	return s
}

func TestAttempts(t *testing.T) {
	s := session(
		"user: make the parser accept tabs",
		"run: go test ./...", // no edit before it: no attempt
		"edit: /w/r/parse.go",
		"badedit: /w/r/other.go", // refused: not edited
		"edit: /tmp/scratch.go",  // outside the repository
		"fail: go test ./parse",
		"user: <system-reminder>ignored</system-reminder>",
		"edit: /w/r/parse.go",
		"edit: /w/r/parse_test.go",
		"fail: go test ./parse",
		"run: go vet ./...", // the arc's last run decides
		"edit: /w/r/parse.go",
		"fail: go test ./parse",
		"user: now the docs",
		"edit: /w/r/README.md",
		"run: ls",           // not a build or test
		"edit: /w/r/doc.go", // no run follows: no attempt
	)
	as := Attempts(s)
	type got struct {
		files   string
		outcome string
		retries int
		task    string
	}
	var gs []got
	for _, a := range as {
		gs = append(gs, got{strings.Join(a.Files, " "), a.Outcome, a.Retries, a.Task})
		if a.Repo != "o/r" || a.Session != "claude-code:x" || a.Agent != lore.AgentClaudeCode || a.At.IsZero() {
			t.Errorf("attempt's scope %q %q %q %v", a.Repo, a.Session, a.Agent, a.At)
		}
	}
	want := []got{
		{"parse.go", lore.AttemptFailure, 0, "make the parser accept tabs"},
		{"parse.go parse_test.go", lore.AttemptSuccess, 1, "make the parser accept tabs"},
		{"parse.go", lore.AttemptFailure, 0, "make the parser accept tabs (try 2)"}, // told from the first
	}
	if !slices.Equal(gs, want) {
		t.Fatalf("attempts\n%+v\nwant\n%+v", gs, want)
	}
	if !strings.HasPrefix(as[0].Tests, "$ go test ./parse\n") || !strings.Contains(as[0].Tests, "FAIL") {
		t.Errorf("tests %q", as[0].Tests)
	}
	if !strings.Contains(as[1].Diff, "+++ b/parse_test.go\n@@\n-a\n+b\n") || strings.Contains(as[0].Diff, "scratch") {
		t.Errorf("diff %q", as[1].Diff)
	}
}

func TestRequest(t *testing.T) {
	long := strings.Repeat("word ", 100)
	if r := request(long); len([]rune(r)) > maxTask+2 || !strings.HasSuffix(r, " …") {
		t.Errorf("long request %q", r)
	}
	for _, s := range []string{"", "  ", "<command-name>/clear</command-name>", "[Request interrupted by user]", "Caveat: local"} {
		if r := request(s); r != "" {
			t.Errorf("request(%q) = %q", s, r)
		}
	}
	if r := request("<command-message>fix is running…</command-message>\n<command-name>/fix</command-name>\n<command-args>the login test</command-args>"); r != "/fix the login test" {
		t.Errorf("slash command's request = %q", r)
	}
	if r := request("fix\n\nthe   build"); r != "fix the build" {
		t.Errorf("request = %q", r)
	}
}
