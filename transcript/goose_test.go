package transcript

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

const gooseFixture = "testdata/goose/20250513_151042.jsonl"

// Worked out by hand from the fixture: one visible user text (the
// summary is userVisible:false); four assistant messages (one holds only
// a failed tool request); three requests; toolu_bdrk_02 failed twice (the
// request and its response) and counts once, toolu_bdrk_03 returned
// isError; the metadata's accumulated counters.
func gooseCheckFixture(t *testing.T, s *lore.Session, model string) {
	t.Helper()
	checkInvariants(t, s)
	if s.ID != "goose:20250513_151042" || s.Agent != lore.AgentGoose || s.Cwd != "/home/dev/site" || s.Model != model {
		t.Errorf("id %q agent %q cwd %q model %q", s.ID, s.Agent, s.Cwd, s.Model)
	}
	if s.UserMessages != 1 || s.AssistantMessages != 4 || s.ToolCalls != 3 || s.ToolErrors != 2 {
		t.Errorf("u=%d a=%d calls=%d errs=%d, want 1 4 3 2", s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors)
	}
	if s.Usage != (lore.Usage{InputTokens: 22000, OutputTokens: 3000}) || s.Outcome != lore.OutcomeSuccess {
		t.Errorf("usage %+v outcome %s", s.Usage, s.Outcome)
	}
	if !s.StartedAt.Equal(time.Unix(1747178300, 0)) || !s.EndedAt.Equal(time.Unix(1747178400, 0)) {
		t.Errorf("span %v – %v", s.StartedAt, s.EndedAt)
	}
}

func TestGooseLegacy(t *testing.T) {
	for _, keep := range []bool{true, false} {
		ss, err := Read(context.Background(), gooseFixture, Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("read: %v", err)
		}
		gooseCheckFixture(t, ss[0], "")
	}
	s := readOne(t, gooseFixture)
	var calls []string
	for _, m := range s.Messages {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID+" "+c.Name)
		}
	}
	if strings.Join(calls, ",") != "toolu_bdrk_01 developer__shell,toolu_bdrk_02 ,toolu_bdrk_03 developer__text_editor" {
		t.Errorf("calls %v", calls)
	}
}

func TestGooseLegacyDamage(t *testing.T) {
	data, err := os.ReadFile(gooseFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	tests := []struct {
		name, data string
		warnings   int
		user, asst int
	}{
		// The last line cut short while goose wrote it.
		{"truncated", string(data[:len(data)-20]), 1, 1, 3},
		// No metadata line: goose reads the first line as a message.
		{"no metadata", strings.Join(lines[1:], ""), 0, 1, 4},
		// A damaged line in the middle.
		{"damaged line", lines[0] + lines[1] + "{\"role\":\"assistant\",\"created\":17\n" + strings.Join(lines[2:], ""), 1, 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readOne(t, writeFile(t, "20250513_151042.jsonl", tt.data))
			if s.Warnings != tt.warnings || s.UserMessages != tt.user || s.AssistantMessages != tt.asst {
				t.Errorf("warnings %d u=%d a=%d, want %d %d %d", s.Warnings, s.UserMessages, s.AssistantMessages, tt.warnings, tt.user, tt.asst)
			}
		})
	}
}

// gooseSchema is sessions.db as session_manager.rs creates it (schema 5),
// with provider_name and model_config_json of later builds.
const gooseSchema = `
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (5);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT,
    provider_name TEXT, model_config_json TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);`

// gooseSchemaV1 is the first schema: no names, types or message metadata.
const gooseSchemaV1 = `
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER);
CREATE INDEX idx_messages_session ON messages(session_id);`

