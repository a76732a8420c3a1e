package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// deepJSON is a value nested n levels: "[[[…]]]" or {"a":{"a":…}}, closed
// when closed is set.
func deepJSON(open, end string, n int, closed bool) []byte {
	var b bytes.Buffer
	b.Grow(n * (len(open) + len(end)))
	for i := 0; i < n; i++ {
		b.WriteString(open)
	}
	if closed {
		b.WriteString("1")
		for i := 0; i < n; i++ {
			b.WriteString(end)
		}
	}
	return b.Bytes()
}

// hostileLines is a Claude Code transcript of two turns with bad between
// them.
func hostileLines(bad []byte) []byte {
	user := claudeLine("s1", "user", "2.0.1", `"message":{"role":"user","content":"hi"},"uuid":"a"`)
	answer := claudeLine("s1", "assistant", "2.1.3", `"message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"r1","uuid":"b"`)
	var b bytes.Buffer
	b.WriteString(user + "\n")
	b.Write(bad)
	b.WriteString("\n" + answer + "\n")
	return b.Bytes()
}

const hostileDepth = 4 << 20

// Hostile input costs the file it is in, or the line when the format reads
// line by line, never the run: nesting millions of levels deep overflowed
// the stack in fastjson's validator, a NUL in the first bytes rejected a
// whole session, and a first line longer than the line readers read
// rejected the whole file.
func TestReadHostile(t *testing.T) {
	longFirst := append(append([]byte(`{"type":"user","x":"`), bytes.Repeat([]byte("x"), maxLine)...), `"}`+"\n"...)
	longFirst = append(longFirst, hostileLines(nil)...)
	tests := []struct {
		name string
		file string
		data []byte
		// errPart is in the error when the file is skipped; "" when it
		// is read, with warn warnings.
		errPart string
		warn    int
	}{
		{"deep array first line", "a.jsonl", append(deepJSON("[", "]", hostileDepth, false), "\n[1]\n"...), "nested deeper than", 0},
		{"deep array, one line", "a.jsonl", deepJSON("[", "]", hostileDepth, false), "nested deeper than", 0},
		{"deep object first line", "a.jsonl", append(deepJSON(`{"a":`, "}", hostileDepth, false), "\n{}\n"...), "nested deeper than", 0},
		{"deep closed object first line", "a.jsonl", append(deepJSON(`{"a":`, "}", hostileDepth, true), "\n{}\n"...), "nested deeper than", 0},
		{"deep document", "a.json", append([]byte("{\n\"a\":\n"), deepJSON("[", "]", hostileDepth, false)...), "nested deeper than", 0},
		{"deep line", "a.jsonl", hostileLines(deepJSON("[", "]", hostileDepth, false)), "", 1},
		{"deep object line", "a.jsonl", hostileLines(deepJSON(`{"a":`, "}", hostileDepth, true)), "", 1},
		{"just too deep line", "a.jsonl", hostileLines(deepJSON("[", "]", maxDepth+1, true)), "", 1},
		{"deep line within bound", "a.jsonl", hostileLines(deepJSON("[", "]", maxDepth, true)), "", 0},
		{"NUL line", "a.jsonl", hostileLines(bytes.Repeat([]byte{0}, 100)), "", 1},
		{"NUL in a line", "a.jsonl", hostileLines([]byte("{\"type\":\"user\",\x00}")), "", 1},
		{"long first line", "a.jsonl", longFirst, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			ss, err := Read(context.Background(), path, Options{Messages: true, NoGit: true})
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err %v, want one line with %q", err, tt.errPart)
				}
				return
			}
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(ss) != 1 {
				t.Fatalf("got %d sessions, want 1", len(ss))
			}
			s := ss[0]
			if s.UserMessages != 1 || s.AssistantMessages != 1 {
				t.Errorf("read %d user and %d assistant turns, want 1 and 1: the lines around the bad one are lost", s.UserMessages, s.AssistantMessages)
			}
			if s.Warnings != tt.warn {
				t.Errorf("%d warnings (%q), want %d", s.Warnings, s.WarningSamples, tt.warn)
			}
		})
	}
}

