package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var updateTables = flag.Bool("update-tables", false, "rewrite testdata/tables from what list and search print")

// TestTableWidths: on a terminal of 80 columns or more, list's and
// search's tables fit its width, the text cut with "…"; to a pipe, every
// text is whole. The output
// at each width is kept in testdata/tables (go test -run TableWidths
// -update-tables rewrites it).
func TestTableWidths(t *testing.T) {
	home := t.TempDir()
	for _, add := range [][]string{
		{"`git push origin main` fails with `remote: error: GH006: Protected branch update failed`; push a branch and open a pull request instead.", "pitfall"},
		{"`make test` runs the tests.", "fact"},
		{"Integration tests need the Postgres container from `docker compose up -d db`, started before `go test ./integration/...`.", "pattern"},
	} {
		if r := runLore(t, home, "add", add[0], "--category", add[1], "--repo", "acme/api"); r.code != 0 {
			t.Fatalf("add: %s", r.err)
		}
	}
	for _, args := range [][]string{{"list"}, {"search", "tests"}} {
		for _, width := range []int{0, 60, 80, 100, 200} {
			r := runIn(t, testEnv(home, nil), "", func(f *factory) {
				if width > 0 {
					f.IO.SetStdoutTTY(true)
					f.IO.SetTerminalWidth(width)
				}
			}, args...)
			if r.code != 0 {
				t.Fatalf("%v at %d: exit %d, %s", args, width, r.code, r.err)
			}
			// Item ids come from their text and scope: the same every run.
			out := r.stdout
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				// Narrower than the short columns and a few words of text
				// (60 for list), the text keeps its few words: the line runs
				// over.
				if n := utf8.RuneCountInString(line); width >= 80 && n > width {
					t.Errorf("%v at width %d: a line of %d columns: %q", args, width, n, line)
				}
			}
			if width == 0 && !strings.Contains(out, "open a pull request instead.") && args[0] == "list" {
				t.Errorf("%v to a pipe: a text was cut:\n%s", args, out)
			}
			golden := filepath.Join("testdata", "tables", strings.Join(args, "-")+"-"+strconv.Itoa(width)+".txt")
			if *updateTables {
				os.WriteFile(golden, []byte(out), 0o644)
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil || string(want) != out {
				t.Errorf("%v at width %d differs from %s (go test -run TableWidths -update-tables):\n%s", args, width, golden, out)
			}
		}
	}
}

// TestSessionTableWidth: on a terminal, lore sessions and lore sample fit
// its width by cutting the repository, never the id that sessions show
// takes (an id is 50 columns: a terminal of 120 holds the tables).
func TestSessionTableWidth(t *testing.T) {
	dir := fixtures(t)
	for _, args := range [][]string{{"sessions", dir}, {"sample", dir}} {
		for _, width := range []int{0, 120, 200} {
			checkWidth(t, args, width)
		}
	}
}

func checkWidth(t *testing.T, args []string, width int) {
	t.Helper()
	r := runIn(t, testEnv(t.TempDir(), nil), "", func(f *factory) {
		if width > 0 {
			f.IO.SetStdoutTTY(true)
			f.IO.SetTerminalWidth(width)
		}
	}, args...)
	if r.code != 0 || !strings.Contains(r.stdout, "claude-code:5d1e0c55-2b7e-4f0e-9d7a-2f6c3b1e8a10") {
		t.Fatalf("%s at width %d: exit %d, the id cut or missing:\n%s", args[0], width, r.code, r.stdout)
	}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); width > 0 && n > width {
			t.Errorf("%s at width %d: a line of %d columns: %q", args[0], width, n, line)
		}
	}
}
