package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/prune/hermesdb"
)

// hermesHome writes a small state.db into home/.hermes and returns its
// path.
func hermesHome(t *testing.T, home string, version int) string {
	t.Helper()
	dir := filepath.Join(home, ".hermes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.db")
	if _, err := hermesdb.Write(context.Background(), path, hermesdb.Options{Version: version, Sessions: 40, Leaked: 0.8, Parents: 0.1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return path
}

// fileState is what must not change when a command only reads: the
// file's bytes, mode and time, and the names in its folder.
func fileState(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fmt.Sprintf("%x %d %v %v %v", sha256.Sum256(data), len(data), fi.Mode(), fi.ModTime(), names)
}

func TestPruneStatsReadsOnly(t *testing.T) {
	for _, v := range hermesdb.Versions {
		home := t.TempDir()
		path := hermesHome(t, home, v)
		before := fileState(t, path)
		time.Sleep(10 * time.Millisecond) // a write would show in the mtime
		for _, args := range [][]string{{"prune", "stats"}, {"prune", "stats", "--json"}, {"prune", "stats", "--db", path, "--leak-after", "1d"}} {
			r := runLore(t, home, args...)
			if r.code != 0 || r.err != "" {
				t.Fatalf("v%d lore %s: exit %d, stderr %q", v, strings.Join(args, " "), r.code, r.err)
			}
		}
		if after := fileState(t, path); after != before {
			t.Errorf("v%d: lore prune stats changed the database or its folder", v)
		}
	}
}

// While the agent has the database open (-wal and -shm beside it), stats
// reads through the WAL and still changes nothing.
func TestPruneStatsReadsOnlyWhileAgentRuns(t *testing.T) {
	home := t.TempDir()
	path := hermesHome(t, home, 11)
	agent, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	agent.SetMaxOpenConns(1)
	if _, err := agent.Exec(`INSERT INTO sessions (id, source, started_at) VALUES ('20260101_000000_abcdef', 'cli', 1767225600.5)`); err != nil {
		t.Fatal(err)
	}
	before := fileState(t, path)
	time.Sleep(10 * time.Millisecond)
	r := runLore(t, home, "prune", "stats", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"sessions":41,`) {
		t.Fatalf("exit %d, stderr %q: want the agent's new session counted", r.code, r.err)
	}
	if after := fileState(t, path); after != before {
		t.Error("lore prune stats changed the database or its folder while the agent had it open")
	}
}

func TestPruneStatsText(t *testing.T) {
	home := t.TempDir()
	path := hermesHome(t, home, 11)
	r := runLore(t, home, "prune", "stats")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{path, "schema    v11; sessions 27 columns, messages 15; FTS messages_fts (own, unicode61), messages_fts_trigram (own, trigram); state_meta",
		"sessions  40: ", "leaked (open and idle over 7d)", "messages  600 (", "last activity", "<365d", "older", "largest sessions", "space (with indexes)", "messages_fts_trigram"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestPruneStatsJSON(t *testing.T) {
	home := t.TempDir()
	path := hermesHome(t, home, 6)
	r := runLore(t, home, "prune", "stats", "--json", "--leak-after", "30d")
	if r.code != 0 || r.err != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := strings.Fields(`ages broken_parent_links children content_bytes content_bytes_by_role ended file_bytes free_bytes free_pages
		largest_sessions leak_after_seconds leaked messages messages_by_role newest_activity now oldest_activity open orphan_messages
		page_size pages path schema sessions space system_prompt_bytes wal_bytes`)
	if !slices.Equal(keys, want) {
		t.Errorf("fields\n got %v\nwant %v", keys, want)
	}
	if m["path"] != path || m["sessions"] != 40.0 || m["messages"] != 600.0 || m["leak_after_seconds"] != 30*86400.0 {
		t.Errorf("path %v, sessions %v, messages %v, leak_after_seconds %v", m["path"], m["sessions"], m["messages"], m["leak_after_seconds"])
	}
	ages := m["ages"].([]any)
	if len(ages) != 6 || ages[0].(map[string]any)["label"] != "<1d" {
		t.Errorf("ages %v", ages)
	}
	schema := m["schema"].(map[string]any)
	if schema["version"] != 6.0 || len(schema["fts"].([]any)) != 1 || len(schema["sessions_columns"].([]any)) != 26 {
		t.Errorf("schema %v", schema)
	}
}

func TestPruneStatsHermesHome(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	path := hermesHome(t, elsewhere, 2)
	r := runLoreEnv(t, home, map[string]string{"HERMES_HOME": filepath.Dir(path)}, "prune", "stats", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"path":"`+path+`"`) {
		t.Errorf("exit %d, stderr %q: want the database under HERMES_HOME", r.code, r.err)
	}
	r = runLoreEnv(t, home, nil, "prune", "stats")
	if r.code != 1 || !strings.Contains(r.err, filepath.Join(home, ".hermes", "state.db")) {
		t.Errorf("no database: exit %d, stderr %q", r.code, r.err)
	}
}

func TestPruneStatsErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte(strings.Repeat("not a database\n", 10)), 0o600)
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prune", "stats", "--db", filepath.Join(dir, "none.db")}, 1, "no Hermes state.db at " + filepath.Join(dir, "none.db")},
		{[]string{"prune", "stats", "--db", dir}, 1, "is a folder"},
		{[]string{"prune", "stats", "--db", text}, 1, "not a Hermes state.db: not an SQLite database"},
		{[]string{"prune", "stats", "--db", other}, 1, "not a Hermes state.db: no sessions table"},
		{[]string{"prune", "stats", "--leak-after", "0"}, 2, "--leak-after"},
		{[]string{"prune", "stats", "--leak-after", "0d"}, 2, "--leak-after"},
		{[]string{"prune", "stats", "--leak-after", "7"}, 2, "--leak-after"},
		{[]string{"prune", "stats", "--leak-after", "-7d"}, 2, "--leak-after"},
		{[]string{"prune", "stats", "--leak-after", "7y"}, 2, "--leak-after"},
		{[]string{"prune", "stats", "--leak-after", ""}, 2, "--leak-after"},
		{[]string{"prune", "stats", "extra"}, 2, "takes 0 argument"},
		{[]string{"prune", "stats", "--bogus"}, 2, "unknown flag"},
		{[]string{"prune", "bogus"}, 2, `unknown prune command "bogus"`},
	} {
		r := runLore(t, "", tt.args...)
		if r.code != tt.code || !strings.HasPrefix(r.err, "lore: ") || !strings.Contains(r.err, tt.want) {
			t.Errorf("lore %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), r.code, r.err, tt.code, tt.want)
		}
		if lines := strings.Count(r.err, "\n"); lines > 2 || tt.code == 1 && lines != 1 {
			t.Errorf("lore %s: %d lines on stderr, want one error line: %q", strings.Join(tt.args, " "), lines, r.err)
		}
	}
}

