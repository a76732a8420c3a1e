package harvest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// goldRecall is the share of the gold entries (testdata/gold) that the
// rules extractor catches with any item, active or candidate, measured on
// 2026-11-25; goldRecallActive is the share caught by active items. The
// issue's target (issue 18) is 35% by rules alone. TestGoldRecall fails
// when recall falls below these.
const (
	// 2026-11-28: 42 of 118 entries (35.6%), with findings (findings.go),
	// parts (parts.go), the agent's tools' time limits, the agent's shell,
	// and sessions that now have a folder (Gemini CLI's workspace);
	// 2026-11-25 it was 4 (3.4%).
	goldRecall = 0.35
	// 2026-11-28: 2 of 118 (1.7%): OpenCode's apply_patch context failure,
	// an agent protocol error, is self-evident now (lore.TagSelfEvident): a
	// candidate, still caught by the all-items count.
	goldRecallActive = 0.016
)

// goldSession is one file of testdata/gold: a corpus session, its row of
// SOURCES.tsv, and what a careful engineer joining its project would keep
// from it.
type goldSession struct {
	File      string `json:"file"` // under corpus-projects
	Repo      string `json:"repo"`
	Commit    string `json:"commit"`
	Path      string `json:"path"`
	Agent     string `json:"agent"`
	Format    string `json:"format"`
	SessionID string `json:"session_id"`
	// ReadAs is the agent lore reads the transcript as.
	ReadAs   string      `json:"read_as"`
	Messages int         `json:"messages"`
	Entries  []goldEntry `json:"entries"`
}

// goldEntry is one thing worth keeping. Match lists the words an item's
// text must hold to count as catching it, lower case, every one of them;
// a word may give alternatives with "|".
type goldEntry struct {
	Category string   `json:"category"`
	Text     string   `json:"text"`
	Position int      `json:"position"`
	Match    []string `json:"match"`
}

func (e goldEntry) caughtBy(text string) bool {
	text = strings.ToLower(text)
	for _, w := range e.Match {
		if !slices.ContainsFunc(strings.Split(w, "|"), func(alt string) bool { return strings.Contains(text, alt) }) {
			return false
		}
	}
	return len(e.Match) > 0
}

func readGold(t *testing.T) []goldSession {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "gold", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gs []goldSession
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g goldSession
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range g.Entries {
			if len(e.Match) == 0 || e.Text == "" || e.Category == "" {
				t.Errorf("%s: entry %q has no text, category or match", f, e.Text)
			}
			for _, w := range e.Match {
				if w != strings.ToLower(w) || strings.TrimSpace(w) == "" {
					t.Errorf("%s: entry %q: match word %q is not lower case, or empty", f, e.Text, w)
				}
			}
		}
		gs = append(gs, g)
	}
	return gs
}

func TestGoldEntryMatch(t *testing.T) {
	e := goldEntry{Match: []string{"make|go build", "./cmd/lore"}}
	for text, want := range map[string]bool{
		"`go build ./cmd/lore` builds the CLI.": true,
		"Run `make` in ./cmd/lore.":             true,
		"`go build ./...` builds everything.":   false,
		"./cmd/lore holds the CLI.":             false,
	} {
		if got := e.caughtBy(text); got != want {
			t.Errorf("caughtBy(%q) = %v, want %v", text, got, want)
		}
	}
	if (goldEntry{}).caughtBy("anything") {
		t.Error("an entry without match words catches everything")
	}
}

// TestGoldRecall harvests the sessions of testdata/gold from
// ../shared/corpus-projects with the rules into a fresh store, as lore
// harvest does, and reports how many of the gold entries some item
// catches (all items, active and candidate; and active ones alone), per
// session and in total. It logs the items that catch nothing, so their
// precision can be read too.
func TestGoldRecall(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus-projects")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no ../shared/corpus-projects here")
	}
	gs := readGold(t)
	if len(gs) == 0 {
		t.Fatal("no gold sessions in testdata/gold")
	}
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	var paths []string
	for _, g := range gs {
		paths = append(paths, filepath.Join(corpus, g.File))
	}
	listing, err := List(ctx, paths, ListOptions{Store: st, Extractor: Rules{}.Name()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, listing.Sessions, Options{Store: st, Extractor: Rules{}, Workers: 1, Listing: listing}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{} // session id by corpus file
	for _, s := range listing.Sessions {
		if rel, err := filepath.Rel(corpus, s.Path); err == nil {
			ids[filepath.ToSlash(rel)] = s.ID
		}
	}
	bySession := map[string][]lore.Item{}
	if err := st.Items(ctx, lore.Filter{Statuses: []lore.Status{lore.StatusActive, lore.StatusCandidate}}, func(it lore.Item) error {
		for _, ev := range it.Evidence {
			bySession[ev.Session] = append(bySession[ev.Session], it)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	var entries, caught, caughtActive, items, extra int
	type tally struct{ entries, caught, active int }
	byCategory := map[string]*tally{}
	for _, g := range gs {
		id, ok := ids[g.File]
		if !ok {
			t.Errorf("%s: not read", g.File)
			continue
		}
		its := bySession[id]
		used := make([]bool, len(its))
		var c, ca int
		for _, e := range g.Entries {
			hit, hitActive := false, false
			for i, it := range its {
				if e.caughtBy(it.Text) {
					hit, used[i] = true, true
					hitActive = hitActive || it.Status == lore.StatusActive
					t.Logf("  caught %s #%d %s by %s %s: %s", g.File, e.Position, e.Category, it.Status, it.Category, it.Text)
				}
			}
			tc := byCategory[e.Category]
			if tc == nil {
				tc = &tally{}
				byCategory[e.Category] = tc
			}
			tc.entries++
			if hit {
				c++
				tc.caught++
			} else {
				t.Logf("  missed %s #%d %s: %s", g.File, e.Position, e.Category, e.Text)
			}
			if hitActive {
				ca++
				tc.active++
			}
		}
		for i, it := range its {
			if !used[i] {
				extra++
				t.Logf("  extra  %s %s %s: %s", g.File, it.Status, it.Category, it.Text)
			}
		}
		t.Logf("%s (%s, %s): caught %d/%d, by active items %d; %d items", g.File, g.Agent, g.Repo, c, len(g.Entries), ca, len(its))
		entries, caught, caughtActive, items = entries+len(g.Entries), caught+c, caughtActive+ca, items+len(its)
	}
	for _, cat := range slices.Sorted(maps.Keys(byCategory)) {
		tc := byCategory[cat]
		t.Logf("%s: %d/%d caught, by active items %d", cat, tc.caught, tc.entries, tc.active)
	}
	recall := float64(caught) / float64(max(entries, 1))
	active := float64(caughtActive) / float64(max(entries, 1))
	t.Logf("recall over %d sessions: %d/%d entries caught (%s), by active items %d (%s); %d items, %d catching nothing",
		len(gs), caught, entries, pct(recall), caughtActive, pct(active), items, extra)
	if recall < goldRecall {
		t.Errorf("recall %s, below the %s measured", pct(recall), pct(goldRecall))
	}
	if active < goldRecallActive {
		t.Errorf("recall by active items %s, below the %s measured", pct(active), pct(goldRecallActive))
	}
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
