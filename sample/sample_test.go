package sample

import (
	"fmt"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func session(id, repo string, age time.Duration, msgs, tools int, o lore.Outcome) *lore.Session {
	s := &lore.Session{ID: id, Repo: repo, UserMessages: msgs / 2, AssistantMessages: msgs - msgs/2, ToolCalls: tools, Outcome: o}
	if age >= 0 {
		s.StartedAt = now.Add(-age - time.Hour)
		s.EndedAt = now.Add(-age)
	}
	return s
}

func TestBreakdown(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		s    *lore.Session
		want Breakdown
	}{
		// boundaries of every criterion
		{session("a", "o/r", 7*day, 51, 11, lore.OutcomeFailure), Breakdown{3, 3, 5, 3, 2}},
		{session("b", "o/r", 7*day+time.Second, 50, 10, lore.OutcomeSuccess), Breakdown{2, 2, 1, 2, 0}},
		{session("c", "o/r", 30*day, 21, 0, lore.OutcomeAborted), Breakdown{2, 2, 1, 1, 0}},
		{session("d", "o/r", 30*day+time.Second, 20, 0, lore.OutcomeUnknown), Breakdown{1, 1, 1, 1, 0}},
		{session("e", "", -1, 0, 0, lore.OutcomeUnknown), Breakdown{1, 1, 1, 1, 0}},
	}
	var list []*lore.Session
	for _, c := range cases {
		list = append(list, c.s)
	}
	// "a" is not the oldest of o/r by time: make it so by giving it the
	// earliest start.
	list[0].StartedAt = now.Add(-400 * day)
	got := map[string]Scored{}
	for _, s := range Score(list, now) {
		got[s.Session.ID] = s
	}
	for _, c := range cases {
		g := got[c.s.ID]
		if g.Breakdown != c.want {
			t.Errorf("%s: breakdown %+v, want %+v", c.s.ID, g.Breakdown, c.want)
		}
		if g.Score != c.want.Total() {
			t.Errorf("%s: score %d, want %d", c.s.ID, g.Score, c.want.Total())
		}
	}
}

// The oldest session of a repository is chosen the same way whatever the
// input order, ties by id.
func TestRepoUniqueIsDeterministic(t *testing.T) {
	a := session("b-second", "o/r", 0, 1, 0, lore.OutcomeUnknown)
	b := session("a-first", "o/r", 0, 1, 0, lore.OutcomeUnknown)
	b.StartedAt = a.StartedAt
	for _, order := range [][]*lore.Session{{a, b}, {b, a}} {
		for _, s := range Score(order, now) {
			want := 1
			if s.Session.ID == "a-first" {
				want = 5
			}
			if s.Breakdown.RepoUnique != want {
				t.Errorf("%s: repo_unique %d, want %d", s.Session.ID, s.Breakdown.RepoUnique, want)
			}
		}
	}
}

func TestOrderAndSelect(t *testing.T) {
	var list []*lore.Session
	for i := 0; i < 10; i++ {
		list = append(list, session(fmt.Sprintf("s%d", i), "", time.Duration(i)*time.Hour, i*10, 0, lore.OutcomeUnknown))
	}
	scored := Score(list, now)
	for i := 1; i < len(scored); i++ {
		p, q := scored[i-1], scored[i]
		if p.Score < q.Score || p.Score == q.Score && p.Session.LastActive().Before(q.Session.LastActive()) {
			t.Fatalf("not best first at %d: %v then %v", i, p, q)
		}
	}
	if got := len(Select(scored, Selection{Count: 3})); got != 3 {
		t.Errorf("count 3 kept %d", got)
	}
	if got := len(Select(scored, Selection{Count: 3, TopPercent: 25})); got != 3 {
		t.Errorf("top 25%% of 10 kept %d, want 3 (rounded up)", got)
	}
	if got := len(Select(scored, Selection{Count: 0})); got != 10 {
		t.Errorf("count 0 kept %d, want all", got)
	}
	min := Select(scored, Selection{MinScore: 7})
	for _, s := range min {
		if s.Score < 7 {
			t.Errorf("min-score 7 kept a %d", s.Score)
		}
	}
	if len(min) == 0 || len(min) == 10 {
		t.Errorf("min-score 7 kept %d of 10: the test data should split", len(min))
	}
}

func BenchmarkScore(b *testing.B) {
	var list []*lore.Session
	for i := 0; i < 20000; i++ {
		list = append(list, session(fmt.Sprintf("s%d", i), fmt.Sprintf("o/r%d", i%300), time.Duration(i)*time.Minute, i%80, i%20, lore.OutcomeSuccess))
	}
	for b.Loop() {
		Score(list, now)
	}
}
