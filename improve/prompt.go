package improve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// Sizes of the prompt's parts, in bytes.
const (
	maxSourceBytes = 12 << 10
	maxLessons     = 5
)

// prompt is what the agent is asked: the area and its points, what failed
// before and the approaches tried, the benchmark's source for the area,
// similar past attempts and their lessons, and the repository's notes.
func (c *Config) prompt(ctx context.Context, st *State, area string, before Points, wt string) string {
	as := st.areaState(area)
	t, m := before.Total()
	var b strings.Builder
	fmt.Fprintf(&b, "# Improve %q (lore improve, round %d)\n\n", area, st.Round)
	fmt.Fprintf(&b, "The benchmark scores the area %q at %s of %s points (total %s of %s):\n\n", area, num(before[area].Points), num(before[area].Max), num(t), num(m))
	for _, n := range before.Names() {
		fmt.Fprintf(&b, "- %s: %s/%s\n", n, num(before[n].Points), num(before[n].Max))
	}
	b.WriteString(`
Change the code in this folder so that the benchmark scores this area higher and no area lower.
Leave the change in the working tree (committing is optional). lore re-runs the benchmark from its
own copy and keeps the change only when the total rose and no area fell.

Rules:
- The benchmark's files, its test data and lore's state are out of bounds: a change touching them
  is rejected, whatever it scores.
`)
	if len(st.Judge) > 0 {
		files := make([]string, 0, len(st.Judge))
		for f := range st.Judge {
			files = append(files, f)
		}
		slices.Sort(files)
		fmt.Fprintf(&b, "  The benchmark's files: %s.\n", strings.Join(files, ", "))
	}
	b.WriteString("- A change touching protected paths waits for a person's approval")
	if len(c.protect) > 0 {
		fmt.Fprintf(&b, " (protected: %s)", globList(c.protect))
	} else {
		fmt.Fprintf(&b, " (everything but %s)", globList(c.approve))
	}
	b.WriteString(".\n- End with a line \"approach: <the approach you took, in a few words>\".\n")
	fmt.Fprintf(&b, "\n## This attempt\n\nApproach %d of %d, try %d of %d.\n", as.Approach, c.Approaches, as.Try, c.Tries)
	if as.LastFailure != "" {
		fmt.Fprintf(&b, "\nThe last try failed:\n\n%s\n", as.LastFailure)
		if as.Try > 1 {
			b.WriteString("\nFix what failed, keeping to the same approach.\n")
		}
	}
	if as.Approach > 1 && len(as.Approaches) > 0 {
		b.WriteString("\nThese approaches were tried and failed; take a different one:\n\n")
		for i, a := range as.Approaches {
			fmt.Fprintf(&b, "%d. %s\n", i+1, a)
		}
	}
	if src := c.benchSource(st, area); src != "" {
		fmt.Fprintf(&b, "\n## The benchmark's source for %s\n\n%s", area, src)
	}
	if past := c.pastAttempts(ctx, area); past != "" {
		fmt.Fprintf(&b, "\n## Similar past attempts (lore journal)\n\n%s", past)
	}
	if c.Boot != nil {
		if notes := strings.TrimSpace(c.Boot(ctx, "improve "+area)); notes != "" {
			fmt.Fprintf(&b, "\n%s\n", notes)
		}
	}
	return b.String()
}

func globList(gs Globs) string {
	var s []string
	for _, g := range gs {
		s = append(s, g.String())
	}
	return strings.Join(s, ", ")
}

