package boot

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/tokens"
	"github.com/lorehq/lore/sqlite"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T, items ...lore.Item) lore.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lore.db"), sqlite.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i := range items {
		if items[i].Confidence == 0 {
			items[i].Confidence = 0.8
		}
		if items[i].LastConfirmed.IsZero() {
			items[i].LastConfirmed = now.Add(-24 * time.Hour)
			items[i].FirstSeen = items[i].LastConfirmed
		}
	}
	if _, err := st.Add(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	return st
}

func texts(c Context) []string {
	var out []string
	for _, p := range c.Items {
		out = append(out, p.Text)
	}
	return out
}

func TestScopeAndOrder(t *testing.T) {
	st := newStore(t,
		lore.Item{Text: "Pushing to main fails with HTTP 405; open a pull request.", Category: lore.CategoryPitfall, Repo: "acme/api"},
		lore.Item{Text: "`make test` runs the tests.", Category: lore.CategoryFact, Repo: "acme/api"},
		lore.Item{Text: "The Edit tool fails until the file is read.", Category: lore.CategoryToolQuirk, Agent: "claude-code"},
		lore.Item{Text: "apply_patch needs exact context lines.", Category: lore.CategoryToolQuirk, Agent: "codex"},
		lore.Item{Text: "`gh` reads GH_TOKEN before its config file.", Category: lore.CategoryFact},
		lore.Item{Text: "The web app deploys from the release branch.", Category: lore.CategoryFact, Repo: "acme/web"},
		lore.Item{Text: "A guess about the cache.", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.4},
	)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Agent: "claude-code", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Pushing to main fails with HTTP 405; open a pull request.",
		"`make test` runs the tests.",
		"The Edit tool fails until the file is read.",
		"`gh` reads GH_TOKEN before its config file.",
	}
	if got := texts(c); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, id := range c.Items {
		if !strings.Contains(c.Text, "[lore:"+id.ID[:ShortID]+"]") {
			t.Errorf("the context does not cite %s", id.ID)
		}
	}
	if !strings.HasPrefix(c.Text, "## Notes from earlier sessions (lore)") || !strings.Contains(c.Text, "not\ninstructions") {
		t.Errorf("header: %q", c.Text[:120])
	}
}

func TestTaskRelevance(t *testing.T) {
	st := newStore(t,
		lore.Item{Text: "Pushing to main fails with HTTP 405; open a pull request.", Category: lore.CategoryPitfall, Repo: "acme/api"},
		lore.Item{Text: "The migration tool needs DATABASE_URL set.", Category: lore.CategoryFact, Repo: "acme/api"},
		lore.Item{Text: "Postgres migrations run with `make migrate`.", Category: lore.CategoryPattern},
	)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Task: "add a database migration", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got := texts(c)
	if len(got) != 3 || !strings.Contains(got[0], "migration") || !strings.Contains(got[1], "migrations") {
		t.Errorf("with a task about migrations: %q; want the migration notes first", got)
	}
}

func TestNearDuplicatesDropped(t *testing.T) {
	st := newStore(t,
		lore.Item{Text: "Pushing to main fails with HTTP 405 because of branch protection.", Category: lore.CategoryPitfall, Repo: "acme/api"},
		lore.Item{Text: "Pushing to main fails with HTTP 405 because of branch protection.", Category: lore.CategoryPitfall},
	)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 1 || c.Items[0].Repo != "acme/api" {
		t.Errorf("two scopes of one note: %+v; want the repo's alone", c.Items)
	}
}

// The budget is never exceeded, counted with the tokenizer asked for,
// whatever the items and the budget.
func TestBudgetNeverExceeded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	words := strings.Fields("the build cache token push main branch flaky test retry docker proxy timeout 405 config yaml おはよう 🚀 naïve")
	var items []lore.Item
	for i := range 300 {
		var b strings.Builder
		for range 3 + r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		fmt.Fprintf(&b, "n%d", i)
		items = append(items, lore.Item{Text: b.String(), Category: lore.Categories[r.IntN(len(lore.Categories))],
			Repo: []string{"", "acme/api"}[r.IntN(2)], Confidence: 0.7 + 0.29*r.Float64()})
	}
	st := newStore(t, items...)
	for _, tok := range []string{"o200k", "cl100k"} {
		codec, _ := tokens.Get(tok)
		for _, budget := range []int{1, 60, 70, 100, 333, 2000, 5000} {
			c, err := Build(context.Background(), st, Options{Repo: "acme/api", Budget: budget, Tokenizer: tok, Task: "flaky docker test", Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if n := tokens.Count(codec, c.Text); n > budget || n != c.Tokens {
				t.Errorf("%s, budget %d: the context is %d tokens (reported %d)", tok, budget, n, c.Tokens)
			}
			if budget >= 2000 && len(c.Items) < 10 {
				t.Errorf("%s, budget %d: only %d items", tok, budget, len(c.Items))
			}
			if c.Text == "" && len(c.Items) > 0 {
				t.Errorf("items without a context")
			}
		}
	}
}

func TestEmptyStore(t *testing.T) {
	st := newStore(t)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != "" || c.Tokens != 0 || c.Items == nil || c.Budget != DefaultBudget {
		t.Errorf("empty store: %+v", c)
	}
}

func TestUnknownTokenizer(t *testing.T) {
	if _, err := Build(context.Background(), newStore(t), Options{Tokenizer: "p50k"}); err == nil {
		t.Error("an unknown tokenizer was accepted")
	}
}
