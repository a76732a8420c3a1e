//go:build unix

package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it has not returned after a few
// seconds: a read that blocks on a named pipe must fail the test, not hang
// it.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still blocked after 5s", what)
	}
}

func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

// TestNamedPipesAreNotOpened: a named pipe, wherever lore meets it (named
// by the user, through a link, as Aider's history in the working folder, as
// a file of a transcript folder), is skipped with a one-line problem,
// never opened to wait for a writer.
func TestNamedPipesAreNotOpened(t *testing.T) {
	dir := t.TempDir()
	pipe := mkfifo(t, filepath.Join(dir, "session.jsonl"))
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(pipe, link); err != nil {
		t.Fatal(err)
	}
	// A Cline task whose API history is a pipe beside a readable UI file.
	task := filepath.Join(dir, "tasks", "1749000000000")
	ui, err := os.ReadFile(filepath.Join("testdata", "cline", "tasks", "1749000000000", "ui_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(task, clineUIFile), string(ui))
	mkfifo(t, filepath.Join(task, clineAPIFile))
	// Aider's history in the working folder.
	cwd := filepath.Join(dir, "proj")
	mkfifo(t, filepath.Join(cwd, aiderHistoryName))

	for _, p := range []string{pipe, link} {
		t.Run("scan "+filepath.Base(p), func(t *testing.T) {
			var res *Result
			within(t, "Scan", func() { res, err = Scan(context.Background(), []string{p}, Options{NoGit: true}) })
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].String(), "named pipe") || strings.Contains(res.Problems[0].String(), "\n") {
				t.Fatalf("problems = %v; want one line saying it is a named pipe", res.Problems)
			}
		})
		t.Run("read "+filepath.Base(p), func(t *testing.T) {
			within(t, "Read", func() { _, err = Read(context.Background(), p, Options{}) })
			if err == nil || !strings.Contains(err.Error(), "named pipe") {
				t.Fatalf("Read = %v; want an error saying it is a named pipe", err)
			}
		})
	}
	t.Run("transcript folder", func(t *testing.T) {
		within(t, "Scan", func() {
			_, err = Scan(context.Background(), []string{filepath.Join(dir, "tasks")}, Options{NoGit: true})
		})
		if err != nil {
			t.Fatal(err)
		}
		within(t, "Read", func() { _, err = Read(context.Background(), task, Options{Messages: true, NoGit: true}) })
	})
	t.Run("aider default", func(t *testing.T) {
		var paths []string
		for _, r := range DefaultRoots(Env{Home: filepath.Join(dir, "home"), GOOS: "linux", Cwd: cwd}) {
			if r.Exists {
				paths = append(paths, r.Path)
			}
		}
		var res *Result
		within(t, "Scan", func() { res, err = Scan(context.Background(), paths, Options{NoGit: true}) })
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Sessions) != 0 {
			t.Fatalf("sessions = %d; want none", len(res.Sessions))
		}
	})
}

// TestRepoOfDirSkipsNamedPipes: the working folder a hook names (lore
// boot --format claude-hook) may hold a .git file or a git config that is
// a pipe: its repository is then found without reading them.
func TestRepoOfDirSkipsNamedPipes(t *testing.T) {
	withConfig := filepath.Join(t.TempDir(), "proj")
	mkfifo(t, filepath.Join(withConfig, ".git", "config"))
	withGitFile := filepath.Join(t.TempDir(), "wt")
	mkfifo(t, filepath.Join(withGitFile, ".git"))
	for _, dir := range []string{withConfig, withGitFile} {
		var repo string
		within(t, "RepoOfDir", func() { repo = RepoOfDir(dir) })
		if repo != filepath.Base(dir) {
			t.Errorf("RepoOfDir(%s) = %q, want the folder's name", dir, repo)
		}
	}
}
