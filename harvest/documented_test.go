package harvest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

const claudeMD = "     1→# Project\n     2→\n     3→Make sure the tests pass before a commit.\n" +
	"     4→## Commands\n     5→- Test: `mise run test:ci`\n     6→\n     7→```sh\n     8→cd web && pnpm   lint\n     9→# make\n    10→```\n"

// TestDocumentedKnown checks that what a repository's instructions file
// gives in code, as the session saw it (read by a tool, or loaded as
// context), is marked known and kept a candidate, and nothing else is.
func TestDocumentedKnown(t *testing.T) {
	readDoc := toolCall("Read", map[string]any{"file_path": cwd + "/CLAUDE.md"}, claudeMD, false)
	loaded := turn{user: "# AGENTS.md instructions for " + cwd + "\n\n<INSTRUCTIONS>\nRun `mise run test:ci` before you push.\n</INSTRUCTIONS>"}
	runs := []turn{bash("mise run test:ci", "ok", false), bash("make", "ok", false), bash("pnpm lint", "ok", false),
		bash("acme sync", "Exit code 1\nHTTP 403: forbidden", true), bash("acme sync --token-file ci.token", "ok", false)}
	known := func(turns []turn) []string {
		var got []string
		for _, it := range extract(t, turns) {
			if slices.Contains(it.Tags, lore.TagDocumented) {
				if it.Status != lore.StatusCandidate || lore.Earned(it) {
					t.Errorf("%q documented but %s", it.Text, it.Status)
				}
				got = append(got, it.Text)
			}
		}
		slices.Sort(got)
		return got
	}
	want := []string{"`mise run test:ci` runs the tests.", "`pnpm lint` checks the code."}
	if got := known(append([]turn{readDoc}, runs...)); !slices.Equal(got, want) {
		t.Errorf("read CLAUDE.md: known %q, want %q (not `make`, which only prose and a comment say; not the pitfall, whose fix it does not give)", got, want)
	}
	if got := known(append([]turn{loaded}, runs...)); !slices.Equal(got, want[:1]) {
		t.Errorf("loaded AGENTS.md: known %q, want %q", got, want[:1])
	}
	nested := turn{memory: cwd + "/web/CLAUDE.md", output: claudeMD} // Claude Code loaded a subfolder's file
	if got := known(append([]turn{nested}, runs...)); !slices.Equal(got, want) {
		t.Errorf("nested CLAUDE.md: known %q, want %q", got, want)
	}
	if got := known(runs); len(got) != 0 {
		t.Errorf("no instructions seen: known %q", got)
	}
	readOther := toolCall("Read", map[string]any{"file_path": cwd + "/README.md"}, claudeMD, false)
	if got := known(append([]turn{readOther}, runs...)); len(got) != 0 {
		t.Errorf("a README read: known %q", got)
	}
	// A pitfall whose fix the file gives is known.
	doc := toolCall("Read", map[string]any{"file_path": cwd + "/AGENTS.md"}, "Sync with `acme sync --token-file ci.token`.", false)
	if got := known(append([]turn{doc}, runs...)); len(got) != 1 || !strings.Contains(got[0], "works") {
		t.Errorf("a fix documented: known %q, want the pitfall", got)
	}
}

// TestDocumentedOtherRepository checks that another repository's
// instructions file, or a user's own, documents nothing of this one.
func TestDocumentedOtherRepository(t *testing.T) {
	for _, p := range []string{"/home/dev/other/CLAUDE.md", "/home/dev/.claude/CLAUDE.md"} {
		seen := map[string]turn{"read": toolCall("Read", map[string]any{"file_path": p}, claudeMD, false),
			"loaded as nested memory": {memory: p, output: claudeMD}}
		for how, tu := range seen {
			for _, it := range extract(t, []turn{tu, bash("mise run test:ci", "ok", false)}) {
				if slices.Contains(it.Tags, lore.TagDocumented) {
					t.Errorf("%s %s: %q marked documented", p, how, it.Text)
				}
			}
		}
	}
	up := toolCall("Read", map[string]any{"file_path": "/home/dev/CLAUDE.md"}, claudeMD, false) // above: a monorepo's root
	if items := extract(t, []turn{up, bash("mise run test:ci", "ok", false)}); len(items) != 1 || !slices.Contains(items[0].Tags, lore.TagDocumented) {
		t.Errorf("the file of the folder above: %+v, want the command marked documented", items)
	}
}