func TestPruneHelp(t *testing.T) {
	r := runLore(t, "", "prune", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "lore prune stats reports") || !strings.Contains(r.stdout, "stats       Report the shape") ||
		!strings.Contains(r.stdout, "--dry-run") || !strings.Contains(r.stdout, "restore     Put archived sessions back") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestPruneStatsFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want pruneStatsOptions
	}{
		{nil, pruneStatsOptions{LeakAfter: 7 * 24 * time.Hour}},
		{[]string{"--db", "/x/state.db", "--leak-after", "12h", "--json"}, pruneStatsOptions{DB: "/x/state.db", LeakAfter: 12 * time.Hour, JSON: true}},
		{[]string{"--leak-after", "1d12h30m"}, pruneStatsOptions{LeakAfter: 36*time.Hour + 30*time.Minute}},
		{[]string{"--leak-after", "2w"}, pruneStatsOptions{LeakAfter: 14 * 24 * time.Hour}},
	} {
		ios, _, _, _ := iostreams.Test()
		var got *pruneStatsOptions
		cmd := newPruneCmd(&factory{IO: ios}, &pruneRunners{Stats: func(_ context.Context, o *pruneStatsOptions) error { got = o; return nil }})
		cmd.SetArgs(append([]string{"stats"}, tt.args...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if got.DB != tt.want.DB || got.LeakAfter != tt.want.LeakAfter || got.JSON != tt.want.JSON {
			t.Errorf("%v: %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestParseSpan(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"7d": 7 * 24 * time.Hour, "12h": 12 * time.Hour, "30m": 30 * time.Minute, "45s": 45 * time.Second,
		"1w": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour, " 90m ": 90 * time.Minute, "0d1h": time.Hour,
	} {
		if got, err := parseSpan(in); err != nil || got != want {
			t.Errorf("parseSpan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0d", "0h0m", "7", "d", "7x", "-1d", "1.5d", "7 d", "99999999999999999999d", "3000000w", "7dd"} {
		if got, err := parseSpan(in); err == nil {
			t.Errorf("parseSpan(%q) = %v, want an error", in, got)
		}
	}
}
