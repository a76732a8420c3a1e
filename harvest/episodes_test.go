package harvest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorehq/lore"
)

// episodeSession fails twice and gets past one failure: npm's missing
// script is fixed by another script three calls later; the docker
// failure is never got past; a call cancelled by a parallel failure is
// no failure of its own.
func episodeSession() []turn {
	return []turn{
		{user: "build the web app"},
		bash("npm run build:web", "npm error Missing script: \"build:web\"\nnpm error To see a list of scripts, run:\nnpm error   npm run", true),
		bash("ls web", "src package.json", false),
		bash("cat package.json", `{"scripts":{"build":"vite build"}}`, false),
		bash("npm run build", "built in 2.1s", false),
		bash("docker compose up -d", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", true),
		toolCall("Read", map[string]any{"file_path": "/w/app/README.md"}, "<tool_use_error>Sibling tool call errored</tool_use_error>", true),
		bash("docker compose up -d", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", true),
		{say: "Docker is not running here; I will stop."},
	}
}

func TestEpisodes(t *testing.T) {
	s := readFixture(t, t.TempDir(), "ep-1", "/w/app", episodeSession())
	found, err := Rules{}.Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Episodes) != 2 {
		t.Fatalf("got %d episodes, want 2 (npm, docker; the repeat and the cascade are none): %+v", len(found.Episodes), found.Episodes)
	}
	npm, docker := found.Episodes[0], found.Episodes[1]
	if npm.Session != s.ID || npm.Tool != "Bash" || npm.Input != "npm run build:web" || !strings.Contains(npm.Error, `Missing script: "build:web"`) ||
		npm.Signature == "" || npm.Fix != "npm run build" || npm.Steps != 3 || npm.At.IsZero() {
		t.Errorf("npm episode = %+v; want the failure with its fix three calls later", npm)
	}
	if m, ok := messageAt(s, npm.Position); !ok || len(m.ToolCalls) != 1 || !strings.Contains(m.ToolCalls[0].Input, "build:web") {
		t.Errorf("npm episode's position %d is not the failed call's message", npm.Position)
	}
	if docker.Input != "docker compose up -d" || docker.Fix != "" || docker.Steps != 2 {
		t.Errorf("docker episode = %+v; want it given up, two calls after it", docker)
	}
	for _, e := range found.Episodes {
		if strings.Contains(e.Error, "Sibling") {
			t.Errorf("a cascade is an episode: %+v", e)
		}
	}
}

// TestEpisodesStored harvests a session into a store: its episodes are
// stored redacted, harvesting it again replaces them, forgetting it
// removes them.
func TestEpisodesStored(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	defer st.Close()
	token := "ghp_" + strings.Repeat("aB3d", 9)
	turns := append(episodeSession()[:5],
		bash("curl -H 'Authorization: token "+token+"' https://api.github.com/user", "curl: (22) The requested URL returned error: 401 for token "+token, true))
	writeClaude(t, dir, "ep-2", "/w/app", turns)
	harvestDir(t, st, dir)
	eps, err := st.Episodes(ctx, lore.EpisodeQuery{Text: "curl: (22) The requested URL returned error: 401", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 {
		t.Fatalf("got %d episodes for the curl error, want 1: %+v", len(eps), eps)
	}
	if strings.Contains(eps[0].Input+eps[0].Error, token) || !strings.Contains(eps[0].Input, "[REDACTED") {
		t.Errorf("the token is stored: %+v", eps[0])
	}

	// Harvested again with another ending: the curl episode goes.
	writeClaude(t, dir, "ep-2", "/w/app", append(episodeSession()[:5], bash("make", "make: *** No targets specified and no makefile found.  Stop.", true)))
	harvestDir(t, st, dir)
	if eps, err = st.Episodes(ctx, lore.EpisodeQuery{Text: "curl requested URL returned error 401", Limit: 10}); err != nil || len(eps) != 0 {
		t.Errorf("after harvesting again, the old episode is still there: %+v, %v", eps, err)
	}
	if eps, err = st.Episodes(ctx, lore.EpisodeQuery{Text: "make: *** No targets specified and no makefile found.", Limit: 10}); err != nil || len(eps) != 1 {
		t.Errorf("after harvesting again, the new episode is not there: %+v, %v", eps, err)
	}

	if _, err := st.ForgetSession(ctx, "claude-code:ep-2"); err != nil {
		t.Fatal(err)
	}
	if eps, err = st.Episodes(ctx, lore.EpisodeQuery{Text: "npm error Missing script build web makefile", Limit: 10}); err != nil || len(eps) != 0 {
		t.Errorf("a forgotten session's episodes are still there: %+v, %v", eps, err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// TestEpisodeChain: a chain's failure is got past by a later call of one
// of its commands that does something, not by looking around.
func TestEpisodeChain(t *testing.T) {
	s := readFixture(t, t.TempDir(), "ep-3", "/w/app", []turn{
		{user: "push it"},
		bash("git pull --rebase && git push && git status", "fatal: Could not read from remote repository.", true),
		bash("git status --short", " M a.go", false),
		bash("ls -la", "a.go", false),
		bash("git push origin HEAD", "To github.com:acme/app.git\n   1a2b3c..4d5e6f  HEAD -> main", false),
		bash("ls -la web/components/", "ls: web/components/: No such file or directory", true),
		bash("cat web/app/page.tsx", "export default function Page() {}", false),
		bash("ls -la web/app/components", "button.tsx", false),
		toolCall("Read", map[string]any{"file_path": "/w/app/big.go"}, "File content (61252 tokens) exceeds maximum allowed tokens (25000).", true),
		toolCall("Read", map[string]any{"file_path": "/w/app/big.go", "limit": 200, "offset": 1}, "package app", false),
		bash("go build ./...", "./main.go:3:2: undefined: foo", true),
		toolCall("Edit", map[string]any{"file_path": "/w/app/main.go", "old_string": "foo", "new_string": "bar"}, "The file has been updated.", false),
		bash("go mod tidy", "", false),
		bash("go build ./...", "", false),
		toolCall("Read", map[string]any{"file_path": "/w/app/missing.go"}, "File does not exist.", true),
	})
	found, err := Rules{}.Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Episodes) != 5 {
		t.Fatalf("episodes: %+v", found.Episodes)
	}
	if e := found.Episodes[0]; e.Fix != "git push origin HEAD" || e.Steps != 3 {
		t.Errorf("chain episode %+v; want git push three calls later, not git status", e)
	}
	if e := found.Episodes[1]; e.Fix != "ls -la web/app/components" || e.Steps != 2 {
		t.Errorf("ls episode %+v; want the ls that worked, not the cat before it", e)
	}
	if e := found.Episodes[2]; e.Input != "Read /w/app/big.go" || e.Fix != "Read /w/app/big.go limit=200 offset=1" {
		t.Errorf("read episode %+v; want the read that worked with its limit", e)
	}
	if e := found.Episodes[3]; e.Fix != "go build ./..." || e.Changes != "edited `main.go` and ran `go mod tidy`" || e.Steps != 3 {
		t.Errorf("build episode %+v; want the build that worked after the edit and the tidy", e)
	}
	if e := found.Episodes[4]; e.Input != "Read /w/app/missing.go" || e.Fix != "" || e.Steps != 0 {
		t.Errorf("last call's episode %+v; want the tool and its file, no fix, no steps after it", e)
	}
}

// FuzzEpisodeInput: whatever a tool was given, an episode shows it on one
// line within its size, as valid UTF-8, and never panics reading it.
func FuzzEpisodeInput(f *testing.F) {
	for _, s := range []string{`{"file_path":"/a/b.go","limit":100,"replace_all":true}`, "*** Begin Patch\n*** Update File: a.go\n",
		`{"patchText":"*** Update File: x"}`, `{"path":5}`, "\xff\xfe", `{"file_path":"` + strings.Repeat("é", 300) + `"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		c := &call{name: "Read", input: input}
		editedFile(input)
		e, ok := lore.PrepareEpisode(lore.Episode{Session: "s", Signature: "x", Input: c.shown(), Fix: c.shown()})
		if !ok {
			return // read as an instruction
		}
		if len(e.Input) > lore.MaxEpisodeInput || strings.ContainsAny(e.Input, "\n\r") || !utf8.ValidString(e.Input) {
			t.Errorf("input %q shown as %q", input, e.Input)
		}
	})
}
