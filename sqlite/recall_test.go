package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// TestRecallPlan: Recall reads its items through indexes, by scope and
// the text's start (items_command) and by signature (items_signature),
// never by scanning the items of a scope: it runs before every shell
// command an agent runs.
func TestRecallPlan(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	var items []lore.Item
	for i := range 200 {
		items = append(items, lore.Item{Text: fmt.Sprintf("`go test ./pkg%d` fails with `no Go files`; `go test ./...` works.", i),
			Category: lore.CategoryPitfall, Repo: fmt.Sprintf("acme/r%d", i%7), Signature: fmt.Sprintf("go test: no go files %d", i)},
			lore.Item{Text: fmt.Sprintf("The api config %d is read at start.", i), Category: lore.CategoryFact, Repo: "acme/api"})
	}
	if _, err := s.Add(ctx, items); err != nil {
		t.Fatal(err)
	}
	plan := func(query string, args ...any) string { return queryPlan(t, s, query, args...) }
	for _, f := range []lore.Filter{{Repo: "acme/r3"}, {NoRepo: true, Agent: "codex"}, {NoRepo: true, NoAgent: true}} {
		query, args := s.recallSQL(lore.RecallQuery{Filter: f, Command: "go test", Limit: 50})
		// A repository's items of every agent are few; an agent's, and the
		// global ones, are a range of texts.
		want := "USING INDEX items_command (repo=? AND agent=? AND text>? AND text<?)"
		if f.Repo != "" {
			want = "USING INDEX items_command (repo=?)"
		}
		if p := plan(query, args...); !strings.Contains(p, want) {
			t.Errorf("Recall of a command in %+v: %s; want %s", f, p, want)
		}
		query, args = s.recallSQL(lore.RecallQuery{Filter: f, Signatures: []string{"go test: no go files 3", "cause: go test: no go files 3"}})
		if p := plan(query, args...); !strings.Contains(p, "USING INDEX items_signature (signature=?") {
			t.Errorf("Recall of a signature in %+v: %s; want items_signature", f, p)
		}
	}
	got, err := s.Recall(ctx, lore.RecallQuery{Filter: lore.Filter{Repo: "acme/r3"}, Command: "go test", Limit: 100})
	if err != nil || len(got) != 29 {
		t.Errorf("Recall of go in acme/r3: %d items, %v; want 29", len(got), err)
	}
}
