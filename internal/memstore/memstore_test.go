package memstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T, items ...lore.Item) *Store {
	t.Helper()
	s := New()
	s.Now = func() time.Time { return now }
	if _, err := s.Add(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	return s
}

// texts returns the texts of the items f selects, and whether Items
// gave them in id order.
func texts(t *testing.T, s *Store, f lore.Filter) ([]string, bool) {
	t.Helper()
	var out, ids []string
	if err := s.Items(context.Background(), f, func(it lore.Item) error {
		out, ids = append(out, it.Text), append(ids, it.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out, slices.IsSorted(ids)
}

func TestAddMergesByID(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	it := lore.Item{Text: "Pushing to main fails with HTTP 405.", Category: lore.CategoryPitfall, Repo: "acme/api",
		Confidence: 0.6, Evidence: []lore.Evidence{{Session: "s1", Position: 3}}}
	other := lore.Item{Text: "`make test` runs the tests.", Category: lore.CategoryFact, Confidence: 0.7}
	res, err := s.Add(ctx, []lore.Item{it, other})
	if err != nil {
		t.Fatal(err)
	}
	want := lore.ItemID(it.Text, it.Category, it.Repo, it.Agent)
	if res[0].ID != want || res[0].Action != lore.Created || res[1].Action != lore.Created {
		t.Fatalf("first add: %+v", res)
	}
	tests := []struct {
		name    string
		add     lore.Item
		action  lore.AddAction
		sources int
		conf    float64
	}{
		{"same session", it, lore.Unchanged, 1, 0.6},
		{"new session", with(it, "s2", 0.5), lore.Merged, 2, 0.6},
		{"higher confidence", with(it, "s1", 0.8), lore.Merged, 2, 0.8},
		// The same text in other words of case and space is the same id.
		{"normalised text", lore.Item{Text: "pushing to  main fails with HTTP 405", Category: lore.CategoryPitfall, Repo: "acme/api",
			Confidence: 0.5, Evidence: []lore.Evidence{{Session: "s3"}}}, lore.Merged, 3, 0.8},
	}
	for _, tt := range tests {
		res, err := s.Add(ctx, []lore.Item{tt.add})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Item(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].ID != want || res[0].Action != tt.action || got.SourceCount != tt.sources || len(got.Evidence) != tt.sources || got.Confidence != tt.conf {
			t.Errorf("%s: %+v, stored %d sessions at %v; want %s, %d at %v", tt.name, res[0], got.SourceCount, got.Confidence, tt.action, tt.sources, tt.conf)
		}
	}
	if n, _ := s.Count(ctx, lore.Filter{AnyStatus: true}); n != 2 {
		t.Errorf("%d items, want 2", n)
	}
}

func with(it lore.Item, session string, conf float64) lore.Item {
	it.Evidence = []lore.Evidence{{Session: session}}
	it.Confidence = conf
	return it
}

// An invalid item stores nothing, and says which it was.
func TestAddInvalid(t *testing.T) {
	s := newStore(t)
	_, err := s.Add(context.Background(), []lore.Item{
		{Text: "fine", Category: lore.CategoryFact},
		{Text: "no such category", Category: "rumour"},
	})
	var ie *lore.ItemError
	if !errors.As(err, &ie) || ie.Index != 1 {
		t.Errorf("error %v; want an *lore.ItemError for item 2", err)
	}
	if got, _ := texts(t, s, lore.Filter{AnyStatus: true}); len(got) != 0 {
		t.Errorf("stored %q after an error", got)
	}
}

func TestItem(t *testing.T) {
	s := newStore(t, lore.Item{Text: "one", Category: lore.CategoryFact}, lore.Item{Text: "two", Category: lore.CategoryFact})
	one := lore.ItemID("one", lore.CategoryFact, "", "")
	for _, tt := range []struct {
		id, text, code string
	}{
		{one, "one", ""},
		{one[:6], "one", ""},
		{"0000", "", lore.ENOTFOUND},
		{"not hex", "", lore.EINVALID},
	} {
		got, err := s.Item(context.Background(), tt.id)
		if got.Text != tt.text || lore.ErrorCode(err) != tt.code {
			t.Errorf("Item(%q) = %q, %v; want %q, code %q", tt.id, got.Text, err, tt.text, tt.code)
		}
	}
}

func TestFilter(t *testing.T) {
	s := newStore(t,
		lore.Item{Text: "repo fact", Category: lore.CategoryFact, Repo: "Acme/API"},
		lore.Item{Text: "repo pitfall of codex", Category: lore.CategoryPitfall, Repo: "acme/api", Agent: "codex"},
		lore.Item{Text: "codex quirk", Category: lore.CategoryToolQuirk, Agent: "codex"},
		lore.Item{Text: "global", Category: lore.CategoryFact},
		lore.Item{Text: "candidate", Category: lore.CategoryFact, Status: lore.StatusCandidate},
		lore.Item{Text: "retired", Category: lore.CategoryFact, Status: lore.StatusRetired},
		lore.Item{Text: "expired", Category: lore.CategoryFact, Expires: now.Add(-time.Second)},
		lore.Item{Text: "expires later", Category: lore.CategoryFact, Expires: now.Add(time.Hour)},
	)
	for _, tt := range []struct {
		name string
		f    lore.Filter
		want []string
	}{
		{"active", lore.Filter{}, []string{"repo fact", "repo pitfall of codex", "codex quirk", "global", "expires later"}},
		{"repo, any case", lore.Filter{Repo: "acme/api"}, []string{"repo fact", "repo pitfall of codex"}},
		{"agent", lore.Filter{Agent: "codex"}, []string{"repo pitfall of codex", "codex quirk"}},
		{"agent, no repo", lore.Filter{Agent: "codex", NoRepo: true}, []string{"codex quirk"}},
		{"global", lore.Filter{NoRepo: true, NoAgent: true}, []string{"global", "expires later"}},
		{"category", lore.Filter{Category: lore.CategoryPitfall}, []string{"repo pitfall of codex"}},
		{"statuses", lore.Filter{Statuses: []lore.Status{lore.StatusCandidate, lore.StatusRetired}}, []string{"candidate", "retired"}},
		{"expired", lore.Filter{Expired: true, NoRepo: true, NoAgent: true}, []string{"global", "expired", "expires later"}},
		{"any status", lore.Filter{AnyStatus: true, Expired: true}, []string{"repo fact", "repo pitfall of codex", "codex quirk",
			"global", "candidate", "retired", "expired", "expires later"}},
	} {
		got, sorted := texts(t, s, tt.f)
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tt.want))) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if !sorted {
			t.Errorf("%s: %q not in id order", tt.name, got)
		}
		if n, _ := s.Count(context.Background(), tt.f); n != len(tt.want) {
			t.Errorf("%s: Count %d, want %d", tt.name, n, len(tt.want))
		}
	}
}

func TestBest(t *testing.T) {
	s := newStore(t,
		lore.Item{Text: "first at 0.8", Category: lore.CategoryFact, Confidence: 0.8},
		lore.Item{Text: "at 0.9", Category: lore.CategoryFact, Confidence: 0.9},
		lore.Item{Text: "second at 0.8", Category: lore.CategoryFact, Confidence: 0.8},
		lore.Item{Text: "candidate at 0.95", Category: lore.CategoryFact, Confidence: 0.95, Status: lore.StatusCandidate},
	)
	for _, tt := range []struct {
		limit int
		want  []string
	}{
		{10, []string{"at 0.9", "second at 0.8", "first at 0.8"}}, // ties: the most recently stored first
		{2, []string{"at 0.9", "second at 0.8"}},
		{0, []string{}},
	} {
		best, err := s.Best(context.Background(), lore.Filter{}, tt.limit)
		var got []string
		for _, it := range best {
			got = append(got, it.Text)
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Best(limit %d) = %q, %v; want %q", tt.limit, got, err, tt.want)
		}
	}
}

func TestSearch(t *testing.T) {
	s := newStore(t,
		lore.Item{Text: "git push to main returns HTTP 405", Category: lore.CategoryPitfall, Repo: "acme/api", Confidence: 0.7},
		lore.Item{Text: "git push needs a token", Category: lore.CategoryFact, Confidence: 0.9},
		lore.Item{Text: "apply_patch needs exact context lines", Category: lore.CategoryToolQuirk, Agent: "codex"},
		lore.Item{Text: "a push candidate", Category: lore.CategoryFact, Status: lore.StatusCandidate},
	)
	for _, tt := range []struct {
		name string
		q    lore.Query
		want []string
	}{
		{"most terms first", lore.Query{Text: "why does git push to main fail with 405?"},
			[]string{"git push to main returns HTTP 405", "git push needs a token"}},
		{"ties by confidence", lore.Query{Text: "push"}, []string{"git push needs a token", "git push to main returns HTTP 405"}},
		{"words split at punctuation", lore.Query{Text: "patch"}, []string{"apply_patch needs exact context lines"}},
		{"limit", lore.Query{Text: "git push", Limit: 1}, []string{"git push needs a token"}},
		{"filter", lore.Query{Text: "push", Filter: lore.Filter{Repo: "acme/api"}}, []string{"git push to main returns HTTP 405"}},
		{"statuses", lore.Query{Text: "push", Filter: lore.Filter{Statuses: []lore.Status{lore.StatusCandidate}}}, []string{"a push candidate"}},
		{"no match", lore.Query{Text: "kubernetes"}, nil},
		{"no prefix match", lore.Query{Text: "pus"}, nil},
	} {
		hits, err := s.Search(context.Background(), tt.q)
		var got []string
		for _, h := range hits {
			got = append(got, h.Text)
			if h.Score <= 0 {
				t.Errorf("%s: %q scored %v", tt.name, h.Text, h.Score)
			}
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	many, err := s.Searches(context.Background(), []lore.Query{{Text: "token"}, {Text: "405"}})
	if err != nil || len(many) != 2 || len(many[0]) != 1 || len(many[1]) != 1 || many[1][0].Repo != "acme/api" {
		t.Errorf("Searches: %+v, %v", many, err)
	}
}

func TestHarvests(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := s.RecordHarvest(ctx, lore.Harvest{Session: "b", Extractor: "rules", Items: 1},
		lore.Harvest{Session: "a", Extractor: "rules", Items: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordHarvest(ctx, lore.Harvest{Session: "b", Extractor: "rules", Items: 3}); err != nil {
		t.Fatal(err)
	}
	if h, ok, err := s.Harvested(ctx, "b", "rules"); err != nil || !ok || h.Items != 3 {
		t.Errorf("Harvested(b, rules) = %+v, %v, %v; want the second record", h, ok, err)
	}
	if _, ok, _ := s.Harvested(ctx, "b", "openai:gpt-5"); ok {
		t.Error("a record for an extractor that never ran")
	}
	if err := s.RecordHarvest(ctx, lore.Harvest{Session: "c"}); lore.ErrorCode(err) != lore.EINVALID {
		t.Errorf("a record without an extractor: %v", err)
	}
	var got []string
	s.Harvests(ctx, func(h lore.Harvest) error { got = append(got, h.Session); return nil })
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Harvests: %q, want a then b", got)
	}
}

func TestBoots(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	for _, b := range []lore.Boot{
		{At: now.Add(time.Hour), Session: "late"},
		{At: now.Add(-time.Hour), Session: "early"},
		{Session: "now"}, // no time: the store's clock
	} {
		if err := s.RecordBoot(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		since time.Time
		want  []string
	}{
		{time.Time{}, []string{"early", "now", "late"}},
		{now, []string{"now", "late"}},
		{now.Add(2 * time.Hour), nil},
	} {
		var got []string
		if err := s.Boots(ctx, tt.since, func(b lore.Boot) error { got = append(got, b.Session); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Boots since %v: %q, want %q", tt.since, got, tt.want)
		}
	}
}

// What a caller does to an item it was given does not change the store.
func TestNoSharing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, lore.Item{Text: "tagged", Category: lore.CategoryFact, Tags: []string{"go"}})
	var got lore.Item
	s.Items(ctx, lore.Filter{}, func(it lore.Item) error { got = it; return nil })
	got.Tags[0] = "changed"
	again, _ := s.Item(ctx, got.ID)
	if again.Tags[0] != "go" {
		t.Errorf("a caller's change reached the store: %q", again.Tags)
	}
}

func TestEpisodes(t *testing.T) {
	storetest.RunEpisodes(t, func(t *testing.T) storetest.EpisodeStore { return New() })
}
