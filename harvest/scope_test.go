package harvest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// portableSession meets a bd flag that does not exist (a pitfall whose
// text names nothing of the repository, verified), runs the build, and
// meets the Edit tool's protocol error.
func portableSession() []turn {
	return []turn{
		{user: "File the cleanup."},
		bash("npm ci", "Exit code 1\nnpm ERR! ERESOLVE could not resolve", true),
		bash("npm ci --legacy-peer-deps", "added 812 packages", false),
		bash("make build", "ok", false),
		toolCall("Edit", map[string]any{"file_path": "/x/a.go", "old_string": "a", "new_string": "b"},
			"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", true),
	}
}

// itemsOf is every item of the store, by text and scope.
func itemsOf(t *testing.T, st lore.Store) []lore.Item {
	t.Helper()
	var all []lore.Item
	if err := st.Items(context.Background(), lore.Filter{AnyStatus: true}, func(it lore.Item) error {
		all = append(all, it)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return all
}

func find(items []lore.Item, text, repo string) *lore.Item {
	for i := range items {
		if items[i].Repo == repo && items[i].Text == text {
			return &items[i]
		}
	}
	return nil
}

const npmPitfall = "`npm ci` fails with `npm ERR! ERESOLVE could not resolve`; `npm ci --legacy-peer-deps` works."

// TestScopeUntilTwoRepos: a session's pitfall that names nothing of its
// repository is that repository's (tagged portable), not global; met in a
// second repository, in a later run or in the same batch, it is one global
// item with both sessions, active, and the repository's copy is
// superseded. The build command stays each repository's fact; the
// agent's tool-protocol quirk stays the agent's, in no repository.
func TestScopeUntilTwoRepos(t *testing.T) {
	for _, sameRun := range []bool{false, true} {
		dir1, dir2 := t.TempDir(), t.TempDir()
		writeClaude(t, dir1, "s-alpha", "/work/alpha", portableSession())
		writeClaude(t, dir2, "s-beta", "/work/beta", portableSession())
		st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
		if !sameRun {
			harvestDir(t, st, dir1)
			all := itemsOf(t, st)
			if find(all, npmPitfall, "") != nil {
				t.Fatal("one repository's pitfall is global")
			}
			it := find(all, npmPitfall, "alpha")
			if it == nil || it.Status != lore.StatusActive || !slices.Contains(it.Tags, lore.TagPortable) {
				t.Fatalf("alpha's pitfall: %+v", it)
			}
			harvestDir(t, st, dir2)
		} else {
			both := t.TempDir()
			writeClaude(t, both, "s-alpha", "/work/alpha", portableSession())
			writeClaude(t, both, "s-beta", "/work/beta", portableSession())
			harvestDir(t, st, both)
		}
		all := itemsOf(t, st)
		g := find(all, npmPitfall, "")
		if g == nil || g.Status != lore.StatusActive || g.SourceCount != 2 || slices.Contains(g.Tags, lore.TagPortable) {
			t.Fatalf("same run %v: the global pitfall: %+v", sameRun, g)
		}
		for _, repo := range []string{"alpha", "beta"} {
			if c := find(all, npmPitfall, repo); c != nil && c.Status != lore.StatusSuperseded {
				t.Errorf("same run %v: %s's copy is %s, want superseded or none", sameRun, repo, c.Status)
			}
			if find(all, "`make build` builds the project.", repo) == nil {
				t.Errorf("same run %v: %s's build command is not its own fact", sameRun, repo)
			}
		}
		for _, it := range all {
			if strings.HasPrefix(it.Text, "The Edit tool of claude-code") && it.Repo != "" {
				t.Errorf("same run %v: the agent's own quirk is scoped to %s: %s", sameRun, it.Repo, it.Text)
			}
		}
		// A third session in either repository confirms the global item.
		dir3 := t.TempDir()
		writeClaude(t, dir3, "s-alpha-2", "/work/alpha", portableSession())
		harvestDir(t, st, dir3)
		all = itemsOf(t, st)
		if g := find(all, npmPitfall, ""); g == nil || g.SourceCount != 3 {
			t.Errorf("same run %v: after a third session: %+v", sameRun, g)
		}
		if c := find(all, npmPitfall, "alpha"); c != nil && c.Status != lore.StatusSuperseded {
			t.Errorf("same run %v: alpha's copy came back: %s", sameRun, c.Status)
		}
	}
}

// TestWideningKeepsDecisions: a repository's copy that a person promoted
// stays active when a second repository makes the item global.
func TestWideningKeepsDecisions(t *testing.T) {
	ctx := context.Background()
	dir1, dir2 := t.TempDir(), t.TempDir()
	writeClaude(t, dir1, "s-alpha", "/work/alpha", portableSession())
	writeClaude(t, dir2, "s-beta", "/work/beta", portableSession())
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir1)
	c := find(itemsOf(t, st), npmPitfall, "alpha")
	if c == nil {
		t.Fatal("alpha's pitfall was not harvested")
	}
	if _, err := st.Review(ctx, c.ID, lore.Decision{Action: lore.ReviewPromote, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	harvestDir(t, st, dir2)
	all := itemsOf(t, st)
	if g := find(all, npmPitfall, ""); g == nil || g.Status != lore.StatusActive {
		t.Fatalf("the global pitfall: %+v", g)
	}
	if c := find(all, npmPitfall, "alpha"); c == nil || c.Status != lore.StatusActive {
		t.Errorf("alpha's promoted copy after widening: %+v, want active", c)
	}
}

// TestScopeRule: scope's cases one by one.
func TestScopeRule(t *testing.T) {
	s := &lore.Session{Repo: "acme/api"}
	tests := []struct {
		name               string
		it                 lore.Item
		specific, portable bool
		repo               string
		tagged             bool
	}{
		{"a tool's pitfall", lore.Item{Category: lore.CategoryPitfall}, false, true, "acme/api", true},
		{"a pitfall naming a file", lore.Item{Category: lore.CategoryPitfall}, true, false, "acme/api", false},
		{"a fact", lore.Item{Category: lore.CategoryFact}, false, false, "acme/api", false},
		{"the agent's quirk", lore.Item{Category: lore.CategoryToolQuirk, Agent: "codex"}, false, false, "", false},
		{"the agent's quirk naming a path", lore.Item{Category: lore.CategoryToolQuirk, Agent: "codex"}, true, false, "acme/api", false},
		{"scoped already", lore.Item{Category: lore.CategoryFact, Repo: "acme/web"}, false, true, "acme/web", false},
	}
	for _, tt := range tests {
		it := tt.it
		scope(&it, s, tt.specific, tt.portable)
		if it.Repo != tt.repo || slices.Contains(it.Tags, lore.TagPortable) != tt.tagged {
			t.Errorf("%s: repo %q tags %v, want %q portable %v", tt.name, it.Repo, it.Tags, tt.repo, tt.tagged)
		}
	}
	it := lore.Item{Category: lore.CategoryPitfall}
	scope(&it, &lore.Session{}, false, true)
	if it.Repo != "" || len(it.Tags) > 0 {
		t.Errorf("a session with no repository: %+v", it)
	}
}

// harvestSessions writes turns as one Claude Code session of cwd for each
// id, harvests them into a new store, and returns every item stored.
func harvestSessions(t *testing.T, turns []turn, ids ...string) []lore.Item {
	t.Helper()
	dir := t.TempDir()
	for _, id := range ids {
		writeClaude(t, dir, id, cwd, turns)
	}
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)
	return itemsOf(t, st)
}
