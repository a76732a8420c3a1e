package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeTurns is a Claude Code transcript of session sid: a user turn,
// bad, and an answer.
func claudeTurns(sid string, bad []byte) []byte {
	line := func(typ, body string) string {
		return `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"` + sid +
			`","version":"2.1.3","gitBranch":"main","type":"` + typ + `",` + body + `,"timestamp":"2026-01-01T00:00:00.000Z"}` + "\n"
	}
	var b bytes.Buffer
	b.WriteString(line("user", `"message":{"role":"user","content":"hi"},"uuid":"a"`))
	b.Write(bad)
	b.WriteString("\n")
	b.WriteString(line("assistant", `"message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"r1","uuid":"b"`))
	return b.Bytes()
}

// damagedHermesDB writes a Hermes state.db of n sessions and overwrites a
// leaf page in the middle of its sessions table.
func damagedHermesDB(t *testing.T, path string, n int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, system_prompt TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, tool_call_count INTEGER DEFAULT 0)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, tool_calls TEXT, timestamp REAL NOT NULL)`,
		`BEGIN`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	pad := strings.Repeat("p", 300)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%04d", i)
		if _, err := db.Exec(`INSERT INTO sessions (id, source, system_prompt, started_at) VALUES (?, 'cli', ?, ?)`, id, pad, 1778922000+i); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'hello', ?)`, id, 1778922000+i); err != nil {
			t.Fatal(err)
		}
	}
	var page, size int64
	if _, err := db.Exec(`COMMIT`); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'sessions' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 5`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0x5a}, int(size)), (page-1)*size); err != nil {
		t.Fatal(err)
	}
}

// Hostile transcripts cost the file or the line they are in, never the
// run: lore sessions lists the others, names each bad file on one line of
// stderr, and exits 1 only when nothing could be read. A first line nested
// millions of levels deep overflowed the stack (exit 2, a stack trace), a
// NUL line or a first line longer than 64 MiB rejected a whole file, and a
// damaged state.db listed the sessions before its first bad page.
func TestSessionsHostile(t *testing.T) {
	deep := append(bytes.Repeat([]byte("["), 4<<20), "\n[1]\n"...)
	deepObject := append(bytes.Repeat([]byte(`{"a":`), 4<<20), "\n{}\n"...)
	long := append(append([]byte(`{"type":"user","x":"`), bytes.Repeat([]byte("x"), 64<<20)...), "\"}\n"...)
	long = append(long, claudeTurns("long", nil)...)
	files := []struct {
		name string
		data []byte
		// listed is the sessions the file holds once read; 0 for a file
		// that is skipped with a problem.
		listed int
		warn   bool
	}{
		{"good.jsonl", claudeTurns("good", nil), 1, false},
		{"deep.jsonl", deep, 0, false},
		{"deep-object.jsonl", deepObject, 0, false},
		{"deep-line.jsonl", claudeTurns("deepline", bytes.Repeat([]byte("["), 4<<20)), 1, true},
		{"nul.jsonl", claudeTurns("nul", bytes.Repeat([]byte{0}, 200)), 1, true},
		{"long.jsonl", long, 1, true},
	}
	dir := t.TempDir()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const hermesSessions = 300
	db := filepath.Join(dir, "state.db")
	damagedHermesDB(t, db, hermesSessions)

	clean := func(t *testing.T, r result) {
		t.Helper()
		if r.code == 2 || strings.Contains(r.err, "goroutine ") || strings.Contains(r.err, "panic") {
			t.Fatalf("exit %d, stderr:\n%.2000s", r.code, r.err)
		}
	}
	t.Run("folder", func(t *testing.T) {
		r := runLore(t, "", "sessions", dir, "--json")
		clean(t, r)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.err)
		}
		listed := strings.Count(r.stdout, "\n")
		hermes := strings.Count(r.stdout, `"agent":"hermes"`)
		if hermes < hermesSessions*9/10 || hermes == hermesSessions {
			t.Errorf("listed %d Hermes sessions of %d, want all but those on the damaged page", hermes, hermesSessions)
		}
		for _, f := range files {
			if f.listed > 0 && !strings.Contains(r.stdout, filepath.Join(dir, f.name)) {
				t.Errorf("%s not listed", f.name)
			}
		}
		if want := 4 + hermes; listed != want {
			t.Errorf("listed %d sessions, want %d", listed, want)
		}
		problems := strings.Split(strings.TrimSpace(r.err), "\n")
		want := [][2]string{
			{filepath.Join(dir, "deep-object.jsonl"), "JSON nested deeper than"},
			{filepath.Join(dir, "deep.jsonl"), "JSON nested deeper than"},
			{db, "SQLite database is damaged"},
		}
		if len(problems) != len(want) {
			t.Fatalf("stderr:\n%s\nwant one line for each of %q", r.err, want)
		}
		for i, w := range want {
			if !strings.HasPrefix(problems[i], w[0]+": ") || !strings.Contains(problems[i], w[1]) {
				t.Errorf("problem %q, want %s: …%s…", problems[i], w[0], w[1])
			}
		}
	})
	for _, f := range append(files, struct {
		name   string
		data   []byte
		listed int
		warn   bool
	}{"state.db", nil, 1, false}) {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join(dir, f.name)
			r := runLore(t, "", "sessions", path, "--json")
			clean(t, r)
			if f.listed == 0 {
				if r.code != 1 || !strings.HasPrefix(r.err, path+": ") || strings.Count(r.err, path+": ") != 1 {
					t.Errorf("exit %d, stderr:\n%s\nwant 1 and one line naming the file", r.code, r.err)
				}
				return
			}
			if r.code != 0 || r.stdout == "" {
				t.Errorf("exit %d, stdout %q, want 0 and the sessions", r.code, r.stdout)
			}
			if n := strings.Count(r.stdout, `"agent":"hermes"`); f.name == "state.db" && (n < hermesSessions*9/10 || !strings.HasPrefix(r.err, path+": SQLite database is damaged")) {
				t.Errorf("listed %d of %d sessions; stderr %q; want all but the damaged page's and one line naming the file", n, hermesSessions, r.err)
			}
			if f.warn && !strings.Contains(r.stdout, `"warnings":1`) {
				t.Errorf("stdout %s, want a warning for the bad line", r.stdout)
			}
		})
	}
}

// Every command that reads transcripts skips a file nested millions of
// levels deep with one line naming it, and reads the others: each of them
// overflowed the stack (exit 2, a stack trace) on it.
func TestCommandsDeepTranscript(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.jsonl")
	if err := os.WriteFile(deep, append(bytes.Repeat([]byte(`{"a":`), 4<<20), "\n{}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good.jsonl"), claudeTurns("good", nil), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "lore.db")
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"sessions", dir}, 0},
		{[]string{"sessions", "show", deep}, 1},
		{[]string{"sample", dir}, 0},
		{[]string{"measure", dir}, 0},
		{[]string{"harvest", dir, "--store", store}, 0},
		{[]string{"harvest", deep, "--store", store}, 1},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i, tt.args[0]), func(t *testing.T) {
			r := runLore(t, "", tt.args...)
			if strings.Contains(r.err, "goroutine ") || r.code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%.2000s", r.code, tt.code, r.err)
			}
			var said []string
			for _, l := range strings.Split(r.err, "\n") {
				if strings.Contains(l, "nested") {
					said = append(said, l)
				}
			}
			if len(said) != 1 || !strings.Contains(said[0], deep+": ") {
				t.Errorf("stderr:\n%s\nwant one line naming %s and why", r.err, deep)
			}
		})
	}
}
