package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
)

func open(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "lore.db"), Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) lore.Store { return open(t, now) })
}

// TestIndexStaysConsistent changes tags, deletes and forgets, then asks
// FTS5 to check its index and searches for what is gone.
func TestIndexStaysConsistent(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	ev := func(sess string) []lore.Evidence { return []lore.Evidence{{Session: sess, Position: 1}} }
	res, err := s.Add(ctx, []lore.Item{
		{Text: "The zebra service restarts nightly", Category: lore.CategoryFact, Tags: []string{"ops"}, Evidence: ev("s1")},
		{Text: "The yak cache is flushed on deploy", Category: lore.CategoryFact, Evidence: ev("s2")},
		{Text: "The walrus queue drops messages over 1 MB", Category: lore.CategoryPitfall, Evidence: ev("s3")},
	})
	if err != nil {
		t.Fatal(err)
	}
	// New tags on a stored item re-index it.
	if _, err := s.Add(ctx, []lore.Item{{Text: "The zebra service restarts nightly", Category: lore.CategoryFact, Tags: []string{"kangaroo"}, Evidence: ev("s4")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, res[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSession(ctx, "s3"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("full-text index inconsistent: %v", err)
	}
	for q, want := range map[string]int{"kangaroo": 1, "ops": 1, "zebra": 1, "yak": 0, "walrus": 0} {
		hits, err := s.Search(ctx, lore.Query{Text: q, Filter: lore.Filter{AnyStatus: true}})
		if err != nil || len(hits) != want {
			t.Errorf("Search(%q) = %d hits, %v; want %d", q, len(hits), err, want)
		}
	}
}
