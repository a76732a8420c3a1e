package harvest

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// lateFirst is an extractor whose sessions finish in the reverse of the
// order they are listed in: the first waits longest. Each session teaches
// a fix for one error (so each supersedes the one stored before it) and
// confirms one fact (so the order of its evidence shows the store order).
type lateFirst struct{ order map[string]int }

func (lateFirst) Name() string { return "late-first" }

func (e lateFirst) Extract(ctx context.Context, s *lore.Session) (Found, error) {
	k := e.order[s.ID]
	time.Sleep(time.Duration(len(e.order)-k) * 15 * time.Millisecond)
	ev := []lore.Evidence{{Session: s.ID, Position: 1}}
	return Found{Items: []lore.Item{
		{Text: fmt.Sprintf("`make build` fails with `E42: no toolchain` until `toolchain install v%d` runs.", k),
			Category: lore.CategoryPitfall, Signature: "make build: e42: no toolchain", Repo: "acme/api", Confidence: 0.7, Evidence: ev},
		{Text: "`make test` runs the tests.", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.7, Evidence: ev},
	}}, nil
}

// TestRunIndependentOfScheduling: the store a harvest leaves does not
// depend on which session's extraction finishes first. Several workers
// give what one gives, even when the sessions finish in reverse order.
func TestRunIndependentOfScheduling(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	for i := range n {
		writeClaude(t, dir, fmt.Sprintf("s-%d", i), cwd, sessionTwo())
	}
	sessions := list(t, dir)
	order := map[string]int{}
	for k, s := range sessions {
		order[s.ID] = k
	}
	stored := func(workers int) []lore.Item {
		st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
		if _, err := Run(context.Background(), list(t, dir), Options{Store: st, Extractor: lateFirst{order}, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		var items []lore.Item
		st.Items(context.Background(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
			it.FirstSeen, it.LastConfirmed = time.Time{}, time.Time{}
			items = append(items, it)
			return nil
		})
		return items
	}
	one := stored(1)
	if len(one) != n+1 {
		t.Fatalf("one worker stored %d items, want %d fixes and one fact", len(one), n)
	}
	if all := stored(n); !reflect.DeepEqual(all, one) {
		for i := range max(len(all), len(one)) {
			if i < len(all) && i < len(one) && reflect.DeepEqual(all[i], one[i]) {
				continue
			}
			t.Errorf("item %d:\n%d workers %+v\none worker %+v", i, n, at(all, i), at(one, i))
		}
	}
}

func at(items []lore.Item, i int) any {
	if i < len(items) {
		return items[i]
	}
	return "none"
}
