package lore

import (
	"math"
	"slices"
	"testing"
	"time"
)

var (
	day0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	day1 = day0.Add(24 * time.Hour)
	day2 = day1.Add(24 * time.Hour)
)

func sessions(names ...string) []Evidence {
	var ev []Evidence
	for i, n := range names {
		ev = append(ev, Evidence{Session: n, Position: i})
	}
	return ev
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestCreate(t *testing.T) {
	tests := []struct {
		name       string
		in         Item
		mode       MergeMode
		confidence float64
		manual     float64
		shares     []float64
	}{
		{name: "added by hand", in: Item{Confidence: 0.7}, mode: Adding,
			confidence: 0.7, manual: 0.7},
		{name: "imported by hand", in: Item{Confidence: 0.4}, mode: Importing,
			confidence: 0.4, manual: 0.4},
		{name: "one session", in: Item{Confidence: 0.5, Evidence: sessions("a")}, mode: Adding,
			confidence: 0.5, shares: []float64{0.5}},
		// Each session of an added item brings the item's confidence.
		{name: "two sessions added", in: Item{Confidence: 0.5, Evidence: sessions("a", "b")}, mode: Adding,
			confidence: 0.75, shares: []float64{0.5, 0.5}},
		{name: "sessions and a hand", in: Item{Confidence: 0.5, Manual: 0.5, Evidence: sessions("a")}, mode: Adding,
			confidence: 0.75, manual: 0.5, shares: []float64{0.5}},
		{name: "capped", in: Item{Confidence: 0.9, Evidence: sessions("a", "b", "c")}, mode: Adding,
			confidence: MaxConfidence, shares: []float64{0.9, 0.9, 0.9}},
		// An imported item keeps its confidence; its sessions share it.
		{name: "two sessions imported", in: Item{Confidence: 0.75, Evidence: sessions("a", "b")}, mode: Importing,
			confidence: 0.75, shares: []float64{0.5, 0.5}},
		{name: "imported with a hand", in: Item{Confidence: 0.75, Manual: 0.5, Evidence: sessions("a")}, mode: Importing,
			confidence: 0.75, manual: 0.5, shares: []float64{0.5}},
		{name: "imported, all by hand", in: Item{Confidence: 0.6, Manual: 0.6, Evidence: sessions("a")}, mode: Importing,
			confidence: 0.6, manual: 0.6, shares: []float64{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, shares := Create(tt.in, tt.mode)
			if !near(got.Confidence, tt.confidence) || got.Manual != tt.manual {
				t.Errorf("confidence %v, manual %v; want %v, %v", got.Confidence, got.Manual, tt.confidence, tt.manual)
			}
			if len(shares) != len(tt.shares) {
				t.Fatalf("shares %v, want %v", shares, tt.shares)
			}
			for i := range shares {
				if !near(shares[i], tt.shares[i]) {
					t.Errorf("shares %v, want %v", shares, tt.shares)
				}
			}
		})
	}
}

// TestPerSession checks that the shares an import gives back the
// confidence it was given, with the confidence given by hand.
func TestPerSession(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		for _, c := range []float64{0, 0.3, 0.7, 0.95, MaxConfidence, 1} {
			for _, manual := range []float64{0, 0.2, c} {
				if manual > c {
					continue // Prepare turns it down
				}
				it := Item{Confidence: c, Manual: manual, Evidence: make([]Evidence, n)}
				per := perSession(it)
				if per < 0 || per > 1 {
					t.Fatalf("perSession(%v of %d sessions, manual %v) = %v, outside 0..1", c, n, manual, per)
				}
				cs := append(slices.Repeat([]float64{per}, n), manual)
				if got := CombineConfidence(cs...); !near(got, min(c, MaxConfidence)) {
					t.Errorf("%d sessions of %v and manual %v give %v, want %v", n, per, manual, got, min(c, MaxConfidence))
				}
			}
		}
	}
}

