package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// The answers below were worked out by hand from the fixture: see the
// comments of the Python that wrote it (testdata/aider/proj).
func TestAiderFixture(t *testing.T) {
	path := filepath.Join("testdata", "aider", "proj", ".aider.chat.history.md")
	ss := readPath(t, path)
	if len(ss) != 4 {
		t.Fatalf("got %d sessions, want 4", len(ss))
	}
	dir, _ := filepath.Abs(filepath.Dir(path))
	type want struct {
		idPrefix            string
		user, asst          int
		calls, errs         int
		usage               lore.Usage
		outcome             lore.Outcome
		model, cwd, started string
	}
	wants := []want{
		{"20251102-101500-", 2, 2, 3, 0, lore.Usage{InputTokens: 14400, OutputTokens: 354, CacheWriteTokens: 2100, CacheReadTokens: 8000},
			lore.OutcomeSuccess, "anthropic/claude-sonnet-4-5", dir, "2025-11-02 10:15:00"},
		{"20251102-110000-", 2, 2, 2, 2, lore.Usage{InputTokens: 6600, OutputTokens: 100},
			lore.OutcomeFailure, "anthropic/claude-sonnet-4-5", "/home/dev/proj/src", "2025-11-02 11:00:00"},
		{"20251102-123045-", 1, 0, 0, 0, lore.Usage{}, lore.OutcomeAborted, "", dir, "2025-11-02 12:30:45"},
		{"20251102-123045-", 1, 1, 0, 0, lore.Usage{InputTokens: 1200000, OutputTokens: 1234}, lore.OutcomeSuccess, "", dir, "2025-11-02 12:30:45"},
	}
	for i, w := range wants {
		s := ss[i]
		checkInvariants(t, s)
		if !strings.HasPrefix(s.NativeID, w.idPrefix) {
			t.Errorf("session %d: id %q, want prefix %q", i, s.ID, w.idPrefix)
		}
		if s.Agent != lore.AgentAider {
			t.Errorf("session %d: agent %q", i, s.Agent)
		}
		if s.UserMessages != w.user || s.AssistantMessages != w.asst {
			t.Errorf("session %d: turns %d/%d, want %d/%d", i, s.UserMessages, s.AssistantMessages, w.user, w.asst)
		}
		if s.ToolCalls != w.calls || s.ToolErrors != w.errs {
			t.Errorf("session %d: calls %d errors %d, want %d %d", i, s.ToolCalls, s.ToolErrors, w.calls, w.errs)
		}
		if s.Usage != w.usage {
			t.Errorf("session %d: usage %+v, want %+v", i, s.Usage, w.usage)
		}
		if s.Outcome != w.outcome {
			t.Errorf("session %d: outcome %s, want %s", i, s.Outcome, w.outcome)
		}
		if s.Model != w.model || s.Cwd != w.cwd {
			t.Errorf("session %d: model %q cwd %q, want %q %q", i, s.Model, s.Cwd, w.model, w.cwd)
		}
		if st := localTime(t, w.started); !s.StartedAt.Equal(st) || s.StartedAt.Location() != time.Local {
			t.Errorf("session %d: started %v, want %v local", i, s.StartedAt, st)
		}
	}
	// Two sessions in one second with the same startup: distinct ids, the
	// second numbered.
	if ss[2].ID == ss[3].ID || ss[3].NativeID != ss[2].NativeID+"-2" {
		t.Errorf("same-second ids %q and %q", ss[2].ID, ss[3].ID)
	}

	// Bodies: the answer keeps its "#### Plan" heading and its quote; the
	// prompt's two lines are one turn; the edits sit on the answer.
	var users, answers []lore.Message
	for _, m := range ss[0].Messages {
		switch m.Role {
		case lore.RoleUser:
			users = append(users, m)
		case lore.RoleAssistant:
			answers = append(answers, m)
		}
	}
	if got := users[0].Text; got != "Add a /health endpoint\nthat returns {\"ok\": true}" {
		t.Errorf("first prompt %q", got)
	}
	a := answers[0]
	if !strings.HasPrefix(a.Text, "#### Plan\n\nI'll add the endpoint.") || !strings.Contains(a.Text, "> note: a quote") {
		t.Errorf("first answer %q", a.Text)
	}
	if len(a.ToolCalls) != 1 || a.ToolCalls[0].Name != "edit" || a.ToolCalls[0].Input != "src/app.py" {
		t.Errorf("first answer calls %+v", a.ToolCalls)
	}
}

