package boot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// Past failures in a context: at most maxFailures lines, of the
// failedAsked failed or rolled-back attempts most like the task, each
// sharing at least minShared of the task's terms (or all of a task of
// fewer).
const (
	maxFailures = 3
	failedAsked = 10
	minShared   = 2
)

// failure is a past attempt at a task like this one that failed, and its
// line.
type failure struct {
	id, line string
}

// failures are the repository's past attempts like the task that failed
// or were rolled back and taught a lesson, best match first: for a store
// that keeps a journal, a session with a repository and a task. An
// attempt's task is not shown: it is what someone asked for, often an
// order, and its lesson is what the next session needs; a lesson that
// reads as an instruction or is held is never shown (lore.LessonOf).
func failures(ctx context.Context, st store, opts Options) ([]failure, error) {
	j, ok := st.(lore.Journal)
	if !ok || opts.Repo == "" || strings.TrimSpace(opts.Task) == "" {
		return nil, nil
	}
	hits, err := j.SimilarAttempts(ctx, lore.AttemptQuery{Text: opts.Task, Repo: opts.Repo, Limit: failedAsked})
	if err != nil {
		return nil, fmt.Errorf("past attempts: %w", err)
	}
	want := terms.Of(opts.Task)
	need := min(minShared, len(want))
	var out []failure
	for _, h := range hits {
		if h.Outcome != lore.AttemptFailure && h.Outcome != lore.AttemptRollback {
			continue
		}
		it, ok := lore.LessonOf(h.Attempt)
		if !ok || slices.Contains(it.Tags, lore.TagHeld) {
			continue
		}
		if shared(want, terms.Of(h.Task+" "+h.Approach+" "+h.Lesson())) < need {
			continue // matched a word or two of a long task: not the same work
		}
		out = append(out, failure{id: h.ID, line: failureLine(h.Attempt, it.Text)})
		if len(out) == maxFailures {
			break
		}
	}
	return out, nil
}

// shared counts the terms of want that have holds.
func shared(want, have []string) int {
	n := 0
	for _, w := range want {
		if slices.Contains(have, w) {
			n++
		}
	}
	return n
}

// failureLine is a past failure as a note: when, what it touched, and its
// lesson; "lore journal show ID" tells the rest.
func failureLine(a lore.Attempt, lesson string) string {
	what := "failed"
	if a.Outcome == lore.AttemptRollback {
		what = "was rolled back"
	}
	files := ""
	if len(a.Files) > 0 {
		fs := a.Files[:min(len(a.Files), 3)]
		files = " on " + strings.Join(fs, ", ")
		if len(a.Files) > 3 {
			files += fmt.Sprintf(" and %d more", len(a.Files)-3)
		}
	}
	return fmt.Sprintf("- An attempt at a like task%s %s (%s, journal %s): %s\n", files, what, a.At.Format("2006-01-02"), a.ID, lesson)
}
