package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/iostreams"
)

func TestPruneFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want pruneRunOptions
	}{
		{nil, pruneRunOptions{LeakAfter: 7 * 24 * time.Hour, ArchiveAfter: 30 * 24 * time.Hour}},
		{[]string{"--db", "/x/state.db", "--dry-run", "--leak-after", "2d", "--archive-after", "2w", "--max-sessions", "500",
			"--archive", "/y/a.db", "--no-vacuum", "--no-backup", "--json"},
			pruneRunOptions{DB: "/x/state.db", DryRun: true, LeakAfter: 48 * time.Hour, ArchiveAfter: 14 * 24 * time.Hour, MaxSessions: 500,
				Archive: "/y/a.db", NoVacuum: true, NoBackup: true, JSON: true}},
	} {
		ios, _, _, _ := iostreams.Test()
		var got *pruneRunOptions
		cmd := newPruneCmd(&factory{IO: ios}, &pruneRunners{Run: func(_ context.Context, o *pruneRunOptions) error { got = o; return nil }})
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		g, w := *got, tt.want
		if g.DB != w.DB || g.Archive != w.Archive || g.LeakAfter != w.LeakAfter || g.ArchiveAfter != w.ArchiveAfter || g.MaxSessions != w.MaxSessions ||
			g.DryRun != w.DryRun || g.NoVacuum != w.NoVacuum || g.NoBackup != w.NoBackup || g.JSON != w.JSON {
			t.Errorf("%v: %+v, want %+v", tt.args, g, w)
		}
	}
}

func TestPruneRunErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prune", "--db", filepath.Join(dir, "none.db")}, 1, "no Hermes state.db at " + filepath.Join(dir, "none.db")},
		{[]string{"prune", "--db", dir, "--dry-run"}, 1, "is a folder"},
		{[]string{"prune", "--archive-after", "0"}, 2, "--archive-after"},
		{[]string{"prune", "--leak-after", "soon"}, 2, "--leak-after"},
		{[]string{"prune", "--max-sessions", "-1"}, 2, "--max-sessions"},
		{[]string{"prune", "restore"}, 2, "name the sessions to restore"},
		{[]string{"prune", "list", "--db", filepath.Join(dir, "none.db")}, 1, "no archive at"},
	} {
		r := runLore(t, "", tt.args...)
		if r.code != tt.code || !strings.HasPrefix(r.err, "lore: ") || !strings.Contains(r.err, tt.want) {
			t.Errorf("lore %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), r.code, r.err, tt.code, tt.want)
		}
		if lines := strings.Count(r.err, "\n"); lines > 2 || tt.code == 1 && lines != 1 {
			t.Errorf("lore %s: %d lines on stderr, want one error line: %q", strings.Join(tt.args, " "), lines, r.err)
		}
	}
}

// TestPruneAsUserTypesIt runs the commands a user would: a dry run that
// changes nothing, the prune, the list of what was archived, a restore
// and a restore of a session that is not there.
func TestPruneAsUserTypesIt(t *testing.T) {
	home := t.TempDir()
	path := hermesHome(t, home, 11)
	before := fileState(t, path)
	r := runLore(t, home, "prune", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "dry run: nothing was changed") || !strings.Contains(r.stdout, "would archive") ||
		!strings.Contains(r.stdout, "last activity") {
		t.Fatalf("dry run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
	if fileState(t, path) != before {
		t.Fatal("the dry run changed the database or its folder")
	}

	r = runLore(t, home, "prune", "--json")
	if r.code != 0 {
		t.Fatalf("prune: exit %d, stderr %q", r.code, r.err)
	}
	var res struct {
		Archived int    `json:"archived_sessions"`
		Leaked   int    `json:"leaked_closed"`
		Archive  string `json:"archive"`
		Backup   string `json:"backup"`
		Vacuum   string `json:"vacuum"`
		Checks   struct {
			Integrity string `json:"integrity"`
		} `json:"checks"`
		After struct {
			Sessions int `json:"sessions"`
		} `json:"after"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	dir := filepath.Dir(path)
	if res.Archived != 40 || res.Leaked == 0 || res.After.Sessions != 0 || res.Checks.Integrity != "ok" || res.Vacuum != "done" ||
		res.Archive != filepath.Join(dir, "state-archive.db") || res.Backup != filepath.Join(dir, "state-backup.db") {
		t.Errorf("prune: %+v", res)
	}

	r = runLore(t, home, "prune", "list", "--json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 40 {
		t.Fatalf("list: exit %d, %d lines, stderr %q", r.code, len(lines), r.err)
	}
	var entry struct {
		ID       string `json:"id"`
		Parent   string `json:"parent"`
		Messages int    `json:"messages"`
	}
	for _, l := range lines {
		json.Unmarshal([]byte(l), &entry)
		if entry.Parent == "" && entry.Messages > 0 {
			break
		}
	}
	r = runLore(t, home, "prune", "restore", entry.ID)
	if r.code != 0 || !strings.Contains(r.stdout, "restored "+entry.ID) {
		t.Fatalf("restore: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	db.QueryRow("SELECT count(*) FROM messages WHERE session_id = ?", entry.ID).Scan(&n)
	if n != entry.Messages {
		t.Errorf("restored %d messages, the archive listed %d", n, entry.Messages)
	}
	r = runLore(t, home, "prune", "restore", "no-such-session")
	if r.code != 1 || !strings.Contains(r.err, "not in the archive") || strings.Count(r.err, "\n") != 1 {
		t.Errorf("restore of an unknown session: exit %d, stderr %q", r.code, r.err)
	}

	r = runLore(t, home, "prune")
	if r.code != 0 || !strings.Contains(r.stdout, "pruned "+path) || !strings.Contains(r.stdout, "archived      1 sessions") {
		t.Errorf("second prune: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
	// It says the backup is still there, how big, and how to remove it.
	if backup := filepath.Join(dir, "state-backup.db"); !strings.Contains(r.stdout, "backup        "+backup+" (") ||
		!strings.Contains(r.stdout, "is still there") || !strings.Contains(r.stdout, "rm "+backup) {
		t.Errorf("second prune does not say what to do with the backup: %q", r.stdout)
	}
	for _, f := range []string{"state-archive.db", "state-backup.db"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want mode 0600", f, err)
		}
	}
}