// A scan lists the good files beside a hostile one, and names the hostile
// one in a problem.
func TestScanHostile(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"good.jsonl": hostileLines(nil),
		"deep.jsonl": append(deepJSON("[", "]", hostileDepth, false), "\n[1]\n"...),
		"nul.jsonl":  bytes.Replace(hostileLines(bytes.Repeat([]byte{0}, 10)), []byte(`"s1"`), []byte(`"s2"`), -1),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 2 {
		t.Errorf("got %d sessions, want 2 (good and nul)", len(res.Sessions))
	}
	if len(res.Problems) != 1 || filepath.Base(res.Problems[0].Path) != "deep.jsonl" {
		t.Fatalf("problems %v, want one for deep.jsonl", res.Problems)
	}
}

func TestTooDeep(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{`{"a":[1,{"b":2}]}`, false},
		{string(deepJSON("[", "]", maxDepth, true)), false},
		{string(deepJSON("[", "]", maxDepth+1, false)), true},
		{string(deepJSON(`{"a":`, "}", maxDepth+1, true)), true},
		// Brackets in strings are text, escaped quotes do not end them.
		{`"` + strings.Repeat("[", 2*maxDepth) + `"`, false},
		{`["\"` + strings.Repeat("[", 2*maxDepth) + `"]`, false},
		{`["\\"` + strings.Repeat("[", 2*maxDepth), true},
		// Closing brackets first do not bank depth.
		{strings.Repeat("]", maxDepth) + strings.Repeat("[", maxDepth+1), true},
	}
	for i, tt := range tests {
		if got := tooDeep([]byte(tt.data)); got != tt.want {
			t.Errorf("%d: tooDeep = %v, want %v", i, got, tt.want)
		}
	}
}

// damagedStateDB writes a Hermes state.db of n sessions of two messages
// each, then overwrites a leaf page in the middle of each of the tables
// and indexes named (its only one when the index is small), as a disk
// error would. It returns how many entries
// were on each of those pages.
func damagedStateDB(t testing.TB, path string, n int, names ...string) map[string]int {
	t.Helper()
	db := sqlitedbExec(t, path, hermesSchemaV2)
	pad := strings.Repeat("p", 300)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%04d", i)
		if _, err := tx.Exec(`INSERT INTO sessions (id, source, system_prompt, started_at) VALUES (?, 'cli', ?, ?)`, id, pad, 1778922000+i); err != nil {
			t.Fatal(err)
		}
		for j, role := range []string{"user", "assistant"} {
			if _, err := tx.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)`, id, role, role+" "+pad, 1778922000+i*10+j); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return damagePages(t, db, path, names...)
}

// damagePages closes db and overwrites a leaf page in the middle of each
// of the tables and indexes named (its only one when the index is small),
// as a disk error would. It returns how many entries were on each of those
// pages.
func damagePages(t testing.TB, db *sql.DB, path string, names ...string) map[string]int {
	t.Helper()
	var pageSize int64
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	damage := map[string][2]int64{} // name: page number, entries
	for _, name := range names {
		rows, err := db.Query(`SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno`, name)
		if err != nil {
			t.Fatal(err)
		}
		var pages [][2]int64
		for rows.Next() {
			var p [2]int64
			if err := rows.Scan(&p[0], &p[1]); err != nil {
				t.Fatal(err)
			}
			pages = append(pages, p)
		}
		rows.Close()
		if len(pages) == 0 {
			t.Fatalf("%s has no leaf page", name)
		}
		damage[name] = pages[len(pages)/2]
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lost := map[string]int{}
	for name, p := range damage {
		if _, err := f.WriteAt(bytes.Repeat([]byte{0x5a}, int(pageSize)), (p[0]-1)*pageSize); err != nil {
			t.Fatal(err)
		}
		lost[name] = int(p[1])
	}
	return lost
}

// A damaged page of state.db costs the sessions on it, not the listing:
// the scan stopped at the first bad page and listed the sessions before
// it. A damaged index costs nothing: the tables are read without it.
func TestHermesDamagedDB(t *testing.T) {
	const n = 300
	tests := []struct {
		name   string
		damage []string
	}{
		{"tables", []string{"sessions", "messages"}},
		{"sessions", []string{"sessions"}},
		{"messages", []string{"messages"}},
		{"indexes", []string{"sqlite_autoindex_sessions_1", "idx_messages_session", "idx_sessions_started"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.db")
			lost := damagedStateDB(t, path, n, tt.damage...)
			if err := os.WriteFile(filepath.Join(dir, "good.jsonl"), hostileLines(nil), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, keep := range []bool{false, true} {
				res, err := Scan(context.Background(), []string{dir}, Options{Messages: keep, NoGit: true})
				if err != nil {
					t.Fatal(err)
				}
				hermes, turns := 0, 0
				for _, s := range res.Sessions {
					if s.Agent == lore.AgentHermes {
						hermes++
						turns += s.UserMessages + s.AssistantMessages
					}
				}
				if want := n - lost["sessions"]; hermes != want {
					t.Errorf("listed %d of %d sessions, want %d (all but the %d on the damaged page)", hermes, n, want, lost["sessions"])
				}
				if turns < 2*hermes-lost["messages"] {
					t.Errorf("read %d turns of %d sessions, want all but the %d messages on the damaged page", turns, hermes, lost["messages"])
				}
				if len(res.Sessions) != hermes+1 {
					t.Errorf("the transcript beside state.db is not listed")
				}
				if lost["sessions"]+lost["messages"] == 0 {
					if len(res.Problems) != 0 {
						t.Errorf("problems %v, want none", res.Problems)
					}
					continue
				}
				if len(res.Problems) != 1 || res.Problems[0].Path != path || !strings.Contains(res.Problems[0].Err.Error(), "damaged") {
					t.Errorf("problems %v, want one saying %s is damaged", res.Problems, path)
				}
			}
		})
	}
}

// damagedGooseDB writes a Goose sessions.db of n sessions of two messages
// each, then damages a page of each of the tables named (damagePages).
func damagedGooseDB(t testing.TB, path string, n int, names ...string) map[string]int {
	t.Helper()
	db := sqlitedbExec(t, path, gooseSchema)
	pad := strings.Repeat("p", 300)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%04d", i)
		if _, err := tx.Exec(`INSERT INTO sessions (id, description, working_dir) VALUES (?, ?, '/w')`, id, pad); err != nil {
			t.Fatal(err)
		}
		for j, role := range []string{"user", "assistant"} {
			content := `[{"type":"text","text":"` + role + " " + pad + `"}]`
			if _, err := tx.Exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)`, id, role, content, 1778922000+i*10+j); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return damagePages(t, db, path, names...)
}

