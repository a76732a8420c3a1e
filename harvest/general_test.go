package harvest

import (
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// TestGeneralCommand: a pitfall's command keeps its program, subcommands,
// flags and short arguments; free text, generated names and long paths
// read "…"; a command still too long keeps only the flags that matter.
func TestGeneralCommand(t *testing.T) {
	tests := []struct{ cmd, err, other, want string }{
		{`workmux send research-on-run-complete-placement -m "Additional user direction to incorporate: user is"`,
			"error: unexpected argument '-m' found", "", "workmux send … -m …"},
		{`bd dolt status --short`, "Error: unknown flag: --short", "", "bd dolt status --short"},
		{`git push origin main`, "", "", "git push origin main"},
		{`gh pr create --title "fix: retry the flaky upload" --body-file=/tmp/pr-body-for-the-retry-fix.md`, "", "",
			"gh pr create --title … --body-file=…"},
		{`python3 scripts/very/long/path/to/the/seed_script.py "a b"`, "", "", "python3 scripts/very/long/path/to/the/seed_script.py …"},
		{`python -m pytest tests/unit/test_the_retry_logic_of_uploads.py -x`, "", "", "python -m pytest … -x"},
		{`curl -fsS https://ci.acme.dev/api/v1/jobs/latest/artifacts`, "", "", "curl -fsS https://ci.acme.dev/api/v1/jobs/latest/artifacts"},
		// Too long with every flag: the one the error names, and the one
		// the fix does not have, are kept.
		{`bd create "chore(package): remove deprecated @agentv/eval workspace" --type chore --priority P2 --labels cleanup,packages --description "Remove the deprecated package and its workspace entry" --set-metadata owner=platform-team --assignee someone`,
			"Error: unknown flag: --set-metadata",
			`bd create … --type chore --priority P2 --labels cleanup,packages --description … --assignee someone`,
			"bd create … --set-metadata …"},
	}
	for _, tt := range tests {
		var other []string
		if tt.other != "" {
			other = strings.Fields(tt.other)
		}
		if got := generalCommand(tt.cmd, tt.err, other); got != tt.want {
			t.Errorf("generalCommand(%q)\n got %q\nwant %q", tt.cmd, got, tt.want)
		}
	}
}

// TestPitfallsGeneralised: the pitfalls the corpus showed with one task's
// title or name in their commands say the program, subcommand and flags;
// a pitfall whose commands differ only in free text keeps them as typed.
func TestPitfallsGeneralised(t *testing.T) {
	unexpected := "Exit code 2\nerror: unexpected argument '-m' found\n\nUsage: workmux send <NAME> [MESSAGE]"
	tests := []struct {
		name  string
		turns []turn
		want  string
	}{
		{"a message flag that does not exist", []turn{
			bash(`workmux send research-on-run-complete-placement -m "Additional user direction: keep the old API"`, unexpected, true),
			bash(`workmux send research-on-run-complete-placement "Additional user direction: keep the old API"`, "sent", false)},
			"`workmux send … -m …` fails with `error: unexpected argument '-m' found`; `workmux send …` works."},
		{"a flag that does not exist, in a long command", []turn{
			bash(`bd create "chore(package): remove deprecated @agentv/eval workspace" --type chore --priority P2 --labels cleanup,packages --description "Remove the deprecated package and its workspace entry" --set-metadata owner=platform`,
				"Exit code 1\nError: unknown flag: --set-metadata", true),
			bash(`bd create "chore(package): remove deprecated @agentv/eval workspace" --type chore --priority P2 --labels cleanup,packages --description "Remove the deprecated package and its workspace entry"`,
				"Created av-12", false)},
			"`bd create … --set-metadata …` fails with `Error: unknown flag: --set-metadata`; `bd create … --type chore --priority P2 --labels cleanup,packages --description …` works."},
		{"only free text differs", []turn{
			bash(`git commit -m "fix: the retry (see notes)"`, "Exit code 1\nHTTP 403: forbidden", true),
			bash(`git commit -m "fix: the retry"`, "ok", false)},
			"`git commit -m fix: the retry (see notes)` fails"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, it := range extract(t, tt.turns) {
				if it.Category == lore.CategoryPitfall {
					got = append(got, it.Text)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("pitfalls %q, want one holding %q", got, tt.want)
			}
		})
	}
}
