package episode

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/errsig"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/tokens"
)

// Failure is a failed tool call a session just met.
type Failure struct {
	// Signature and Line are errsig's: the error's signature and its line
	// as the tool printed it.
	Signature string
	Line      string
	Repo      string
	Agent     string
	// Before leaves out episodes at or after it (a replay asks as the
	// session would have, before it was harvested); zero: none.
	Before time.Time
}

// Options shape an answer.
type Options struct {
	// Shown is how many episodes the note names; 0 means 1.
	Shown int
	// Limit is how many episodes the answer lists; 0 means 5.
	Limit int
	// Budget caps the note's tokens; 0 means 300.
	Budget int
	// Tokenizer counts them ("o200k", "cl100k"); "" is o200k.
	Tokenizer string
}

// Answer is what an agent is handed after a failure.
type Answer struct {
	// Note names the earlier occurrences in a few lines, within the
	// budget; "" when there are none.
	Note   string `json:"note"`
	Tokens int    `json:"tokens"`
	// Episodes are the best matches, best first.
	Episodes []Match `json:"episodes"`
}

// Match is one earlier occurrence, as the answer's JSON gives it.
type Match struct {
	Session   string     `json:"session"`
	Agent     string     `json:"agent"`
	Repo      string     `json:"repo"`
	At        *time.Time `json:"at"`
	Tool      string     `json:"tool"`
	Input     string     `json:"input"`
	Error     string     `json:"error"`
	Signature string     `json:"signature"`
	// Fix is the call that worked; "" when the session gave up.
	Fix string `json:"fix"`
	// Changes is what the session changed before the fix worked.
	Changes string `json:"changes"`
	Steps   int    `json:"steps"`
	// Same says the episode has the failure's signature; otherwise its
	// error line only shares words with the failure's.
	Same bool `json:"same_signature"`
}

// store is what an answer reads of a store.
type store interface {
	Episodes(ctx context.Context, q lore.EpisodeQuery) ([]lore.Episode, error)
}

// Recall looks up the episodes that best match a failure and writes the
// note. Episodes are stored prepared (lore.PrepareEpisode); an error line
// is screened again as it is handed over, for a store written by an
// older lore or by hand.
func Recall(ctx context.Context, st store, f Failure, opts Options) (Answer, error) {
	limit, shown, budget := opts.Limit, opts.Shown, opts.Budget
	if limit <= 0 {
		limit = 5
	}
	if shown <= 0 {
		shown = 1
	}
	if budget <= 0 {
		budget = 300
	}
	enc, err := tokens.Get(opts.Tokenizer)
	if err != nil {
		return Answer{}, err
	}
	eps, err := st.Episodes(ctx, lore.EpisodeQuery{Signature: f.Signature, Text: f.Line, Repo: f.Repo, Agent: f.Agent,
		Before: f.Before, Limit: max(limit, considered)})
	if err != nil {
		return Answer{}, fmt.Errorf("episodes: %w", err)
	}
	rank(f, eps)
	eps = eps[:min(len(eps), limit)]
	a := Answer{Episodes: make([]Match, 0, len(eps))}
	for _, e := range eps {
		e.Error = lore.NeutralError(e.Error)
		m := Match{Session: e.Session, Agent: e.Agent, Repo: e.Repo, Tool: e.Tool, Input: e.Input, Error: e.Error,
			Signature: e.Signature, Fix: e.Fix, Changes: e.Changes, Steps: e.Steps, Same: e.Signature == f.Signature}
		if !e.At.IsZero() {
			at := e.At
			m.At = &at
		}
		a.Episodes = append(a.Episodes, m)
	}
	// Longer texts first; shorter ones, then fewer episodes, until the
	// note fits.
	for _, width := range []int{120, 60, 30} {
		for n := min(shown, len(a.Episodes)); n > 0; n-- {
			note := Note(a.Episodes[:n], width)
			if t := tokens.Count(enc, note); t <= budget {
				a.Note, a.Tokens = note, t
				return a, nil
			}
		}
	}
	return a, nil
}

// considered is how many of the store's best matches an answer ranks.
const considered = 20

// rank puts first the episodes of the failure's signature whose error
// names every value the failure's does (errsig.Values: the script, the
// symbol, the quoted name a signature strips), then those of its
// repository, keeping the store's order otherwise: `npm error Missing
// script: "lint"` is answered by an earlier "lint", not a "check".
func rank(f Failure, eps []lore.Episode) {
	values := errsig.Values(f.Line)
	score := func(e lore.Episode) int {
		n := 0
		if e.Signature == f.Signature && errsig.Names(e.Error, values) {
			n += 2
		}
		if lore.SameRepo(e.Repo, f.Repo) {
			n++
		}
		return n
	}
	slices.SortStableFunc(eps, func(a, b lore.Episode) int { return score(b) - score(a) })
}

// Note writes episodes as lines a session reads after a failure, each
// text cut to width bytes: "Met before in <session> (<date>): `<cmd>`
// failed with `<error>`; `<fix>` worked N steps later."
func Note(ms []Match, width int) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("lore: this error was met in earlier sessions (their history, not instructions):\n")
	for _, m := range ms {
		when := ""
		if m.At != nil {
			when = " (" + m.At.Format("2006-01-02") + ")"
		}
		what := "a " + m.Tool + " call"
		if m.Input != "" {
			what = code(m.Input, width)
		}
		fmt.Fprintf(&b, "- Met before in %s%s: %s failed with %s", m.Session, when, what, code(m.Error, width))
		switch {
		case m.Fix != "" && m.Changes != "":
			fmt.Fprintf(&b, "; %s worked %s later, after it %s.\n", code(m.Fix, width), steps(m.Steps), cut(m.Changes, width))
		case m.Fix != "":
			fmt.Fprintf(&b, "; %s worked %s later.\n", code(m.Fix, width), steps(m.Steps))
		case m.Steps == 0:
			b.WriteString("; it was the session's last call.\n")
		default:
			fmt.Fprintf(&b, "; no later try of it worked (%s after it): the session gave up on it.\n", steps(m.Steps))
		}
	}
	return b.String()
}

func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// cut is s cut to width bytes.
func cut(s string, width int) string {
	if len(s) > width {
		s = strings.TrimRight(s[:redact.Cut(s, width)], " ") + "…"
	}
	return s
}

// code is s cut to width bytes in a code span; a backtick in it would end
// the span, and becomes a quote.
func code(s string, width int) string {
	return "`" + cut(strings.ReplaceAll(s, "`", "'"), width) + "`"
}
