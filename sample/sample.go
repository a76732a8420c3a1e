// Package sample scores agent sessions by how much a harvest of them is
// likely to yield, so that the best of thousands can be read first.
package sample

import (
	"math"
	"sort"
	"time"

	"github.com/lorehq/lore"
)

// Breakdown is a session's score by criterion. The criteria and their
// points are those of the original sampler:
//
//	recency     last active within 7 days 3, within 30 days 2, else 1
//	length      more than 50 messages 3, more than 20 2, else 1
//	repo_unique the oldest session of its repository 5, others 1
//	outcome     failure 3, success 2, anything else 1
//	tool_calls  more than 10 tool calls 2, else 0
//
// A session with no known repository is nobody's oldest (1); a session
// with no known time is old (1); aborted counts as unknown (1).
type Breakdown struct {
	Recency    int `json:"recency"`
	Length     int `json:"length"`
	RepoUnique int `json:"repo_unique"`
	Outcome    int `json:"outcome"`
	ToolCalls  int `json:"tool_calls"`
}

// Total is the session's score.
func (b Breakdown) Total() int {
	return b.Recency + b.Length + b.RepoUnique + b.Outcome + b.ToolCalls
}

// Scored is a session with its score.
type Scored struct {
	Session   *lore.Session
	Score     int
	Breakdown Breakdown
}

// Score scores every session as of now and returns them best first:
// higher score, then more recently active, then by id, so that the order
// is the same on every run.
func Score(sessions []*lore.Session, now time.Time) []Scored {
	oldest := oldestPerRepo(sessions)
	out := make([]Scored, len(sessions))
	for i, s := range sessions {
		b := Breakdown{
			Recency:    recency(s, now),
			Length:     length(s.MessageCount()),
			RepoUnique: 1,
			Outcome:    outcome(s.Outcome),
		}
		if s.Repo != "" && oldest[s.Repo] == s {
			b.RepoUnique = 5
		}
		if s.ToolCalls > 10 {
			b.ToolCalls = 2
		}
		out[i] = Scored{Session: s, Score: b.Total(), Breakdown: b}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		ta, tb := a.Session.LastActive(), b.Session.LastActive()
		if !ta.Equal(tb) {
			return ta.After(tb)
		}
		return a.Session.ID < b.Session.ID
	})
	return out
}

// oldestPerRepo finds each repository's first session: earliest start,
// then smallest id, so that ties are broken the same way every time.
// Sessions of unknown start come after all dated ones.
func oldestPerRepo(sessions []*lore.Session) map[string]*lore.Session {
	oldest := make(map[string]*lore.Session)
	for _, s := range sessions {
		if s.Repo == "" {
			continue
		}
		o, ok := oldest[s.Repo]
		if !ok || older(s, o) {
			oldest[s.Repo] = s
		}
	}
	return oldest
}

func older(a, b *lore.Session) bool {
	ta, tb := a.StartedAt, b.StartedAt
	switch {
	case ta.IsZero() != tb.IsZero():
		return !ta.IsZero()
	case !ta.Equal(tb):
		return ta.Before(tb)
	}
	return a.ID < b.ID
}

func recency(s *lore.Session, now time.Time) int {
	t := s.LastActive()
	if t.IsZero() {
		return 1
	}
	switch age := now.Sub(t); {
	case age <= 7*24*time.Hour:
		return 3
	case age <= 30*24*time.Hour:
		return 2
	}
	return 1
}

func length(messages int) int {
	switch {
	case messages > 50:
		return 3
	case messages > 20:
		return 2
	}
	return 1
}

func outcome(o lore.Outcome) int {
	switch o {
	case lore.OutcomeFailure:
		return 3
	case lore.OutcomeSuccess:
		return 2
	}
	return 1
}

// Selection says how many of the scored sessions to keep.
type Selection struct {
	Count      int     // keep the best Count; ≤ 0 keeps all
	TopPercent float64 // when > 0, keep the best TopPercent % instead (rounded up)
	MinScore   int     // drop sessions scoring below this
}

// Select applies a selection to sessions already sorted best first.
func Select(scored []Scored, sel Selection) []Scored {
	kept := scored[:0:0]
	for _, s := range scored {
		if s.Score >= sel.MinScore {
			kept = append(kept, s)
		}
	}
	n := len(kept)
	switch {
	case sel.TopPercent > 0:
		n = int(math.Ceil(float64(len(kept)) * sel.TopPercent / 100))
	case sel.Count > 0:
		n = sel.Count
	}
	if n < len(kept) {
		kept = kept[:n]
	}
	return kept
}
