package fixguard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

func TestTestCommand(t *testing.T) {
	g := lore.FixGuard{Tests: []lore.GuardTest{
		{File: "config/config_test.go", Name: "TestEmptyKey", Added: true},
		{File: "config/config_test.go", Name: "TestBlank", Added: true},
		{File: "load/load_test.go"},
	}}
	if got, want := TestCommand(g), "go test -count=1 -run '^(TestBlank|TestEmptyKey)$' ./config"; got != want {
		t.Errorf("TestCommand = %q, want %q", got, want)
	}
	py := lore.FixGuard{Tests: []lore.GuardTest{{File: "tests/test_x.py", Name: "test_empty", Added: true}}}
	if got, want := TestCommand(py), "python -m pytest -q 'tests/test_x.py::test_empty'"; got != want {
		t.Errorf("TestCommand = %q, want %q", got, want)
	}
	if got := TestCommand(lore.FixGuard{}); got != "" {
		t.Errorf("TestCommand(no tests) = %q", got)
	}
}

func TestProve(t *testing.T) {
	r, fix := fixedRepo(t)
	repo := open(t, r)
	gs := scanned(t, repo)
	ctx := context.Background()
	p, err := Prove(ctx, repo, gs[0], "grep -q errEmptyKey config/config.go && grep -q TestEmptyKey config/config_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if p.Proof != lore.ProofProven || !p.ParentFailed || !p.FixPassed || p.Commit != fix {
		t.Errorf("a command failing on the parent and passing on the fix: %+v", p)
	}
	if p, err := Prove(ctx, repo, gs[0], "grep -q TestEmptyKey config/config_test.go"); err != nil || p.Proof != lore.ProofNotProven || p.ParentFailed {
		t.Errorf("a command passing on the parent (the fix's tests put in): %+v, %v; want not proven", p, err)
	}
	noTest := gs[0]
	noTest.Tests = nil
	if p, err := Prove(ctx, repo, noTest, ""); err != nil || p.Proof != lore.ProofNoTest {
		t.Errorf("a fix with no test: %+v, %v", p, err)
	}
	if status := r.Git("status", "--porcelain"); status != "" {
		t.Errorf("proving changed the repository:\n%s", status)
	}
}

// TestProveGo runs the fix's own Go test on its parent and on it.
func TestProveGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	r, _ := fixedRepo(t)
	r.Write("go.mod", "module example.com/config\n\ngo 1.21\n")
	r.Commit("add go.mod")
	repo := open(t, r)
	// The go.mod came after the fix: prove against a fix made after it.
	r.Write("config/config.go", configBefore)
	r.Write("config/config_test.go", configTest)
	r.Commit("refactor: simpler parser")
	r.Write("config/config.go", configFixed)
	r.Write("config/config_test.go", configTestFixed)
	fix := r.Commit("fix: crash on empty key, again")
	gs := scanned(t, repo)
	var g lore.FixGuard
	for _, x := range gs {
		if x.Commit == fix {
			g = x
		}
	}
	if g.Commit == "" {
		t.Fatalf("no guard of the second fix in %+v", gs)
	}
	p, err := Prove(context.Background(), repo, g, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Proof != lore.ProofProven {
		t.Errorf("proof = %+v, want proven", p)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "worktrees")); err == nil {
		t.Error("proving left a git worktree behind")
	}
	if !strings.Contains(p.Command, "TestEmptyKey") {
		t.Errorf("command %q does not run the fix's test", p.Command)
	}
}
