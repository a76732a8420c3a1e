package improve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/llm"
)

// TestRunModel: --agent llm:exec:… gets the prompt, answers with a diff
// that git apply takes (kept), or one that does not apply (a failed try
// with git's reason).
func TestRunModel(t *testing.T) {
	good := "Here is the fix.\n\n```diff\n--- a/src/alpha.txt\n+++ b/src/alpha.txt\n@@ -1 +1,2 @@\n ok\n+ok\n```\napproach: one more ok\n"
	bad := "```diff\n--- a/src/alpha.txt\n+++ b/src/alpha.txt\n@@ -1 +1,2 @@\n not there\n+ok\n```\n"
	for _, tc := range []struct {
		name, answer, outcome, reason string
	}{
		{"applies", good, Kept, "alpha 1→2"},
		{"does not apply", bad, AgentFailed, "the model's diff does not apply: error: patch failed: src/alpha.txt:1"},
		{"no diff", "I would add a line.", AgentFailed, "holds no unified diff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testRepo(t)
			dir := t.TempDir()
			answer := filepath.Join(dir, "answer")
			os.WriteFile(answer, []byte(tc.answer), 0o600)
			seen := filepath.Join(dir, "prompt")
			spec := "exec:sh -c 'cat > " + seen + "; cat " + answer + "'"
			m, err := llm.New(spec, llm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := config(t, repo, LLMPrefix+spec)
			c.Model = m
			if err := Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			r := last(state(t, repo))
			if r.Outcome != tc.outcome || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("%s (%s), want %s (%s)", r.Outcome, r.Reason, tc.outcome, tc.reason)
			}
			prompt, _ := os.ReadFile(seen)
			for _, w := range []string{"Improve \"alpha\"", "src/alpha.txt:\n\n```\nok\n```", "unified diff"} {
				if !strings.Contains(string(prompt), w) {
					t.Errorf("the model's prompt lacks %q", w)
				}
			}
		})
	}
}

func TestDiffOf(t *testing.T) {
	d := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	for _, tc := range []struct{ in, want string }{
		{"```diff\n" + d + "```", d},
		{"```\nnot a diff\n```\n```patch\n" + d + "```\n", d},
		{"intro\n" + d, d},
		{"diff --git a/x b/x\n" + d, "diff --git a/x b/x\n" + d},
		{"no diff here", ""},
	} {
		if got := diffOf(tc.in); got != tc.want {
			t.Errorf("diffOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
