package lore

import (
	"context"
	"time"
)

// Attempt is one attempt to change code, by an agent or a person: what was
// tried, on which files, with what diff and test output, how it ended and
// what was learned. The journal keeps them so that the next attempt at a
// similar task can see the earlier ones first (lore journal similar).
type Attempt struct {
	ID      string
	At      time.Time
	Repo    string // the repository's identity, as an item's Repo
	Agent   string
	Session string // the session that made it, when known
	// Task is what the attempt set out to do; it is required.
	Task     string
	Approach string
	// Area is a free label for grouping attempts: a benchmark's area, a
	// component.
	Area  string
	Files []string // repository-relative paths, sorted, without repeats
	// Diff is the change made, at most MaxAttemptDiff bytes; DiffCut says
	// how many bytes of it were left out.
	Diff    string
	DiffCut int
	// Tests is the tail of the test or build output that tells how the
	// attempt went, at most MaxAttemptTests bytes.
	Tests   string
	Outcome string // one of Attempts: AttemptSuccess, …
	// Analysis says why the attempt failed or was rolled back;
	// Reflection is the lesson learned (lore journal reflect adds it
	// later).
	Analysis   string
	Reflection string
	Retries    int
	// PointsBefore and PointsAfter are a benchmark's score before and
	// after the attempt, when it has one.
	PointsBefore, PointsAfter *float64
	// Parent is the attempt this one retries, when it is a retry.
	Parent string
	Tags   []string
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
	Score float64
	// SharedFiles are the query's files the attempt touched.
	SharedFiles []string
}

// AttemptFilter selects attempts; empty fields select all.
type AttemptFilter struct {
	Repo    string
	Outcome string
	File    string // attempts that touched this file
	Since   time.Time
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
//     one (lore journal import run again) replaces it, keeping its id.
type Journal interface {
	// LogAttempts stores attempts and returns them as stored.
	LogAttempts(ctx context.Context, as []Attempt) ([]Attempt, error)
	// Attempt returns the attempt with this id or unique id prefix.
	Attempt(ctx context.Context, id string) (Attempt, error)
	// SimilarAttempts returns the attempts most like q, best first.
	SimilarAttempts(ctx context.Context, q AttemptQuery) ([]AttemptHit, error)
	// Attempts calls fn for every attempt f selects, newest first.
	Attempts(ctx context.Context, f AttemptFilter, fn func(Attempt) error) error
	// Reflect sets the reflection of the attempt with this id or unique id
	// prefix, redacted, and returns the attempt as it now is.
	Reflect(ctx context.Context, id, text string) (Attempt, error)
}
