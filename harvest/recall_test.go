package harvest

import (
	"context"
	"testing"

	"github.com/lorehq/lore"
)

func TestFailedCommand(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"`go test ./...` fails with `--- FAIL: TestX`; `go test -count=1 ./...` works.", "go test ./..."},
		{"`gh api` can fail with `Not Found (HTTP 404)`.", "gh api"},
		{"`npm install` fails in the sandbox of codex and needs to be run with approval.", "npm install"},
		{"`make` can fail with `e42` and pass when run again unchanged (flaky).", "make"},
		{"`pytest` fails with `ModuleNotFoundError` until `pip install -e .` is run.", "pytest"},
		{"`npm run build` in `web` builds the project.", ""},
		{"The shell claude-code runs commands in is zsh: no matches found.", ""},
		{"`a && b` fails with `x`; `b` works.", ""},
		{"`go test", ""},
		{"", ""},
	} {
		if got := FailedCommand(tt.text); got != tt.want {
			t.Errorf("FailedCommand(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestMeets: a command meets a pitfall as the rules word its command.
func TestMeets(t *testing.T) {
	for _, tt := range []struct {
		failed, cmd string
		want        bool
	}{
		{"go test ./...", "go test ./...", true},
		{"go test ./...", "cd /src/api && go test ./... -run TestParse", true},
		{"go test ./...", "go test ./internal/...", false},
		{"go test ./...", "go vet ./...", false},
		{"go test ./...", "go", false},
		{"go", "go test ./...", false}, // another subcommand
		{"make", "make", true},
		{"make", "make test", false},
		{"bd create … --set-metadata …", `bd create "Fix the login page" --set-metadata team=web`, true},
		{"bd create … --set-metadata …", `bd create "Fix the login page" --metadata team=web`, false},
		{"bd create … --set-metadata …", `bd update "x" --set-metadata team=web`, false},
		{"gh api", "gh api repos/acme/api/pulls", true},
		{"gh api", "/usr/bin/gh api user", true},
		{"gh api", "sudo gh api user", true},
		{"git push origin main", "git push origin main --force-with-lease", true},
		{"git push origin main", "git push origin feature", false},
		{"curl -fsSL https://example.com/very/long/path/to/a/release/tarb…", "curl -fsSL https://example.com/very/long/path/to/a/release/tarball.tgz", true},
		{"npm install", "ls | npm install", false}, // a pipeline's first command is ls
		{"uv run pytest -x", "uv run pytest -x tests/", true},
		{"python scripts/seed.py", "python scripts/seed.py --rows 5", true},
		{"python scripts/seed.py", "python scripts/other.py", false},
		{"npm install", "echo hi", false},
		{"npm install", "", false},
		{"", "npm install", false},
	} {
		if got := Meets(tt.failed, CommandWords(tt.cmd)); got != tt.want {
			t.Errorf("Meets(%q, %q) = %v, want %v (words %q)", tt.failed, tt.cmd, got, tt.want, CommandWords(tt.cmd))
		}
		// The store finds a pitfall by how its text starts: every one the
		// command meets starts so.
		if prefix := CommandPrefix(CommandWords(tt.cmd)); tt.want && !lore.OpensWithCommand("`"+tt.failed+"` fails with `x`.", prefix) {
			t.Errorf("the pitfall of %q does not start with %q, which %q looks for", tt.failed, prefix, tt.cmd)
		}
	}
}

// TestMeetsRules: every pitfall the rules make of a session is met again
// by the command that failed, and not by the ones that did something else.
func TestMeetsRules(t *testing.T) {
	turns := append(sessionOne(),
		bash(`bd create "Fix the retry budget on the payment gateway" --set-metadata team=payments`, "Exit code 1\nError: unknown flag: --set-metadata", true),
		bash(`bd create "Fix the retry budget on the payment gateway" --metadata team=payments`, "Created bd-42", false))
	s := readFixture(t, t.TempDir(), "s-meets", cwd, turns)
	found, err := Rules{}.Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	failedBy := map[string]string{ // the pitfall's failed command: the command that failed
		"git push origin main":         "git push origin main",
		"python scripts/seed.py":       "python scripts/seed.py",
		"bd create … --set-metadata …": `bd create "Fix the retry budget on the payment gateway" --set-metadata team=payments`,
	}
	seen := 0
	for _, it := range found.Items {
		failed := FailedCommand(it.Text)
		if it.Category != lore.CategoryPitfall || failed == "" {
			continue
		}
		cmd, ok := failedBy[failed]
		if !ok {
			continue
		}
		seen++
		if !Meets(failed, CommandWords(cmd)) {
			t.Errorf("%q does not meet the pitfall %q", cmd, it.Text)
		}
		for _, other := range []string{"git push -u origin fix-retry", "pip install pyyaml", `bd create "x" --metadata team=payments`} {
			if Meets(failed, CommandWords(other)) {
				t.Errorf("%q meets the pitfall %q", other, it.Text)
			}
		}
	}
	if seen < 2 {
		t.Errorf("the rules made %d of the pitfalls looked for; items: %+v", seen, found.Items)
	}
}
