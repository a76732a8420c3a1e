package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
)

// journalAttempts reads every attempt of the store in home, diffs too.
func journalAttempts(t *testing.T, home string) []lore.Attempt {
	t.Helper()
	s, err := newFactory(nil, testEnv(home, nil)).OpenStore(context.Background(), filepath.Join(home, ".lore", "lore.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var as []lore.Attempt
	if err := s.(lore.Journal).Attempts(context.Background(), lore.AttemptFilter{WithDiff: true}, func(a lore.Attempt) error {
		as = append(as, a)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return as
}

func decodeLines[T any](t *testing.T, s string) []T {
	t.Helper()
	var out []T
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out = append(out, v)
	}
	return out
}

func TestJournalCommands(t *testing.T) {
	home := t.TempDir()
	env := testEnv(home, nil)
	tests := filepath.Join(home, "test.log")
	if err := os.WriteFile(tests, []byte("=== RUN TestRetry\n--- FAIL: TestRetry (0.01s)\nFAIL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	diff := filepath.Join(home, "x.diff")
	if err := os.WriteFile(diff, []byte("--- a/client/retry.go\n+++ b/client/retry.go\n@@ -1 +1 @@\n-a\n+b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := runIn(t, env, "", nil, "journal", "log", "--task", "make the retry test stable", "--repo", "acme/api",
		"--file", "client/retry.go", "--file", "client/retry_test.go", "--outcome", "failure", "--analysis", "the test races the clock",
		"--tests", tests, "--diff", diff, "--area", "client", "--points-before", "3", "--tag", "flaky")
	if first.code != 0 || !lore.ValidIDPrefix(strings.TrimSpace(first.stdout)) {
		t.Fatalf("log: %d %q %q", first.code, first.stdout, first.err)
	}
	id := strings.TrimSpace(first.stdout)
	r := runIn(t, env, "", nil, "journal", "log", "--task", "make the retry test stable, again", "--repo", "acme/api", "--parent", id[:6],
		"--file", "client/retry_test.go", "--outcome", "success", "--retries", "1", "--json")
	if r.code != 0 {
		t.Fatalf("log --json: %d %q", r.code, r.err)
	}
	second := decodeLines[lore.Attempt](t, r.stdout)[0]
	if second.Parent != id || second.Retries != 1 || second.Outcome != "success" {
		t.Errorf("second attempt %+v", second)
	}
	runIn(t, env, "", nil, "journal", "log", "--task", "rename the config loader", "--repo", "acme/web", "--outcome", "rollback")

	r = runIn(t, env, "", nil, "journal", "similar", "retry test flaky", "--repo", "acme/api", "--file", "client/retry.go")
	if r.code != 0 || !strings.HasPrefix(r.stdout, id+"  ") || !strings.Contains(r.stdout, "lesson: the test races the clock") ||
		!strings.Contains(r.stdout, "same files: client/retry.go") {
		t.Errorf("similar: %d %q %q", r.code, r.stdout, r.err)
	}
	r = runIn(t, env, "", nil, "journal", "similar", "retry", "--repo", "acme/api", "--outcome", "success", "--json")
	if hits := decodeLines[lore.AttemptHit](t, r.stdout); len(hits) != 1 || hits[0].ID != second.ID || hits[0].Score <= 0 {
		t.Errorf("similar --outcome success --json: %q", r.stdout)
	}
	r = runIn(t, env, "", nil, "journal", "show", id[:8])
	for _, want := range []string{"Task:       make the retry test stable", "Outcome:    failure", "--- FAIL: TestRetry", "+b", "Points:     3 → ?"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runIn(t, env, "", nil, "journal", "stats", "--all-repos", "--by", "file", "--json")
	var st journalStats
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("stats --json: %v: %q", err, r.stdout)
	}
	if st.Attempts != 3 || st.Success != 1 || st.Failure != 1 || st.Rollback != 1 || st.Rate == nil || *st.Rate != 1.0/3 ||
		len(st.Groups) != 3 || st.Groups[0].Group != "client/retry_test.go" || st.Groups[0].Attempts != 2 {
		t.Errorf("stats: %+v", st)
	}
	r = runIn(t, env, "", nil, "journal", "stats", "--repo", "acme/api", "--by", "area")
	if !strings.HasPrefix(r.stdout, "2 attempts in acme/api: 1 succeeded, 1 failed, 0 rolled back, 0 pending; success rate 50%") ||
		!strings.Contains(r.stdout, "client ") || !strings.Contains(r.stdout, "(none)") {
		t.Errorf("stats --by area:\n%s", r.stdout)
	}
	r = runIn(t, env, "", nil, "journal", "failures", "--all-repos", "--json")
	if as := decodeLines[lore.Attempt](t, r.stdout); len(as) != 2 || as[0].Task != "rename the config loader" || as[0].Diff != "" {
		t.Errorf("failures: %q", r.stdout)
	}
	r = runIn(t, env, "", nil, "journal", "file", "client/retry_test.go", "--repo", "acme/api")
	if lines := strings.Count(r.stdout, "\n"); !strings.HasPrefix(r.stdout, second.ID) || lines != 3 {
		t.Errorf("file: %q", r.stdout)
	}
	r = runIn(t, env, "", nil, "journal", "reflect", id[:6], "inject", "the", "clock")
	if r.code != 0 || !strings.Contains(r.stdout, "lesson: inject the clock") {
		t.Errorf("reflect: %d %q %q", r.code, r.stdout, r.err)
	}
	r = runIn(t, env, "", nil, "journal", "similar", "clock", "--all-repos", "--json")
	if hits := decodeLines[lore.AttemptHit](t, r.stdout); len(hits) != 1 || hits[0].Lesson() != "inject the clock" {
		t.Errorf("similar after reflect: %q", r.stdout)
	}

	// Shell completion: ids of attempts, outcomes, groupings.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "journal", "show", id[:4]}, id + "\tmake the retry test stable\n"},
		{[]string{"__complete", "journal", "reflect", id[:4]}, id + "\t"},
		{[]string{"__complete", "journal", "log", "--outcome", ""}, "rollback\n"},
		{[]string{"__complete", "journal", "similar", "x", "--outcome", ""}, "failure\n"},
		{[]string{"__complete", "journal", "stats", "--by", ""}, "approach\n"},
	} {
		if r := runIn(t, env, "", nil, tt.args...); !strings.Contains(r.stdout, tt.want) {
			t.Errorf("lore %s: %q, want %q in it", strings.Join(tt.args, " "), r.stdout, tt.want)
		}
	}
}

// TestJournalBadInput: each bad input is one line of error, exit 2, and
// nothing written; a 50 MB diff is cut, and the cut said.
func TestJournalBadInput(t *testing.T) {
	home := t.TempDir()
	env := testEnv(home, nil)
	for _, tt := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"unknown outcome", "", []string{"--task", "x", "--outcome", "worked"}, `--outcome "worked"`},
		{"unknown outcome in JSON", `{"task": "x", "outcome": "worked"}`, nil, `unknown outcome "worked"`},
		{"missing task", "", nil, "no attempt on standard input"},
		{"empty task", "", []string{"--task", " "}, "needs a task"},
		{"task missing from JSON", `{"outcome": "success"}`, nil, "has no task"},
		{"malformed JSON", `{"task": "x",`, nil, "not a JSON attempt"},
		{"unknown field", `{"task": "x", "outcom": "success"}`, nil, `unknown field "outcom"`},
		{"wrong type", `{"task": "x", "retries": "two"}`, nil, "not a JSON attempt"},
		{"two documents", `{"task": "x"} {"task": "y"}`, nil, "more than one JSON value"},
		{"bad parent", "", []string{"--task", "x", "--parent", "zz"}, "--parent"},
		{"unknown parent", "", []string{"--task", "x", "--parent", "abcdef"}, "no attempt abcdef"},
		{"negative retries", "", []string{"--task", "x", "--retries", "-1"}, "--retries"},
		{"staged without from-git", "", []string{"--task", "x", "--staged"}, "go with --from-git"},
		{"from-git outside a checkout", "", []string{"--task", "x", "--from-git"}, "not in a git checkout"},
		{"missing diff file", "", []string{"--task", "x", "--diff", filepath.Join(home, "none.diff")}, "--diff"},
	} {
		r := runIn(t, env, tt.stdin, nil, append([]string{"journal", "log"}, tt.args...)...)
		first, _, _ := strings.Cut(r.err, "\n")
		if r.code == 0 || !strings.Contains(first, tt.want) || strings.Count(r.err, "\n") > 2 {
			t.Errorf("%s: exit %d, stderr %q; want an error line with %q", tt.name, r.code, r.err, tt.want)
		}
	}
	if as := journalAttempts(t, home); len(as) != 0 {
		t.Errorf("bad input wrote %d attempts", len(as))
	}

	big := filepath.Join(home, "big.diff")
	line := "+" + strings.Repeat("z", 63) + "\n"
	if err := os.WriteFile(big, []byte(strings.Repeat(line, 50<<20/len(line))), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, env, "", nil, "journal", "log", "--task", "vendor everything", "--diff", big)
	if r.code != 0 || !strings.Contains(r.err, "The diff was cut to its first") {
		t.Fatalf("50 MB diff: %d %q", r.code, r.err)
	}
	as := journalAttempts(t, home)
	if len(as) != 1 || len(as[0].Diff) > lore.MaxAttemptDiff || len(as[0].Diff)+as[0].DiffCut != 50<<20/len(line)*len(line) {
		t.Errorf("50 MB diff kept %d bytes, cut %d", len(as[0].Diff), as[0].DiffCut)
	}
}

// TestJournalFromGit logs attempts from a real git checkout: a commit, what
// is staged and the working tree.
func TestJournalFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	repo := filepath.Join(home, "src", "api")
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x",
			"GIT_AUTHOR_DATE=2026-04-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-04-01T10:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	gitIn("init", "-q")
	gitIn("remote", "add", "origin", "https://github.com/acme/api.git")
	write("main.go", "package main\n")
	gitIn("add", ".")
	gitIn("commit", "-qm", "start")
	write("client/retry.go", "package client\n// retry\n")
	write("main.go", "package main\n// uses client\n")
	gitIn("add", ".")
	gitIn("commit", "-qm", "Add a retry loop\n\nBack off exponentially, capped at 30s.")

	env := testEnv(home, nil)
	env.Cwd = filepath.Join(repo, "client")
	r := runIn(t, env, "", nil, "journal", "log", "--from-git", "--outcome", "success", "--json")
	if r.code != 0 {
		t.Fatalf("--from-git: %d %q", r.code, r.err)
	}
	a := decodeLines[lore.Attempt](t, r.stdout)[0]
	if a.Task != "Add a retry loop" || a.Approach != "Back off exponentially, capped at 30s." || a.Repo != "acme/api" ||
		strings.Join(a.Files, " ") != "client/retry.go main.go" || !strings.Contains(a.Diff, "+// retry") || a.At.Year() != 2026 {
		t.Errorf("--from-git: %+v", a)
	}
	r = runIn(t, env, "", nil, "journal", "log", "--from-git", "HEAD~1", "--json")
	if a := decodeLines[lore.Attempt](t, r.stdout); r.code != 0 || a[0].Task != "start" || strings.Join(a[0].Files, " ") != "main.go" {
		t.Errorf("--from-git HEAD~1: %d %q %q", r.code, r.stdout, r.err)
	}

	write("client/retry.go", "package client\n// retry, staged\n")
	gitIn("add", "client/retry.go")
	write("main.go", "package main\n// changed, not staged\n")
	write("notes.txt", "new\n")
	r = runIn(t, env, "", nil, "journal", "log", "--task", "stage the retry", "--from-git", "--staged", "--json")
	if a := decodeLines[lore.Attempt](t, r.stdout); r.code != 0 || strings.Join(a[0].Files, " ") != "client/retry.go" ||
		!strings.Contains(a[0].Diff, "+// retry, staged") || strings.Contains(a[0].Diff, "not staged") {
		t.Errorf("--from-git --staged: %d %q %q", r.code, r.stdout, r.err)
	}
	r = runIn(t, env, "", nil, "journal", "log", "--task", "everything", "--from-git", "--worktree", "--json")
	if a := decodeLines[lore.Attempt](t, r.stdout); r.code != 0 || strings.Join(a[0].Files, " ") != "client/retry.go main.go notes.txt" ||
		!strings.Contains(a[0].Diff, "+// changed, not staged") {
		t.Errorf("--from-git --worktree: %d %q %q", r.code, r.stdout, r.err)
	}
	r = runIn(t, env, "", nil, "journal", "log", "--from-git", "nosuchrev")
	if r.code == 0 || !strings.Contains(r.err, "git:") {
		t.Errorf("--from-git nosuchrev: %d %q", r.code, r.err)
	}
	// A file named from a subfolder is kept from the checkout's root.
	r = runIn(t, env, "", nil, "journal", "file", "retry.go", "--json")
	if as := decodeLines[lore.Attempt](t, r.stdout); len(as) != 3 {
		t.Errorf("file retry.go from client/: %d attempts, want 3: %q %q", len(as), r.stdout, r.err)
	}
}

// TestJournalLogFlags: how --from-git's forms parse, without running.
func TestJournalLogFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--task", "x"}, ""},
		{[]string{"--from-git"}, "HEAD"},
		{[]string{"--from-git", "HEAD~2"}, "HEAD~2"},
		{[]string{"--from-git=abc123"}, "abc123"},
		{[]string{"--from-git", "--staged"}, gitStaged},
		{[]string{"--from-git", "--worktree"}, gitWorktree},
	} {
		var got *journalLogOptions
		ios, _, _, _ := iostreams.Test()
		cmd := newJournalLogCmd(newFactory(ios, testEnv(t.TempDir(), nil)), func(_ context.Context, o *journalLogOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil || got == nil || got.FromGit != tt.want {
			t.Errorf("%v: %v, from-git %v; want %q", tt.args, err, got, tt.want)
		}
	}
}

// FuzzReadAttemptJSON: whatever is on standard input, reading it as an
// attempt and preparing it as a store would is an error or an attempt
// within its sizes, never a panic.
func FuzzReadAttemptJSON(f *testing.F) {
	for _, s := range []string{`{"task":"x","outcome":"success","files":["a.go"]}`, `{"task": "x",`, `[]`, `{"task":"x"} {}`, `null`,
		`{"task":"x","diff":"+a\n","tests":"ok","points_before":1.5,"at":"2026-01-01T00:00:00Z"}`, `{"retries":-1,"task":"y"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		a, err := readAttemptJSON(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		p, err := lore.PrepareAttempt(a, time.Now())
		if err != nil {
			return
		}
		if p.Task == "" || len(p.Diff) > lore.MaxAttemptDiff || len(p.Tests) > lore.MaxAttemptTests || !lore.ValidIDPrefix(p.ID) {
			t.Errorf("prepared attempt out of shape: %+v", p)
		}
	})
}
