package harvest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const cwd = "/home/dev/api"

// sessionOne shows most of what the rules keep, and what they refuse: a
// compile error fixed by an edit, a broad search, offers to the user.
func sessionOne() []turn {
	return []turn{
		{user: "Push the retry fix, then make sure the tests pass."},
		bash("git push origin main", "Exit code 1\nremote: error: GH006: Protected branch update failed for refs/heads/main.\n"+
			"remote: error: Changes must be made through a pull request.\nTo github.com:acme/api.git\n"+
			" ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs to 'github.com:acme/api.git'", true),
		bash("git checkout -b fix-retry", "Switched to a new branch 'fix-retry'", false),
		bash("git push -u origin fix-retry", "branch 'fix-retry' set up to track 'origin/fix-retry'.", false),
		bash("python scripts/seed.py", "Exit code 1\nTraceback (most recent call last):\n  File \"/home/dev/api/scripts/seed.py\", line 3, in <module>\n"+
			"    import yaml\nModuleNotFoundError: No module named 'yaml'", true),
		bash("pip install pyyaml", "Successfully installed pyyaml-6.0.2", false),
		bash("python scripts/seed.py", "seeded 42 rows", false),
		bash("cd /home/dev/api && go test ./... 2>&1 | tail -20", "Exit code 1\n--- FAIL: TestRetry (0.02s)\n    retry_test.go:41: timeout after 3 attempts\nFAIL\n"+
			"FAIL\tgithub.com/acme/api/retry\t0.031s\nFAIL", true),
		bash("cd /home/dev/api && go test ./... 2>&1 | tail -20", "ok  \tgithub.com/acme/api/retry\t0.030s", false),
		toolCall("Edit", map[string]any{"file_path": cwd + "/retry/retry.go", "old_string": "3", "new_string": "5"},
			"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", true),
		toolCall("Read", map[string]any{"file_path": cwd + "/retry/retry.go"}, "     1\tpackage retry\n", false),
		toolCall("Edit", map[string]any{"file_path": cwd + "/retry/retry.go", "old_string": "3", "new_string": "5"},
			"The file has been updated.", false),
		bash("go build ./...", "Exit code 1\n# github.com/acme/api/retry\nretry/retry.go:12:2: undefined: strings", true),
		toolCall("Edit", map[string]any{"file_path": cwd + "/retry/retry.go", "old_string": "import (", "new_string": "import (\n\t\"strings\""},
			"The file has been updated.", false),
		bash("go build ./...", "", false),
		toolCall("Grep", map[string]any{"pattern": "loadConfig", "path": cwd}, cwd+"/config/load.go\n"+cwd+"/config/load_test.go", false),
		toolCall("Read", map[string]any{"file_path": cwd + "/config/load.go"}, "     1\tpackage config\n     2\t\n     3\tfunc loadConfig(path string) (*Config, error) {\n", false),
		toolCall("Grep", map[string]any{"pattern": "retryBudget", "path": cwd}, cwd+"/retry/retry.go", false),
		toolCall("Read", map[string]any{"file_path": cwd + "/retry/retry.go"}, "     1\tpackage retry\n     2\tvar b = retryBudget(3)\n", false),
		toolCall("Grep", map[string]any{"pattern": "err"}, manyPaths(80), false),
		bash("go generate ./...", "", false),
		bash("go test ./...", "ok  \tgithub.com/acme/api/retry\t0.030s", false),
		bash("go version", "go version go1.26.0 linux/amd64", false),
		bash("curl -fsS -u admin:hunter2hunter2 https://ci.acme.dev/api/jobs", "Exit code 22\ncurl: (22) The requested URL returned error: 403", true),
		bash("curl -fsS -u deploy:Tr0ub4dor3xyz https://ci.acme.dev/api/jobs", "[]", false),
		{say: "The branch is pushed and the tests pass. Which Postgres version does the staging database run? Would you like me to open the pull request?"},
	}
}

// sessionTwo meets the same tool protocol error in another repository,
// and asks nothing.
func sessionTwo() []turn {
	return []turn{
		{user: "Rename the flag."},
		toolCall("Edit", map[string]any{"file_path": "/home/dev/web/cmd/main.go", "old_string": "-v", "new_string": "-verbose"},
			"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", true),
		toolCall("Read", map[string]any{"file_path": "/home/dev/web/cmd/main.go"}, "package main\n", false),
		{say: "Done: the flag is renamed."},
	}
}

func manyPaths(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s/pkg%d/x.go:%d: if err != nil {\n", cwd, i, i+1)
	}
	return b.String()
}

// readFixture writes turns as a transcript and reads it back as lore
// does.
func readFixture(t *testing.T, dir, id, cwd string, turns []turn) *lore.Session {
	t.Helper()
	p := writeClaude(t, dir, id, cwd, turns)
	ss, err := transcript.Read(context.Background(), p, transcript.Options{Messages: true, NoGit: true})
	if err != nil || len(ss) != 1 {
		t.Fatalf("reading the fixture: %v (%d sessions)", err, len(ss))
	}
	return ss[0]
}

