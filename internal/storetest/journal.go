package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// JournalOpener returns a new, empty journal that reads the time from
// now.
type JournalOpener func(t *testing.T, now func() time.Time) lore.Journal

// RunJournal is the conformance suite of the journal (lore.Journal): what
// is refused, redacted, cut, replaced, found and in which order.
func RunJournal(t *testing.T, open JournalOpener) {
	tests := []struct {
		name string
		fn   func(*testing.T, lore.Journal)
	}{
		{"LogAndRead", testJournalLog},
		{"Validation", testJournalValidation},
		{"Redaction", testJournalRedaction},
		{"Cuts", testJournalCuts},
		{"Replace", testJournalReplace},
		{"IDPrefix", testJournalPrefix},
		{"Parent", testJournalParent},
		{"SimilarByText", testJournalSimilarText},
		{"SimilarByFiles", testJournalSimilarFiles},
		{"SimilarRecency", testJournalSimilarRecency},
		{"SimilarFilters", testJournalSimilarFilters},
		{"SimilarCommonWords", testJournalSimilarCommon},
		{"Filters", testJournalFilters},
		{"Reflect", testJournalReflect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: start}
			tt.fn(t, open(t, c.now))
		})
	}
}

// journalToken is a GitHub token of the classic form: the redactor knows
// its shape.
const journalToken = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"

var jAt = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func logged(t *testing.T, j lore.Journal, as ...lore.Attempt) []lore.Attempt {
	t.Helper()
	out, err := j.LogAttempts(context.Background(), as)
	if err != nil {
		t.Fatalf("LogAttempts: %v", err)
	}
	if len(out) != len(as) {
		t.Fatalf("LogAttempts returned %d attempts for %d", len(out), len(as))
	}
	return out
}

func attempt(t *testing.T, j lore.Journal, id string) lore.Attempt {
	t.Helper()
	a, err := j.Attempt(context.Background(), id)
	if err != nil {
		t.Fatalf("Attempt(%s): %v", id, err)
	}
	return a
}

func allAttempts(t *testing.T, j lore.Journal, f lore.AttemptFilter) []lore.Attempt {
	t.Helper()
	var out []lore.Attempt
	if err := j.Attempts(context.Background(), f, func(a lore.Attempt) error {
		out = append(out, a)
		return nil
	}); err != nil {
		t.Fatalf("Attempts: %v", err)
	}
	return out
}

func similar(t *testing.T, j lore.Journal, q lore.AttemptQuery) []lore.AttemptHit {
	t.Helper()
	hits, err := j.SimilarAttempts(context.Background(), q)
	if err != nil {
		t.Fatalf("SimilarAttempts: %v", err)
	}
	return hits
}

func tasksOf[T lore.Attempt | lore.AttemptHit](as []T) string {
	var ts []string
	for _, a := range as {
		switch a := any(a).(type) {
		case lore.Attempt:
			ts = append(ts, a.Task)
		case lore.AttemptHit:
			ts = append(ts, a.Task)
		}
	}
	return strings.Join(ts, " | ")
}

