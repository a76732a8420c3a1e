// Package testenv says which of lore's tests a run includes: the long ones
// (issue-size databases, kill loops, other processes) run only when
// LORE_TEST_SLOW=1, which .ci/run sets, so go test ./... stays quick.
package testenv

import (
	"os"
	"testing"
)

// SlowEnv is the variable that turns the long tests on.
const SlowEnv = "LORE_TEST_SLOW"

// Slow reports whether the long tests run: LORE_TEST_SLOW=1 and not -short.
func Slow() bool { return os.Getenv(SlowEnv) == "1" && !testing.Short() }

// SkipUnlessSlow skips t, saying why and how to run it, unless the long
// tests run.
func SkipUnlessSlow(t testing.TB, what string) {
	t.Helper()
	if !Slow() {
		t.Skipf("%s: a long test; set %s=1 to run it", what, SlowEnv)
	}
}