// Goose's sessions.db is read around damage as Hermes's state.db is.
func TestGooseDamagedDB(t *testing.T) {
	const n = 300
	for _, damage := range [][]string{{"sessions", "messages"}, {"idx_messages_session"}} {
		t.Run(strings.Join(damage, ","), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.db")
			lost := damagedGooseDB(t, path, n, damage...)
			for _, keep := range []bool{false, true} {
				res, err := Scan(context.Background(), []string{path}, Options{Messages: keep, NoGit: true})
				if err != nil {
					t.Fatal(err)
				}
				turns := 0
				for _, s := range res.Sessions {
					turns += s.UserMessages + s.AssistantMessages
				}
				if want := n - lost["sessions"]; len(res.Sessions) != want {
					t.Errorf("listed %d of %d sessions, want %d (all but the %d on the damaged page)", len(res.Sessions), n, want, lost["sessions"])
				}
				if turns < 2*len(res.Sessions)-lost["messages"] {
					t.Errorf("read %d turns of %d sessions, want all but the %d messages on the damaged page", turns, len(res.Sessions), lost["messages"])
				}
				damaged := lost["sessions"]+lost["messages"] > 0
				if damaged != (len(res.Problems) == 1) || len(res.Problems) > 1 {
					t.Errorf("problems %v; want one saying the file is damaged only when rows were lost", res.Problems)
				}
			}
		})
	}
}

// The readers parse JSON held in strings (tool results, Codex outputs,
// SWE-agent states) with fastjson alone, trusting its own depth bound; an
// upgrade that dropped it would bring the stack overflow back.
func TestFastjsonBoundsDepth(t *testing.T) {
	var p fastjson.Parser
	for _, b := range [][2]string{{"[", "]"}, {`{"a":`, "}"}} {
		if _, err := p.ParseBytes(deepJSON(b[0], b[1], hostileDepth, true)); err == nil {
			t.Errorf("%s×%d parsed", b[0], hostileDepth)
		}
		if _, err := p.ParseBytes(deepJSON(b[0], b[1], maxDepth, true)); err != nil {
			t.Errorf("%s×%d (maxDepth) not parsed: the bound is not fastjson's", b[0], maxDepth)
		}
	}
}