func testJournalLog(t *testing.T, j lore.Journal) {
	before, after := 12.5, 14.0
	in := lore.Attempt{At: jAt, Repo: "acme/api", Agent: "claude-code", Session: "s1", Task: "  Make the retry loop back off  ",
		Approach: "exponential backoff in client.go", Area: "net", Files: []string{"./client.go", "client.go", "b/retry.go"},
		Diff: "--- a/client.go\n+++ b/client.go\n@@ -1 +1 @@\n-x\n+y\n", Tests: "ok  \tacme/api\t0.2s", Outcome: "Failure",
		Analysis: "the server closes idle connections", Retries: 2, PointsBefore: &before, PointsAfter: &after, Tags: []string{"Net", "net"}}
	got := logged(t, j, in)[0]
	if got.ID == "" || !lore.ValidIDPrefix(got.ID) {
		t.Fatalf("id %q", got.ID)
	}
	want := in
	want.ID, want.Task, want.Outcome, want.Files, want.Tags = got.ID, "Make the retry loop back off", lore.AttemptFailure,
		[]string{"b/retry.go", "client.go"}, []string{"net"}
	for name, a := range map[string]lore.Attempt{"logged": got, "read": attempt(t, j, got.ID)} {
		if d := diffAttempt(a, want); d != "" {
			t.Errorf("%s attempt: %s", name, d)
		}
	}
	listed := allAttempts(t, j, lore.AttemptFilter{})
	if len(listed) != 1 || listed[0].Diff != "" || listed[0].Tests != "" || listed[0].Task != want.Task {
		t.Errorf("Attempts without WithDiff = %+v, want the attempt without its diff and tests", listed)
	}
	if listed := allAttempts(t, j, lore.AttemptFilter{WithDiff: true}); len(listed) != 1 || listed[0].Diff != in.Diff || listed[0].Tests != in.Tests {
		t.Errorf("Attempts with WithDiff lost the diff or tests: %+v", listed)
	}
	if hits := similar(t, j, lore.AttemptQuery{Text: "retry loop"}); len(hits) != 1 || hits[0].Diff != "" || hits[0].DiffCut != 0 {
		t.Errorf("similar: %+v, want the attempt without its diff", hits)
	}
	// An attempt without a time or an outcome is now and pending.
	now := logged(t, j, lore.Attempt{Task: "tidy imports"})[0]
	if !now.At.Equal(start) || now.Outcome != lore.AttemptPending {
		t.Errorf("defaults: at %v outcome %q, want %v pending", now.At, now.Outcome, start)
	}
}

// diffAttempt says how a differs from want, or "".
func diffAttempt(a, want lore.Attempt) string {
	var d []string
	check := func(name string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			d = append(d, fmt.Sprintf("%s = %v, want %v", name, got, want))
		}
	}
	check("id", a.ID, want.ID)
	check("at", a.At.UTC(), want.At.UTC())
	check("repo", a.Repo, want.Repo)
	check("agent", a.Agent, want.Agent)
	check("session", a.Session, want.Session)
	check("task", a.Task, want.Task)
	check("approach", a.Approach, want.Approach)
	check("area", a.Area, want.Area)
	check("files", a.Files, want.Files)
	check("diff", a.Diff, want.Diff)
	check("diff cut", a.DiffCut, want.DiffCut)
	check("tests", a.Tests, want.Tests)
	check("outcome", a.Outcome, want.Outcome)
	check("analysis", a.Analysis, want.Analysis)
	check("reflection", a.Reflection, want.Reflection)
	check("retries", a.Retries, want.Retries)
	check("tags", a.Tags, want.Tags)
	points := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprint(*p)
	}
	check("points before", points(a.PointsBefore), points(want.PointsBefore))
	check("points after", points(a.PointsAfter), points(want.PointsAfter))
	return strings.Join(d, "; ")
}

func testJournalValidation(t *testing.T, j lore.Journal) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		a    lore.Attempt
		want string
	}{
		{"no task", lore.Attempt{Task: "  \n", Outcome: "success"}, "task"},
		{"unknown outcome", lore.Attempt{Task: "x", Outcome: "worked"}, "worked"},
		{"negative retries", lore.Attempt{Task: "x", Retries: -1}, "negative"},
		{"bad parent", lore.Attempt{Task: "x", Parent: "not an id"}, "parent"},
	} {
		// The good attempt before the bad one is not written either.
		_, err := j.LogAttempts(ctx, []lore.Attempt{{Task: "good " + tt.name, Outcome: "success"}, tt.a})
		if lore.ErrorCode(err) != lore.EINVALID || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want an invalid error naming %q", tt.name, err, tt.want)
		}
	}
	if as := allAttempts(t, j, lore.AttemptFilter{}); len(as) != 0 {
		t.Errorf("a refused batch wrote %d attempts: %s", len(as), tasksOf(as))
	}
	// An unknown parent is found out in the write, which then writes
	// nothing either.
	_, err := j.LogAttempts(ctx, []lore.Attempt{{Task: "first"}, {Task: "retry", Parent: "abcdef"}})
	if lore.ErrorCode(err) != lore.ENOTFOUND {
		t.Errorf("unknown parent: err = %v, want not found", err)
	}
	if as := allAttempts(t, j, lore.AttemptFilter{}); len(as) != 0 {
		t.Errorf("a failed write kept %d attempts: %s", len(as), tasksOf(as))
	}
}

