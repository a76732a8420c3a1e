package harvest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// TestFindingIn: which of an agent's sentences are findings. The
// sentences are of the kinds agents write (from real sessions, names
// changed).
func TestFindingIn(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"The root cause is clear: `RotateFiles` uses a non-blocking send on channels buffered at only 64.", true},
		{"Keycloak only includes these role claims in the ID token, not in the `UserInfo` response by default.", true},
		{"`Checkpointing()` parses it with `time.ParseDuration` and defaults to `12h` when it is unset.", true},
		{"Tauri runs `beforeBuildCommand` from the package.json folder regardless of where you invoke it.", true},
		{"Use a custom provider that reads `WTG_ENDPOINT`, because the CLI strips `OPENAI_*` variables.", true},

		{"The code builds the project and the tests pass without any trouble at all.", false},             // no code span
		{"The `go vet` step reports what it finds in every package of the module.", false},                // states nothing of how things are
		{"I found that `Init` never returns because `ReceiveNats` blocks on the wait group.", false},      // the agent speaking
		{"The drain is probably why `Shutdown` never finishes within the sixty second deadline.", false},  // a guess
		{"`git push` failed because SSH to `github.com:22` timed out during the whole afternoon.", false}, // one moment
		{"Added `walStagingWg` so that the checkpoint waits for the staging goroutines to drain.", false}, // a change log line
		{"Create `MigrationService` that reads legacy data and never touches the new profile table.", false},
		{"Running the targeted tests and the required `npm run check` only on the changed files now.", false},
		{"Does `Init` ever return when `ReceiveNats` blocks on the wait group forever?", false},
		{"This never happens because `Init` returns before `ReceiveNats` starts its workers.", false},  // leans on the one before
		{"The fix landed in commit `3f9a2c1d` and never touched the `Init` path at all again.", false}, // a commit
		{"`x` is not it.", false}, // too short
		{"The next step is to locate `handler.py`, where the error is raised, and never skip the check.", false}, // a plan
		{"The code looks correct, since `strings` is used and the import is not unused.", false},                 // a judgement of the moment
		{"The `CommandParser` class is not defined in this file, which holds only the `Command` type.", false},   // points at what was read
		{"completely ripped out the mock `localStorage` setup, which never persisted across reloads.", false},    // a fragment
	} {
		s := trimLead(tt.s)
		if _, got := findingIn(s); got != tt.want {
			t.Errorf("findingIn(%q) = %v, want %v", s, got, tt.want)
		}
	}
}

func TestTrimLead(t *testing.T) {
	if got := agentSentences("> WAL files grow: `RotateAfterShutdown` is never called."); len(got) != 1 ||
		got[0] != "WAL files grow: `RotateAfterShutdown` is never called." {
		t.Errorf("a quoted line's sentences: %q, want it without its mark", got)
	}
	for in, want := range map[string]string{
		"But `max-wal-size` defaults to 0, so it never fires.":       "`max-wal-size` defaults to 0, so it never fires.",
		"One nuance worth calling out: `x` is not a grader trigger.": "`x` is not a grader trigger.",
		"Short answer: the CLI has no `--base-url` flag.":            "The CLI has no `--base-url` flag.",
		"Root cause: `flushAll()` flushes every open file.":          "Root cause: `flushAll()` flushes every open file.",
		"In `schema.go`: the cache path passes `reqFields` instead.": "In `schema.go`: the cache path passes `reqFields` instead.",
	} {
		if got := trimLead(in); got != want {
			t.Errorf("trimLead(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFindingsKept: a session's findings are its agent's own sentences,
// kept as candidates in its repository and tagged finding; a tool's
// output and a sub-agent's report are not the agent's words, the best
// weighed are kept first, and a session without a repository keeps none.
func TestFindingsKept(t *testing.T) {
	finding := "The root cause is clear: `RotateFiles` uses a non-blocking send on channels buffered at only 64."
	turns := []turn{
		{user: "Why are the files not rotated?"},
		toolCall("Read", map[string]any{"file_path": cwd + "/wal.go"},
			"Note: `Shutdown` never rotates the files because `successDirs` is thrown away.", false),
		{say: "I think `Shutdown` might never rotate them, let me check the caller of `RotateFiles`."},
		{say: finding + " I'll make the send blocking."},
		{say: "Added a blocking send so that `RotateFiles` never drops a rotation."},
	}
	dir := t.TempDir()
	writeClaude(t, dir, "s-1", cwd, turns)
	writeClaude(t, dir, "s-none", "", turns)
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestDir(t, st, dir)
	var got []lore.Item
	for _, it := range itemsOf(t, st) {
		if slices.Contains(it.Tags, TagFinding) {
			got = append(got, it)
		}
	}
	if len(got) != 1 {
		t.Fatalf("findings: %+v, want one", got)
	}
	it := got[0]
	if it.Text != finding || it.Status != lore.StatusCandidate || it.Repo == "" || it.Category != lore.CategoryFact ||
		it.SourceCount != 1 || it.Evidence[0].Session != "claude-code:s-1" {
		t.Errorf("the finding: %+v", it)
	}
}

// FuzzFindings: whatever the agent writes, the findings of a message are
// its own sentences as they stand (or with only a lead-in and emphasis cut away), at
// most as many as a session keeps.
func FuzzFindings(f *testing.F) {
	for _, s := range []string{"The root cause is clear: `RotateFiles` uses a non-blocking send on channels.",
		"But `max` defaults to 0, so it never fires.\n\n- `x` is not `y` because the `z` reads only line 4.",
		"```go\nfunc f() {}\n```\n`a` never `b`", "I/O `x` is not ’ `y` only", "`", "Short answer: `a` b c d e f g never."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := &lore.Session{ID: "s", Repo: "acme/api", Messages: []lore.Message{{Index: 0, Role: lore.RoleAssistant, Text: text}}}
		r := &ruleRun{s: s, seen: map[string]bool{}}
		r.findings()
		if len(r.items) > maxFindings {
			t.Fatalf("%d findings of one message", len(r.items))
		}
		for _, it := range r.items {
			body := strings.TrimSuffix(it.Text, ".")
			if len(body) > 1 {
				body = body[1:] // a lead-in cut away raises the first letter
			}
			plain := strings.ReplaceAll(text, "**", "") // emphasis is taken away
			if !strings.Contains(collapse(plain), collapse(body)) {
				t.Errorf("finding %q is not the agent's words %q", it.Text, text)
			}
		}
	})
}
