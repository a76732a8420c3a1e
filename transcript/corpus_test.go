package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusWalk reads every real transcript in ../shared/corpus: each
// must parse without error or damage and give plausible counts, under the
// agent its folder names. The whole folder scanned at once must report no
// problem.
func TestCorpusWalk(t *testing.T) {
	root := corpusDir(t, "")
	agentOf := map[string]string{"openhands-v1": "openhands"}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	inputs := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		agent := e.Name()
		if a, ok := agentOf[agent]; ok {
			agent = a
		}
		items, _ := os.ReadDir(filepath.Join(root, e.Name()))
		for _, it := range items {
			path := filepath.Join(root, e.Name(), it.Name())
			inputs++
			t.Run(e.Name()+"/"+it.Name(), func(t *testing.T) {
				ss := readPath(t, path)
				if len(ss) == 0 {
					t.Fatal("no session")
				}
				for _, s := range ss {
					checkInvariants(t, s)
					if s.Agent != agent {
						t.Errorf("%s: agent %s, want %s", s.ID, s.Agent, agent)
					}
					// The real Aider history holds four sessions of slash
					// commands and ^C only: no model output at all.
					if agent != "aider" && (s.UserMessages < 1 || s.AssistantMessages < 1) {
						t.Errorf("%s: %d user and %d assistant messages", s.ID, s.UserMessages, s.AssistantMessages)
					}
					if s.Warnings != 0 {
						t.Errorf("%s: %d warnings: %v", s.ID, s.Warnings, s.WarningSamples)
					}
					if s.StartedAt.IsZero() && agent != "swe-agent" {
						t.Errorf("%s: no start time", s.ID)
					}
					if len(s.Messages) < s.MessageCount() {
						t.Errorf("%s: %d messages kept for %d counted", s.ID, len(s.Messages), s.MessageCount())
					}
					if s.Outcome == "" {
						t.Errorf("%s: no outcome", s.ID)
					}
				}
			})
		}
	}
	res, err := Scan(context.Background(), []string{root}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		t.Errorf("problem: %s", p)
	}
	agents := map[string]int{}
	for _, s := range res.Sessions {
		agents[s.Agent]++
	}
	t.Logf("%d inputs, %d sessions: %v", res.Inputs, len(res.Sessions), agents)
	for _, e := range entries {
		a := e.Name()
		if x, ok := agentOf[a]; ok {
			a = x
		}
		if e.IsDir() && agents[a] == 0 && !strings.HasPrefix(a, ".") {
			t.Errorf("scan found no %s session", a)
		}
	}
	if res.Inputs != inputs {
		t.Errorf("scan read %d inputs, the folders hold %d", res.Inputs, inputs)
	}
}
