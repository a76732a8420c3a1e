package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lorehq/lore"
)

// Attempts for journal benchmarks: tasks, approaches and files over the
// items' vocabulary, with word and file frequencies falling off like a
// real repository's (a few files touched by many attempts, most by few),
// in ten repositories over two years.

var attemptStart = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)

// attemptFile is a file of the synthetic repositories: a zipf pick of
// folder and name, so some paths are hot.
func attemptFile(r *rand.Rand) string {
	return fmt.Sprintf("internal/%s/%s_%d.go", pick(r, itemParts), pick(r, itemParts), zipf(r, 30))
}

func attemptFiles(r *rand.Rand) []string {
	files := make([]string, 1+zipf(r, 8))
	for i := range files {
		files[i] = attemptFile(r)
	}
	return files
}

// attemptTask is a task in an agent's or a person's words.
func attemptTask(r *rand.Rand) string {
	part, part2, errw, tool, fix := pick(r, itemParts), pick(r, itemParts), pick(r, itemErrors), pick(r, itemTools), pick(r, itemFixes)
	return []string{
		fmt.Sprintf("fix the %s %s in the %s", part, errw, part2),
		fmt.Sprintf("make the %s tests pass under %s", part, tool),
		fmt.Sprintf("%s the %s so the %s stops being %s", fix, part2, part, errw),
		fmt.Sprintf("add a %s to the %s %s", part2, part, pick(r, itemFiller)),
	}[r.IntN(4)]
}

// Attempts returns n synthetic attempts, oldest first; with the same
// seed, the same ones.
func Attempts(n int, seed uint64) []lore.Attempt {
	r := rand.New(rand.NewPCG(seed, 0xa77))
	outcomes := []string{lore.AttemptSuccess, lore.AttemptSuccess, lore.AttemptSuccess, lore.AttemptFailure, lore.AttemptFailure,
		lore.AttemptRollback, lore.AttemptPending}
	span := 2 * 365 * 24 * time.Hour
	as := make([]lore.Attempt, n)
	for i := range as {
		files := attemptFiles(r)
		a := lore.Attempt{
			At:       attemptStart.Add(time.Duration(float64(span) * float64(i) / float64(n))),
			Repo:     fmt.Sprintf("org%d/%s", zipf(r, 3), itemParts[zipf(r, 10)]),
			Agent:    lore.Agents[zipf(r, len(lore.Agents))],
			Session:  fmt.Sprintf("s%07d", i/3),
			Task:     attemptTask(r),
			Approach: fmt.Sprintf("%s the %s with %s %s", pick(r, itemFixes), pick(r, itemParts), pick(r, itemTools), pick(r, itemFiller)),
			Area:     pick(r, itemParts),
			Files:    files,
			Outcome:  outcomes[r.IntN(len(outcomes))],
		}
		for _, f := range files {
			a.Diff += fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -%d,3 +%d,4 @@\n-\t%s()\n+\t%s(ctx)\n+\tdefer %s.Close()\n", f, f, i%400, i%400,
				pick(r, itemParts), pick(r, itemParts), pick(r, itemParts))
		}
		if a.Outcome == lore.AttemptFailure || a.Outcome == lore.AttemptRollback {
			a.Tests = fmt.Sprintf("--- FAIL: Test%s (0.%02ds)\n    %s: %s %s\nFAIL", pick(r, itemParts), i%100, pick(r, itemTools),
				pick(r, itemVerbs), pick(r, itemErrors))
			a.Analysis = fmt.Sprintf("the %s %s %s", pick(r, itemParts), pick(r, itemVerbs), pick(r, itemFiller))
		}
		as[i] = a
	}
	return as
}

// AttemptQueries returns n queries like the attempts Attempts makes: a
// task, its files, its repository.
func AttemptQueries(n int, seed uint64) []lore.AttemptQuery {
	r := rand.New(rand.NewPCG(seed, 0x5e7))
	qs := make([]lore.AttemptQuery, n)
	for i := range qs {
		files := attemptFiles(r)
		slices.Sort(files)
		qs[i] = lore.AttemptQuery{Text: attemptTask(r), Files: slices.Compact(files),
			Repo: fmt.Sprintf("org%d/%s", zipf(r, 3), itemParts[zipf(r, 10)])}
	}
	return qs
}