// The id does not depend on the file's location, and a second read gives
// the same ids.
func TestAiderIDsStable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "aider", "proj", ".aider.chat.history.md"))
	if err != nil {
		t.Fatal(err)
	}
	a := readPath(t, filepath.Join("testdata", "aider", "proj", ".aider.chat.history.md"))
	b := readPath(t, writeFile(t, "elsewhere/.aider.chat.history.md", string(data)))
	for i := range a {
		if a[i].ID != b[i].ID {
			t.Errorf("session %d: %q here, %q elsewhere", i, a[i].ID, b[i].ID)
		}
	}
	// Appending a session leaves the earlier ids alone.
	more := string(data) + "\n# aider chat started at 2025-11-03 09:00:00\n\n> Aider v0.86.1  \n"
	c := readPath(t, writeFile(t, "grown/.aider.chat.history.md", more))
	if len(c) != len(a)+1 {
		t.Fatalf("got %d sessions after appending, want %d", len(c), len(a)+1)
	}
	for i := range a {
		if a[i].ID != c[i].ID {
			t.Errorf("session %d changed id after an append: %q → %q", i, a[i].ID, c[i].ID)
		}
	}
}

func TestAiderOldDialect(t *testing.T) {
	s := readOne(t, filepath.Join("testdata", "aider", "old.aider.chat.history.md"))
	if s.UserMessages != 1 || s.AssistantMessages != 1 || s.ToolCalls != 1 || s.Outcome != lore.OutcomeSuccess {
		t.Errorf("got u=%d a=%d calls=%d outcome=%s, want 1 1 1 success", s.UserMessages, s.AssistantMessages, s.ToolCalls, s.Outcome)
	}
	if !strings.HasPrefix(s.NativeID, "20230512-153930-") {
		t.Errorf("id %q", s.ID)
	}
	for _, m := range s.Messages {
		if m.Role == lore.RoleUser && m.Text != "make a flask app with a /hello endpoint" {
			t.Errorf("old-dialect prompt %q", m.Text)
		}
	}
}

func TestAiderDamage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "aider", "proj", ".aider.chat.history.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	tests := []struct {
		name, data   string
		sessions     int
		user0, asst0 int
	}{
		// Windows line endings (aider's --line-endings crlf).
		{"crlf", strings.ReplaceAll(text, "\n", "\r\n"), 4, 2, 2},
		// A file cut in the middle of the first answer.
		{"truncated", text[:strings.Index(text, "=======")], 1, 1, 1},
		// A preamble before the first header is ignored.
		{"preamble", "notes\n" + text, 4, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := readPath(t, writeFile(t, ".aider.chat.history.md", tt.data))
			if len(ss) != tt.sessions {
				t.Fatalf("got %d sessions, want %d", len(ss), tt.sessions)
			}
			if ss[0].UserMessages != tt.user0 || ss[0].AssistantMessages != tt.asst0 {
				t.Errorf("turns %d/%d, want %d/%d", ss[0].UserMessages, ss[0].AssistantMessages, tt.user0, tt.asst0)
			}
		})
	}
}

func TestAiderNotClaimed(t *testing.T) {
	for name, data := range map[string]string{
		"README.md":              "# Project\n\nSee .aider.chat.history.md\n# aider chat started at 2025-01-01 00:00:00\n",
		".aider.input.history":   "\n# 2025-01-01 00:00:00.123\n+hello\n",
		".aider.chat.history.md": "# Notes\n\nnothing here\n",
	} {
		_, err := Read(context.Background(), writeFile(t, name, data), Options{NoGit: true})
		if err == nil {
			t.Errorf("%s: read as a transcript", name)
		}
	}
}

