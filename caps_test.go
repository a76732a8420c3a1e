package lore

import (
	"strings"
	"testing"
	"time"
)

// TestPrepareRefusesLongText: a 10 MB text is refused, not stored; the
// longest text allowed is kept whole.
func TestPrepareRefusesLongText(t *testing.T) {
	for _, c := range []struct {
		n  int
		ok bool
	}{{MaxText, true}, {MaxText + 1, false}, {10 << 20, false}} {
		_, err := Prepare(Item{Text: strings.Repeat("a", c.n), Category: CategoryFact}, time.Now())
		if (err == nil) != c.ok || err != nil && ErrorCode(err) != EINVALID {
			t.Errorf("%d bytes: %v, want ok=%t", c.n, err, c.ok)
		}
	}
}

// TestPrepareBootCutsTask: a boot's task is kept to MaxTask bytes, with
// no part of a secret at the cut.
func TestPrepareBootCutsTask(t *testing.T) {
	long := strings.Repeat("word ", 2<<20)
	if got := PrepareBoot(Boot{Task: long}).Task; len(got) > MaxTask || !strings.HasPrefix(long, got) || len(got) < MaxTask-10 {
		t.Errorf("a 10 MB task kept %d bytes, want at most %d, a prefix", len(got), MaxTask)
	}
	// A token across the cut is redacted whole, never kept in part.
	task := strings.Repeat("x", MaxTask-20) + " " + testToken + " more"
	if got := PrepareBoot(Boot{Task: task}).Task; strings.Contains(got, testToken[:8]) {
		t.Errorf("part of a token kept at the cut: %q", got[len(got)-40:])
	}
	if got := PrepareBoot(Boot{Task: "fix the flaky test"}).Task; got != "fix the flaky test" {
		t.Errorf("a short task became %q", got)
	}
}
