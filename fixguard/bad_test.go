package fixguard

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

func TestNotARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	_, err := Open(context.Background(), t.TempDir())
	if !errors.Is(err, ErrNotRepo) {
		t.Errorf("Open(a plain folder) = %v, want ErrNotRepo", err)
	}
}

func TestNoCommits(t *testing.T) {
	r := gittest.New(t)
	repo := open(t, r)
	if _, err := Scan(context.Background(), repo, ScanOptions{Repo: "x"}); err == nil || !strings.Contains(err.Error(), "no commits") {
		t.Errorf("Scan(empty repository) = %v, want 'no commits'", err)
	}
	if _, err := Check(context.Background(), repo, nil, Target{}); err == nil || !strings.Contains(err.Error(), "no commits") {
		t.Errorf("Check(empty repository) = %v, want 'no commits'", err)
	}
}

// TestShallowClone: a shallow clone is scanned as far as it goes, with a
// note saying what it hides.
func TestShallowClone(t *testing.T) {
	r, _ := fixedRepo(t)
	dst := t.TempDir()
	clone := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+r.Dir, dst)
	clone.Env = r.Env()
	if out, err := clone.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	repo, err := Open(context.Background(), dst)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), repo, ScanOptions{Repo: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !repo.Shallow || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "shallow clone") || !strings.Contains(res.Notes[0], "fetch --unshallow") {
		t.Errorf("notes = %q, want one saying the clone is shallow and what to run", res.Notes)
	}
	if res.Commits != 1 || len(res.Guards) != 0 {
		t.Errorf("read %d commits, %d guards; want the one commit there, no fix", res.Commits, len(res.Guards))
	}
}

// TestDetachedHead: a detached HEAD is checked as any commit.
func TestDetachedHead(t *testing.T) {
	r, fix := fixedRepo(t)
	repo := open(t, r)
	gs := scanned(t, repo)
	r.Git("checkout", "-q", "--detach", fix)
	r.Write("config/config.go", configBefore)
	r.Commit("refactor on a detached head")
	if res := checked(t, repo, gs, Target{}); len(res.Alarms) != 1 {
		t.Errorf("detached HEAD: %d alarms, want 1", len(res.Alarms))
	}
	if res, err := Scan(context.Background(), repo, ScanOptions{Repo: "x"}); err != nil || len(res.Guards) != 1 {
		t.Errorf("Scan on a detached HEAD: %v, %v", res, err)
	}
}

// TestBinaryAndHugeDiffs: a fix that changes a binary file and one whose
// diff is too big to keep are guarded by what can be read, without a
// crash.
func TestBinaryAndHugeDiffs(t *testing.T) {
	r, _ := fixedRepo(t)
	r.Write("logo.bin", "\x00\x01\x02PNG\x00")
	r.Write("lib/a.go", "package lib\n\nfunc A() string { return \"one\" }\n")
	r.Commit("add a logo and lib")
	r.Write("logo.bin", "\x00\x01\x03PNG\x00\x00")
	r.Write("lib/a.go", "package lib\n\nfunc A() string { return \"the fixed one\" }\n")
	r.Commit("fix: the logo and A")
	var b strings.Builder
	for i := range maxCommitLines + 10 {
		b.WriteString("var generatedValueNumber")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(" = 1\n")
	}
	r.Write("lib/big.go", "package lib\n\n"+b.String())
	r.Write("lib/long.go", "package lib\n\nvar long = \""+strings.Repeat("y", 2*maxLineBytes)+"\"\n")
	r.Commit("fix: add the big table")
	repo := open(t, r)
	res, err := Scan(context.Background(), repo, ScanOptions{Repo: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var logo, big bool
	for _, g := range res.Guards {
		switch g.Subject {
		case "fix: the logo and A":
			logo = len(g.Lines) == 1 && g.Lines[0].File == "lib/a.go"
		case "fix: add the big table":
			big = g.Broad && len(g.Lines) == 0
		}
	}
	if !logo || !big {
		t.Errorf("guards = %+v\nwant the logo fix guarding lib/a.go's line, the big one broad", res.Guards)
	}
	if len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "guarded by its tests only") {
		t.Errorf("notes = %q, want one on the cut diff", res.Notes)
	}
	if _, err := Check(context.Background(), repo, res.Guards, Target{}); err != nil {
		t.Error(err)
	}
}

// TestRenameStorm: a commit renaming many files moves every fix's lines
// and raises nothing.
func TestRenameStorm(t *testing.T) {
	r, _ := fixedRepo(t)
	for i := range 300 {
		r.Write("pkg/f"+itoa(i)+".go", "package pkg\n\nvar value"+itoa(i)+" = computeSomething("+itoa(i)+")\n")
	}
	r.Commit("add the package")
	for i := range 300 {
		r.Write("pkg/f"+itoa(i)+".go", "package pkg\n\nvar value"+itoa(i)+" = computeSomethingElse("+itoa(i)+")\n")
	}
	r.Commit("fix: compute something else")
	r.Git("mv", "pkg", "internal")
	r.Git("mv", "config", "internal/config")
	r.Commit("move everything under internal")
	repo := open(t, r)
	gs := scanned(t, repo)
	if len(gs) != 2 {
		t.Fatalf("%d guards, want 2", len(gs))
	}
	res := checked(t, repo, gs, Target{All: true})
	if len(res.Alarms) != 0 {
		t.Errorf("a rename storm raised %d alarms", len(res.Alarms))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestHundredMegabyteDiff scans a fix whose diff is 100 MB: read to its
// end, kept only to its limit. It writes 100 MB, so it runs only when
// LORE_TEST_BIG is set.
func TestHundredMegabyteDiff(t *testing.T) {
	if os.Getenv("LORE_TEST_BIG") == "" {
		t.Skip("set LORE_TEST_BIG=1 to scan a 100 MB diff")
	}
	r, _ := fixedRepo(t)
	line := "var tableEntry = []string{\"" + strings.Repeat("z", 90) + "\"}\n"
	var b strings.Builder
	b.WriteString("package lib\n\n")
	for b.Len() < 100<<20 {
		b.WriteString(line)
	}
	r.Write("lib/table.go", b.String())
	r.Commit("fix: the whole table")
	repo := open(t, r)
	res, err := Scan(context.Background(), repo, ScanOptions{Repo: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Guards) != 2 || !res.Guards[1].Broad {
		t.Errorf("guards = %d, the big one broad: %v", len(res.Guards), len(res.Guards) == 2 && res.Guards[1].Broad)
	}
	if _, err := Check(context.Background(), repo, res.Guards, Target{}); err != nil {
		t.Error(err)
	}
}