func TestRulesGolden(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for _, fx := range []struct {
		id, cwd string
		turns   []turn
	}{
		{"s-one", cwd, sessionOne()},
		{"s-two", "/home/dev/web", sessionTwo()},
	} {
		s := readFixture(t, dir, fx.id, fx.cwd, fx.turns)
		found, err := Rules{}.Extract(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "# %s (repo %s)\n", s.ID, s.Repo)
		for _, it := range found.Items {
			if len(it.Evidence) != 1 || it.Evidence[0].Session != s.ID {
				t.Errorf("item %q: evidence %v, want one entry of %s", it.Text, it.Evidence, s.ID)
			}
			if utf8.RuneCountInString(redact.New().String(it.Text)) > maxItemText {
				t.Errorf("item longer than %d characters once redacted: %q", maxItemText, it.Text)
			}
			status := it.Status
			if status == "" {
				status = lore.StatusActive
			}
			if !lore.Earned(it) {
				status = lore.StatusCandidate // as harvest stores it
			}
			fmt.Fprintf(&b, "%s\trepo=%s agent=%s conf=%.1f %s at=%d tags=%s\n\t%s\n", it.Category, it.Repo, it.Agent,
				it.Confidence, status, it.Evidence[0].Position, strings.Join(it.Tags, ","), it.Text)
			if it.Signature != "" {
				fmt.Fprintf(&b, "\tsignature: %s\n", it.Signature)
			}
		}
	}
	golden(t, "rules.golden", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./harvest -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from what the rules found; run with -update and review the diff.\ngot:\n%s", p, got)
	}
}

// TestRulesRefuse checks what the golden sessions must not teach: a
// compile error fixed by an edit, a search that found too much, an offer
// to the user, a file that was not there.
func TestRulesRefuse(t *testing.T) {
	s := readFixture(t, t.TempDir(), "s-one", cwd, sessionOne())
	found, err := Rules{}.Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range found.Items {
		for _, bad := range []string{"undefined: strings", "`err`", "Would you like", "pkg7/x.go", "retryBudget", "Postgres"} {
			if strings.Contains(it.Text, bad) {
				t.Errorf("kept %q (holds %q)", it.Text, bad)
			}
		}
	}
}

// TestRulesCorpus harvests the real transcripts of ../shared/corpus, when
// it is there, and checks every item's shape.
func TestRulesCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/corpus here")
	}
	res, err := transcript.Scan(context.Background(), []string{dir}, transcript.Options{Messages: true, NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range res.Sessions {
		found, err := Rules{}.Extract(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range found.Items {
			n++
			t.Logf("%s\t%s\t%s\t%s", s.ID, it.Category, it.Repo, it.Text)
			if n := utf8.RuneCountInString(redact.New().String(it.Text)); n > maxItemText || n == 0 {
				t.Errorf("%s: item of %d characters once redacted", s.ID, n)
			}
			if p := it.Evidence[0].Position; p < 0 || p >= len(s.Messages)+s.MessageCount() {
				t.Errorf("%s: evidence position %d", s.ID, p)
			}
			if strings.Contains(it.Text, "/Users/") || strings.Contains(it.Text, "/home/") {
				t.Errorf("%s: an item holds a home folder: %q", s.ID, it.Text)
			}
			if it.Repo == "" && (strings.Contains(it.Text, "/") && !strings.Contains(it.Text, "./...")) {
				t.Errorf("%s: a global item names a path: %q", s.ID, it.Text)
			}
		}
	}
	if n == 0 {
		t.Error("nothing harvested from the real corpus")
	}
}

func TestSpecific(t *testing.T) {
	r := &ruleRun{s: &lore.Session{Repo: "acme/api", Cwd: "/home/dev/api"}}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"`ssh deploy@10.20.30.40 uptime` fails with `ssh: connect to host 10.20.30.40 port 22: Connection timed out`.", true},
		{"`ssh deploy@bastion uptime` works.", true},
		{"`psql -h 10.0.0.5` needs the VPN.", true},
		{"The database listens on 10.0.0.5:5432.", true},
		{"`curl http://[fd00::17]:8080/health` answers 503 while it starts.", true},
		{"`redis-cli -h fd00::17 ping` times out.", true},
		{"`rsync -a dist/ web@static-1:` needs the key loaded.", true},
		{"`ssh` can fail with `connect to host <n> port <n>: connection timed out`.", false},
		{"`npm install react@18.2.0` pins React.", false},
		{"`npx create-next-app@latest` asks no questions with --yes.", false},
		{"`pnpm add -D typescript@next` breaks the build.", false},
		{"`uses: checkout@v4` is the current major.", false},
		{"`std::move` of a const object copies it.", false},
		{"`go vet` reports shadowed variables.", false},
	} {
		if got := r.specific(tt.text); got != tt.want {
			t.Errorf("specific(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestHasWord(t *testing.T) {
	for _, tt := range []struct {
		s, w string
		want bool
	}{
		{"see agentv/readme", "agentv", true},
		{"agentv", "agentv", true},
		{"the agentvx tool", "agentv", false},
		{"my_agentv here", "agentv", false},
		{"xagentv and agentv.", "agentv", true},
		{"cc-backend builds", "cc-backend", true},
		{"acc-backend", "cc-backend", false},
	} {
		if got := hasWord(tt.s, tt.w); got != tt.want {
			t.Errorf("hasWord(%q, %q) = %v", tt.s, tt.w, got)
		}
	}
}
