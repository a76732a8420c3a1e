package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionsShowMissingPath: a path that is not there is said to be
// missing, in one line with exit 1, not taken for a session id that no
// session has.
func TestSessionsShowMissingPath(t *testing.T) {
	home := t.TempDir()
	for _, arg := range []string{filepath.Join(home, "gone", "x.jsonl"), "gone.jsonl", "./gone"} {
		r := runLore(t, home, "sessions", "show", arg)
		if r.code != 1 || !strings.Contains(r.err, "no such file") || strings.Contains(r.err, "No agent sessions") || strings.Count(r.err, "\n") != 1 {
			t.Errorf("sessions show %s: exit %d, stderr %q; want 1 and one line saying it is not there", arg, r.code, r.err)
		}
	}
	if r := runLore(t, home, "sessions", "show", "claude-code:1af7fc5e"); strings.Contains(r.err, "no such file") {
		t.Errorf("a session id taken for a path: %q", r.err)
	}
}
