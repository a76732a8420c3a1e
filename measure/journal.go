package measure

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/lorehq/lore"
)

// maxFailing is how many areas and files the journal section lists.
const maxFailing = 10

// Journal is what the journal's attempts tell: how many a week, how
// often they worked, and where they fail most. Empty for a store that
// keeps no journal.
type Journal struct {
	Attempts   int `json:"attempts"`
	Succeeded  int `json:"succeeded"`
	Failed     int `json:"failed"`
	RolledBack int `json:"rolled_back"`
	Pending    int `json:"pending"`
	// SuccessRate is succeeded ÷ the attempts that ended (succeeded,
	// failed or rolled back).
	SuccessRate float64       `json:"success_rate"`
	Weeks       []JournalWeek `json:"weeks"` // oldest first
	// Areas and Files are those with most failed or rolled-back
	// attempts, most first, at most ten of each.
	Areas []Failing `json:"areas"`
	Files []Failing `json:"files"`
}

// JournalWeek is one week's attempts.
type JournalWeek struct {
	Week     string `json:"week"` // YYYY-MM-DD of the week's Monday
	Attempts int    `json:"attempts"`
	// Ended counts the attempts that succeeded, failed or were rolled
	// back; SuccessRate is the share of them that succeeded.
	Ended       int     `json:"ended"`
	SuccessRate float64 `json:"success_rate"`
}

// Failing is an area or a file with its failed (or rolled-back)
// attempts, of all its attempts.
type Failing struct {
	Name     string `json:"name"`
	Failures int    `json:"failures"`
	Attempts int    `json:"attempts"`
}

// journal reads the attempts of st's journal, if it keeps one, of repo
// (any owner for a bare name, as sessions are selected) since since.
func journal(ctx context.Context, st store, repo string, since time.Time) (Journal, error) {
	out := Journal{Weeks: []JournalWeek{}, Areas: []Failing{}, Files: []Failing{}}
	j, ok := st.(lore.Journal)
	if !ok {
		return out, nil
	}
	weeks := map[string]*JournalWeek{}
	succeeded := map[string]int{}
	areas, files := map[string]*Failing{}, map[string]*Failing{}
	count := func(m map[string]*Failing, name string, failed bool) {
		f := m[name]
		if f == nil {
			f = &Failing{Name: name}
			m[name] = f
		}
		f.Attempts++
		if failed {
			f.Failures++
		}
	}
	err := j.Attempts(ctx, lore.AttemptFilter{Since: since}, func(a lore.Attempt) error {
		if repo != "" && !lore.RepoMatches(a.Repo, repo) {
			return nil
		}
		out.Attempts++
		failed := a.Outcome == lore.AttemptFailure || a.Outcome == lore.AttemptRollback
		switch a.Outcome {
		case lore.AttemptSuccess:
			out.Succeeded++
		case lore.AttemptFailure:
			out.Failed++
		case lore.AttemptRollback:
			out.RolledBack++
		default:
			out.Pending++
		}
		wk := week(a.At)
		w := weeks[wk]
		if w == nil {
			w = &JournalWeek{Week: wk}
			weeks[wk] = w
		}
		w.Attempts++
		if a.Outcome != lore.AttemptPending {
			w.Ended++
		}
		if a.Outcome == lore.AttemptSuccess {
			succeeded[wk]++
		}
		if a.Area != "" {
			count(areas, a.Area, failed)
		}
		for _, f := range a.Files {
			count(files, f, failed)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	out.SuccessRate = share(out.Succeeded, out.Succeeded+out.Failed+out.RolledBack)
	for _, wk := range slices.Sorted(maps.Keys(weeks)) {
		w := weeks[wk]
		w.SuccessRate = share(succeeded[wk], w.Ended)
		out.Weeks = append(out.Weeks, *w)
	}
	out.Areas, out.Files = mostFailing(areas), mostFailing(files)
	return out, nil
}

// mostFailing are the entries of m with failures, most first (then most
// attempts, then by name), at most maxFailing.
func mostFailing(m map[string]*Failing) []Failing {
	out := []Failing{}
	for _, f := range m {
		if f.Failures > 0 {
			out = append(out, *f)
		}
	}
	slices.SortFunc(out, func(a, b Failing) int {
		return cmp.Or(cmp.Compare(b.Failures, a.Failures), cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Name, b.Name))
	})
	return out[:min(len(out), maxFailing)]
}
