package journal

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/transcript"
)

// corpus reads the sessions of a folder of ../shared, or skips.
func corpus(t *testing.T, name string) []*lore.Session {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no ../shared/%s here", name)
	}
	res, err := transcript.Scan(context.Background(), []string{dir}, transcript.Options{Messages: true, NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Sessions
}

// TestAttemptsCorpus reconstructs the attempts of real sessions of many
// projects and agents, and checks their shape and their spread.
func TestAttemptsCorpus(t *testing.T) {
	ss := corpus(t, "corpus-projects")
	var n, failed, diffs int
	agents, sessions := map[string]int{}, map[string]bool{}
	for _, s := range ss {
		for _, a := range Attempts(s) {
			n++
			agents[a.Agent]++
			sessions[a.Session] = true
			if a.Outcome == lore.AttemptFailure {
				failed++
			}
			if a.Task == "" || a.Session != s.ID || a.At.IsZero() || len(a.Files) == 0 {
				t.Errorf("%s: attempt without task, session, time or files: %+v", s.ID, a)
			}
			for _, f := range a.Files {
				if absolute(f) || strings.HasPrefix(f, "..") || strings.Contains(f, "\\") || f != filepath.ToSlash(filepath.Clean(f)) {
					t.Errorf("%s: file %q is not repository-relative", s.ID, f)
				}
			}
			if !slices.IsSorted(a.Files) || len(slices.Compact(slices.Clone(a.Files))) != len(a.Files) {
				t.Errorf("%s: files not sorted or repeated: %q", s.ID, a.Files)
			}
			if strings.Contains(a.Diff, "+++ b/") {
				diffs++
			}
			if !strings.HasPrefix(a.Tests, "$ ") || len(a.Tests) > maxTestsTail+len("$ …\n")+2000 {
				t.Errorf("%s: tests %.80q", s.ID, a.Tests)
			}
		}
	}
	t.Logf("%d sessions: %d attempts in %d sessions, %d failed, %d with a diff; by agent %v", len(ss), n, len(sessions), failed, diffs, agents)
	// Most sessions of these projects edit and then build or test; an
	// arc of edits and a run in fewer than a third would mean edits or
	// runs go unrecognised.
	if len(sessions) < len(ss)/3 {
		t.Errorf("attempts in %d of %d sessions", len(sessions), len(ss))
	}
	if failed == 0 || failed > n/2 {
		t.Errorf("%d of %d attempts failed", failed, n)
	}
	if diffs != n {
		t.Errorf("%d of %d attempts have a diff", diffs, n)
	}
	for _, ag := range []string{lore.AgentClaudeCode, lore.AgentCodex, lore.AgentOpenCode, lore.AgentGeminiCLI} {
		if agents[ag] == 0 {
			t.Errorf("no attempt of %s", ag)
		}
	}
}

// TestAttemptsKnownSession checks a Codex session read by hand: asked to
// "keep adding tests", it wrote useSessionSync.test.tsx, and its test run
// failed twice before the third version passed.
func TestAttemptsKnownSession(t *testing.T) {
	var s *lore.Session
	for _, x := range corpus(t, "corpus") {
		if strings.HasSuffix(x.Path, "guideai__sample-codex-session_0.45.0.rollout.jsonl") {
			s = x
		}
	}
	if s == nil {
		t.Fatal("no guideai sample Codex session in ../shared/corpus")
	}
	var got []lore.Attempt
	for _, a := range Attempts(s) {
		if strings.HasPrefix(a.Task, "Please keep adding tests") {
			got = append(got, a)
		}
	}
	want := []string{lore.AttemptFailure, lore.AttemptFailure, lore.AttemptSuccess}
	if len(got) != len(want) {
		t.Fatalf("%d attempts for the request, want %d", len(got), len(want))
	}
	for i, a := range got {
		if want := []string{"Please keep adding tests", "Please keep adding tests (try 2)", "Please keep adding tests (try 3)"}[i]; a.Task != want {
			t.Errorf("attempt %d: task %q, want %q", i, a.Task, want)
		}
		if a.Outcome != want[i] || a.Retries != i || !slices.Equal(a.Files, []string{"apps/desktop/src/hooks/useSessionSync.test.tsx"}) {
			t.Errorf("attempt %d: %s, %d retries, files %q", i, a.Outcome, a.Retries, a.Files)
		}
		if !strings.Contains(a.Diff, "+++ b/apps/desktop/src/hooks/useSessionSync.test.tsx\n") ||
			!strings.HasPrefix(a.Tests, "$ pnpm test --filter @guideai-dev/desktop") {
			t.Errorf("attempt %d: diff %.120q, tests %.80q", i, a.Diff, a.Tests)
		}
	}
	if !strings.Contains(got[0].Tests, "Failed") {
		t.Errorf("a failed run's output tail says nothing failed: %q", got[0].Tests)
	}
}
