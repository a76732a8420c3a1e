package transcript

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// Crush databases are built by the tests: there is no real crush.db on
// the project's machines. The schema is Crush's migrations
// (testdata/crush/schema-*.sql); the rows are what Crush's code writes
// (session ids, parts JSON, epoch-second times).

type crushTestMsg struct {
	id, sid, role, model string
	created, finished    int64
	summary              bool
	parts                string
}

// crushFixture is one session with a sub-agent, a title session, an
// aborted session and a session that ended on a provider error.
var crushFixture = struct {
	sessions []struct {
		id, parent, title string
		prompt, compl     int64
		created, updated  int64
	}
	messages []crushTestMsg
}{
	sessions: []struct {
		id, parent, title string
		prompt, compl     int64
		created, updated  int64
	}{
		{"4b1c", "", "Fix the failing test", 12000, 800, 1747178300, 1747178322},
		{"m4$$toolu_03", "4b1c", "find callers", 3000, 200, 1747178313, 1747178316},
		{"title-4b1c", "4b1c", "Generate a title", 0, 0, 1747178300, 1747178301},
		{"7aa0", "", "Cancelled", 500, 0, 1747180000, 1747180010},
		{"9e2f", "", "Provider down", 0, 0, 1747190000, 1747190005},
	},
	messages: []crushTestMsg{
		{"m1", "4b1c", "user", "", 1747178300, 0, false,
			`[{"type":"text","data":{"text":"Run the tests and fix what fails"}}]`},
		{"t1", "title-4b1c", "user", "", 1747178300, 0, false,
			`[{"type":"text","data":{"text":"Generate a title for: Run the tests"}}]`},
		{"m2", "4b1c", "assistant", "claude-sonnet-4-5", 1747178305, 1747178306, false,
			`[{"type":"reasoning","data":{"thinking":"I should run the tests.","signature":"x","started_at":1747178305,"finished_at":1747178305}},` +
				`{"type":"text","data":{"text":"Running the tests."}},` +
				`{"type":"tool_call","data":{"id":"toolu_01","name":"bash","input":"{\"command\":\"go test ./...\"}","provider_executed":false,"finished":true}},` +
				`{"type":"finish","data":{"reason":"tool_use","time":1747178306}}]`},
		{"m3", "4b1c", "tool", "", 1747178310, 0, false,
			`[{"type":"tool_result","data":{"tool_call_id":"toolu_01","name":"bash","content":"--- FAIL: TestParse (0.00s)\nFAIL\nExit code 1\n\n<cwd>/home/dev/proj</cwd>","data":"","mime_type":"","metadata":"{\"working_directory\":\"/home/dev/proj\"}","is_error":false}}]`},
		{"m4", "4b1c", "assistant", "claude-sonnet-4-5", 1747178312, 1747178312, false,
			`[{"type":"tool_call","data":{"id":"toolu_02","name":"edit","input":"{\"file_path\":\"parse.go\"}","finished":true}},` +
				`{"type":"tool_call","data":{"id":"toolu_03","name":"agent","input":"{\"prompt\":\"find callers of Parse\"}","finished":true}},` +
				`{"type":"finish","data":{"reason":"tool_use","time":1747178312}}]`},
		{"c1", "m4$$toolu_03", "user", "", 1747178313, 0, false,
			`[{"type":"text","data":{"text":"find callers of Parse"}}]`},
		{"c2", "m4$$toolu_03", "assistant", "claude-haiku-4-5", 1747178314, 1747178314, false,
			`[{"type":"tool_call","data":{"id":"toolu_c1","name":"grep","input":"{\"pattern\":\"Parse(\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1747178314}}]`},
		{"c3", "m4$$toolu_03", "tool", "", 1747178315, 0, false,
			`[{"type":"tool_result","data":{"tool_call_id":"toolu_c1","name":"grep","content":"error parsing regexp: missing closing ): ` + "`Parse(`" + `","is_error":true}}]`},
		{"c4", "m4$$toolu_03", "assistant", "claude-haiku-4-5", 1747178316, 1747178316, false,
			`[{"type":"text","data":{"text":"Parse is called in main.go."}},{"type":"finish","data":{"reason":"end_turn","time":1747178316}}]`},
		{"m5", "4b1c", "tool", "", 1747178317, 0, false,
			`[{"type":"tool_result","data":{"tool_call_id":"toolu_02","name":"edit","content":"<result>\nContent replaced in file: parse.go\n</result>","is_error":false}},` +
				`{"type":"tool_result","data":{"tool_call_id":"toolu_03","name":"agent","content":"Parse is called in main.go.","is_error":false}}]`},
		{"m6", "4b1c", "assistant", "claude-sonnet-4-5", 1747178318, 1747178318, false,
			`[{"type":"tool_call","data":{"id":"toolu_04","name":"bash","input":"{\"command\":\"go test ./...\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1747178318}}]`},
		{"m7", "4b1c", "tool", "", 1747178319, 0, false,
			`[{"type":"tool_result","data":{"tool_call_id":"toolu_04","name":"bash","content":"ok  \texample.com/proj\t0.012s\n\n<cwd>/home/dev/proj</cwd>","is_error":false}}]`},
		{"m8", "4b1c", "assistant", "claude-sonnet-4-5", 1747178320, 1747178322, false,
			`[{"type":"text","data":{"text":"Fixed: the test passes now."}},{"type":"finish","data":{"reason":"end_turn","time":1747178322}}]`},

		{"a1", "7aa0", "user", "", 1747180000, 0, false,
			`[{"type":"text","data":{"text":"Refactor the parser"}},{"type":"shell_command","data":{"command":"git status","output":"clean","exit_code":0}}]`},
		// Damaged: the row Crush was writing when it died.
		{"a2", "7aa0", "assistant", "gpt-5", 1747180002, 0, false, `[{"type":"text","data":{"text":"Let me`},
		{"a3", "7aa0", "assistant", "gpt-5", 1747180005, 1747180010, false,
			`[{"type":"finish","data":{"reason":"canceled","time":1747180010,"message":"User canceled request"}}]`},

		{"e1", "9e2f", "user", "", 1747190000, 0, false, `[{"type":"text","data":{"text":"Summarise the log"}}]`},
		{"e2", "9e2f", "assistant", "gpt-5", 1747190001, 1747190002, true,
			`[{"type":"text","data":{"text":"Summary: the user asked for a log summary."}},{"type":"finish","data":{"reason":"end_turn","time":1747190002}}]`},
		{"e3", "9e2f", "assistant", "gpt-5", 1747190004, 1747190005, false,
			`[{"type":"finish","data":{"reason":"error","time":1747190005,"message":"Provider Error","details":"529 overloaded"}}]`},
	},
}

