//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHarvestSkipsNamedPipes: lore harvest and lore sessions given a named
// pipe, or a folder holding a transcript folder one of whose files is a
// pipe, answer at once; they do not wait for a writer.
func TestHarvestSkipsNamedPipes(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "session.jsonl")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	task := filepath.Join(dir, "tasks", "1749000000000")
	ui, err := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", "cline", "tasks", "1749000000000", "ui_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(task, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(task, "ui_messages.json"), ui, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(task, "api_conversation_history.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "lore.db")
	for _, args := range [][]string{
		{"harvest", pipe, "--store", store},
		{"sessions", pipe},
		{"sessions", "show", pipe},
		{"harvest", filepath.Join(dir, "tasks"), "--store", store},
	} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			done := make(chan result, 1)
			go func() { done <- runLore(t, "", args...) }()
			select {
			case r := <-done:
				if strings.HasPrefix(filepath.Base(args[1]), "session") && (r.code != 1 || !strings.Contains(r.err, "named pipe")) {
					t.Fatalf("exit %d, stderr %q; want 1 and a line saying it is a named pipe", r.code, r.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("lore %s still blocked after 10s", strings.Join(args, " "))
			}
		})
	}
}

// TestDefaultDiscoveryPassesOverOthersFiles: lore sessions and lore
// harvest with no path read no transcript in a default location that
// other users can write; named, it is read.
func TestDefaultDiscoveryPassesOverOthersFiles(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	os.MkdirAll(filepath.Dir(projects), 0o700)
	if err := os.Rename(fixtures(t), projects); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(projects, func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != projects {
			err = os.Chmod(p, fi.Mode().Perm()|0o002)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := runLore(t, home, "sessions", "--json"); r.stdout != "" {
		t.Errorf("default sessions listed others' transcripts:\n%s", r.stdout)
	}
	store := filepath.Join(t.TempDir(), "lore.db")
	if r := runLore(t, home, "harvest", "--store", store, "--json"); !strings.Contains(r.stdout, `"sessions_seen":0`) {
		t.Errorf("default harvest read others' transcripts:\n%s", r.stdout)
	}
	if r := runLore(t, home, "sessions", "--json", projects); strings.Count(r.stdout, "\n") != 4 {
		t.Errorf("named, got %d sessions, want 4:\n%s", strings.Count(r.stdout, "\n"), r.stdout)
	}
}

// TestSessionsSaysWhyALocationIsNotRead: a default location other users
// can write is listed as not read, and why, not as missing.
func TestSessionsSaysWhyALocationIsNotRead(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(projects, 0o777); err != nil {
		t.Fatal(err)
	}
	r := runLore(t, home, "sessions")
	if !strings.Contains(r.err, projects) || !strings.Contains(r.err, "not read: writable by other users") {
		t.Errorf("stderr %q; want %s listed as not read, and why", r.err, projects)
	}
}