func testJournalRedaction(t *testing.T, j lore.Journal) {
	a := logged(t, j, lore.Attempt{Task: "push with " + journalToken, Approach: "GH_TOKEN=" + journalToken,
		Files: []string{"secrets/" + journalToken + ".txt"}, Diff: "+token = \"" + journalToken + "\"\n",
		Tests: "auth failed for " + journalToken, Analysis: journalToken, Tags: []string{journalToken}, Outcome: "failure"})[0]
	got := []lore.Attempt{a, attempt(t, j, a.ID)}
	got = append(got, allAttempts(t, j, lore.AttemptFilter{WithDiff: true})...)
	for _, h := range similar(t, j, lore.AttemptQuery{Text: "push"}) {
		got = append(got, h.Attempt)
	}
	if len(got) != 4 {
		t.Fatalf("found the attempt %d times, want 4", len(got))
	}
	for _, a := range got {
		if s := fmt.Sprintf("%+v", a); strings.Contains(s, journalToken) || strings.Contains(s, journalToken[4:20]) {
			t.Errorf("secret stored: %s", s)
		}
		if !strings.Contains(a.Task, "[REDACTED") {
			t.Errorf("task %q does not say what was redacted", a.Task)
		}
	}
	r, err := j.Reflect(context.Background(), a.ID, "rotate "+journalToken)
	if err != nil || strings.Contains(r.Reflection, journalToken) || attempt(t, j, a.ID).Reflection != r.Reflection {
		t.Errorf("Reflect kept the secret: %q, %v", r.Reflection, err)
	}
}

func testJournalCuts(t *testing.T, j lore.Journal) {
	line := "+" + strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 3*lore.MaxAttemptDiff/len(line))
	tests := strings.Repeat("=== RUN TestSomething\n", 3*lore.MaxAttemptTests/22) + "FAIL\tacme/api\t1.2s"
	a := logged(t, j, lore.Attempt{Task: "big change", Diff: big, Tests: tests})[0]
	for _, a := range []lore.Attempt{a, attempt(t, j, a.ID)} {
		if len(a.Diff) > lore.MaxAttemptDiff || len(a.Diff) < lore.MaxAttemptDiff*3/4 {
			t.Errorf("diff of %d bytes kept %d, want at most %d and most of it", len(big), len(a.Diff), lore.MaxAttemptDiff)
		}
		if !strings.HasPrefix(big, a.Diff) || !strings.HasSuffix(a.Diff, "\n") {
			t.Errorf("the diff was not cut at a line's end")
		}
		if a.DiffCut != len(big)-len(a.Diff) {
			t.Errorf("DiffCut = %d, want %d", a.DiffCut, len(big)-len(a.Diff))
		}
		if len(a.Tests) > lore.MaxAttemptTests || !strings.HasSuffix(a.Tests, "FAIL\tacme/api\t1.2s") || !strings.HasPrefix(a.Tests, "=== RUN") {
			t.Errorf("tests kept %d bytes (%.20q…%.20q), want the last whole lines within %d", len(a.Tests), a.Tests,
				a.Tests[max(0, len(a.Tests)-20):], lore.MaxAttemptTests)
		}
	}
	small := logged(t, j, lore.Attempt{Task: "small change", Diff: line})[0]
	if small.Diff != line || small.DiffCut != 0 {
		t.Errorf("a small diff was changed: %q, cut %d", small.Diff, small.DiffCut)
	}
}

