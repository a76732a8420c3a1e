package harvest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

const (
	importFails = "Exit code 1\nTraceback (most recent call last):\nImportError: cannot import name 'VoiceId' from 'tts_types'"
	importCmd   = "uv run tts-cli speak hello"
	cachedCause = "The root cause is that uv keeps a cached build of `tts-types` until `uv cache clean tts-types` is run."
)

// causes returns the stated causes the rules find in turns.
func causes(t *testing.T, turns []turn) []lore.Item {
	t.Helper()
	var got []lore.Item
	for _, it := range extract(t, turns) {
		if strings.HasPrefix(it.Signature, CausePrefix) {
			got = append(got, it)
		}
	}
	return got
}

// TestStatedCauses checks that the agent's own conclusion after a failure
// it got past is kept as a candidate pitfall with the failure's
// signature, and nothing else is: no arc, a guess, words leaning on what
// was cut, the user's or a tool's words, an error at a line of code.
func TestStatedCauses(t *testing.T) {
	fail, work := bash(importCmd, importFails, true), bash(importCmd, "spoken", false)
	clean := bash("uv cache clean tts-types", "Removed 12 files", false)
	tests := []struct {
		name  string
		turns []turn
		want  string // the cause kept, or "" for none
	}{
		{"said before the fix", []turn{fail, {say: "Found it. " + cachedCause + " Cleaning it now."}, clean, work},
			"`tts-cli` fails with `importerror: cannot import name <q> from <q>`: the root cause is that uv keeps a cached build"},
		{"said after the fix", []turn{fail, clean, work, {say: "That worked. It turns out `uv tool install --force` does not reinstall the dependencies of a tool."}},
			"it turns out `uv tool install --force` does not reinstall"},
		{"a decision", []turn{fail, clean, work, {say: "We decided to pin `tts-types` in `pyproject.toml` so the cached build cannot drift again."}},
			"we decided to pin `tts-types`"},
		{"while another error was got past", []turn{fail, bash("gh release view v1", "Exit code 1\nHTTP 404: Not Found", true),
			{say: cachedCause}, clean, work, bash("gh release view v1", "v1", false)}, ""},
		{"never got past", []turn{fail, {say: cachedCause}, clean}, ""},
		{"a guess", []turn{fail, {say: "I think the problem is that uv keeps a cached build of `tts-types` somewhere."}, clean, work}, ""},
		{"hedged inside", []turn{fail, {say: "The problem is that uv probably keeps a cached build of `tts-types`."}, clean, work}, ""},
		{"leans on a cut word", []turn{fail, {say: "The problem is that it keeps a cached build of the old types around."}, clean, work}, ""},
		{"about its own doing", []turn{fail, {say: "The issue is that I'm calling the wrong entry point of the CLI tool."}, clean, work}, ""},
		{"a list follows", []turn{fail, {say: "The root cause is one of these two things in the uv cache:"}, clean, work}, ""},
		{"the user's words", []turn{fail, {user: cachedCause}, clean, work}, ""},
		{"a tool's words", []turn{fail, bash("cat NOTES.md", cachedCause, false), clean, work}, ""},
		{"an error at a line of code", []turn{bash("go build ./...", "Exit code 1\nmain.go:12:3: undefined: VoiceId", true),
			{say: "The root cause is that `VoiceId` was renamed to `Voice` in the types package last week."},
			bash("go build ./...", "", false)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := causes(t, tt.turns)
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("kept %q", got[0].Text)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0].Text, tt.want)):
				t.Errorf("causes %+v, want one holding %q", got, tt.want)
			case tt.want != "":
				it := got[0]
				if it.Status != lore.StatusCandidate || it.Category != lore.CategoryPitfall || it.Repo == "" ||
					!strings.HasPrefix(it.Signature, CausePrefix+"python: importerror") || lore.Earned(it) {
					t.Errorf("cause %+v: want a candidate pitfall of the repository with the import error's signature, not earned", it)
				}
			}
		})
	}
}

// TestCauseIn checks the sentences that state a cause and read on their
// own once cut out.
func TestCauseIn(t *testing.T) {
	for text, want := range map[string]string{
		"Looking at the log, the issue is that the CI runner has no `libssl` installed.": "the issue is that the CI runner has no `libssl` installed.",
		"**The root cause** is that `make` runs in `/bin/sh`, not bash, on Ubuntu.":      "the root cause is that `make` runs in `/bin/sh`, not bash, on Ubuntu.",
		"This happens because `pnpm` hoists nothing unless `.npmrc` says so.":            "this happens because `pnpm` hoists nothing unless `.npmrc` says so.",
		"Maybe the issue is that the CI runner has no `libssl` installed.":               "",
		"The issue is that `grep":                                                    "",
		"Is the problem that the runner has no `libssl` installed?":                  "",
		"The issue is that this test needs the database from `docker compose up`.":   "",
		"NATS drops messages. The problem is that the callback blocks for too long.": "the problem is that the callback blocks for too long.",
	} {
		if got := causeIn(text); got != want {
			t.Errorf("causeIn(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestCauseConfirmed checks that a later session of the repository that
// meets the same error and gets past it confirms the cause stated before
// (active from two sessions), and one that does not get past it does not.
func TestCauseConfirmed(t *testing.T) {
	fail, work := bash(importCmd, importFails, true), bash(importCmd, "spoken", false)
	clean := bash("uv cache clean tts-types", "Removed 12 files", false)
	for _, tc := range []struct {
		name   string
		second []turn
		want   lore.Status
		n      int
	}{
		{"met and got past", []turn{fail, clean, work}, lore.StatusActive, 2},
		{"met, not got past", []turn{fail, {say: "Giving up on this for now."}}, lore.StatusCandidate, 1},
		{"another error got past", []turn{bash(importCmd, "Exit code 1\nModuleNotFoundError: No module named 'tts_cli'", true), work},
			lore.StatusCandidate, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeClaude(t, dir, "s-1", cwd, []turn{{user: "Speak."}, fail, {say: cachedCause}, clean, work})
			writeClaude(t, dir, "s-2", cwd, append([]turn{{user: "Speak again."}}, tc.second...))
			st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
			harvestDir(t, st, dir)
			var got []lore.Item
			st.Items(context.Background(), lore.Filter{AnyStatus: true}, func(it lore.Item) error {
				if strings.HasPrefix(it.Signature, CausePrefix) {
					got = append(got, it)
				}
				return nil
			})
			if len(got) != 1 || got[0].Status != tc.want || got[0].SourceCount != tc.n {
				t.Fatalf("causes %+v, want one %s from %d sessions", got, tc.want, tc.n)
			}
		})
	}
}
