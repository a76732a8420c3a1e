package lore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/redact"
)

// Attempt is one attempt to change code, by an agent or a person: what was
// tried, on which files, with what diff and test output, how it ended and
// what was learned. The journal keeps them so that the next attempt at a
// similar task can see the earlier ones first (lore journal similar).
type Attempt struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	Repo    string    `json:"repo"` // the repository's identity, as an item's Repo
	Agent   string    `json:"agent"`
	Session string    `json:"session"` // the session that made it, when known
	// Task is what the attempt set out to do; it is required.
	Task     string `json:"task"`
	Approach string `json:"approach"`
	// Area is a free label for grouping attempts: a benchmark's area, a
	// component.
	Area  string   `json:"area"`
	Files []string `json:"files"` // repository-relative paths, sorted, without repeats
	// Diff is the change made, at most MaxAttemptDiff bytes; DiffCut says
	// how many bytes of it were left out.
	Diff    string `json:"diff,omitempty"`
	DiffCut int    `json:"diff_cut,omitempty"`
	// Tests is the tail of the test or build output that tells how the
	// attempt went, at most MaxAttemptTests bytes.
	Tests   string `json:"tests"`
	Outcome string `json:"outcome"` // one of AttemptOutcomes; pending when unset
	// Analysis says why the attempt failed or was rolled back;
	// Reflection is the lesson learned (lore journal reflect adds it
	// later).
	Analysis   string `json:"analysis"`
	Reflection string `json:"reflection"`
	Retries    int    `json:"retries"`
	// PointsBefore and PointsAfter are a benchmark's score before and
	// after the attempt, when it has one.
	PointsBefore *float64 `json:"points_before"`
	PointsAfter  *float64 `json:"points_after"`
	// Parent is the attempt this one retries, when it is a retry.
	Parent string   `json:"parent"`
	Tags   []string `json:"tags"`
}

// The outcomes of an Attempt.
const (
	AttemptSuccess  = "success"
	AttemptFailure  = "failure"
	AttemptRollback = "rollback"
	AttemptPending  = "pending"
)

// AttemptOutcomes lists the outcomes of an Attempt.
var AttemptOutcomes = []string{AttemptSuccess, AttemptFailure, AttemptRollback, AttemptPending}

// Sizes of an attempt's texts, in bytes.
const (
	MaxAttemptDiff  = 1 << 20
	MaxAttemptTests = 16 << 10
)

// AttemptQuery asks the journal for the earlier attempts most like a new
// one.
type AttemptQuery struct {
	// Text is matched against the attempts' task, approach, analysis and
	// reflection.
	Text string
	// Files raise attempts that touched the same files.
	Files []string
	// Repo, Outcome and Since select; empty or zero selects all.
	Repo    string
	Outcome string
	Since   time.Time
	// Limit caps the attempts returned; 0 means 5.
	Limit int
}

// AttemptHit is an attempt a query found, with how well it matched.
type AttemptHit struct {
	Attempt
	Score float64 `json:"score"`
	// SharedFiles are the query's files the attempt touched.
	SharedFiles []string `json:"shared_files"`
}

// AttemptFilter selects attempts; empty fields select all.
type AttemptFilter struct {
	Repo    string
	Outcome string
	File    string // attempts that touched this file
	Since   time.Time
	// WithDiff returns the attempts' diffs and test output too, which
	// costs reading and inflating each; Attempt returns one attempt's.
	WithDiff bool
}

// Journal keeps attempts. A store that keeps knowledge keeps them beside
// it (the SQLite store does); the conformance suite in internal/storetest
// checks every implementation by the same rules:
//
//   - LogAttempts validates (a task, a known outcome), redacts every text
//     (secrets never reach the store), cuts the diff and test output to
//     their sizes, and gives each attempt an id and, when it has none, a
//     time; all in one transaction: an error about one attempt writes none.
//   - An attempt with the same repo, session, task and files as a stored
//     one (lore journal import run again) replaces it, keeping its id;
//     for an attempt of no session, its time is part of that key
//     (AttemptKey). The id is the store's (AttemptID), whatever the
//     caller set.
type Journal interface {
	// LogAttempts stores attempts and returns them as stored.
	LogAttempts(ctx context.Context, as []Attempt) ([]Attempt, error)
	// Attempt returns the attempt with this id or unique id prefix.
	Attempt(ctx context.Context, id string) (Attempt, error)
	// SimilarAttempts returns the attempts most like q, best first,
	// without their diffs and test output.
	SimilarAttempts(ctx context.Context, q AttemptQuery) ([]AttemptHit, error)
	// Attempts calls fn for every attempt f selects, newest first, with
	// their diffs and test output only when f.WithDiff.
	Attempts(ctx context.Context, f AttemptFilter, fn func(Attempt) error) error
	// Reflect sets the reflection of the attempt with this id or unique id
	// prefix, redacted, and returns the attempt as it now is.
	Reflect(ctx context.Context, id, text string) (Attempt, error)
}

