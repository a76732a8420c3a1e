package harvest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// TestRebuild: a rebuild takes back what earlier rules took from a
// session (an item only they made is deleted; one a person vouched for
// stays) and harvests it again with the rules as they are; it leaves
// alone a session a person forgot and one another extractor harvested
// too; and a run stopped after it harvests the session next time.
func TestRebuild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeClaude(t, dir, "s-old", cwd, ranItself())
	writeClaude(t, dir, "s-forgot", cwd, portableSession())
	writeClaude(t, dir, "s-model", cwd, sessionOne())
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)

	// What earlier rules made of s-old, which today's do not, and an item
	// a person vouched for that s-old confirmed.
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	old := lore.Item{Text: "`package.json` is in `package.json`.", Category: lore.CategoryFact, Repo: "api",
		Confidence: 0.7, Status: lore.StatusActive, FirstSeen: at, LastConfirmed: at,
		Evidence: []lore.Evidence{{Session: "claude-code:s-old", Position: 3}}}
	vouched := lore.Item{Text: "Run the API tests with the VPN up.", Category: lore.CategoryPattern, Repo: "api",
		Confidence: 0.9, Manual: 0.9, Status: lore.StatusActive, FirstSeen: at, LastConfirmed: at,
		Evidence: []lore.Evidence{{Session: "claude-code:s-old", Position: 5}}}
	if _, err := st.Add(ctx, []lore.Item{old, vouched}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ForgetSession(ctx, "claude-code:s-forgot"); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := st.Harvested(ctx, "claude-code:s-model", Rules{}.Name())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	rec.Extractor = "openai:http://localhost:11434/v1"
	if err := st.RecordHarvest(ctx, rec); err != nil {
		t.Fatal(err)
	}
	cites := func(session string) map[string]bool {
		m := map[string]bool{}
		for _, it := range itemsOf(t, st) {
			if slices.ContainsFunc(it.Evidence, func(e lore.Evidence) bool { return e.Session == session }) {
				m[it.Text] = true
			}
		}
		return m
	}
	before := cites("claude-code:s-model")

	// A rebuild stopped before it harvests: the next plain run harvests
	// s-old, which it would skip as unchanged were its record left as it was.
	l, err := List(ctx, []string{dir}, ListOptions{Store: st, Extractor: Rules{}.Name(), Every: true})
	if err != nil {
		t.Fatal(err)
	}
	if rb, err := l.Rebuild(ctx, st, nil); err != nil || rb != (Rebuilt{}) || len(cites("claude-code:s-old")) == 0 {
		t.Fatalf("a rebuild of no session: %+v, %v; want nothing taken back", rb, err)
	}
	rb, err := l.Rebuild(ctx, st, l.Sessions)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Sessions != 1 || rb.Forgotten != 1 || rb.Other != 1 || rb.Deleted == 0 {
		t.Errorf("rebuild %+v: want s-old taken back, s-forgot and s-model left alone", rb)
	}
	if got := cites("claude-code:s-old"); len(got) != 0 {
		t.Errorf("after the rebuild, s-old is still cited by %v", got)
	}
	l, err = List(ctx, []string{dir}, ListOptions{Store: st, Extractor: Rules{}.Name()})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, l.Sessions, Options{Store: st, Extractor: Rules{}, Listing: l})
	if err != nil || sum.SessionsHarvested != 1 {
		t.Fatalf("the run after a stopped rebuild: %+v, %v; want s-old harvested", sum, err)
	}

	got := cites("claude-code:s-old")
	if got[old.Text] || !got["`npm install` fails with `npm ERR! ERESOLVE could not resolve the dependency tree; retry with npm install --legacy-peer-deps`; `npm install --legacy-peer-deps` works."] {
		t.Errorf("s-old now teaches %v: want today's rules' items, not the old one", got)
	}
	all := map[string]lore.Item{}
	for _, it := range itemsOf(t, st) {
		all[it.Text] = it
	}
	if _, ok := all[old.Text]; ok {
		t.Errorf("the old rules' item is still stored")
	}
	if it, ok := all[vouched.Text]; !ok || it.Status != lore.StatusActive {
		t.Errorf("the item a person vouched for: %+v, want kept active", it)
	}
	if got := cites("claude-code:s-forgot"); len(got) != 0 {
		t.Errorf("a session a person forgot teaches again: %v", got)
	}
	if after := cites("claude-code:s-model"); len(after) != len(before) {
		t.Errorf("s-model, harvested by a model too, went from %d items to %d", len(before), len(after))
	}
}

// TestForgottenNeverAgain: a session a person forgot (marked
// lore.Forgotten, as lore forget --session marks it) is not learned from
// again when its transcript grows, nor by a rebuild, even if it taught
// nothing before.
func TestForgottenNeverAgain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeClaude(t, dir, "s-bad", cwd, portableSession())
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)
	if _, err := st.ForgetSession(ctx, "claude-code:s-bad"); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordHarvest(ctx, lore.Harvest{Session: "claude-code:s-bad", Extractor: lore.Forgotten, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	writeClaude(t, dir, "s-bad", cwd, append(portableSession(), ranItself()...)) // the session went on
	for _, rebuild := range []bool{false, true} {
		l, err := List(ctx, []string{dir}, ListOptions{Store: st, Extractor: Rules{}.Name(), Every: rebuild})
		if err != nil {
			t.Fatal(err)
		}
		if rebuild {
			if rb, err := l.Rebuild(ctx, st, l.Sessions); err != nil || rb.Sessions != 0 || rb.Forgotten != 1 {
				t.Errorf("rebuild: %+v, %v; want the forgotten session left alone", rb, err)
			}
		}
		sum, err := Run(ctx, l.Sessions, Options{Store: st, Extractor: Rules{}, Listing: l})
		if err != nil || sum.SessionsHarvested != 0 {
			t.Errorf("rebuild %v: %+v, %v; want nothing harvested", rebuild, sum, err)
		}
		if n := len(itemsOf(t, st)); n != 0 {
			t.Errorf("rebuild %v: %d items learned from a forgotten session", rebuild, n)
		}
	}
}
