package improve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExample runs examples/improve as its run.sh does and checks what
// its README says: rolled back, tampered, kept, kept, 10/10.
func TestExample(t *testing.T) {
	ex, err := filepath.Abs("../examples/improve")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("cp", "-R", filepath.Join(ex, "project"), repo).CombinedOutput(); err != nil {
		t.Skipf("cp: %v %s", err, out)
	}
	testRepoIn(t, repo)
	c := Config{Repo: repo, Bench: "sh bench/score.sh", BenchSource: []string{"bench/**"}, Agent: "sh " + filepath.Join(ex, "agent.sh"),
		Approve: []string{"**"}, Rounds: 4, Log: testLog{t}}
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	st := state(t, repo)
	var got []string
	for _, r := range st.History {
		got = append(got, r.Area+":"+r.Outcome)
	}
	if want := "count:rolled-back reverse:tampered count:kept reverse:kept"; strings.Join(got, " ") != want {
		t.Errorf("rounds %v, want %s", got, want)
	}
	if p := st.Baselines[st.Best]; p.String() != "count 4/4, reverse 3/3, upper 3/3 (total 10/10)" {
		t.Errorf("best scores %s", p)
	}
	prompt, _ := os.ReadFile(filepath.Join(filepathDir(t, repo), "rounds", "1", "prompt.md"))
	if !strings.Contains(string(prompt), "bench/score.sh:\n\n```\n#!/bin/sh") {
		t.Errorf("the prompt lacks the bench's source:\n%s", prompt)
	}
}

// testRepoIn makes dir, with its files, a git repository of one commit.
func testRepoIn(t *testing.T, dir string) {
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "start")
}