// crushDB writes the fixture into <dir>/proj/.crush/crush.db with the
// initial schema, or all migrations when later is set.
func crushDB(t testing.TB, dir string, later bool) string {
	t.Helper()
	path := filepath.Join(dir, "proj", ".crush", "crush.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	stmts := []string{"PRAGMA journal_mode=WAL", crushSchema(t, "schema-initial.sql")}
	if later {
		stmts = append(stmts, crushSchema(t, "schema-later.sql"))
	}
	db := sqlitedbExec(t, path, stmts...)
	defer db.Close()
	crushInsert(t, db, later)
	return path
}

func crushSchema(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "crush", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func crushInsert(t testing.TB, db *sql.DB, later bool) {
	t.Helper()
	for _, s := range crushFixture.sessions {
		var parent any
		if s.parent != "" {
			parent = s.parent
		}
		if _, err := db.Exec(`INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at)
			VALUES (?, ?, ?, 0, ?, ?, 0.01, ?, ?)`, s.id, parent, s.title, s.prompt, s.compl, s.updated, s.created); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range crushFixture.messages {
		var model, finished any
		if m.model != "" {
			model = m.model
		}
		if m.finished != 0 {
			finished = m.finished
		}
		var err error
		if later {
			summary := 0
			if m.summary {
				summary = 1
			}
			_, err = db.Exec(`INSERT INTO messages (id, session_id, role, parts, model, provider, is_summary_message, created_at, updated_at, finished_at)
				VALUES (?, ?, ?, ?, ?, 'anthropic', ?, ?, ?, ?)`, m.id, m.sid, m.role, m.parts, model, summary, m.created, m.created, finished)
		} else {
			_, err = db.Exec(`INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at, finished_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, m.id, m.sid, m.role, m.parts, model, m.created, m.created, finished)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func crushByID(t testing.TB, ss []*lore.Session) map[string]*lore.Session {
	t.Helper()
	out := map[string]*lore.Session{}
	for _, s := range ss {
		checkInvariants(t, s)
		out[s.ID] = s
	}
	return out
}

// Worked out by hand from crushFixture.
func TestCrushDB(t *testing.T) {
	for _, later := range []bool{true, false} {
		dir := t.TempDir()
		path := crushDB(t, dir, later)
		for _, keep := range []bool{true, false} {
			t.Run(fmt.Sprintf("later=%v,messages=%v", later, keep), func(t *testing.T) {
				ss, err := Read(context.Background(), path, Options{Messages: keep, NoGit: true})
				if err != nil {
					t.Fatal(err)
				}
				// The sub-agent and title sessions are not listed.
				by := crushByID(t, ss)
				if len(ss) != 3 || by["crush:4b1c"] == nil || by["crush:7aa0"] == nil || by["crush:9e2f"] == nil {
					t.Fatalf("sessions %v", by)
				}
				s := by["crush:4b1c"]
				// The user's prompt; four answers of the main agent (the
				// sub-agent's prompt and answers are sidechain); five calls
				// (toolu_c1 in the sub-agent); toolu_01 ended "Exit code 1",
				// toolu_c1 is_error; tokens of both rows.
				if s.Agent != lore.AgentCrush || s.Cwd != filepath.Join(dir, "proj") || s.Model != "claude-sonnet-4-5" {
					t.Errorf("agent %q cwd %q model %q", s.Agent, s.Cwd, s.Model)
				}
				if s.UserMessages != 1 || s.AssistantMessages != 4 || s.ToolCalls != 5 || s.ToolErrors != 2 {
					t.Errorf("u=%d a=%d calls=%d errs=%d, want 1 4 5 2", s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors)
				}
				if s.Usage != (lore.Usage{InputTokens: 15000, OutputTokens: 1000}) || s.Outcome != lore.OutcomeSuccess {
					t.Errorf("usage %+v outcome %s", s.Usage, s.Outcome)
				}
				if !s.StartedAt.Equal(time.Unix(1747178300, 0)) || !s.EndedAt.Equal(time.Unix(1747178322, 0)) {
					t.Errorf("span %v – %v", s.StartedAt, s.EndedAt)
				}
				if s.Warnings != 0 || s.Size == 0 {
					t.Errorf("warnings %d size %d", s.Warnings, s.Size)
				}

				a := by["crush:7aa0"]
				// A user turn (text and a shell command), the damaged
				// answer a warning, the cancelled one no turn.
				if a.UserMessages != 1 || a.AssistantMessages != 0 || a.Warnings != 1 || a.Outcome != lore.OutcomeAborted {
					t.Errorf("7aa0: u=%d a=%d warnings=%d outcome %s", a.UserMessages, a.AssistantMessages, a.Warnings, a.Outcome)
				}
				if a.Usage != (lore.Usage{InputTokens: 500}) || !a.EndedAt.Equal(time.Unix(1747180010, 0)) {
					t.Errorf("7aa0: usage %+v end %v", a.Usage, a.EndedAt)
				}

				e := by["crush:9e2f"]
				// The summary is a system message only where the column
				// that marks it exists.
				wantAsst := 1
				if later {
					wantAsst = 0
				}
				if e.UserMessages != 1 || e.AssistantMessages != wantAsst || e.Outcome != lore.OutcomeFailure {
					t.Errorf("9e2f: u=%d a=%d outcome %s", e.UserMessages, e.AssistantMessages, e.Outcome)
				}
			})
		}
	}
}

func TestCrushDBMessages(t *testing.T) {
	path := crushDB(t, t.TempDir(), true)
	by := crushByID(t, readPath(t, path))
	var got []string
	for _, m := range by["crush:4b1c"].Messages {
		line := fmt.Sprintf("%d %s", m.Time.Unix(), m.Role)
		if m.Sidechain {
			line += " side"
		}
		for _, c := range m.ToolCalls {
			line += " call:" + c.ID + ":" + c.Name
		}
		for _, r := range m.ToolResults {
			line += fmt.Sprintf(" result:%s:%v", r.CallID, r.IsError)
			if r.ExitCode != nil {
				line += fmt.Sprintf(":exit=%d", *r.ExitCode)
			}
		}
		got = append(got, line)
	}
	want := []string{
		"1747178300 user",
		"1747178305 assistant call:toolu_01:bash",
		"1747178310 tool result:toolu_01:true:exit=1",
		"1747178312 assistant call:toolu_02:edit call:toolu_03:agent",
		"1747178313 user side",
		"1747178314 assistant side call:toolu_c1:grep",
		"1747178315 tool side result:toolu_c1:true",
		"1747178316 assistant side",
		"1747178317 tool result:toolu_02:false result:toolu_03:false",
		"1747178318 assistant call:toolu_04:bash",
		"1747178319 tool result:toolu_04:false",
		"1747178320 assistant",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	m := by["crush:4b1c"].Messages
	if m[1].Thinking != "I should run the tests." || m[1].Text != "Running the tests." || m[1].Model != "claude-sonnet-4-5" ||
		m[1].ToolCalls[0].Input != `{"command":"go test ./..."}` || !strings.Contains(m[2].ToolResults[0].Output, "--- FAIL: TestParse") {
		t.Errorf("bodies: %+v %+v", m[1], m[2])
	}
	a := by["crush:7aa0"].Messages
	if len(a) != 1 || a[0].Text != "Refactor the parser\n$ git status\nclean\n(exit code 0)" {
		t.Errorf("7aa0 messages %+v", a)
	}
	e := by["crush:9e2f"].Messages
	if len(e) != 3 || e[1].Role != lore.RoleSystem || e[2].Role != lore.RoleSystem || e[2].Text != "Provider Error\n529 overloaded" {
		t.Errorf("9e2f messages %+v", e)
	}
}

func TestCrushExitCode(t *testing.T) {
	tests := []struct {
		out  string
		code int
		ok   bool
	}{
		{"FAIL\nExit code 2", 2, true},
		{"FAIL\nExit code 1\n\n<cwd>/x</cwd>", 1, true},
		{"ok\n\n<cwd>/x</cwd>", 0, false},
		{"Exit code 127", 127, true},
		{"The exit code was 1", 0, false},
		{"Exit code one", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		code, ok := crushExitCode([]byte(tt.out))
		if code != tt.code || ok != tt.ok {
			t.Errorf("%q: %d %v, want %d %v", tt.out, code, ok, tt.code, tt.ok)
		}
	}
}

// A child whose parent was deleted stands alone; a loop of parents does
// not hang the reader; nested sub-agents fold into the top session.
func TestCrushDBParents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crush.db")
	db := sqlitedbExec(t, path, crushSchema(t, "schema-initial.sql"))
	for _, s := range [][2]string{{"top", ""}, {"sub", "top"}, {"subsub", "sub"}, {"orphan", "gone"}, {"x", "y"}, {"y", "x"}} {
		var parent any
		if s[1] != "" {
			parent = s[1]
		}
		if _, err := db.Exec(`INSERT INTO sessions (id, parent_session_id, title, prompt_tokens, completion_tokens, created_at, updated_at) VALUES (?, ?, 't', 10, 1, 1747178300, 1747178300)`, s[0], parent); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES (?, ?, 'user', '[{"type":"text","data":{"text":"hi"}}]', 1747178300, 1747178300)`, "m-"+s[0], s[0]); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	by := crushByID(t, readPath(t, path))
	if len(by) != 4 || by["crush:top"] == nil || by["crush:orphan"] == nil || by["crush:x"] == nil || by["crush:y"] == nil {
		t.Fatalf("sessions %v", by)
	}
	if s := by["crush:top"]; s.UserMessages != 1 || len(s.Messages) != 3 || s.Usage.InputTokens != 30 {
		t.Errorf("top: u=%d messages %d usage %+v", s.UserMessages, len(s.Messages), s.Usage)
	}
	// The database is not in a .crush folder: no project to name.
	if s := by["crush:orphan"]; s.Cwd != "" || s.UserMessages != 1 {
		t.Errorf("orphan: cwd %q u=%d", s.Cwd, s.UserMessages)
	}
}

// A damaged page costs the rows on it, not the database: the rest is
// read around it and the error says the database is damaged.
func TestCrushDamagedDB(t *testing.T) {
	const n = 300
	for _, damage := range [][]string{{"sessions"}, {"messages"}, {"idx_messages_session_id", "sqlite_autoindex_sessions_1"}} {
		t.Run(strings.Join(damage, ","), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "crush.db")
			db := sqlitedbExec(t, path, crushSchema(t, "schema-initial.sql"), crushSchema(t, "schema-later.sql"))
			pad := strings.Repeat("p", 300)
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				id := fmt.Sprintf("s%04d", i)
				if _, err := tx.Exec(`INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)`, id, pad, 1747178300+i, 1747178300+i); err != nil {
					t.Fatal(err)
				}
				for j, role := range []string{"user", "assistant"} {
					parts := fmt.Sprintf(`[{"type":"text","data":{"text":"%s %s"}}]`, role, pad)
					if _, err := tx.Exec(`INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
						fmt.Sprintf("%s-%d", id, j), id, role, parts, 1747178300+i, 1747178300+i); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			lost := damagePages(t, db, path, damage...)
			res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
			if err != nil {
				t.Fatal(err)
			}
			turns := 0
			for _, s := range res.Sessions {
				checkInvariants(t, s)
				turns += s.MessageCount()
			}
			if want := n - lost["sessions"]; len(res.Sessions) != want {
				t.Errorf("listed %d sessions, want %d", len(res.Sessions), want)
			}
			if turns < 2*len(res.Sessions)-lost["messages"] {
				t.Errorf("read %d turns of %d sessions, want all but the %d messages on the damaged page", turns, len(res.Sessions), lost["messages"])
			}
			if lost["sessions"]+lost["messages"] == 0 {
				if len(res.Problems) != 0 {
					t.Errorf("problems %v, want none", res.Problems)
				}
				return
			}
			if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Err.Error(), "damaged") {
				t.Errorf("problems %v, want one saying the database is damaged", res.Problems)
			}
		})
	}
}

// Crush's database is told by its tables, whatever its name; and a
// database of another agent named crush.db is not read as Crush's.
func TestCrushSniff(t *testing.T) {
	dir := t.TempDir()
	path := crushDB(t, dir, true)
	renamed := filepath.Join(dir, "backup.db")
	if err := os.Rename(path, renamed); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if ss := readPath(t, renamed); len(ss) != 3 || ss[0].Agent != lore.AgentCrush {
		t.Errorf("renamed: %d sessions", len(ss))
	}
	// Crush makes its database at its first start, before any prompt.
	empty := filepath.Join(dir, "new", ".crush", "crush.db")
	os.MkdirAll(filepath.Dir(empty), 0o755)
	sqlitedbExec(t, empty, crushSchema(t, "schema-initial.sql"), crushSchema(t, "schema-later.sql")).Close()
	if _, err := Read(context.Background(), empty, Options{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty database: %v, want an empty session error", err)
	}
	other := filepath.Join(dir, "crush.db")
	sqlitedbExec(t, other, `CREATE TABLE sessions (id TEXT, title TEXT)`).Close()
	if _, err := Read(context.Background(), other, Options{}); err == nil {
		t.Errorf("a database with other tables was read")
	}
}

func TestCrushRoots(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "src", "app", "sub")
	if err := os.MkdirAll(filepath.Join(home, "src", "app", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(home, ".local", "share", "crush")
	if err := os.MkdirAll(global, 0o755); err != nil {
		t.Fatal(err)
	}
	projects := `{"projects":[{"path":"/work/api","data_dir":"/work/api/.crush","last_accessed":"2026-05-01T10:00:00Z"},` +
		`{"path":"/work/web","data_dir":"/data/crush-web"},{"path":"relative","data_dir":"relative/.crush"}]}`
	if err := os.WriteFile(filepath.Join(global, "projects.json"), []byte(projects), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := func(rs []Root) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Source+" "+r.Path)
		}
		return strings.Join(out, "; ")
	}
	e := Env{Home: home, GOOS: "linux", Cwd: cwd, Getenv: func(string) string { return "" }}
	want := "default " + filepath.Join(cwd, ".crush") +
		"; default " + filepath.Join(home, "src", "app", ".crush") +
		"; projects.json /work/api/.crush; projects.json /data/crush-web/crush.db"
	if got := paths(crushRoots(e)); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.Cwd = ""
	e.Getenv = func(k string) string {
		if k == "CRUSH_GLOBAL_DATA" {
			return filepath.Join(home, "none")
		}
		return ""
	}
	if got := paths(crushRoots(e)); got != "" {
		t.Errorf("CRUSH_GLOBAL_DATA without projects.json: %q", got)
	}
}

// FuzzCrush feeds messages rows to the reader's rules directly (the
// SQLite driver, under coverage instrumentation, would run a few inputs a
// minute; TestCrushDamagedDB and FuzzSQLite cover the database).
func FuzzCrush(f *testing.F) {
	for _, m := range crushFixture.messages {
		f.Add(m.role, []byte(m.parts), m.sid == "m4$$toolu_03")
	}
	f.Add("tool", []byte(`[{"type":"tool_result","data":{"name":"bash","content":"Exit code 99999999999999999999"}},{"type":"finish","data":{"time":1e300}}]`), false)
	f.Add("user", []byte(`[{"type":"binary","data":{"Path":"a.png","MIMEType":"image/png","Data":"AAAA"}},{"type":"image_url","data":null},7]`), true)
	f.Add("assistant", []byte(strings.Repeat("[", 20000)), false)
	f.Add("assistant", []byte(`[{"type":"text","data":`+strings.Repeat(`{"a":`, maxDepth+1)+"1"), false)
	f.Fuzz(func(t *testing.T, role string, parts []byte, side bool) {
		for _, keep := range []bool{false, true} {
			in := &input{path: "/home/dev/proj/.crush/crush.db", opts: Options{Messages: keep, NoGit: true}}
			root := &crushRow{id: "s", created: int64(1), u: int64(2)}
			c := newCrushSession(in, root, []*crushRow{root})
			sid := "s"
			if side {
				sid = "m$$toolu"
			}
			for k := 0; k < 2; k++ {
				c.message(&crushMsgRow{sid: []byte(sid), role: []byte(role), parts: parts, created: int64(1747178300 + k)})
			}
			s := c.finish()
			checkInvariants(t, s)
			if s.ID != "crush:s" || s.Cwd != "/home/dev/proj" {
				t.Fatalf("id %q cwd %q", s.ID, s.Cwd)
			}
		}
	})
}

// The .crush folder of the working folder is found and walked: the empty
// database Crush makes at its first start, its workspace config and its
// log are passed over quietly; a database with sessions is read.
func TestCrushDefaultScan(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	data := filepath.Join(proj, ".crush")
	if err := os.MkdirAll(filepath.Join(data, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "crush.json"), []byte(`{"$schema":"https://charm.land/crush.json","options":{}}`), 0o644)
	os.WriteFile(filepath.Join(data, "logs", "crush.log"), []byte(`{"time":"2026-05-01T10:00:00Z","level":"INFO","msg":"started"}`+"\n"), 0o644)
	sqlitedbExec(t, filepath.Join(data, "crush.db"), crushSchema(t, "schema-initial.sql"), crushSchema(t, "schema-later.sql")).Close()
	var roots []string
	for _, r := range DefaultRoots(Env{Home: filepath.Join(dir, "home"), GOOS: "linux", Cwd: proj, Getenv: func(string) string { return "" }}) {
		if r.Agent == lore.AgentCrush && r.Exists {
			roots = append(roots, r.Path)
		}
	}
	if len(roots) != 1 || roots[0] != data {
		t.Fatalf("roots %v, want %s", roots, data)
	}
	res, err := Scan(context.Background(), roots, Options{Defaults: true, NoGit: true})
	if err != nil || len(res.Sessions) != 0 || len(res.Problems) != 0 {
		t.Fatalf("new folder: %v, %d sessions, problems %v", err, len(res.Sessions), res.Problems)
	}
	os.Remove(filepath.Join(data, "crush.db"))
	crushDB(t, dir, true)
	res, err = Scan(context.Background(), roots, Options{Defaults: true, NoGit: true})
	if err != nil || len(res.Sessions) != 3 || len(res.Problems) != 0 {
		t.Fatalf("%v, %d sessions, problems %v", err, len(res.Sessions), res.Problems)
	}
}

// A long chain of sub-agents is grouped in one pass, not one walk per row.
func TestCrushPlanChain(t *testing.T) {
	const n = 200000
	rows := make([]crushRow, n)
	for i := range rows {
		rows[i].id = fmt.Sprintf("s%06d", i)
		if i > 0 {
			rows[i].parent = fmt.Sprintf("s%06d", i-1)
		}
	}
	p := newCrushPlan(rows)
	if len(p.roots) != 1 || p.roots[0].id != "s000000" || len(p.members["s000000"]) != n {
		t.Errorf("%d roots, %d members", len(p.roots), len(p.members["s000000"]))
	}
}