func testJournalReplace(t *testing.T, j lore.Journal) {
	a := lore.Attempt{Repo: "acme/api", Session: "s1", Task: "fix the flaky test", Files: []string{"x_test.go"}, Outcome: "pending"}
	first := logged(t, j, a)[0]
	a.Outcome, a.Analysis = "failure", "the test depends on the clock"
	second := logged(t, j, a)[0]
	if second.ID != first.ID {
		t.Errorf("the same attempt logged again has id %s, want %s", second.ID, first.ID)
	}
	as := allAttempts(t, j, lore.AttemptFilter{})
	if len(as) != 1 || as[0].Outcome != lore.AttemptFailure || as[0].Analysis != a.Analysis {
		t.Errorf("after logging again: %+v, want the one attempt, replaced", as)
	}
	if hits := similar(t, j, lore.AttemptQuery{Text: "clock"}); len(hits) != 1 {
		t.Errorf("the replaced attempt's text is not searched: %d hits", len(hits))
	}
	// A reflection given later stays when the attempt is logged again
	// without one (an import reading the grown transcript); a new one
	// replaces it.
	if _, err := j.Reflect(context.Background(), first.ID, "freeze the clock in tests"); err != nil {
		t.Fatal(err)
	}
	again := a
	again.Analysis = ""
	if got := logged(t, j, again)[0]; got.Reflection != "freeze the clock in tests" || got.Analysis != a.Analysis {
		t.Errorf("logged again without them: reflection %q, analysis %q; want the stored ones", got.Reflection, got.Analysis)
	}
	again.Reflection = "inject the clock"
	if got := logged(t, j, again)[0]; got.Reflection != "inject the clock" {
		t.Errorf("logged again with a reflection: %q", got.Reflection)
	}
	// Another session's, or one of no session at another time, is another
	// attempt.
	a.Session = "s2"
	logged(t, j, a)
	a.Session = ""
	a.At = jAt
	logged(t, j, a)
	a.At = jAt.Add(time.Minute)
	logged(t, j, a)
	if as := allAttempts(t, j, lore.AttemptFilter{}); len(as) != 4 {
		t.Errorf("%d attempts, want 4", len(as))
	}
}

func testJournalPrefix(t *testing.T, j lore.Journal) {
	ctx := context.Background()
	var as []lore.Attempt
	for i := range 40 {
		as = append(as, lore.Attempt{Task: fmt.Sprintf("task %d", i)})
	}
	as = logged(t, j, as...)
	byStart := map[string][]string{}
	for _, a := range as {
		byStart[a.ID[:4]] = append(byStart[a.ID[:4]], a.ID)
		if got := attempt(t, j, a.ID[:8]); got.ID != a.ID {
			t.Errorf("Attempt(%s) = %s, want %s", a.ID[:8], got.ID, a.ID)
		}
	}
	if _, err := j.Attempt(ctx, "ffffffffffff"); lore.ErrorCode(err) != lore.ENOTFOUND {
		t.Errorf("unknown id: %v, want not found", err)
	}
	if _, err := j.Attempt(ctx, "xyz"); lore.ErrorCode(err) != lore.EINVALID {
		t.Errorf("malformed id: %v, want invalid", err)
	}
	// 40 ids over 65536 four-digit starts rarely share one; the check
	// holds when they do.
	for start, ids := range byStart {
		if len(ids) > 1 {
			if _, err := j.Attempt(ctx, start); lore.ErrorCode(err) != lore.EINVALID {
				t.Errorf("ambiguous prefix %s: %v, want invalid", start, err)
			}
		}
	}
}

func testJournalParent(t *testing.T, j lore.Journal) {
	first := logged(t, j, lore.Attempt{Task: "speed up the build", Outcome: "failure"})[0]
	retry := logged(t, j, lore.Attempt{Task: "speed up the build, again", Parent: first.ID[:6], Retries: 1})[0]
	if retry.Parent != first.ID || attempt(t, j, retry.ID).Parent != first.ID {
		t.Errorf("parent %q, want %q", retry.Parent, first.ID)
	}
}

