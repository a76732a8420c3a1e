package main

import (
	"os"
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

// TestSessionsShowPager: on a terminal, sessions show goes through the
// pager ($LORE_PAGER, else $PAGER), as git log does; to a pipe, straight
// out; a pager of cat is none.
func TestSessionsShowPager(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := fixtures(t)
	file := filepath.Join(dir, "v1_sidechain.jsonl")
	plain := runLore(t, "", "sessions", "show", file)
	paged := filepath.Join(t.TempDir(), "paged.txt")
	tty := func(f *factory) { f.IO.SetStdoutTTY(true) }
	r := runIn(t, testEnv(t.TempDir(), map[string]string{"PAGER": "cat > " + paged}), "", tty, "sessions", "show", file)
	got, _ := os.ReadFile(paged)
	if r.code != 0 || r.stdout != "" || string(got) != plain.stdout || plain.stdout == "" {
		t.Errorf("through the pager: exit %d, stdout %d bytes, the pager got %d bytes of %d", r.code, len(r.stdout), len(got), len(plain.stdout))
	}
	r = runIn(t, testEnv(t.TempDir(), map[string]string{"PAGER": "cat > " + paged, "LORE_PAGER": "cat"}), "", tty, "sessions", "show", file)
	if r.code != 0 || r.stdout != plain.stdout {
		t.Errorf("LORE_PAGER=cat: exit %d, %d bytes straight out, want %d", r.code, len(r.stdout), len(plain.stdout))
	}
}
