package boot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// harvested is an item as harvest stores it: learned from sessions, with
// no confidence given by hand, active.
func harvested(text string, cat lore.Category, repo string, sessions int, tags ...string) lore.Item {
	it := lore.Item{Text: text, Category: cat, Repo: repo, Confidence: 0.9, Status: lore.StatusActive, Tags: tags}
	for i := range sessions {
		it.Evidence = append(it.Evidence, lore.Evidence{Session: fmt.Sprintf("claude-code:s-%d", i), Position: 3})
	}
	return it
}

var (
	build      = harvested("`npm run build` in `web` builds the project.", lore.CategoryFact, "acme/api", 3, "npm")
	buildOther = harvested("`make build` builds the project.", lore.CategoryFact, "acme/api", 2, "make")
	test       = harvested("`go test ./...` runs the tests.", lore.CategoryFact, "acme/api", 2, "go")
	lint       = harvested("`npm run lint` in `web` checks the code.", lore.CategoryFact, "acme/api", 2, "npm")
	confirmed  = harvested("`gh pr merge` fails with `GraphQL: Base branch was modified`; `gh pr merge --rebase` works.",
		lore.CategoryPitfall, "acme/api", 2, "gh")
	verified = harvested("`docker compose up` fails with `port is already allocated`; `docker compose up --force-recreate` works.",
		lore.CategoryPitfall, "acme/api", 1, "docker", lore.TagVerified)
	moved = harvested("`session_store.py` is in `backend/infra/cache/session_store.py`, not in `backend/cache/session_store.py`.",
		lore.CategoryFact, "acme/api", 2)
	portable = harvested("`npm view` can fail with `npm error code E404`.", lore.CategoryToolQuirk, "", 2, "npm", "portable")
)

// TestFloorWithoutTask: without a task, a boot holds the repository's
// commands, one for each purpose, and the pitfalls sessions confirmed;
// nothing else, however confident or recent.
func TestFloorWithoutTask(t *testing.T) {
	st := newMemStore(t, build, buildOther, test, lint, confirmed, verified, moved, portable)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Agent: "claude-code", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got := texts(c)
	builds := 0
	for _, g := range got {
		if strings.HasSuffix(g, " builds the project.") {
			builds++
		}
	}
	if builds != 1 {
		t.Errorf("%d build commands, want one: %q", builds, got)
	}
	for _, want := range []lore.Item{test, lint, confirmed, verified} {
		if !slices.Contains(got, want.Text) {
			t.Errorf("%q missing: %q", want.Text, got)
		}
	}
	for _, not := range []lore.Item{moved, portable} {
		if slices.Contains(got, not.Text) {
			t.Errorf("%q handed out without a task that asks for it", not.Text)
		}
	}
	for i, p := range c.Items {
		if want := map[bool]string{true: "command", false: "confirmed"}[i < 3]; p.Why != want {
			t.Errorf("note %d %q: why %q, want %q (commands first)", i, p.Text, p.Why, want)
		}
	}
}