// PrepareAttempt checks an attempt a caller wants stored and brings it
// into the form every Journal keeps: every text redacted (secrets never
// reach a store); the diff cut to MaxAttemptDiff at a line's end, with
// DiffCut the bytes left out; the test output cut to its last
// MaxAttemptTests bytes, whole lines; files cleaned, sorted and unique;
// tags as items' tags; the time now when unset, in UTC to the
// microsecond; the outcome pending when unset; the id computed
// (AttemptID). It returns an EINVALID error for an attempt without a task,
// with an unknown outcome, a negative retry count or a malformed parent.
func PrepareAttempt(a Attempt, now time.Time) (Attempt, error) {
	text := RedactText
	a.Task = text(a.Task)
	if a.Task == "" {
		return a, Errorf(EINVALID, "an attempt needs a task")
	}
	a.Outcome = strings.ToLower(strings.TrimSpace(a.Outcome))
	if a.Outcome == "" {
		a.Outcome = AttemptPending
	} else if !slices.Contains(AttemptOutcomes, a.Outcome) {
		return a, Errorf(EINVALID, "unknown outcome %q (want one of %s)", a.Outcome, strings.Join(AttemptOutcomes, ", "))
	}
	if a.Retries < 0 {
		return a, Errorf(EINVALID, "retries %d is negative", a.Retries)
	}
	for _, p := range []*float64{a.PointsBefore, a.PointsAfter} {
		if p != nil && (math.IsNaN(*p) || math.IsInf(*p, 0)) {
			return a, Errorf(EINVALID, "points %v is not a number", *p)
		}
	}
	if a.Parent = strings.ToLower(strings.TrimSpace(a.Parent)); a.Parent != "" && !ValidIDPrefix(a.Parent) {
		return a, Errorf(EINVALID, "parent %q is not an attempt id (4 to 24 hex digits)", a.Parent)
	}
	a.Repo, a.Agent, a.Session, a.Area = text(a.Repo), text(a.Agent), text(a.Session), text(a.Area)
	a.Approach, a.Analysis, a.Reflection = text(a.Approach), text(a.Analysis), text(a.Reflection)
	a.Files = CleanFiles(a.Files)
	for i, f := range a.Files {
		a.Files[i] = redactor.String(f)
	}
	a.Tags = cleanTags(a.Tags)
	if a.DiffCut < 0 {
		a.DiffCut = 0
	}
	diff, cut := cutDiff(strings.ToValidUTF8(a.Diff, "\uFFFD"), MaxAttemptDiff)
	a.Diff, a.DiffCut = diff, a.DiffCut+cut
	a.Tests = tailOf(strings.ToValidUTF8(a.Tests, "\uFFFD"), MaxAttemptTests)
	if a.At.IsZero() {
		a.At = now
	}
	a.At = StoreTime(a.At)
	a.ID = AttemptID(a)
	return a, nil
}