func testJournalSimilarText(t *testing.T, j lore.Journal) {
	logged(t, j,
		lore.Attempt{At: jAt, Task: "add pagination to the users endpoint", Outcome: "success"},
		lore.Attempt{At: jAt, Task: "fix the login redirect", Approach: "cookie path", Outcome: "failure",
			Analysis: "the session cookie was scoped to /api"},
		lore.Attempt{At: jAt, Task: "refactor the database pool", Outcome: "success"},
	)
	hits := similar(t, j, lore.AttemptQuery{Text: "login redirect loops after the cookie change"})
	if len(hits) == 0 || hits[0].Task != "fix the login redirect" {
		t.Fatalf("hits = %s, want the login attempt first", tasksOf(hits))
	}
	if hits[0].Lesson() != "the session cookie was scoped to /api" || hits[0].Score <= 0 {
		t.Errorf("hit %+v lacks its lesson or score", hits[0])
	}
	for _, h := range hits {
		if h.Task == "refactor the database pool" {
			t.Errorf("an attempt sharing no word was returned: %s", tasksOf(hits))
		}
	}
	if hits := similar(t, j, lore.AttemptQuery{Text: "session cookie scoped"}); len(hits) == 0 || hits[0].Task != "fix the login redirect" {
		t.Errorf("analysis not searched: %s", tasksOf(hits))
	}
}

func testJournalSimilarFiles(t *testing.T, j lore.Journal) {
	// Of two attempts with the same words, the one that touched the
	// query's files comes first; a file every attempt touched counts
	// for less than a rare one.
	var as []lore.Attempt
	for i := range 8 {
		as = append(as, lore.Attempt{At: jAt, Task: fmt.Sprintf("bump version %d", i), Files: []string{"CHANGELOG.md"}})
	}
	as = append(as,
		lore.Attempt{At: jAt, Task: "handle timeouts in the client", Files: []string{"CHANGELOG.md", "net/client.go"}},
		lore.Attempt{At: jAt, Task: "handle timeouts in the server", Files: []string{"CHANGELOG.md", "net/server.go"}},
		lore.Attempt{At: jAt, Task: "unrelated words entirely", Files: []string{"net/client.go"}},
	)
	logged(t, j, as...)
	hits := similar(t, j, lore.AttemptQuery{Text: "handle timeouts", Files: []string{"./net/client.go", "CHANGELOG.md"}, Limit: 3})
	if got := tasksOf(hits); !strings.HasPrefix(got, "handle timeouts in the client | ") {
		t.Fatalf("hits = %s, want the attempt with the words and the files first", got)
	}
	if got := fmt.Sprint(hits[0].SharedFiles); got != "[CHANGELOG.md net/client.go]" {
		t.Errorf("shared files %s", got)
	}
	// Files alone find attempts, the rare file first.
	hits = similar(t, j, lore.AttemptQuery{Files: []string{"net/client.go", "CHANGELOG.md"}, Limit: 3})
	if len(hits) < 2 || hits[0].Task != "handle timeouts in the client" || hits[1].Task != "unrelated words entirely" {
		t.Errorf("by files: %s, want the two attempts on net/client.go first", tasksOf(hits))
	}
}

func testJournalSimilarRecency(t *testing.T, j lore.Journal) {
	logged(t, j,
		lore.Attempt{At: jAt.AddDate(0, -6, 0), Task: "upgrade the linter", Outcome: "failure"},
		lore.Attempt{At: jAt, Task: "upgrade the linter config", Outcome: "success"},
	)
	hits := similar(t, j, lore.AttemptQuery{Text: "upgrade linter"})
	if len(hits) != 2 || hits[0].Task != "upgrade the linter config" {
		t.Errorf("hits = %s, want the recent attempt first", tasksOf(hits))
	}
}

func testJournalSimilarFilters(t *testing.T, j lore.Journal) {
	logged(t, j,
		lore.Attempt{At: jAt, Repo: "acme/api", Task: "cache the token", Outcome: "failure"},
		lore.Attempt{At: jAt.AddDate(0, 0, -10), Repo: "acme/api", Task: "cache the token lookups", Outcome: "success"},
		lore.Attempt{At: jAt, Repo: "acme/web", Task: "cache the token in the browser", Outcome: "failure"},
	)
	for _, tt := range []struct {
		q    lore.AttemptQuery
		want string
	}{
		{lore.AttemptQuery{Text: "cache token", Repo: "ACME/api", Outcome: "failure"}, "cache the token"},
		{lore.AttemptQuery{Text: "cache token", Repo: "acme/api", Since: jAt.AddDate(0, 0, -1)}, "cache the token"},
		{lore.AttemptQuery{Text: "cache token", Outcome: "success"}, "cache the token lookups"},
		{lore.AttemptQuery{Text: "cache token", Limit: 1, Repo: "acme/web"}, "cache the token in the browser"},
	} {
		if got := tasksOf(similar(t, j, tt.q)); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.q, got, tt.want)
		}
	}
}

