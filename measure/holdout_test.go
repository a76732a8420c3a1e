package measure

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/memstore"
)

// TestHoldout: sessions are sorted into arms by their boot records, and
// the verdict says what can be told: nothing with no or too few held-out
// sessions, a cut when the intervals are apart, no difference when not.
func TestHoldout(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	known := map[string]time.Time{"git: protected branch": start.Add(-time.Hour)}
	// treated and held sessions, metTreated and metHeld of which met the
	// known error.
	build := func(treated, held, metTreated, metHeld int) (Holdout, error) {
		st := memstore.New()
		var all []facts
		add := func(id string, withheld, met bool) {
			s := &lore.Session{ID: id, StartedAt: start, EndedAt: start.Add(10 * time.Minute), ToolCalls: 3}
			f := facts{s: s}
			if met {
				f.signatures = []string{"git: protected branch"}
				s.ToolErrors = 1
			}
			all = append(all, f)
			st.RecordBoot(ctx, lore.Boot{At: start, Session: id, Items: []string{"aaaaaaaaaaaa"}, Withheld: withheld})
		}
		for i := range treated {
			add(fmt.Sprintf("claude-code:t%d", i), false, i < metTreated)
		}
		for i := range held {
			add(fmt.Sprintf("claude-code:h%d", i), true, i < metHeld)
		}
		// A session no boot names is in neither arm.
		all = append(all, facts{s: &lore.Session{ID: "claude-code:unbooted", StartedAt: start}})
		return holdout(ctx, st, all, known, time.Time{})
	}
	h, err := build(40, 40, 4, 20)
	if err != nil {
		t.Fatal(err)
	}
	if h.Treated.Sessions != 40 || h.Withheld.Sessions != 40 || h.Treated.MetKnown != 4 || h.Withheld.MetKnown != 20 {
		t.Fatalf("arms: %+v", h)
	}
	if h.Treated.FirstTry != 36 || h.Treated.FirstTryRate.Rate != 0.9 || h.Treated.MedianMinutes != 10 {
		t.Errorf("treated arm: %+v", h.Treated)
	}
	if v := holdoutVerdict(h); !strings.Contains(v, "recurred 80% less") {
		t.Errorf("10%% against 50%%: %q", v)
	}
	for _, tt := range []struct {
		treated, held, metT, metH int
		want                      string
	}{
		{40, 0, 4, 0, "no session was held out"},
		{40, 5, 4, 3, "too few sessions to tell"},
		{40, 40, 10, 12, "no difference beyond chance"},
		{40, 40, 20, 4, "recurred more where notes were handed out"},
	} {
		h, err := build(tt.treated, tt.held, tt.metT, tt.metH)
		if err != nil {
			t.Fatal(err)
		}
		if v := holdoutVerdict(h); !strings.Contains(v, tt.want) {
			t.Errorf("%+v: %q, want %q", tt, v, tt.want)
		}
	}
}

func TestWilson(t *testing.T) {
	// Known values of the Wilson score interval.
	for _, tt := range []struct {
		k, n      int
		low, high float64
	}{{0, 10, 0, 0.278}, {5, 10, 0.237, 0.763}, {81, 263, 0.255, 0.366}} {
		if got := wilson(tt.k, tt.n); got.Low != tt.low || got.High != tt.high {
			t.Errorf("wilson(%d, %d) = %+v, want %v–%v", tt.k, tt.n, got, tt.low, tt.high)
		}
	}
	if got := wilson(0, 0); got != (Interval{}) {
		t.Errorf("wilson(0, 0) = %+v", got)
	}
}

// TestSplits: the figures split by agent only where the sessions mix
// agents, each agent's from its own sessions, most sessions first.
func TestSplits(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	known := map[string]time.Time{"npm: e404": start.Add(-time.Hour)}
	var all []facts
	for i := range 5 {
		s := &lore.Session{ID: fmt.Sprintf("codex:%d", i), Agent: "codex", StartedAt: start, ToolCalls: 2}
		f := facts{s: s}
		if i < 2 {
			s.ToolErrors, f.signatures = 1, []string{"npm: e404"}
		}
		all = append(all, f)
	}
	all = append(all, facts{s: &lore.Session{ID: "claude-code:1", Agent: "claude-code", StartedAt: start, ToolCalls: 1}})
	key := func(s *lore.Session) string { return s.Agent }
	got, err := splits(ctx, memstore.New(), all, nil, known, time.Time{}, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "codex" || got[0].Sessions != 5 || got[0].FirstTryRate != 0.6 ||
		got[0].SessionsWithErrors != 2 || got[0].SessionsHitKnown != 2 || got[1].Name != "claude-code" || got[1].FirstTryRate != 1 {
		t.Errorf("splits: %+v", got)
	}
	if one, _ := splits(ctx, memstore.New(), all[:5], nil, known, time.Time{}, key); len(one) != 0 {
		t.Errorf("one agent: %+v; want no split", one)
	}
}

func TestWeekGap(t *testing.T) {
	if weekGap("2026-05-04", "2026-05-11") || !weekGap("2026-05-04", "2026-05-18") || weekGap("unknown", "2026-05-18") {
		t.Error("weekGap: the next week is no gap, two weeks on is one, an undated week is none")
	}
}
