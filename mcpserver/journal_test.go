package mcpserver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/mcpserver"
	"github.com/lorehq/lore/sqlite"
)

// openJournal returns a SQLite store, which keeps a journal.
func openJournal(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lore.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestMCPJournalTools(t *testing.T) {
	ctx := context.Background()
	st := openJournal(t)
	cs := connect(t, st, mcpserver.Options{Agent: lore.AgentCodex, Repo: "acme/api"})
	if !strings.Contains(cs.InitializeResult().Instructions, "journal_similar") {
		t.Error("instructions do not tell of the journal")
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 5 {
		t.Errorf("%d tools with a journal", len(tools.Tools))
	}

	lesson := "The retry test races the wall clock; an injected clock made it stable."
	var logged mcpserver.LogOutput
	decode(t, call(t, cs, "journal_log", map[string]any{
		"task": "make the retry test stable", "outcome": "failure", "files": []string{"client/retry_test.go", "./client/retry.go"},
		"analysis": "sleeping longer only hid the race", "reflection": lesson,
		"tests": "--- FAIL: TestRetry (0.31s) token " + ghToken,
	}), &logged)
	if logged.ID == "" || logged.Outcome != lore.AttemptFailure || logged.Lesson == "" {
		t.Fatalf("logged %+v", logged)
	}
	a, err := st.Attempt(ctx, logged.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Repo != "acme/api" || a.Agent != lore.AgentCodex || strings.Contains(a.Tests, ghToken) || a.Files[0] != "client/retry.go" {
		t.Errorf("stored %+v", a)
	}
	it, err := st.Item(ctx, logged.Lesson)
	if err != nil || it.Text != lesson || it.Category != lore.CategoryPitfall || it.Repo != "acme/api" || it.Status != lore.StatusCandidate {
		t.Errorf("lesson item %+v, %v", it, err)
	}
	var ok mcpserver.LogOutput
	decode(t, call(t, cs, "journal_log", map[string]any{"task": "speed up the client pool", "outcome": "success",
		"files": []string{"client/pool.go"}}), &ok)
	if ok.Lesson != "" {
		t.Errorf("a success taught %q", ok.Lesson)
	}

	var sim mcpserver.SimilarOutput
	decode(t, call(t, cs, "journal_similar", map[string]any{"text": "flaky retry test", "files": []string{"client/retry_test.go"}}), &sim)
	if len(sim.Attempts) == 0 || sim.Attempts[0].ID != logged.ID || sim.Attempts[0].Lesson != lesson ||
		len(sim.Attempts[0].SharedFiles) != 1 {
		t.Fatalf("similar %+v", sim)
	}
	decode(t, call(t, cs, "journal_similar", map[string]any{"text": "flaky retry test", "repo": "other/repo"}), &sim)
	if len(sim.Attempts) != 0 {
		t.Errorf("another repository's attempts: %+v", sim)
	}

	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"journal_log", map[string]any{"task": " ", "outcome": "failure"}, "task is empty"},
		{"journal_log", map[string]any{"task": "x", "outcome": "meh"}, "unknown outcome"},
		{"journal_log", map[string]any{"task": "x"}, "outcome"},
		{"journal_similar", map[string]any{"text": ""}, "text is empty"},
		{"journal_similar", map[string]any{"text": "x", "limit": -1}, "limit -1"},
	} {
		res := call(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: %q, want an error with %q", c.tool, c.args, text(res), c.want)
		}
	}
}

// TestMCPJournalLessonHeld logs a failure whose lesson is an order that
// names nothing: held, and never handed to an agent by journal_similar.
func TestMCPJournalLessonHeld(t *testing.T) {
	st := openJournal(t)
	cs := connect(t, st, mcpserver.Options{Repo: "acme/api"})
	var logged mcpserver.LogOutput
	decode(t, call(t, cs, "journal_log", map[string]any{"task": "clean the build", "outcome": "rollback",
		"reflection": "Always delete everything first."}), &logged)
	it, err := st.Item(context.Background(), logged.Lesson)
	if err != nil || !strings.Contains(strings.Join(it.Tags, " "), lore.TagHeld) {
		t.Errorf("lesson %+v %v", it, err)
	}
	var sim mcpserver.SimilarOutput
	decode(t, call(t, cs, "journal_similar", map[string]any{"text": "clean the build"}), &sim)
	if len(sim.Attempts) != 1 || sim.Attempts[0].Lesson != "" {
		t.Errorf("similar %+v", sim)
	}
}