// PrepareAttempts prepares attempts a caller wants stored
// (PrepareAttempt); an error about one of several says which.
func PrepareAttempts(as []Attempt, now time.Time) ([]Attempt, error) {
	out := make([]Attempt, len(as))
	for i, a := range as {
		p, err := PrepareAttempt(a, now)
		if err != nil {
			if len(as) > 1 {
				return nil, fmt.Errorf("attempt %d: %w", i+1, err)
			}
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// RedactText is a text as the journal keeps it: valid UTF-8, redacted,
// trimmed (a reflection added later).
func RedactText(s string) string {
	return strings.TrimSpace(redactor.String(strings.ToValidUTF8(s, "\uFFFD")))
}

// AttemptKey is what makes two attempts the same, so that the second
// replaces the first (an import run again): repo, session, task and
// files; and, for an attempt of no session (one logged by hand), its time
// too, so that logging "fix the flaky test" twice keeps both.
func AttemptKey(a Attempt) string {
	h := sha256.New()
	fmt.Fprintf(h, "attempt\x00%s\x00%s\x00%s\x00%s", a.Repo, a.Session, a.Task, strings.Join(a.Files, "\x00"))
	if a.Session == "" {
		fmt.Fprintf(h, "\x00%d", a.At.UnixMicro())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AttemptID is the id of a prepared attempt: the first idLen hex digits
// of its key, as an item's; a store gives the first 2*idLen to an attempt
// whose short id another key holds.
func AttemptID(a Attempt) string { return AttemptKey(a)[:idLen] }

// LongAttemptID is the id a store gives an attempt whose short id is
// taken.
func LongAttemptID(a Attempt) string { return AttemptKey(a)[:2*idLen] }

// Lesson is what an attempt taught: its reflection, else its analysis.
func (a Attempt) Lesson() string {
	if a.Reflection != "" {
		return a.Reflection
	}
	return a.Analysis
}

// CleanFiles returns repository-relative paths as attempts keep them:
// slashes, no leading "./", trimmed, sorted, without repeats or empties.
func CleanFiles(files []string) []string {
	var out []string
	for _, f := range files {
		f = strings.TrimSpace(strings.ToValidUTF8(f, "\uFFFD"))
		f = strings.ReplaceAll(f, `\`, "/")
		for strings.HasPrefix(f, "./") {
			f = f[2:]
		}
		if f != "" && f != "." {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cutDiff returns diff redacted and cut to at most n bytes, at the end of
// a line where one ends in the last quarter, and how many bytes of diff
// were left out (counted on diff as given).
func cutDiff(diff string, n int) (string, int) {
	kept := redactor.Head(diff, n)
	if len(kept) <= n && len(diff) <= n+headMargin {
		return kept, 0
	}
	k := redact.Cut(kept, n)
	if nl := strings.LastIndexByte(kept[:k], '\n'); nl >= k*3/4 {
		k = nl + 1
	}
	return kept[:k], max(len(diff)-k, 1)
}

// headMargin is more than redact.Head reads past a cut.
const headMargin = 8 << 10

// tailOf returns the last n bytes of s or fewer, redacted, starting at a
// line's start where a line starts in them, and never with part of a
// token.
func tailOf(s string, n int) string {
	if len(s) > n+headMargin {
		s = s[len(s)-n-headMargin:]
	}
	s = strings.TrimSpace(redactor.String(s))
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	if nl := strings.IndexByte(s[start:], '\n'); nl >= 0 && nl < n/4 {
		return s[start+nl+1:]
	}
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	for start < len(s) && isTokenByte(s[start]) {
		start++ // the start of a line cut in the middle of a word, which may be a secret's end
	}
	return s[start:]
}

func isTokenByte(b byte) bool {
	return b == '_' || b == '-' || b == '+' || b == '=' || b == '~' ||
		'0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// Similar-attempt ranking, the same in every journal. An attempt's score
// adds its text relevance (as a share of the best candidate's, from 0 to
// 1), its files' (from 0 to 1: half for touching any of the query's
// files, for an attempt on the same code is the one to see first whatever
// its words, and half by the share of the query's files it touched, each
// file weighted by how rare it is among attempts: a README or changelog
// every other attempt touched says little), and a recency bonus that
// halves every similarHalfLife before the newest candidate.
const (
	// SimilarCandidates is how many of the best text matches, and of the
	// attempts that touched each of the query's files, a journal ranks.
	SimilarCandidates = 300
	similarFileWeight = 1.0
	similarAnyFile    = 0.5
	similarRecency    = 0.25
	similarHalfLife   = 60 * 24 * time.Hour
)

// FileWeight is the weight of a file touched by n of about total
// attempts: the rarer, the more it says which attempts are alike.
func FileWeight(total, n int) float64 {
	return math.Log(1 + float64(total+1)/float64(n+1))
}

// RankAttempts scores the candidates a journal found for q and returns
// the best q.Limit (0 means 5), best first, then newest. Each hit's
// Score is its text relevance when it comes in (0 to 1); weight gives
// each of q's files (CleanFiles) its FileWeight.
func RankAttempts(q AttemptQuery, hits []AttemptHit, weight map[string]float64) []AttemptHit {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	files := CleanFiles(q.Files)
	var newest time.Time
	for _, h := range hits {
		if h.At.After(newest) {
			newest = h.At
		}
	}
	var queryWeight float64
	for _, f := range files {
		queryWeight += weight[f]
	}
	for i := range hits {
		h := &hits[i]
		var shared float64
		for _, f := range files {
			if _, ok := slices.BinarySearch(h.Files, f); ok {
				h.SharedFiles = append(h.SharedFiles, f)
				shared += weight[f]
			}
		}
		if shared > 0 {
			h.Score += similarFileWeight * (similarAnyFile + (1-similarAnyFile)*shared/queryWeight)
		}
		h.Score += similarRecency * math.Exp2(-float64(newest.Sub(h.At))/float64(similarHalfLife))
	}
	slices.SortStableFunc(hits, func(x, y AttemptHit) int {
		if x.Score != y.Score {
			if x.Score > y.Score {
				return -1
			}
			return 1
		}
		if c := y.At.Compare(x.At); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return hits[:min(len(hits), limit)]
}
