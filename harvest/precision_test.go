package harvest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// extract harvests turns with the rules and returns the items.
func extract(t *testing.T, turns []turn) []lore.Item {
	t.Helper()
	s := readFixture(t, t.TempDir(), "s-x", cwd, append([]turn{{user: "Go on."}}, turns...))
	found, err := Rules{}.Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return found.Items
}

const (
	denied   = "Exit code 22\ncurl: (22) The requested URL returned error: 403"
	deniedAt = "curl -fsS -u admin:x https://ci.acme.dev/api/jobs"
	workedAt = "curl -fsS -u deploy:y https://ci.acme.dev/api/jobs"
)

// TestPitfallsPrecision checks when a failure and a later success make a
// pitfall: the same program and subcommand, nothing edited or written in
// between, no help or destructive command as the fix, and "flaky" only
// for the same call byte for byte.
func TestPitfallsPrecision(t *testing.T) {
	unknown := "Exit code 1\nError: unknown command \"unlink\" for \"bd\""
	timeout := func(cmd string, ms int, out string, failed bool) turn {
		return toolCall("Bash", map[string]any{"command": cmd, "timeout": ms}, out, failed)
	}
	tests := []struct {
		name     string
		turns    []turn
		want     string // a pitfall holding this, or "" for none
		verified bool
	}{
		{"a fix right after", []turn{bash(deniedAt, denied, true), bash(workedAt, "[]", false)},
			"`curl -fsS -u deploy:y https://ci.acme.dev/api/jobs` works", true},
		{"a fix after a look around", []turn{bash(deniedAt, denied, true), bash("ls", "a", false), bash(workedAt, "[]", false)},
			"works", true},
		{"a file edited between", []turn{bash(deniedAt, denied, true),
			toolCall("Edit", map[string]any{"file_path": cwd + "/ci.sh", "old_string": "a", "new_string": "b"}, "The file has been updated.", false),
			bash(workedAt, "[]", false)}, "", false},
		{"a file written by a command between", []turn{bash(deniedAt, denied, true),
			bash("sed -i s/admin/deploy/ ci.env", "", false), bash(workedAt, "[]", false)}, "", false},
		{"a file written by a redirection between", []turn{bash(deniedAt, denied, true),
			bash("echo deploy > ci.env", "", false), bash(workedAt, "[]", false)}, "", false},
		{"another subcommand", []turn{bash("bd unlink av-1 av-2", unknown, true), bash("bd dep remove av-1 av-2", "ok", false)}, "", false},
		{"the same subcommand", []turn{bash("bd unlink av-1 av-2", unknown, true), bash("bd unlink --force av-1 av-2", "ok", false)},
			"`bd unlink --force av-1 av-2` works", true},
		{"help is no fix", []turn{bash("bd unlink av-1 av-2", unknown, true), bash("bd unlink --help", "Usage: bd unlink", false)}, "", false},
		{"a formatter's write", []turn{bash("npx prettier --check src/a.ts", "Exit code 1\nHTTP 403: forbidden", true),
			bash("npx prettier --write src/a.ts", "src/a.ts 20ms", false)}, "", false},
		{"a destructive fix", []turn{bash("git pull", "Exit code 1\nHTTP 403: forbidden", true),
			bash("git reset --hard origin/main", "HEAD is now at abc", false), bash("git pull", "Already up to date.", false)}, "", false},
		{"a destructive success", []turn{bash("rm dist", "Exit code 1\nrm: dist: Permission denied", true),
			bash("rm -rf dist", "", false)}, "", false},
		{"a force push as the fix", []turn{bash("git push origin main", "Exit code 1\nHTTP 403: forbidden", true),
			bash("git push --force origin main", "ok", false)}, "", false},
		{"a success that writes files", []turn{bash("acme sync", "Exit code 1\nHTTP 403: forbidden", true),
			bash("acme sync --write", "ok", false)}, "", false},
		{"a success that writes nothing", []turn{bash("acme sync", "Exit code 1\nHTTP 403: forbidden", true),
			bash("acme sync --token-file ci.token", "ok", false)}, "`acme sync --token-file ci.token` works", true},
		{"the same call", []turn{bash(deniedAt, denied, true), bash(deniedAt, "[]", false)},
			"pass when run again unchanged (flaky)", false},
		{"the same command, another timeout", []turn{timeout(deniedAt, 1000, denied, true), timeout(deniedAt, 600000, "[]", false)}, "", false},
		{"only quoting differs", []turn{bash(deniedAt, denied, true), bash(strings.Replace(deniedAt, "admin:x", "'admin:x'", 1), "[]", false)}, "", false},
		{"only a pipe differs", []turn{bash(deniedAt, denied, true), bash(deniedAt+" | head -5", "[]", false)}, "", false},
		{"a setting before", []turn{bash("export CI=1 && "+deniedAt, denied, true), bash("export CI=1 && "+workedAt, "[]", false)},
			"works", true},
		{"a chain", []turn{bash("npm ci && "+deniedAt, denied, true), bash(workedAt, "[]", false)}, "", false},
		{"an error in the code", []turn{bash("dart analyze lib/", "Exit code 3\nerror - data/fetch_result.dart:6:6 - Target of URI doesn't exist: 'package:x/y.dart'", true),
			bash("dart analyze lib/domain", "No issues found!", false)}, "", false},
		{"a setup command between", []turn{bash("python scripts/seed.py", "Exit code 1\nModuleNotFoundError: No module named 'yaml'", true),
			bash("pip install pyyaml", "ok", false), bash("python scripts/seed.py", "seeded", false)}, "until `pip install pyyaml` is run", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []lore.Item
			for _, it := range extract(t, tt.turns) {
				if it.Category == lore.CategoryPitfall {
					got = append(got, it)
				}
			}
			if tt.want == "" {
				if len(got) > 0 {
					t.Errorf("kept %q", got[0].Text)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0].Text, tt.want) {
				t.Fatalf("pitfalls %v, want one holding %q", got, tt.want)
			}
			if v := slices.Contains(got[0].Tags, lore.TagVerified); v != tt.verified {
				t.Errorf("verified %v, want %v (tags %v)", v, tt.verified, got[0].Tags)
			}
		})
	}
}

