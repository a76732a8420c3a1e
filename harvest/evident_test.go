package harvest

import (
	"maps"
	"slices"
	"testing"

	"github.com/lorehq/lore"
)

func TestFirstCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"go build ./...": true, "cd /x && go build ./... 2>&1 | tail": true, "cargo test": true, "make": true,
		"npm test": true, "go test ./internal/...": false, "make lint": false, "npm run build": false,
		"go build -tags sqlite ./...": false, "pytest -k slow": false,
	} {
		if got := firstCommand(cmd); got != want {
			t.Errorf("firstCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestUsageError(t *testing.T) {
	for line, want := range map[string]bool{
		"Error: unknown flag: --short":                                                true,
		"error: unexpected argument '-m' found":                                       true,
		"cat: illegal option -- A":                                                    true,
		"if any flags in the group [detailed json] are set none of the others can be": true,
		"usage: foo [-h] foo: error: unrecognized arguments: --fast":                  true,
		"npm ERR! ERESOLVE could not resolve":                                         false,
		"remote: error: GH006: Protected branch update failed":                        false,
		"ModuleNotFoundError: No module named 'yaml'":                                 false,
	} {
		if got := usageError(line); got != want {
			t.Errorf("usageError(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestSelfEvidentKept: a usage error's pitfall, an agent's protocol quirk
// and a project's first command are kept as self-evident candidates, even
// when the fix was seen to work at once; the same command run in a
// folder of the project is the project's own, and may be active.
func TestSelfEvidentKept(t *testing.T) {
	turns := []turn{
		{user: "Check the status."},
		bash("bd dolt status --short", "Exit code 1\nError: unknown flag: --short", true),
		bash("bd dolt status", "clean", false),
		toolCall("Edit", map[string]any{"file_path": "/x/a.go", "old_string": "a", "new_string": "b"},
			"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", true),
		bash("go build ./...", "", false),
		bash("cd web && npm run lint", "clean", false),
		toolCall("Glob", map[string]any{"pattern": "lib/**/*.dart"},
			"Ripgrep search timed out after 60 seconds. Try searching a more specific path or pattern.", true),
	}
	items := harvestSessions(t, turns, "s-1", "s-2")
	want := map[string]bool{
		"`bd dolt status --short` fails with `Error: unknown flag: --short`; `bd dolt status` works.":               true,
		"The Edit tool of claude-code fails with `File has not been read yet. Read it first before writing to it`.": true,
		"`go build ./...` builds the project.": true,
		"The Glob tool of claude-code fails with `ripgrep search timed out after <n> seconds. try searching a more specific path or pattern`.": true,
		"`npm run lint` in `web` checks the code.": false,
	}
	got := map[string]lore.Item{}
	for _, it := range items {
		got[it.Text] = it
	}
	for text, evident := range want {
		it, ok := got[text]
		if !ok {
			t.Errorf("no item %q (have %v)", text, slices.Collect(maps.Keys(got)))
			continue
		}
		if slices.Contains(it.Tags, lore.TagSelfEvident) != evident || (it.Status == lore.StatusActive) == evident {
			t.Errorf("%q: %s, tags %v; self-evident should be %v", text, it.Status, it.Tags, evident)
		}
	}
}

// TestShellQuirks: the shell's own refusal (zsh's unquoted glob matching
// nothing, PowerShell's &&) is a quirk of the agent's shell on this
// machine, in no repository, whether or not the agent marked the call
// failed; two sessions make it active. A command that prints the same
// words is no quirk.
func TestShellQuirks(t *testing.T) {
	turns := []turn{
		{user: "Find the WAL settings."},
		bash("grep -rn MaxWALSize pkg/ --include=*.go", "(eval):1: no matches found: --include=*.go", false),
		bash("cat notes.txt", "no matches found: this line is the file's", false),
	}
	var quirks []lore.Item
	for _, it := range harvestSessions(t, turns, "s-1", "s-2") {
		if it.Category == lore.CategoryToolQuirk {
			quirks = append(quirks, it)
		}
	}
	want := "The shell claude-code runs commands in is zsh: an unquoted glob that matches no file fails with `no matches found`."
	if len(quirks) != 1 || quirks[0].Text != want || quirks[0].Status != lore.StatusActive || quirks[0].Repo != "" ||
		quirks[0].Agent != lore.AgentClaudeCode {
		t.Errorf("quirks %+v, want one active quirk of claude-code's shell", quirks)
	}
	c := &call{cmd: "cd client && npm run lint", done: true, failed: true}
	c.err.Line = "The token '&&' is not a valid statement separator in this version."
	if sh, _ := shellQuirk(c); sh != "PowerShell" {
		t.Errorf("PowerShell's && refusal: shell %q", sh)
	}
}