func TestMerge(t *testing.T) {
	stored := Item{ID: "aaaa", Text: "x", Category: CategoryFact, Confidence: 0.5, Status: StatusActive,
		SourceCount: 1, Evidence: sessions("a"), FirstSeen: day1, LastConfirmed: day1, Tags: []string{"go"}}
	tests := []struct {
		name    string
		stored  Item
		shares  []float64
		in      Item
		mode    MergeMode
		changed bool
		check   func(t *testing.T, it Item, shares []float64)
	}{
		{name: "the same session again", stored: stored, shares: []float64{0.5},
			in:      Item{Confidence: 0.9, Status: StatusActive, Evidence: sessions("a"), FirstSeen: day2, LastConfirmed: day2},
			changed: false,
			check: func(t *testing.T, it Item, shares []float64) {
				if it.Confidence != 0.5 || len(shares) != 1 || !it.LastConfirmed.Equal(day1) {
					t.Errorf("confidence %v, shares %v, last confirmed %v", it.Confidence, shares, it.LastConfirmed)
				}
			}},
		{name: "a new session", stored: stored, shares: []float64{0.5},
			in:      Item{Confidence: 0.5, Status: StatusActive, Evidence: sessions("b"), FirstSeen: day2, LastConfirmed: day2},
			changed: true,
			check: func(t *testing.T, it Item, shares []float64) {
				if it.Confidence != 0.75 || it.SourceCount != 2 || !slices.Equal(shares, []float64{0.5, 0.5}) {
					t.Errorf("confidence %v, sources %d, shares %v", it.Confidence, it.SourceCount, shares)
				}
				if !it.LastConfirmed.Equal(day2) || !it.FirstSeen.Equal(day1) {
					t.Errorf("first seen %v, last confirmed %v", it.FirstSeen, it.LastConfirmed)
				}
			}},
		{name: "an earlier sighting", stored: stored, shares: []float64{0.5},
			in:      Item{Confidence: 0.5, Evidence: sessions("a"), FirstSeen: day0, LastConfirmed: day0},
			changed: true,
			check: func(t *testing.T, it Item, _ []float64) {
				if !it.FirstSeen.Equal(day0) || !it.LastConfirmed.Equal(day1) || it.Confidence != 0.5 {
					t.Errorf("first seen %v, last confirmed %v, confidence %v", it.FirstSeen, it.LastConfirmed, it.Confidence)
				}
			}},
		// Without sessions, the item's confidence was given by hand.
		{name: "given by hand", stored: stored, shares: []float64{0.5},
			in:      Item{FirstSeen: day2, Confidence: 0.6, Status: StatusActive, LastConfirmed: day2},
			changed: true,
			check: func(t *testing.T, it Item, _ []float64) {
				if it.Manual != 0.6 || it.Confidence != 0.8 || !it.LastConfirmed.Equal(day2) {
					t.Errorf("manual %v, confidence %v, last confirmed %v", it.Manual, it.Confidence, it.LastConfirmed)
				}
			}},
		{name: "given by hand, lower", stored: Item{Confidence: 0.8, Manual: 0.8, Status: StatusActive, LastConfirmed: day1},
			in:      Item{Confidence: 0.3, Status: StatusActive, LastConfirmed: day2},
			changed: false,
			check: func(t *testing.T, it Item, _ []float64) {
				if it.Manual != 0.8 || it.Confidence != 0.8 || !it.LastConfirmed.Equal(day1) {
					t.Errorf("manual %v, confidence %v, last confirmed %v", it.Manual, it.Confidence, it.LastConfirmed)
				}
			}},
		{name: "tags and related joined", stored: stored, shares: []float64{0.5},
			in:      Item{FirstSeen: day2, Confidence: 0.5, Evidence: sessions("a"), Tags: []string{"go", "ci"}, Related: []string{"bbbb"}},
			changed: true,
			check: func(t *testing.T, it Item, _ []float64) {
				if !slices.Equal(it.Tags, []string{"go", "ci"}) || !slices.Equal(it.Related, []string{"bbbb"}) {
					t.Errorf("tags %v, related %v", it.Tags, it.Related)
				}
			}},
		{name: "a later expiry", stored: Item{Confidence: 0.5, Evidence: sessions("a"), Expires: day1},
			shares:  []float64{0.5},
			in:      Item{FirstSeen: day2, Confidence: 0.5, Evidence: sessions("a"), Expires: day2},
			changed: true,
			check: func(t *testing.T, it Item, _ []float64) {
				if !it.Expires.Equal(day2) {
					t.Errorf("expires %v, want %v", it.Expires, day2)
				}
			}},
		// An item that never expires keeps never expiring.
		{name: "an expiry on a lasting item", stored: stored, shares: []float64{0.5},
			in:      Item{FirstSeen: day2, Confidence: 0.5, Evidence: sessions("a"), Expires: day2},
			changed: false,
			check: func(t *testing.T, it Item, _ []float64) {
				if !it.Expires.IsZero() {
					t.Errorf("expires %v, want never", it.Expires)
				}
			}},
		{name: "a candidate confirmed", stored: Item{Confidence: 0.5, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a")},
			shares:  []float64{0.5},
			in:      Item{Confidence: 0.5, Status: StatusCandidate, Evidence: sessions("b")},
			changed: true,
			check:   wantStatus(StatusActive)},
		{name: "a candidate confirmed weakly", stored: Item{Confidence: 0.3, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a")},
			shares:  []float64{0.3},
			in:      Item{Confidence: 0.3, Status: StatusCandidate, Evidence: sessions("b")},
			changed: true,
			check:   wantStatus(StatusCandidate)},
		{name: "a held candidate confirmed",
			stored:  Item{Confidence: 0.5, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a"), Tags: []string{TagHeld}},
			shares:  []float64{0.5},
			in:      Item{Confidence: 0.9, Status: StatusCandidate, Evidence: sessions("b")},
			changed: true,
			check:   wantStatus(StatusCandidate)},
		{name: "a candidate added active", stored: Item{Confidence: 0.3, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a")},
			shares:  []float64{0.3},
			in:      Item{Confidence: 0.3, Status: StatusActive, Evidence: sessions("a")},
			changed: true,
			check:   wantStatus(StatusActive)},
		{name: "a candidate imported active", stored: Item{Confidence: 0.3, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a")},
			shares: []float64{0.3},
			in:     Item{Confidence: 0.3, Status: StatusActive, Evidence: sessions("a")}, mode: Importing,
			changed: false,
			check:   wantStatus(StatusCandidate)},
		{name: "a retired item confirmed", stored: Item{Confidence: 0.5, Status: StatusRetired, SourceCount: 1, Evidence: sessions("a")},
			shares:  []float64{0.5},
			in:      Item{Confidence: 0.9, Status: StatusActive, Evidence: sessions("b", "c")},
			changed: true,
			check:   wantStatus(StatusRetired)},
		// A person's decision stands against what sessions bring.
		{name: "an edited candidate confirmed", stored: Item{Confidence: 0.5, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a"),
			Reviews: []Review{{Action: ReviewEdit, From: StatusCandidate, To: StatusCandidate}}},
			shares:  []float64{0.5},
			in:      Item{Confidence: 0.9, Status: StatusActive, Evidence: sessions("b", "c")},
			changed: true,
			check:   wantStatus(StatusCandidate)},
		{name: "a kept candidate confirmed", stored: Item{Confidence: 0.5, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a"),
			Reviews: []Review{{Action: ReviewKeep, From: StatusCandidate, To: StatusCandidate}}},
			shares:  []float64{0.5},
			in:      Item{Confidence: 0.5, Status: StatusCandidate, Evidence: sessions("b")},
			changed: true,
			check:   wantStatus(StatusActive)},
		{name: "an edited candidate added active by hand", stored: Item{Confidence: 0.5, Status: StatusCandidate, SourceCount: 1, Evidence: sessions("a"),
			Reviews: []Review{{Action: ReviewEdit, From: StatusCandidate, To: StatusCandidate}}},
			shares:  []float64{0.5},
			in:      Item{Confidence: 0.7, Status: StatusActive},
			changed: true,
			check:   wantStatus(StatusActive)},
		{name: "an edited active item found documented", stored: Item{Confidence: 0.75, Status: StatusActive, SourceCount: 2, Evidence: sessions("a", "b"),
			Reviews: []Review{{Action: ReviewEdit, From: StatusActive, To: StatusActive}}},
			shares:  []float64{0.5, 0.5},
			in:      Item{Confidence: 0.5, Status: StatusCandidate, Evidence: sessions("c"), Tags: []string{TagDocumented}},
			changed: true,
			check:   wantStatus(StatusActive)},
		// An imported session brings its share of the imported confidence.
		{name: "imported sessions", stored: stored, shares: []float64{0.5},
			in: Item{FirstSeen: day2, Confidence: 0.75, Evidence: sessions("b", "c")}, mode: Importing,
			changed: true,
			check: func(t *testing.T, it Item, shares []float64) {
				if len(shares) != 3 || !near(shares[1], 0.5) || !near(shares[2], 0.5) || !near(it.Confidence, 0.875) {
					t.Errorf("confidence %v, shares %v", it.Confidence, shares)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := tt.stored
			it.Evidence = slices.Clone(it.Evidence)
			shares, changed := Merge(&it, slices.Clone(tt.shares), tt.in, tt.mode)
			if changed != tt.changed {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if len(shares) != len(it.Evidence) {
				t.Errorf("%d shares for %d sessions", len(shares), len(it.Evidence))
			}
			tt.check(t, it, shares)
		})
	}
}

// TestMergeKeepsStoredLists checks that merging does not write into the
// stored item's tags or related ids, which a store may still compare
// against.
func TestMergeKeepsStoredLists(t *testing.T) {
	tags := make([]string, 1, 4)
	tags[0] = "go"
	it := Item{Confidence: 0.5, Evidence: sessions("a"), Tags: tags}
	Merge(&it, []float64{0.5}, Item{Confidence: 0.5, Evidence: sessions("a"), Tags: []string{"ci"}}, Adding)
	if !slices.Equal(it.Tags, []string{"go", "ci"}) || tags[:2][1] != "" {
		t.Errorf("tags %v, stored tags' array %v", it.Tags, tags[:2])
	}
}

func wantStatus(s Status) func(*testing.T, Item, []float64) {
	return func(t *testing.T, it Item, _ []float64) {
		t.Helper()
		if it.Status != s {
			t.Errorf("status %s, want %s", it.Status, s)
		}
	}
}

func TestPromote(t *testing.T) {
	tests := []struct {
		name string
		it   Item
		want bool
	}{
		{"two sessions, confident", Item{Status: StatusCandidate, SourceCount: 2, Confidence: PromoteConfidence}, true},
		{"one session", Item{Status: StatusCandidate, SourceCount: 1, Confidence: 0.9}, false},
		{"not confident", Item{Status: StatusCandidate, SourceCount: 3, Confidence: PromoteConfidence - 0.01}, false},
		{"held", Item{Status: StatusCandidate, SourceCount: 5, Confidence: 0.9, Tags: []string{"x", TagHeld}}, false},
		{"self-evident", Item{Status: StatusCandidate, SourceCount: 5, Confidence: 0.9, Tags: []string{TagSelfEvident}}, false},
		{"one machine's path", Item{Status: StatusCandidate, SourceCount: 3, Confidence: 0.9, Text: "`cat /Users/ann/x.log` fails"}, false},
		{"active already", Item{Status: StatusActive, SourceCount: 2, Confidence: 0.9}, false},
		{"retired", Item{Status: StatusRetired, SourceCount: 2, Confidence: 0.9}, false},
		{"superseded", Item{Status: StatusSuperseded, SourceCount: 2, Confidence: 0.9}, false},
	}
	for _, tt := range tests {
		it := tt.it
		before := it.Status
		got := Promote(&it)
		want := before
		if tt.want {
			want = StatusActive
		}
		if got != tt.want || it.Status != want {
			t.Errorf("%s: Promote = %v, status %s; want %v, %s", tt.name, got, it.Status, tt.want, want)
		}
	}
}

func TestSupersedes(t *testing.T) {
	pitfall := func(id string, mod func(*Item)) Item {
		it := Item{ID: id, Text: "t" + id, Category: CategoryPitfall, Repo: "acme/api", Agent: "claude",
			Status: StatusActive, Signature: "error: cannot find module"}
		if mod != nil {
			mod(&it)
		}
		return it
	}
	tests := []struct {
		name     string
		new, old Item
		want     bool
	}{
		{"same signature and scope", pitfall("b", nil), pitfall("a", nil), true},
		{"tool quirks", pitfall("b", func(it *Item) { it.Category = CategoryToolQuirk }),
			pitfall("a", func(it *Item) { it.Category = CategoryToolQuirk }), true},
		{"a candidate supersedes", pitfall("b", func(it *Item) { it.Status = StatusCandidate }), pitfall("a", nil), true},
		{"a candidate is superseded", pitfall("b", nil), pitfall("a", func(it *Item) { it.Status = StatusCandidate }), true},
		{"itself", pitfall("a", nil), pitfall("a", nil), false},
		{"another signature", pitfall("b", nil), pitfall("a", func(it *Item) { it.Signature = "error: other" }), false},
		{"no signature", pitfall("b", func(it *Item) { it.Signature = "" }), pitfall("a", func(it *Item) { it.Signature = "" }), false},
		{"facts", pitfall("b", func(it *Item) { it.Category = CategoryFact }),
			pitfall("a", func(it *Item) { it.Category = CategoryFact }), false},
		{"another category", pitfall("b", nil), pitfall("a", func(it *Item) { it.Category = CategoryToolQuirk }), false},
		{"another repo", pitfall("b", nil), pitfall("a", func(it *Item) { it.Repo = "acme/web" }), false},
		{"another agent", pitfall("b", nil), pitfall("a", func(it *Item) { it.Agent = "codex" }), false},
		{"a retired item", pitfall("b", nil), pitfall("a", func(it *Item) { it.Status = StatusRetired }), false},
		{"a superseded item", pitfall("b", nil), pitfall("a", func(it *Item) { it.Status = StatusSuperseded }), false},
		{"by a retired item", pitfall("b", func(it *Item) { it.Status = StatusRetired }), pitfall("a", nil), false},
	}
	for _, tt := range tests {
		if got := tt.new.Supersedes(&tt.old); got != tt.want {
			t.Errorf("%s: Supersedes = %v, want %v", tt.name, got, tt.want)
		}
		if tt.want && !tt.new.Superseding() {
			t.Errorf("%s: Superseding = false, but it supersedes", tt.name)
		}
	}
}

func TestSupersede(t *testing.T) {
	nw := Item{ID: "b", Related: []string{"c"}}
	for _, old := range []*Item{{ID: "a", Status: StatusActive}, {ID: "c", Status: StatusCandidate}} {
		nw.Supersede(old)
		if old.Status != StatusSuperseded {
			t.Errorf("%s: status %s, want superseded", old.ID, old.Status)
		}
	}
	if !slices.Equal(nw.Related, []string{"c", "a"}) {
		t.Errorf("related %v, want [c a]", nw.Related)
	}
}

// TestEarned checks when an extractor's item may be active from the
// start: two sessions, or a fix the session saw work; never one
// session's guess, a held text or one machine's identifiers.
func TestEarned(t *testing.T) {
	tests := []struct {
		name string
		it   Item
		want bool
	}{
		{"one session", Item{Text: "`go test ./...` runs the tests.", Confidence: 0.9, Evidence: sessions("a")}, false},
		{"one session twice", Item{Text: "`go test ./...` runs the tests.", Confidence: 0.9, Evidence: sessions("a", "a")}, false},
		{"two sessions", Item{Text: "`go test ./...` runs the tests.", Confidence: 0.7, Evidence: sessions("a", "b")}, true},
		{"two sessions, not confident", Item{Text: "x", Confidence: 0.5, Evidence: sessions("a", "b")}, false},
		{"a verified fix", Item{Text: "`npm ci` fails with `EUSAGE`; `npm ci --legacy-peer-deps` works.", Confidence: 0.7,
			Tags: []string{"npm", TagVerified}, Evidence: sessions("a")}, true},
		{"a verified fix, held", Item{Text: "x", Confidence: 0.7, Tags: []string{TagVerified, TagHeld}, Evidence: sessions("a")}, false},
		{"a verified fix on one machine", Item{Text: "`cat /home/bob/x` fails with `EACCES`; `sudo cat /home/bob/x` works.",
			Confidence: 0.7, Tags: []string{TagVerified}, Evidence: sessions("a")}, false},
		{"two sessions, a pull request", Item{Text: "`gh pr view 1576` fails with `HTTP 401`.", Confidence: 0.9,
			Evidence: sessions("a", "b")}, false},
		{"nine sessions, self-evident", Item{Text: "The Edit tool of claude-code fails with `String to replace not found in file`.",
			Confidence: 0.9, Tags: []string{TagSelfEvident}, Evidence: sessions("a", "b", "c", "d", "e", "f", "g", "h", "i")}, false},
		{"a verified fix, self-evident", Item{Text: "`bd dolt status --short` fails with `unknown flag: --short`; `bd dolt status` works.",
			Confidence: 0.7, Tags: []string{TagVerified, TagSelfEvident}, Evidence: sessions("a")}, false},
	}
	for _, tt := range tests {
		if got := Earned(tt.it); got != tt.want {
			t.Errorf("%s: Earned = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOneOff(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"`ls /Users/ddaniels/Dropbox/orpheus` fails", true},
		{"source /home/entity/projects/x/.env", true},
		{`dir C:\Users\ann\src`, true},
		{"`app/home/page.tsx` is the landing page.", false},
		{"`git show 40e2e948` fails", true},
		{"reset to 5d1e709b4c3a", true},
		{"`gh run view 27739725653 --repo a/b` fails", true},
		{"`gh pr checks 1572` fails", true},
		{"`gh issue view 1263` fails", true},
		{"see #1510", true},
		{"`curl` can fail with `HTTP 404`.", false},
		{"`go test ./...` runs the tests.", false},
		{"`deadbeef` is a marker, not a commit.", false},
		{"`node` 20.11.1 is required.", false},
		{"`npm run build` builds the project.", false},
	} {
		if got := OneOff(tt.text); got != tt.want {
			t.Errorf("OneOff(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