// TestDefinitionFacts checks that a symbol's place is kept only where
// the session saw it defined, under its whole name.
func TestDefinitionFacts(t *testing.T) {
	grep := func(pattern, out string) turn {
		return toolCall("Grep", map[string]any{"pattern": pattern, "path": cwd}, out, false)
	}
	read := func(file, out string) turn {
		return toolCall("Read", map[string]any{"file_path": cwd + "/" + file}, out, false)
	}
	tests := []struct {
		name  string
		turns []turn
		want  string
	}{
		{"the definition read", []turn{grep("loadConfig", cwd+"/config/load.go\n"+cwd+"/cmd/main.go"),
			read("cmd/main.go", "     1\tpackage main\n     2\tfunc main() { loadConfig(\"x\") }"),
			read("config/load.go", "     1\tpackage config\n     2\t\n     3\tfunc loadConfig(path string) (*Config, error) {")},
			"`loadConfig` is defined in `config/load.go`."},
		{"only a call read", []turn{grep("loadConfig", cwd+"/cmd/main.go"),
			read("cmd/main.go", "     1\tpackage main\n     2\tfunc main() { loadConfig(\"x\") }")}, ""},
		{"a test that uses it", []turn{grep("loadConfig", cwd+"/config/load_test.go:9:\tcfg, err := loadConfig(\"testdata/a.yml\")")}, ""},
		{"the definition in grep's lines", []turn{grep(`func \(m \*Store\) RotateWALFiles`,
			cwd+"/pkg/metricstore/wal.go:88:func (m *Store) RotateWALFiles(dir string) error {")},
			"`RotateWALFiles` is defined in `pkg/metricstore/wal.go`."},
		{"a word boundary, not a truncation", []turn{grep(`\bbuildWALPayload\b`,
			"pkg/metricstore/walCheckpoint.go:40:func buildWALPayload(b []byte) []byte {")},
			"`buildWALPayload` is defined in `pkg/metricstore/walCheckpoint.go`."},
		{"a Python class", []turn{bash("rg -n 'class PaymentGateway' src", "src/billing/gateway.py:12:class PaymentGateway(Base):", false)},
			"`PaymentGateway` is defined in `src/billing/gateway.py`."},
		{"a TypeScript interface", []turn{grep("interface RunResult", "packages/core/src/types.ts:7:export interface RunResult {")},
			"`RunResult` is defined in `packages/core/src/types.ts`."},
		{"a file name is no symbol", []turn{toolCall("Glob", map[string]any{"pattern": "**/package.json"}, cwd+"/package.json", false),
			read("package.json", "     1\t{\"name\": \"x\"}")}, ""},
		{"a file outside the project", []turn{grep("loadConfig", "/opt/lib/config.go:3:func loadConfig() {}")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, it := range extract(t, tt.turns) {
				if it.Category == lore.CategoryFact {
					got = append(got, it.Text)
					if it.Signature == "" {
						t.Errorf("%q has no signature to be superseded by", it.Text)
					}
				}
			}
			if tt.want == "" && len(got) > 0 || tt.want != "" && !slices.Equal(got, []string{tt.want}) {
				t.Errorf("facts %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCommandFacts checks that a build, test or check command is kept
// only when it does that for the whole project, one for each purpose.
func TestCommandFacts(t *testing.T) {
	facts := func(turns ...turn) []string {
		var got []string
		for _, it := range extract(t, turns) {
			if it.Category == lore.CategoryFact {
				got = append(got, it.Text)
			}
		}
		return got
	}
	got := facts(bash("golangci-lint --version", "golangci-lint has version 2.10.1", false),
		bash("gofmt -l cmd/a.go cmd/b.go && go build ./...", "", false),
		bash("rm -rf dist && make test", "ok", false),
		bash("go test ./...", "ok", false), bash("make test", "ok", false), bash("make test", "ok", false),
		bash("golangci-lint run", "0 issues", false))
	if len(got) != 3 || !strings.Contains(strings.Join(got, "|"), "`make test` runs the tests.") ||
		!slices.Contains(got, "`golangci-lint run` checks the code.") {
		t.Errorf("facts %q, want `make test` (run twice) for the tests, `golangci-lint run` for checks, and the version it reports", got)
	}
	// A command run in a folder of the project says which.
	if got := facts(bash("cd "+cwd+"/web/frontend && npm run build 2>&1 | tail -5", "built", false)); !slices.Equal(got,
		[]string{"`npm run build` in `web/frontend` builds the project."}) {
		t.Errorf("facts %q, want the folder named", got)
	}
	for _, f := range got {
		for _, bad := range []string{"--version` checks", "gofmt", "rm -rf", "`go test ./...` runs"} {
			if strings.Contains(f, bad) {
				t.Errorf("kept %q", f)
			}
		}
	}
}

// TestQuirksPrecision checks that a cascade and a tool's own order are
// no quirks, and that the agent's tool protocol errors are.
func TestQuirksPrecision(t *testing.T) {
	items := extract(t, []turn{
		toolCall("Grep", map[string]any{"pattern": "x"}, "<tool_use_error>Sibling tool call errored</tool_use_error>", true),
		bash("gh api repos/acme/api/pulls", "Exit code 1\nHTTP 429: Too many requests. Do not retry this command.", true),
		toolCall("Edit", map[string]any{"file_path": cwd + "/a.go", "old_string": "a", "new_string": "b"},
			"<tool_use_error>String to replace not found in file.</tool_use_error>", true),
	})
	var got []string
	for _, it := range items {
		got = append(got, it.Text)
	}
	if len(got) != 1 || !strings.Contains(got[0], "String to replace not found") {
		t.Errorf("items %q, want the Edit tool's quirk only", got)
	}
}

// TestQuestionsNotHarvested: an agent's last question is not knowledge
// the rules can tell from an offer, a table row or code.
func TestQuestionsNotHarvested(t *testing.T) {
	for _, it := range extract(t, []turn{{say: "Done. Which Postgres version does the staging database run?"}}) {
		t.Errorf("kept %s %q", it.Category, it.Text)
	}
}

// TestRunOneSessionWaits harvests one session into a store: only the
// pitfall whose fix the session saw work right after is active; the rest
// (a test command, a symbol's place, a quirk) wait for a second session,
// which makes them active; a symbol's place, which one search finds, never
// is.
func TestRunOneSessionWaits(t *testing.T) {
	ctx := context.Background()
	turns := []turn{
		{user: "Run the tests."},
		bash(deniedAt, denied, true),
		bash(workedAt, "[]", false),
		bash("go test -race ./...", "ok", false),
		toolCall("Grep", map[string]any{"pattern": "loadConfig"}, "config/load.go:3:func loadConfig() {}", false),
	}
	dir := t.TempDir()
	writeClaude(t, dir, "s-1", cwd, turns)
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)
	status := func() map[string]lore.Status {
		m := map[string]lore.Status{}
		st.Items(ctx, lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
			m[it.Text] = it.Status
			return nil
		})
		return m
	}
	pitfall := "`" + deniedAt + "` fails with `curl: (22) The requested URL returned error: 403`; `" + workedAt + "` works."
	waiting := []string{"`go test -race ./...` runs the tests.", "`loadConfig` is defined in `config/load.go`."}
	got := status()
	if got[pitfall] != lore.StatusActive {
		t.Errorf("the verified pitfall is %q, want active (all: %v)", got[pitfall], got)
	}
	for _, s := range waiting {
		if got[s] != lore.StatusCandidate {
			t.Errorf("%q after one session: %q, want candidate", s, got[s])
		}
	}
	writeClaude(t, dir, "s-2", cwd, turns)
	harvestDir(t, st, dir)
	got = status()
	if s := waiting[0]; got[s] != lore.StatusActive {
		t.Errorf("%q after two sessions: %q, want active", s, got[s])
	}
	// A symbol's place is found by one search: kept, never handed out.
	if s := waiting[1]; got[s] != lore.StatusCandidate {
		t.Errorf("%q after two sessions: %q, want candidate (self-evident)", s, got[s])
	}
}

// TestMovedFiles: a file the session failed to read where it expected
// it, then found by name and read elsewhere, is kept with both places; a
// file merely found by name is not.
func TestMovedFiles(t *testing.T) {
	read := func(file, out string, failed bool) turn {
		return toolCall("Read", map[string]any{"file_path": cwd + "/" + file}, out, failed)
	}
	glob := toolCall("Glob", map[string]any{"pattern": "**/getting-started.md"}, cwd+"/content/guide/getting-started.md", false)
	for _, tt := range []struct {
		name  string
		turns []turn
		want  string
	}{
		{"moved", []turn{read("docs/getting-started.md", "<tool_use_error>File does not exist.</tool_use_error>", true), glob,
			read("content/guide/getting-started.md", "     1\t# Getting started", false)},
			"`getting-started.md` is in `content/guide/getting-started.md`, not in `docs/getting-started.md`."},
		{"found, never missed", []turn{glob, read("content/guide/getting-started.md", "     1\t# Getting started", false)}, ""},
		{"found, never read", []turn{read("docs/getting-started.md", "<tool_use_error>File does not exist.</tool_use_error>", true), glob}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, it := range extract(t, tt.turns) {
				if it.Category == lore.CategoryFact {
					got = append(got, it.Text)
				}
			}
			if tt.want == "" && len(got) > 0 || tt.want != "" && !slices.Equal(got, []string{tt.want}) {
				t.Errorf("facts %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRanIn: the folder of the project a command ran in, from a cd in its
// chain or the folder its tool was given, on Unix and on Windows.
func TestRanIn(t *testing.T) {
	win := `C:\Users\ann\Desktop\shop`
	for _, tt := range []struct {
		cwd, cmd, input, want string
	}{
		{cwd, "cd web/frontend && npm run build", "", "web/frontend"},
		{cwd, "cd " + cwd + "/web ; npm run lint", "", "web"},
		{cwd, "npm run lint", `{"workdir":"` + cwd + `/api"}`, "api"},
		{cwd, "npm run lint", `{"dir_path":"client"}`, "client"},
		{cwd, "cd /tmp/elsewhere && make", "", ""},
		{cwd, "cd .. && make", "", ""},
		{win, "cd client ; npm run lint", "", "client"},
		{win, "npm run lint", `{"dir_path":"C:\\Users\\ann\\Desktop\\shop\\client"}`, "client"},
		{win, "npm run lint", `{"dir_path":"D:\\other"}`, ""},
		{cwd, "cd .worktrees/fix-ci && mise run lint", "", ""},
		{cwd, "cd .claude/worktrees/x/web && npm run build", "", "web"},
	} {
		r := &ruleRun{s: &lore.Session{Cwd: tt.cwd}}
		if got := r.ranIn(&call{cmd: tt.cmd, input: tt.input}); got != tt.want {
			t.Errorf("ranIn(%q, %s) in %s = %q, want %q", tt.cmd, tt.input, tt.cwd, got, tt.want)
		}
	}
}

// TestShellFolders: Claude Code's shell keeps its folder from one call to
// the next, so a command without a cd runs where the last cd left it,
// until the tool says it reset the folder; a sub-agent's shell is its own.
func TestShellFolders(t *testing.T) {
	facts := func(turns ...turn) []string {
		var got []string
		for _, it := range extract(t, turns) {
			if it.Category == lore.CategoryFact {
				got = append(got, it.Text)
			}
		}
		return got
	}
	got := facts(bash("cd "+cwd+"/web && npm ci", "added 10 packages", false), bash("npm run build", "built", false))
	if !slices.Contains(got, "`npm run build` in `web` builds the project.") {
		t.Errorf("facts %q, want the build in web, where the cd before left the shell", got)
	}
	got = facts(bash("cd "+cwd+"/web && npm ci", "added 10 packages", false),
		bash("ls /tmp", "Shell cwd was reset to "+cwd, false), bash("npm run build", "built", false))
	if !slices.Contains(got, "`npm run build` builds the project.") {
		t.Errorf("facts %q, want the build at the root once the shell was reset", got)
	}
}
