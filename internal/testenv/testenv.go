// Package testenv says which of lore's tests a run includes: the long ones
// (issue-size databases, kill loops, other processes) run only when
// LORE_TEST_SLOW=1, which .ci/run sets, so go test ./... stays quick.
package testenv

import (
	"os"
	"os/exec"
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

// BrowserEnv names the Chromium binary the browser tests drive; .ci/run
// sets it when one is installed.
const BrowserEnv = "LORE_TEST_BROWSER"

// Browser returns the path of a headless-capable Chromium: the one
// LORE_TEST_BROWSER names (a missing one fails the test rather than
// skip it), else chromium, chromium-browser or google-chrome on PATH.
// Without one, or in -short mode, it skips the test.
func Browser(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if name := os.Getenv(BrowserEnv); name != "" {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s=%s: %v", BrowserEnv, name, err)
		}
		return path
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no chromium, chromium-browser or google-chrome on PATH (apt-get install chromium); browser test skipped")
	return ""
}
