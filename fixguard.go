package lore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// FixGuard is a regression guard mined from one fix commit of a
// repository: what the fix changed that carries it (its lines, without
// whitespace, imports, comments, formatting, version bumps, generated
// files and lockfiles), the tests it added or changed, its files and its
// message. lore guard check fails when the lines are gone from a tree and
// were not moved, or a test the fix added was deleted or skipped.
type FixGuard struct {
	Repo    string    `json:"repo"`   // the repository's identity, as an item's Repo
	Commit  string    `json:"commit"` // the fix, 40 hex digits
	Parent  string    `json:"parent"` // its first parent; "" for a root commit
	At      time.Time `json:"at"`     // the author's time
	Subject string    `json:"subject"`
	Message string    `json:"message"` // the whole message
	// Why says what made the commit a fix: "fix:", "fixes #N", "bug",
	// "regression", "hotfix", "Fixes: trailer", "revert of a breaking
	// commit", "reapplied after a revert".
	Why   string      `json:"why"`
	Files []string    `json:"files"` // every file it changed, sorted
	Lines []GuardLine `json:"lines"` // the lines that carry the fix
	Tests []GuardTest `json:"tests"` // the tests it added or changed
	// Removed are the lines the fix took out of code files: a later fix
	// that takes out an earlier fix's line supersedes it there.
	Removed []GuardLine `json:"removed,omitempty"`
	// Created are the files the fix created. A fix's line or test in a
	// file it did not create is retired with that file when the file is
	// deleted (its code removed with it); deleting a file the fix created
	// undoes the fix.
	Created []string `json:"created,omitempty"`
	// Broad is set for a commit that changed too much to guard line by
	// line (its tests are still guarded).
	Broad bool `json:"broad,omitempty"`
	// Proof is what lore guard test found (ProofProven …); "" untested.
	Proof    string    `json:"proof,omitempty"`
	ProofCmd string    `json:"proof_cmd,omitempty"`
	ProofAt  time.Time `json:"proof_at,omitzero"`
}

// GuardLine is one line a fix added to a file, as written.
type GuardLine struct {
	File string `json:"file"`
	Text string `json:"text"`
}

// GuardTest is a test a fix added (Added) or changed, by the name it is
// defined with in its file.
type GuardTest struct {
	File  string `json:"file"`
	Name  string `json:"name"`
	Added bool   `json:"added"`
	// Skips is set when the fix itself wrote a skip into the test (a
	// t.Skip under a condition): a skip found later is then not an undoing.
	Skips bool `json:"skips,omitempty"`
	// Body holds lines of the test's code as the fix wrote it: a test
	// whose name is gone but whose body is found was renamed, not
	// deleted.
	Body []string `json:"body,omitempty"`
}

// The results of proving a guard (lore guard test).
const (
	ProofProven    = "proven"     // the test fails on the fix's parent and passes on the fix
	ProofNotProven = "not proven" // it does not
	ProofNoTest    = "no test"    // the fix added no test and no command was given
)

// ShortCommit is the first 12 hex digits of a commit.
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// FixGuards keeps a repository's guards. The SQLite store keeps them
// beside its knowledge; internal/storetest checks every implementation:
//
//   - SaveGuards stores guards by repository and commit; a guard saved
//     again replaces the stored one but keeps its proof when the new one
//     has none (a scan run again does not undo lore guard test).
//   - Guards returns a repository's guards, oldest fix first.
//   - SetProof records the proof of one guard; the commit may be given
//     as a unique prefix.
type FixGuards interface {
	SaveGuards(ctx context.Context, gs []FixGuard) error
	Guards(ctx context.Context, repo string) ([]FixGuard, error)
	SetProof(ctx context.Context, repo, commit, proof, cmd string, at time.Time) (FixGuard, error)
}

// TagGuard marks the items guards taught.
const TagGuard = "guard"

