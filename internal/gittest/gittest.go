// Package gittest builds git repositories for tests: files written,
// committed with fixed dates and no user configuration read.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git repository built by a test, in a temporary folder.
type Repo struct {
	T   testing.TB
	Dir string
	n   int // commits made, for their dates
}

// New makes an empty repository on branch main, or skips the test when
// git is not installed.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{T: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Env is the environment git runs in: no user or system configuration,
// the date of the commit being made.
func (r *Repo) Env() []string {
	date := "2026-01-01T00:00:00Z"
	if r.n > 0 {
		date = fmt.Sprintf("2026-01-%02dT%02d:%02d:00Z", 1+r.n/1440%28, r.n/60%24, r.n%60)
	}
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
}

// Git runs git in the repository and returns its output, trimmed; an
// error fails the test.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.Dir
	cmd.Env = r.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file of the work tree, making its folders.
func (r *Repo) Write(path, content string) {
	r.T.Helper()
	full := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Commit stages everything and commits it with message, returning the
// commit's id.
func (r *Repo) Commit(message string) string {
	r.T.Helper()
	r.n++
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return r.Git("rev-parse", "HEAD")
}