// The zen-mcp-server history (corpus) holds four sessions, none of which
// sent anything to the model: /add and /copy-context are commands. Counted
// by hand from the file.
func TestAiderCorpus(t *testing.T) {
	dir := corpusDir(t, "aider")
	path := filepath.Join(dir, "zen-mcp-server__.aider.chat.history.md")
	ss := readPath(t, path)
	if len(ss) != 4 {
		t.Fatalf("got %d sessions, want 4", len(ss))
	}
	const gemini = "gemini/gemini-2.5-pro-preview-06-05"
	wants := []struct {
		prefix, started, model string
		outcome                lore.Outcome
	}{
		{"20251020-214917-", "2025-10-20 21:49:17", "", lore.OutcomeUnknown},
		{"20251020-214922-", "2025-10-20 21:49:22", gemini, lore.OutcomeAborted},
		{"20251022-092912-", "2025-10-22 09:29:12", gemini, lore.OutcomeAborted},
		{"20251023-170456-", "2025-10-23 17:04:56", gemini, lore.OutcomeUnknown},
	}
	abs, _ := filepath.Abs(dir)
	for i, w := range wants {
		s := ss[i]
		checkInvariants(t, s)
		if !strings.HasPrefix(s.NativeID, w.prefix) || s.Model != w.model || s.Outcome != w.outcome || s.Cwd != abs {
			t.Errorf("session %d: id %q model %q outcome %s cwd %q", i, s.NativeID, s.Model, s.Outcome, s.Cwd)
		}
		if !s.StartedAt.Equal(localTime(t, w.started)) {
			t.Errorf("session %d: started %v", i, s.StartedAt)
		}
		if s.MessageCount() != 0 || s.ToolCalls != 0 {
			t.Errorf("session %d: %d turns %d calls, want none", i, s.MessageCount(), s.ToolCalls)
		}
	}
	// Seven /add and /copy-context inputs in the last session, kept as
	// system messages.
	inputs := 0
	for _, m := range ss[3].Messages {
		if m.Role == lore.RoleSystem && strings.HasPrefix(m.Text, "/") {
			inputs++
		}
	}
	if inputs != 7 {
		t.Errorf("last session: %d commands, want 7", inputs)
	}
}

func TestAiderRoots(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: "/home/u", GOOS: "linux", Cwd: sub, Getenv: func(k string) string {
		if k == "AIDER_CHAT_HISTORY_FILE" {
			return "notes/chat.md"
		}
		return ""
	}}
	var got []string
	for _, r := range aiderRoots(env) {
		got = append(got, r.Source+" "+r.Path)
	}
	want := []string{
		"AIDER_CHAT_HISTORY_FILE " + filepath.Join(sub, "notes", "chat.md"),
		"default " + filepath.Join(sub, ".aider.chat.history.md"),
		"default " + filepath.Join(repo, "a", ".aider.chat.history.md"),
		"default " + filepath.Join(repo, ".aider.chat.history.md"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("roots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Outside any repository: only the working folder.
	env = Env{Home: "/home/u", GOOS: "linux", Cwd: t.TempDir()}
	if rs := aiderRoots(env); len(rs) != 1 {
		t.Errorf("outside a repository: %d roots, want 1", len(rs))
	}
}

func FuzzAider(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "aider", "proj", ".aider.chat.history.md"),
		filepath.Join("testdata", "aider", "old.aider.chat.history.md"),
		filepath.Join("..", "..", "shared", "corpus", "aider", "zen-mcp-server__.aider.chat.history.md"),
	} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
	}
	f.Add([]byte("\n# aider chat started at 2025-01-01 00:00:00\n\n####  \n>\n#### /run  \n> Error running command  \n"))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, ".aider.chat.history.md", data)
	})
}