// TestFloorWithTask: a note outside the head and the confirmed goes in
// when it matches the task: it names a name of code the task names, or
// shares two of its words.
func TestFloorWithTask(t *testing.T) {
	st := newMemStore(t, build, test, confirmed, moved, portable)
	for _, tt := range []struct {
		task string
		in   []lore.Item
	}{
		{"the session cache loses entries: look at session_store.py", []lore.Item{moved}},
		{"npm view fails for our private package", []lore.Item{portable}},
		{"rename the login page", nil},
	} {
		c, err := Build(context.Background(), st, Options{Repo: "acme/api", Agent: "claude-code", Task: tt.task, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		got := texts(c)
		for _, it := range []lore.Item{moved, portable} {
			want := slices.ContainsFunc(tt.in, func(x lore.Item) bool { return x.Text == it.Text })
			if slices.Contains(got, it.Text) != want {
				t.Errorf("task %q: %q in the boot is %v, want %v", tt.task, it.Text, !want, want)
			}
		}
		if len(got) != 3+len(tt.in) {
			t.Errorf("task %q: %q", tt.task, got)
		}
	}
}

// TestFloorNothingRelevant: a store with notes for the scope, none of them
// a command, a confirmed pitfall or about the task, gives a short context
// that says so, not an empty one nor one of unrelated notes.
func TestFloorNothingRelevant(t *testing.T) {
	st := newMemStore(t, moved, portable)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Task: "rename the login page", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != NothingText || len(c.Items) != 0 || c.Tokens == 0 {
		t.Errorf("context: %+v", c)
	}
}

// TestFloorConfirmedCapped: without a task, at most maxConfirmed
// confirmed notes; one that matches the task goes in beyond them.
func TestFloorConfirmedCapped(t *testing.T) {
	var items []lore.Item
	for i := range maxConfirmed + 4 {
		items = append(items, harvested(fmt.Sprintf("`tool%d sync` fails with `lock %d held`; `tool%d sync --wait` works.", i, i, i),
			lore.CategoryPitfall, "acme/api", 2))
	}
	st := newMemStore(t, items...)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != maxConfirmed {
		t.Errorf("%d notes without a task, want %d", len(c.Items), maxConfirmed)
	}
	c, err = Build(context.Background(), st, Options{Repo: "acme/api", Task: "tool11 sync hangs", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(c); len(got) != maxConfirmed+1 || got[0] != items[11].Text {
		t.Errorf("with a task naming tool11: %d notes, first %q", len(got), got[0])
	}
}

// TestFloorChecksTheTree: with a checkout, a command its instructions file
// for agents already gives is left to that file, and one whose package
// script or make target is gone is not handed out; other commands are.
func TestFloorChecksTheTree(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "# Agents\n\nRun the tests with `go test ./...` before every commit.\n")
	write("web/package.json", `{"scripts": {"build": "vite build", "dev": "vite"}}`)
	write("Makefile", "build: gen\n\tgo build ./...\n\ngen:\n\tgo generate ./...\n")
	makeLint := harvested("`make lint` checks the code.", lore.CategoryFact, "acme/api", 2, "make")
	st := newMemStore(t, build, test, lint, makeLint, confirmed)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Dir: dir, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got := texts(c)
	if !slices.Contains(got, build.Text) {
		t.Errorf("the build script is there, its note missing: %q", got)
	}
	for _, not := range []lore.Item{test, lint, makeLint} {
		if slices.Contains(got, not.Text) {
			t.Errorf("%q handed out: documented, or its script or target is gone", not.Text)
		}
	}
	// Any agent's instructions file says it: Claude Code's local one, Qwen
	// Code's, Aider's conventions.
	if err := os.Remove(filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"CLAUDE.local.md", "QWEN.md", "CONVENTIONS.md"} {
		write(name, "Run the tests with `go test ./...`.\n")
		c, _ = Build(context.Background(), st, Options{Repo: "acme/api", Dir: dir, Now: now})
		if got := texts(c); slices.Contains(got, test.Text) {
			t.Errorf("%s gives the test command; it was handed out: %q", name, got)
		}
		os.Remove(filepath.Join(dir, name))
	}
	// Without the checkout, nothing can be told: they stand.
	c, _ = Build(context.Background(), st, Options{Repo: "acme/api", Now: now})
	if got := texts(c); !slices.Contains(got, test.Text) || !slices.Contains(got, lint.Text) {
		t.Errorf("without a checkout: %q", got)
	}
}

func TestLacksTarget(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		makefile, target string
		lacks            bool
	}{
		{"build test: deps\n\tgo build\n", "test", false},
		{"build:\n\tgo build\n", "test", true},
		{"include common.mk\nbuild:\n\tgo build\n", "test", false}, // may be in common.mk
		{"X := test\n# test:\n\ttest: not a rule\n", "test", true},
	} {
		if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(tt.makefile), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := lacksTarget(dir, tt.target); got != tt.lacks {
			t.Errorf("%q lacks %q: %v, want %v", tt.makefile, tt.target, got, tt.lacks)
		}
	}
	if lacksTarget(t.TempDir(), "test") {
		t.Error("no Makefile at all: nothing to tell, yet the target was said gone")
	}
}

func TestOnTask(t *testing.T) {
	for _, tt := range []struct {
		task, note string
		want       bool
	}{
		{"fix the flaky retry tests", "The retry test is flaky unless the clock is faked.", true},
		{"why does RotateWALFiles block?", "`RotateWALFiles` uses a non-blocking send on a channel of 64.", true},
		{"update web/frontend deps", "`npm run build` in `web/frontend` builds the project.", true},
		{"add a database migration", "Postgres database migrations run with `make migrate`.", true},
		{"add a database migration", "Pushing to main fails with HTTP 405; open a pull request.", false},
		{"the deploy fails and nothing works", "`make x` fails with `y`; `make x -B` works.", false}, // the pitfall's form
		{"", "anything at all", false},
		// The repository's name is in its notes' paths and commands.
		{"reply with the agentv marker and add nothing", "`git add agentv/x.yaml` fails with `pathspec did not match`.", false},
		{"check acme/agentv issues", "`gh api repos/acme/agentv/branches/main/protection` fails with `Branch not protected`.", false},
		// A long note needs more of its words in the task than a short one.
		{"the deploy upload is slow", "`deploy.sh --stage prod --region eu --verbose` fails with " +
			"`upload of artifact bundle to the storage bucket timed out after the retry budget`; `deploy.sh --stage prod` works.", false},
	} {
		if got := newTask(tt.task, "acme/agentv").onTask(tt.note); got != tt.want {
			t.Errorf("task %q, note %q: %v, want %v", tt.task, tt.note, got, tt.want)
		}
	}
}

// TestFloorHeadPrefersWholeProject: the head's test command is the whole
// project's when sessions ran one, else the way to run a part of the
// tests; a part's check beside the project's own check is left out.
func TestFloorHeadPrefersWholeProject(t *testing.T) {
	part := harvested("`npm test -- tests/unit/…` runs part of the tests.", lore.CategoryFact, "acme/api", 21, "npm", "part")
	partLint := harvested("`npx eslint src/` in `web` checks part of the code.", lore.CategoryFact, "acme/api", 9, "eslint", "part")
	for _, tt := range []struct {
		items []lore.Item
		want  []string
	}{
		{[]lore.Item{part, test, lint, partLint}, []string{test.Text, lint.Text}},
		{[]lore.Item{part, lint, partLint}, []string{part.Text, lint.Text}},
	} {
		c, err := Build(context.Background(), newMemStore(t, tt.items...), Options{Repo: "acme/api", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		got := texts(c)
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("head: %q, want %q", got, tt.want)
		}
	}
}