// sqlitedbExec opens a database for writing in a test and runs statements.
func sqlitedbExec(t testing.TB, path string, stmts ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

// gooseDB writes the legacy fixture's session into a sessions.db as goose
// imports it, with a sub-agent session and an empty one.
func gooseDB(t testing.TB, dir, schema string, wal bool) string {
	t.Helper()
	path := filepath.Join(dir, "sessions.db")
	var stmts []string
	if wal {
		stmts = append(stmts, "PRAGMA journal_mode=WAL")
	}
	db := sqlitedbExec(t, path, append(stmts, schema)...)
	defer db.Close()
	full := strings.Contains(schema, "model_config_json")
	insertSession := func(id, typ, created string, accIn, accOut any) {
		if full {
			if _, err := db.Exec(`INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at,
				input_tokens, output_tokens, accumulated_input_tokens, accumulated_output_tokens, provider_name, model_config_json)
				VALUES (?, 'Fix the nav bar', ?, '/home/dev/site', ?, ?, 8000, 1100, ?, ?, 'anthropic',
				'{"model_name":"claude-sonnet-4-5","context_limit":200000}')`, id, typ, created, created, accIn, accOut); err != nil {
				t.Fatal(err)
			}
			return
		}
		if _, err := db.Exec(`INSERT INTO sessions (id, working_dir, created_at, updated_at, input_tokens, output_tokens,
			accumulated_input_tokens, accumulated_output_tokens) VALUES (?, '/home/dev/site', ?, ?, 8000, 1100, ?, ?)`,
			id, created, created, accIn, accOut); err != nil {
			t.Fatal(err)
		}
	}
	insertMsg := func(sid, role string, created int64, content, meta string) {
		var err error
		if full {
			_, err = db.Exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)`,
				sid, role, content, created, meta)
		} else {
			_, err = db.Exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)`,
				sid, role, content, created)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	insertSession("20250513_151042", "user", "2025-05-13 23:05:00", 22000, 3000)
	data, err := os.ReadFile(gooseFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		var m struct {
			Role     string          `json:"role"`
			Created  int64           `json:"created"`
			Content  json.RawMessage `json:"content"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		meta := string(m.Metadata)
		if meta == "" {
			meta = `{"userVisible":true,"agentVisible":true}`
		}
		if !full && strings.Contains(meta, `"userVisible":false`) {
			continue // the first schema had no metadata to hide it with
		}
		insertMsg("20250513_151042", m.Role, m.Created, string(m.Content), meta)
	}
	insertSession("20250929_2", "sub_agent", "2025-09-29 10:00:00", nil, nil)
	insertMsg("20250929_2", "user", 1759140000, `[{"type":"text","text":"find the config"}]`, "{}")
	insertMsg("20250929_2", "assistant", 1759140005, `[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]`, "{}")
	insertMsg("20250929_2", "user", 1759140006, `[{"type":"toolResponse","id":"t1","toolResult":{"status":"error","error":"Execution failed"}}]`, "{}")
	insertSession("20250929_3", "user", "2025-09-29 11:30:00", nil, nil)
	return path
}

func TestGooseDB(t *testing.T) {
	for _, tt := range []struct {
		name, schema, model string
		// subTurns: schema 1 has no session_type, so the sub-agent's
		// session reads as an ordinary one.
		subTurns int
	}{
		{"schema 5", gooseSchema, "claude-sonnet-4-5", 0},
		{"schema 1", gooseSchemaV1, "", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := gooseDB(t, t.TempDir(), tt.schema, false)
			for _, keep := range []bool{true, false} {
				ss, err := Read(context.Background(), path, Options{Messages: keep, NoGit: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(ss) != 3 {
					t.Fatalf("got %d sessions, want 3", len(ss))
				}
				gooseCheckFixture(t, ss[0], tt.model)
				sub, empty := ss[1], ss[2]
				if sub.ID != "goose:20250929_2" || sub.MessageCount() != tt.subTurns || sub.ToolCalls != 1 || sub.ToolErrors != 1 {
					t.Errorf("sub-agent session %s: turns %d calls %d errors %d", sub.ID, sub.MessageCount(), sub.ToolCalls, sub.ToolErrors)
				}
				if empty.ID != "goose:20250929_3" || empty.MessageCount() != 0 ||
					!empty.StartedAt.Equal(time.Date(2025, 9, 29, 11, 30, 0, 0, time.UTC)) {
					t.Errorf("empty session %s: turns %d start %v", empty.ID, empty.MessageCount(), empty.StartedAt)
				}
			}
		})
	}
}

// A legacy file and the database goose imported it into name the same
// session: a scan lists it once.
func TestGooseLegacyAndDB(t *testing.T) {
	dir := t.TempDir()
	gooseDB(t, dir, gooseSchema, false)
	data, err := os.ReadFile(gooseFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "20250513_151042.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range res.Sessions {
		if s.ID == "goose:20250513_151042" {
			n++
		}
	}
	if n != 1 || len(res.Sessions) != 3 || len(res.Problems) != 0 {
		t.Errorf("session listed %d times among %d (problems %v)", n, len(res.Sessions), res.Problems)
	}
}

// Reading never changes the folder: no -wal, -shm or -journal appears, in
// WAL mode or not; a WAL database a writer holds open is read with the
// rows still in its WAL.
func TestSQLiteReadOnly(t *testing.T) {
	for _, wal := range []bool{false, true} {
		dir := t.TempDir()
		path := gooseDB(t, dir, gooseSchema, wal)
		before := sqlitedbListDir(t, dir)
		if _, err := Read(context.Background(), path, Options{NoGit: true}); err != nil {
			t.Fatal(err)
		}
		if after := sqlitedbListDir(t, dir); after != before {
			t.Errorf("wal=%v: folder changed from %q to %q", wal, before, after)
		}
	}
	dir := t.TempDir()
	path := gooseDB(t, dir, gooseSchema, true)
	w := sqlitedbExec(t, path, `PRAGMA wal_autocheckpoint=0`,
		`INSERT INTO sessions (id, working_dir) VALUES ('20251001_1', '/tmp/live')`,
		`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20251001_1', 'user', '[{"type":"text","text":"hi"}]', 1759300000)`)
	defer w.Close()
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("the writer left no WAL: %v", err)
	}
	ss, err := Read(context.Background(), path, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 4 || ss[3].ID != "goose:20251001_1" || ss[3].UserMessages != 1 {
		t.Errorf("live database: %d sessions", len(ss))
	}
}

func sqlitedbListDir(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

func TestSQLiteBadDatabases(t *testing.T) {
	old := sqlitedbBusy
	sqlitedbBusy = 200 * time.Millisecond
	defer func() { sqlitedbBusy = old }()

	// Damaged: a header and nothing behind it.
	bad := writeFile(t, "sessions.db", "SQLite format 3\x00"+strings.Repeat("\x01", 200))
	if _, err := Read(context.Background(), bad, Options{}); err == nil || errors.Is(err, ErrNotTranscript) {
		t.Errorf("damaged database: %v", err)
	} else if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	// Another program's database under goose's name.
	other := filepath.Join(t.TempDir(), "sessions.db")
	sqlitedbExec(t, other, `CREATE TABLE notes (id INTEGER, body TEXT)`).Close()
	if _, err := Read(context.Background(), other, Options{}); !errors.Is(err, ErrNotTranscript) {
		t.Errorf("unknown schema: %v", err)
	}
	// A writer holding the lock of a rollback-journal database.
	dir := t.TempDir()
	path := gooseDB(t, dir, gooseSchema, false)
	w := sqlitedbExec(t, path)
	defer w.Close()
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	_, err = Read(ctx, path, Options{})
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("locked database: %v", err)
	}
	conn.ExecContext(ctx, "ROLLBACK")
}

func TestGooseNotClaimed(t *testing.T) {
	for name, data := range map[string]string{
		// Hermes and plain OpenAI lines are not goose's.
		"a.jsonl": `{"role": "user", "content": "hi", "timestamp": "2026-01-01T10:00:00.000001"}` + "\n",
		"b.jsonl": `{"role":"user","content":"hi"}` + "\n",
	} {
		ss, _ := Read(context.Background(), writeFile(t, name, data), Options{})
		for _, s := range ss {
			if s.Agent == lore.AgentGoose {
				t.Errorf("%s read as goose", name)
			}
		}
	}
}

func TestGooseRoots(t *testing.T) {
	env := func(goos string, vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: goos, Getenv: func(k string) string { return vars[k] }}
	}
	paths := func(rs []Root) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Source+" "+r.Path)
		}
		return strings.Join(out, "; ")
	}
	tests := []struct {
		env  Env
		want string
	}{
		{env("linux", nil), "default /home/u/.local/share/goose/sessions"},
		{env("linux", map[string]string{"XDG_DATA_HOME": "/data"}), "XDG_DATA_HOME /data/goose/sessions"},
		{env("linux", map[string]string{"GOOSE_PATH_ROOT": "/srv/goose"}), "GOOSE_PATH_ROOT /srv/goose/data/sessions"},
		{env("linux", map[string]string{"GOOSE_PATH_ROOT": "relative"}), "default /home/u/.local/share/goose/sessions"},
		{env("darwin", nil), "default /home/u/.local/share/goose/sessions; default /home/u/Library/Application Support/Block/goose/sessions"},
	}
	for _, tt := range tests {
		if got := paths(gooseRoots(tt.env)); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func FuzzGoose(f *testing.F) {
	if data, err := os.ReadFile(gooseFixture); err == nil {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte(`{"role":"assistant","created":1,"content":[{"type":"toolResponse","toolResult":{"value":{"isError":true}}},{"type":"toolRequest"}]}` + "\n"))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "20250513_151042.jsonl", data)
	})
}

// FuzzSQLite feeds damaged databases to the SQLite reader: a real
// sessions.db with bytes changed must give sessions or an error.
func FuzzSQLite(f *testing.F) {
	dir := f.TempDir()
	path := gooseDB(f, dir, gooseSchema, false)
	if data, err := os.ReadFile(path); err == nil {
		f.Add(data, 100, byte(0xff))
		f.Add(data, 4096+200, byte(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, at int, b byte) {
		if len(data) > 0 {
			if at < 0 {
				at = -at
			}
			data = append([]byte(nil), data...)
			data[at%len(data)] = b
		}
		fuzzFile(t, "sessions.db", data)
	})
}