func testJournalFilters(t *testing.T, j lore.Journal) {
	logged(t, j,
		lore.Attempt{At: jAt.AddDate(0, 0, -2), Repo: "acme/api", Task: "a", Files: []string{"x.go"}, Outcome: "failure"},
		lore.Attempt{At: jAt, Repo: "acme/api", Task: "b", Files: []string{"x.go", "y.go"}, Outcome: "success"},
		lore.Attempt{At: jAt.AddDate(0, 0, -1), Repo: "acme/web", Task: "c", Files: []string{"x.go"}, Outcome: "rollback"},
	)
	for _, tt := range []struct {
		f    lore.AttemptFilter
		want string
	}{
		{lore.AttemptFilter{}, "b | c | a"},
		{lore.AttemptFilter{Repo: "acme/api"}, "b | a"},
		{lore.AttemptFilter{Outcome: "rollback"}, "c"},
		{lore.AttemptFilter{File: "x.go"}, "b | c | a"},
		{lore.AttemptFilter{File: "y.go"}, "b"},
		{lore.AttemptFilter{File: "z.go"}, ""},
		{lore.AttemptFilter{Since: jAt.AddDate(0, 0, -1)}, "b | c"},
	} {
		if got := tasksOf(allAttempts(t, j, tt.f)); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.f, got, tt.want)
		}
	}
	stop := errors.New("stop")
	var n int
	err := j.Attempts(context.Background(), lore.AttemptFilter{}, func(lore.Attempt) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("an error of fn: %v after %d calls, want it after 1", err, n)
	}
}

func testJournalReflect(t *testing.T, j lore.Journal) {
	a := logged(t, j, lore.Attempt{Task: "make the cache thread-safe", Outcome: "failure", Analysis: "deadlock"})[0]
	r, err := j.Reflect(context.Background(), a.ID[:6], "  take the locks in one order  ")
	if err != nil {
		t.Fatal(err)
	}
	if r.Reflection != "take the locks in one order" || r.Lesson() != r.Reflection || r.Analysis != "deadlock" {
		t.Errorf("after Reflect: %+v", r)
	}
	if hits := similar(t, j, lore.AttemptQuery{Text: "locks order"}); len(hits) != 1 || hits[0].ID != a.ID {
		t.Errorf("the reflection is not searched: %s", tasksOf(hits))
	}
	if _, err := j.Reflect(context.Background(), "ffffffffffff", "x"); lore.ErrorCode(err) != lore.ENOTFOUND {
		t.Errorf("Reflect of an unknown id: %v", err)
	}
}

// testJournalSimilarCommon: in a journal where a word is in thousands of
// attempts (more than the SQLite store's bm25 is given to read), a rare
// word still finds the oldest attempt that holds it, and a query of
// common words only still finds attempts.
func testJournalSimilarCommon(t *testing.T, j lore.Journal) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	as := []lore.Attempt{{At: at, Task: "update the frobnicator", Outcome: "failure"}}
	for i := range 3000 {
		as = append(as, lore.Attempt{At: at.Add(time.Duration(i+1) * time.Minute), Task: fmt.Sprintf("update the widget %d", i), Outcome: "success"})
	}
	logged(t, j, as...)
	if hits := similar(t, j, lore.AttemptQuery{Text: "update frobnicator"}); len(hits) == 0 || hits[0].Task != "update the frobnicator" {
		t.Errorf("rare word: %s", tasksOf(hits))
	}
	if hits := similar(t, j, lore.AttemptQuery{Text: "update widget", Limit: 3}); len(hits) != 3 || !strings.HasPrefix(hits[0].Task, "update the widget") {
		t.Errorf("common words: %s", tasksOf(hits))
	}
}
