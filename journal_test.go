package lore

import (
	"strings"
	"testing"
	"time"
)

// TestPrepareAttemptHugeDiff: a 50 MB diff is cut to MaxAttemptDiff,
// reading little more of it, and the cut is said.
func TestPrepareAttemptHugeDiff(t *testing.T) {
	diff := strings.Repeat("+"+strings.Repeat("y", 63)+"\n", 50<<20/64)
	begin := time.Now()
	a, err := PrepareAttempt(Attempt{Task: "vendor everything", Diff: diff}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Diff) > MaxAttemptDiff || a.DiffCut != len(diff)-len(a.Diff) || !strings.HasSuffix(a.Diff, "\n") {
		t.Errorf("kept %d bytes, cut %d, of %d", len(a.Diff), a.DiffCut, len(diff))
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("preparing took %v: the whole diff was read", d)
	}
}

func TestCleanFiles(t *testing.T) {
	got := CleanFiles([]string{" ./b.go", `dir\a.go`, "b.go", "", ".", "./././c.go"})
	if strings.Join(got, ",") != "b.go,c.go,dir/a.go" {
		t.Errorf("CleanFiles = %q", got)
	}
}

// TestAttemptKey: the same attempt of a session has one key whenever it
// is logged; one logged by hand (no session) has its time in its key.
func TestAttemptKey(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	a := Attempt{Repo: "r", Session: "s", Task: "t", Files: []string{"a"}, At: at}
	b := a
	b.At, b.Outcome = at.Add(time.Hour), AttemptFailure
	if AttemptKey(a) != AttemptKey(b) {
		t.Errorf("a session's attempt logged again has another key")
	}
	a.Session, b.Session = "", ""
	if AttemptKey(a) == AttemptKey(b) {
		t.Errorf("two attempts by hand at different times share a key")
	}
	if len(AttemptID(a)) != idLen || !strings.HasPrefix(LongAttemptID(a), AttemptID(a)) {
		t.Errorf("ids %s, %s", AttemptID(a), LongAttemptID(a))
	}
}