// benchSource is the source of the --bench-source files that mention the
// area (every one when none does), from lore's pristine copy.
func (c *Config) benchSource(st *State, area string) string {
	if len(c.BenchSource) == 0 {
		return ""
	}
	src, _ := CompileGlobs(c.BenchSource)
	var files []string
	for f := range st.Judge {
		if src.Match(f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	texts := map[string]string{}
	var mention []string
	for _, f := range files {
		out, err := gitBytes(context.Background(), c.root, nil, "cat-file", "blob", st.Judge[f])
		if err != nil {
			continue
		}
		texts[f] = string(out)
		if strings.Contains(strings.ToLower(string(out)), strings.ToLower(area)) {
			mention = append(mention, f)
		}
	}
	if len(mention) == 0 {
		mention = files
	}
	var b strings.Builder
	left := maxSourceBytes
	for _, f := range mention {
		t := texts[f]
		if left <= 0 {
			fmt.Fprintf(&b, "(%s left out: the prompt's source budget is spent)\n", f)
			continue
		}
		if len(t) > left {
			t = cut(t, left)
		}
		left -= len(t)
		fmt.Fprintf(&b, "%s:\n\n```\n%s\n```\n\n", f, strings.TrimRight(t, "\n"))
	}
	return b.String()
}

// pastAttempts are the journal's attempts most like this one, each with
// its outcome and lesson.
func (c *Config) pastAttempts(ctx context.Context, area string) string {
	if c.Journal == nil {
		return ""
	}
	hits, err := c.Journal.SimilarAttempts(ctx, lore.AttemptQuery{Text: "improve " + area + " on the benchmark", Repo: c.RepoID, Limit: maxLessons})
	if err != nil {
		c.logf("journal: %s", err)
		return ""
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "- %s, %s: %s", h.At.Format(time.DateOnly), h.Outcome, oneLine(h.Task))
		if h.Approach != "" {
			fmt.Fprintf(&b, " — approach: %s", oneLine(h.Approach))
		}
		if l := h.Lesson(); l != "" {
			fmt.Fprintf(&b, "\n  lesson: %s", oneLine(l))
		}
		if len(h.Files) > 0 {
			fmt.Fprintf(&b, "\n  files: %s", oneLine(strings.Join(h.Files, ", ")))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// escalate writes the report a person reads when an area failed every
// approach: what was tried, each outcome, the recurring reason.
func (c *Config) escalate(st *State, area string) (string, error) {
	var recs []Record
	for _, r := range st.History {
		if r.Area == area {
			recs = append(recs, r)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# lore improve is stuck on %q\n\n", area)
	fmt.Fprintf(&b, "%d tries failed, %d approaches of %d tries each, on branch %s at %s. ", c.Tries*c.Approaches, c.Approaches, c.Tries, st.Branch, short(st.Best))
	b.WriteString("The loop has moved on; fix the agent's understanding (its instructions, the notes lore hands it, the benchmark's\nexplanation of the area) rather than the work, then reset the area by running again.\n\n")
	b.WriteString("## What was tried\n\n| round | approach | try | outcome | reason | files |\n|---|---|---|---|---|---|\n")
	reasons := map[string]int{}
	for _, r := range recs {
		if r.Outcome == Kept || r.Outcome == Held {
			continue
		}
		fmt.Fprintf(&b, "| %d | %d | %d | %s | %s | %s |\n", r.Round, r.Approach, r.Try, r.Outcome, mdCell(r.Reason), mdCell(strings.Join(r.Files, ", ")))
		reasons[reasonKind(r)]++
	}
	as := st.areaState(area)
	if len(as.Approaches) > 0 {
		b.WriteString("\n## Approaches\n\n")
		for i, a := range as.Approaches {
			fmt.Fprintf(&b, "%d. %s\n", i+1, a)
		}
	}
	kind, n := "", 0
	for k, v := range reasons {
		if v > n || v == n && k < kind {
			kind, n = k, v
		}
	}
	fmt.Fprintf(&b, "\n## The recurring reason\n\n%s, %d of %d times.\n", kind, n, len(recs))
	if as.LastFailure != "" {
		fmt.Fprintf(&b, "\nThe last failure:\n\n%s\n", as.LastFailure)
	}
	path := filepath.Join(c.stateDir, "escalations", fmt.Sprintf("%s-round-%d.md", fileName(area), st.Round))
	os.MkdirAll(filepath.Dir(path), 0o700)
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

// reasonKind groups failures: the outcome, and for a rollback the first
// clause of why.
func reasonKind(r Record) string {
	if r.Outcome != RolledBack {
		return r.Outcome
	}
	k, _, _ := strings.Cut(r.Reason, " (")
	if strings.Contains(k, "fell") {
		return "rolled back: an area fell"
	}
	if strings.HasPrefix(k, "total did not rise") {
		return "rolled back: the total did not rise"
	}
	return "rolled back: " + k
}

func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(oneLine(s), "|", `\|`), "\n", " ")
}

func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}