// GuardPitfall is the candidate pitfall a fix teaches: that its files
// carry the fix of commit C with its subject, scoped to the repository,
// its files as tags and the commit as evidence ("git:SHA"), screened as
// a journal's lesson is (a commit message is anybody's text): an
// instruction to an agent teaches nothing (false), an order is held.
func GuardPitfall(g FixGuard) (Item, bool) {
	files := guardedFiles(g)
	if len(files) == 0 || strings.TrimSpace(g.Subject) == "" {
		return Item{}, false
	}
	shown := files
	if len(shown) > 3 {
		shown = shown[:3]
	}
	quoted := make([]string, len(shown))
	for i, f := range shown {
		quoted[i] = "`" + f + "`"
	}
	more := ""
	if len(files) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	verb := "carries"
	if len(files) > 1 {
		verb = "carry"
	}
	text := lessonText(fmt.Sprintf("%s%s %s the fix %s %q: undoing it brings the bug back (lore guard check)",
		strings.Join(quoted, ", "), more, verb, ShortCommit(g.Commit), oneLineText(g.Subject, 100)))
	it := Item{Text: text, Category: CategoryPitfall, Repo: g.Repo, Confidence: lessonConfidence,
		Status: StatusCandidate, FirstSeen: g.At, Tags: append([]string{TagGuard}, files...)}
	it.Redact()
	instruction, hold, order := Screen(it.Text)
	if instruction {
		return Item{}, false
	}
	if hold || order {
		it.Confidence = heldLesson
		it.MarkHeld()
	}
	it.Evidence = []Evidence{{Session: "git:" + g.Commit}}
	it.Tags = slices.Compact(it.Tags)
	return it, true
}

// guardedFiles are the files whose lines or tests a guard keeps, sorted.
func guardedFiles(g FixGuard) []string {
	var fs []string
	for _, l := range g.Lines {
		fs = append(fs, l.File)
	}
	for _, t := range g.Tests {
		fs = append(fs, t.File)
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// AddGuardPitfalls adds to st the pitfalls of guards (GuardPitfall), where
// the store merges them by its rules.
func AddGuardPitfalls(ctx context.Context, st adder, gs ...FixGuard) ([]AddResult, error) {
	return addTaught(ctx, st, "guard pitfalls", gs, GuardPitfall)
}

// PrepareGuard checks a guard a caller wants stored and brings it into
// the form every store keeps: its commit in lower case, its time as
// stores keep times. A guard without a repository or a full commit id is
// EINVALID.
func PrepareGuard(g FixGuard) (FixGuard, error) {
	if g.Repo == "" || !ValidCommit(g.Commit) {
		return g, Errorf(EINVALID, "a guard needs a repository and a commit (40 hex digits), not %q %q", g.Repo, g.Commit)
	}
	g.Commit, g.At = strings.ToLower(g.Commit), StoreTime(g.At)
	return g, nil
}

// OneGuard returns the one guard of gs, the guards of repo whose commit
// starts with commit: none is ENOTFOUND, several EINVALID.
func OneGuard(gs []FixGuard, repo, commit string) (FixGuard, error) {
	switch {
	case len(gs) == 0:
		return FixGuard{}, Errorf(ENOTFOUND, "no guard of commit %s in %s: run lore guard scan", commit, repo)
	case len(gs) > 1:
		return FixGuard{}, Errorf(EINVALID, "%s is the start of several fixes' commits: give more of it", commit)
	}
	return gs[0], nil
}

// ValidCommit reports whether c is a commit's full id: 40 hex digits,
// of either case.
func ValidCommit(c string) bool { return len(c) == 40 && IsHex(strings.ToLower(c)) }

// ValidCommitPrefix reports whether c may start a commit's id: 4 or more
// lower-case hex digits.
func ValidCommitPrefix(c string) bool { return len(c) >= 4 && IsHex(c) }

// IsHex reports whether s is lower-case hex digits, and not empty
// (commits' and tokens' ids as stores keep them).
func IsHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
