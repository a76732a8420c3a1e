package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/sqlite"
)

// TestJournalImportCorpus imports the real sessions of ../shared/corpus:
// attempts logged, a known retry chain kept with its parents, nothing
// read twice, a dry run storing nothing.
func TestJournalImportCorpus(t *testing.T) {
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no ../shared/corpus here")
	}
	home := t.TempDir()
	var sum journalImportSummary
	decode := func(r result) journalImportSummary {
		t.Helper()
		var s journalImportSummary
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &s) != nil {
			t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.err)
		}
		return s
	}
	// A dry run counts and stores nothing, and creates no store.
	dry := decode(runLore(t, home, "journal", "import", corpus, "--dry-run", "--json"))
	if _, err := os.Stat(filepath.Join(home, ".lore", "lore.db")); err == nil {
		t.Error("a dry run created the store")
	}
	sum = decode(runLore(t, home, "journal", "import", corpus, "--json"))
	if sum.Errors != 0 || sum.SessionsImported != sum.SessionsSeen || sum.Attempts < 20 || sum.AttemptsFailed == 0 ||
		sum.AttemptsFailed >= sum.Attempts {
		t.Errorf("first import: %+v", sum)
	}
	if dry.Attempts != sum.Attempts || dry.SessionsImported != sum.SessionsImported {
		t.Errorf("dry run %+v, real run %+v", dry, sum)
	}
	again := decode(runLore(t, home, "journal", "import", corpus, "--json"))
	if again.SessionsSkipped != again.SessionsSeen || again.Attempts != 0 || again.Bytes != 0 {
		t.Errorf("second import read again: %+v", again)
	}

	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(home, ".lore", "lore.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, byTask := 0, map[string]lore.Attempt{}
	err = st.Attempts(ctx, lore.AttemptFilter{WithDiff: true}, func(a lore.Attempt) error {
		n++
		if strings.HasPrefix(a.Task, "Please keep adding tests") {
			byTask[a.Task] = a
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != sum.Attempts {
		t.Errorf("%d attempts stored, %d logged", n, sum.Attempts)
	}
	first, second, third := byTask["Please keep adding tests"], byTask["Please keep adding tests (try 2)"], byTask["Please keep adding tests (try 3)"]
	if first.Outcome != lore.AttemptFailure || second.Outcome != lore.AttemptFailure || third.Outcome != lore.AttemptSuccess {
		t.Errorf("outcomes %q %q %q", first.Outcome, second.Outcome, third.Outcome)
	}
	if first.ID == "" || second.Parent != first.ID || third.Parent != second.ID || third.Retries != 2 {
		t.Errorf("retry chain: %s ← %s (%s) ← %s (%s), %d retries", first.ID, second.ID, second.Parent, third.ID, third.Parent, third.Retries)
	}
	if third.Repo == "" || !strings.HasPrefix(third.Session, "codex:") || !strings.Contains(third.Diff, "+++ b/apps/desktop/src/hooks/useSessionSync.test.tsx") {
		t.Errorf("attempt %+v", third)
	}

	// Nothing the journal imported counts as harvested.
	if r := runLore(t, home, "status", "--json"); !strings.Contains(r.stdout, `"sessions_harvested":0,`) {
		t.Errorf("status after an import: %s", r.stdout)
	}
	if r := runLore(t, home, "journal", "import", filepath.Join(home, "nowhere")); r.code != 1 {
		t.Errorf("a path not there: exit %d", r.code)
	}
}

// TestJournalLessons: a failure logged with a lesson is a candidate
// pitfall of its repository; the same lesson from a second attempt makes
// it active; a reflection added later teaches too; a success teaches
// nothing.
func TestJournalLessons(t *testing.T) {
	home := t.TempDir()
	lesson := "The retry test races the wall clock; only an injected clock made it stable."
	log := func(task, outcome string, extra ...string) string {
		t.Helper()
		r := runLore(t, home, append([]string{"journal", "log", "--task", task, "--repo", "acme/api", "--outcome", outcome}, extra...)...)
		if r.code != 0 {
			t.Fatalf("log: %d %s", r.code, r.err)
		}
		return strings.TrimSpace(r.stdout)
	}
	pitfalls := func(status string) []lore.Item {
		t.Helper()
		r := runLore(t, home, "list", "--category", "pitfall", "--status", status, "--json")
		if r.code != 0 {
			t.Fatalf("list: %d %s", r.code, r.err)
		}
		var out []lore.Item
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var it lore.Item
			if l != "" && json.Unmarshal([]byte(l), &it) == nil {
				out = append(out, it)
			}
		}
		return out
	}
	log("make the retry test stable", "failure", "--file", "client/retry_test.go", "--reflection", lesson)
	log("make the retry test faster", "success", "--reflection", "a table of cases halved the time")
	if c := pitfalls("candidate"); len(c) != 1 || c[0].Text != lesson || c[0].Repo != "acme/api" || !slices.Contains(c[0].Tags, "client/retry_test.go") {
		t.Fatalf("after one failure: %+v", c)
	}
	log("stabilise the retry test", "rollback", "--reflection", lesson)
	if a := pitfalls("active"); len(a) != 1 || a[0].Text != lesson || a[0].SourceCount != 2 {
		t.Errorf("after two: %+v", a)
	}
	id := log("speed up the client pool", "failure")
	if c := pitfalls("candidate"); len(c) != 0 {
		t.Errorf("a failure without a lesson taught %+v", c)
	}
	if r := runLore(t, home, "journal", "reflect", id, "The pool's idle timeout must exceed the server's keep-alive."); r.code != 0 {
		t.Fatalf("reflect: %d %s", r.code, r.err)
	}
	if c := pitfalls("candidate"); len(c) != 1 || !strings.Contains(c[0].Text, "idle timeout") {
		t.Errorf("after reflect: %+v", c)
	}
}