// TestInCode checks when an item's code span is what an instructions
// file's code says.
func TestInCode(t *testing.T) {
	code := "make\nmake test\nnpm run lint:ci\ngo test -v ./...\ncd web && npm run build\ngo build -ldflags=-s ./cmd/api\n"
	for span, want := range map[string]bool{
		"make test":        true,
		"go test ./...":    true,
		"npm run build":    true,
		"web":              true,
		"make":             true,
		"go build ./...":   false,
		"go test":          true,
		"npm run":          true,
		"go test ./api":    false,
		"make lint":        false,
		"npm run lint":     false,
		"npm run build:ci": false,
	} {
		if got := inCode(span, code); got != want {
			t.Errorf("inCode(%q) = %v, want %v", span, got, want)
		}
	}
}

// TestDocumentedStored checks that a session that reads the repository's
// instructions file marks known what earlier sessions made active, though
// it ran none of it, without counting as their evidence.
func TestDocumentedStored(t *testing.T) {
	dir := t.TempDir()
	writeClaude(t, dir, "s-1", cwd, []turn{{user: "Test."}, bash("mise run test:ci", "ok", false)})
	writeClaude(t, dir, "s-2", cwd, []turn{{user: "Test again."}, bash("mise run test:ci", "ok", false)})
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)
	fact := func() lore.Item {
		var got lore.Item
		st.Items(context.Background(), lore.Filter{AnyStatus: true}, func(it lore.Item) error {
			if it.Text == "`mise run test:ci` runs the tests." {
				got = it
			}
			return nil
		})
		return got
	}
	if it := fact(); it.Status != lore.StatusActive {
		t.Fatalf("before: %+v, want active from two sessions", it)
	}
	writeClaude(t, dir, "s-3", cwd, []turn{{user: "Read the docs."},
		toolCall("Read", map[string]any{"file_path": cwd + "/CLAUDE.md"}, claudeMD, false)})
	harvestDir(t, st, dir)
	if it := fact(); it.Status != lore.StatusCandidate || !slices.Contains(it.Tags, lore.TagDocumented) || it.SourceCount != 2 {
		t.Errorf("after a session read CLAUDE.md: %+v, want a candidate tagged documented, still from 2 sessions", it)
	}
}

// TestDocumentedLater checks that what a session of the same run saw in
// the instructions file marks known what later sessions find.
func TestDocumentedLater(t *testing.T) {
	dir := t.TempDir()
	// Two files of the repository, read by two sessions of one batch.
	writeClaude(t, dir, "s-0", cwd, []turn{{user: "Read the agents' file."},
		toolCall("Read", map[string]any{"file_path": cwd + "/AGENTS.md"}, "Lint with `make lint`.", false)})
	writeClaude(t, dir, "s-0b", cwd, []turn{{user: "Read the docs."},
		toolCall("Read", map[string]any{"file_path": cwd + "/CLAUDE.md"}, claudeMD, false)})
	writeClaude(t, dir, "s-1", cwd, []turn{{user: "Test."}, bash("mise run test:ci", "ok", false)})
	writeClaude(t, dir, "s-2", cwd, []turn{{user: "Test again."}, bash("mise run test:ci", "ok", false)})
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)
	n := 0
	st.Items(context.Background(), lore.Filter{AnyStatus: true}, func(it lore.Item) error {
		n++
		if it.Status != lore.StatusCandidate || !slices.Contains(it.Tags, lore.TagDocumented) || it.SourceCount != 2 {
			t.Errorf("%+v: want a candidate tagged documented from 2 sessions", it)
		}
		return nil
	})
	if n != 1 {
		t.Errorf("%d items, want 1", n)
	}
}
