package transcript

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

const (
	hermesSID      = "20260515_201841_a64c801a"
	hermesJSONL    = "testdata/hermes/sessions/" + hermesSID + ".jsonl"
	hermesSnapshot = "testdata/hermes/sessions/session_" + hermesSID + ".json"
	hermesOld      = "testdata/hermes/sessions/20260101_000000_0badc0de.jsonl"
	hermesTraj     = "testdata/hermes/trajectory_samples.jsonl"
)

type hermesWant struct {
	id                      string
	user, asst, calls, errs int
	outcome                 lore.Outcome
	model                   string
	start, end              time.Time
}

func hermesCheck(t *testing.T, s *lore.Session, w hermesWant) {
	t.Helper()
	checkInvariants(t, s)
	if s.ID != w.id || s.Agent != lore.AgentHermes || s.Model != w.model {
		t.Errorf("id %q agent %q model %q, want %q %q", s.ID, s.Agent, s.Model, w.id, w.model)
	}
	if s.UserMessages != w.user || s.AssistantMessages != w.asst || s.ToolCalls != w.calls || s.ToolErrors != w.errs {
		t.Errorf("%s: u=%d a=%d calls=%d errs=%d, want %d %d %d %d", s.ID, s.UserMessages, s.AssistantMessages,
			s.ToolCalls, s.ToolErrors, w.user, w.asst, w.calls, w.errs)
	}
	if s.Outcome != w.outcome {
		t.Errorf("%s: outcome %s, want %s", s.ID, s.Outcome, w.outcome)
	}
	if !w.start.IsZero() && (!s.StartedAt.Equal(w.start) || !s.EndedAt.Equal(w.end)) {
		t.Errorf("%s: span %v – %v, want %v – %v", s.ID, s.StartedAt, s.EndedAt, w.start, w.end)
	}
}

// Worked out by hand from the fixtures (see the Python that wrote them):
// the compaction message is no turn; call_2 exits 127, call_3 carries an
// "error", call_4 exits 100 in two results and counts once; call_1's
// exit_code 0 with error null is no error.
func TestHermesFiles(t *testing.T) {
	main := hermesWant{"hermes:" + hermesSID, 2, 4, 4, 3, lore.OutcomeSuccess, "gpt-5.3-codex",
		localTime(t, "2026-05-15T20:18:41.120044"), localTime(t, "2026-05-15T20:25:02")}
	tests := []struct {
		path string
		want hermesWant
	}{
		{hermesJSONL, main},
		// The snapshot after the first tool result: waiting for the model.
		{hermesSnapshot, hermesWant{"hermes:" + hermesSID, 1, 1, 1, 0, lore.OutcomeUnknown, "gpt-5.3-codex",
			localTime(t, "2026-05-15T20:18:41.120044"), localTime(t, "2026-05-15T20:19:31.2")}},
		// No session_meta line, epoch timestamps; the system message is no
		// turn; the answer was cut off (finish_reason length).
		{hermesOld, hermesWant{"hermes:20260101_000000_0badc0de", 1, 2, 1, 0, lore.OutcomeFailure, "",
			time.Unix(1767225600, 250e6), time.Unix(1767225606, 750e6)}},
	}
	for _, tt := range tests {
		for _, keep := range []bool{true, false} {
			ss, err := Read(context.Background(), tt.path, Options{Messages: keep, NoGit: true})
			if err != nil || len(ss) != 1 {
				t.Fatalf("%s: %v (%d sessions)", tt.path, err, len(ss))
			}
			hermesCheck(t, ss[0], tt.want)
		}
	}
	s := readOne(t, hermesJSONL)
	var exits []string
	for _, m := range s.Messages {
		for _, r := range m.ToolResults {
			e := "nil"
			if r.ExitCode != nil {
				e = strconv.Itoa(*r.ExitCode)
			}
			exits = append(exits, r.CallID+"="+e)
		}
		if m.Role == lore.RoleAssistant && len(m.ToolCalls) > 0 && m.ToolCalls[0].ID == "call_1" {
			if m.Thinking != "Check the remote first." || m.ToolCalls[0].Name != "terminal" || m.ToolCalls[0].Input != `{"command":"git remote -v"}` {
				t.Errorf("first call message %+v", m)
			}
		}
	}
	if strings.Join(exits, ",") != "call_1=0,call_2=127,call_3=nil,call_4=100,call_4=100" {
		t.Errorf("results %v", exits)
	}
}

func TestHermesTrajectories(t *testing.T) {
	ss := readPath(t, hermesTraj)
	if len(ss) != 2 {
		t.Fatalf("got %d trajectories, want 2", len(ss))
	}
	start := localTime(t, "2026-05-01T10:00:00")
	hermesCheck(t, ss[0], hermesWant{ss[0].ID, 1, 2, 1, 0, lore.OutcomeSuccess, "hermes-4-70b", start, start})
	// Two calls in one answer; one response's content is JSON text with
	// exit_code 1, the other an object with an error.
	hermesCheck(t, ss[1], hermesWant{ss[1].ID, 1, 1, 2, 2, lore.OutcomeFailure, "hermes-4-70b", time.Time{}, time.Time{}})
	if !strings.HasPrefix(ss[0].NativeID, "trajectory-") || ss[0].ID == ss[1].ID {
		t.Errorf("ids %q %q", ss[0].ID, ss[1].ID)
	}
	data, err := os.ReadFile(hermesTraj)
	if err != nil {
		t.Fatal(err)
	}
	again := readPath(t, writeFile(t, "failed_trajectories.jsonl", string(data)+"{damaged\n"))
	if again[0].ID != ss[0].ID || again[1].ID != ss[1].ID || again[1].Warnings != 1 {
		t.Errorf("copy: ids %q %q warnings %d", again[0].ID, again[1].ID, again[1].Warnings)
	}
}

func TestHermesDamage(t *testing.T) {
	data, err := os.ReadFile(hermesJSONL)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	tests := []struct {
		name, data           string
		warnings, user, asst int
	}{
		{"truncated last line", text[:len(text)-30], 1, 2, 3},
		{"two objects on a line", strings.Join(lines[:2], "") + strings.TrimSuffix(lines[2], "\n") + lines[3] + strings.Join(lines[4:], ""), 0, 2, 4},
		{"damaged line", strings.Join(lines[:2], "") + "{\"role\": \"user\", \"content\": \n" + strings.Join(lines[2:], ""), 1, 2, 4},
		// /undo and /compress rewrite the file: fewer lines, same id.
		{"rewritten", strings.Join(lines[:4], ""), 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readOne(t, writeFile(t, hermesSID+".jsonl", tt.data))
			if s.ID != "hermes:"+hermesSID || s.Warnings != tt.warnings || s.UserMessages != tt.user || s.AssistantMessages != tt.asst {
				t.Errorf("%s warnings %d u=%d a=%d, want %d %d %d", s.ID, s.Warnings, s.UserMessages, s.AssistantMessages, tt.warnings, tt.user, tt.asst)
			}
		})
	}
	// A .jsonl that is one JSON document (a snapshot saved under the
	// other name) is still read.
	snap, err := os.ReadFile(hermesSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if s := readOne(t, writeFile(t, hermesSID+".jsonl", string(snap))); s.ID != "hermes:"+hermesSID || s.UserMessages != 1 {
		t.Errorf("snapshot as .jsonl: %s u=%d", s.ID, s.UserMessages)
	}
}

// Lines other agents write are not Hermes's, and Hermes lines are not
// theirs.
func TestHermesSniff(t *testing.T) {
	for name, data := range map[string]string{
		"openai.jsonl": `{"role": "user", "content": "hi"}` + "\n",
		"goose.jsonl":  `{"role":"user","created":1747178300,"timestamp":"x","content":[{"type":"text","text":"hi"}]}` + "\n",
		"claude.jsonl": `{"type":"user","role":"user","timestamp":"2026-01-01T00:00:00Z","sessionId":"x","message":{"role":"user","content":"hi"}}` + "\n",
		"data.jsonl":   `{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]}` + "\n",
	} {
		ss, _ := Read(context.Background(), writeFile(t, name, data), Options{})
		for _, s := range ss {
			if s.Agent == lore.AgentHermes {
				t.Errorf("%s read as hermes", name)
			}
		}
	}
}

// hermesSchemaV2 is state.db as hermes_state.py (SCHEMA_VERSION 2) creates
// it (FORMATS.md section 10b).
const hermesSchemaV2 = `
CREATE TABLE schema_version ( version INTEGER NOT NULL );
INSERT INTO schema_version VALUES (2);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id));
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content); END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END;`

// hermesSchemaV11 is the shape of a v11 build: columns added by the
// migrations v3–v11, state_meta, a contentless FTS index and a trigram one.
const hermesSchemaV11 = `
CREATE TABLE schema_version ( version INTEGER NOT NULL );
INSERT INTO schema_version VALUES (11);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, title TEXT,
    cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL, actual_cost_usd REAL,
    cost_status TEXT, cost_source TEXT, pricing_version TEXT, api_call_count INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id));
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
    reasoning TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    reasoning_content TEXT, codex_message_items TEXT);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, coalesce(new.content, '') || ' ' || coalesce(new.tool_name, '') || ' ' || coalesce(new.tool_calls, ''));
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content); END;`

// hermesDB writes state.db holding the fixture's session (with two more
// messages than the .jsonl) and sessions that show the outcome rules.
func hermesDB(t testing.TB, path, schema string) {
	t.Helper()
	db := sqlitedbExec(t, path, "PRAGMA journal_mode=WAL", schema)
	defer db.Close()
	v11 := strings.Contains(schema, "cache_read_tokens")
	session := func(id string, started float64, ended any, reason any) {
		if _, err := db.Exec(`INSERT INTO sessions (id, source, model, system_prompt, started_at, ended_at, end_reason, input_tokens, output_tokens)
			VALUES (?, 'discord', 'gpt-5.3-codex', 'You are Hermes.', ?, ?, ?, 5000, 700)`, id, started, ended, reason); err != nil {
			t.Fatal(err)
		}
		if v11 {
			if _, err := db.Exec(`UPDATE sessions SET cache_read_tokens = 1200, cache_write_tokens = 300 WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	msg := func(sid, role string, content, calls, callID, finish any, ts float64) {
		if _, err := db.Exec(`INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, finish_reason, timestamp)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, sid, role, content, calls, callID, finish, ts); err != nil {
			t.Fatal(err)
		}
	}
	start := float64(localTime(t, "2026-05-15T20:18:41.120044").UnixMicro()) / 1e6
	session(hermesSID, start, start+900, "user_exit")
	f, err := os.Open(hermesJSONL)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	last := start
	for sc.Scan() {
		var m struct {
			Role       string          `json:"role"`
			Content    *string         `json:"content"`
			ToolCalls  json.RawMessage `json:"tool_calls"`
			ToolCallID *string         `json:"tool_call_id"`
			Finish     *string         `json:"finish_reason"`
			Timestamp  string          `json:"timestamp"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m.Role == "session_meta" {
			continue
		}
		var calls any
		if len(m.ToolCalls) > 0 {
			calls = string(m.ToolCalls)
		}
		last = float64(localTime(t, m.Timestamp).UnixMicro()) / 1e6
		msg(hermesSID, m.Role, m.Content, calls, m.ToolCallID, m.Finish, last)
	}
	msg(hermesSID, "user", "thanks, I'll do that", nil, nil, nil, last+60)
	msg(hermesSID, "assistant", "You're welcome.", nil, nil, "stop", last+61)

	// Waiting for the model, never ended: unknown.
	session("20260516_090000_deadbeef", 1778922000, nil, nil)
	msg("20260516_090000_deadbeef", "user", "  ", nil, nil, nil, 1778922001) // blank: no turn
	msg("20260516_090000_deadbeef", "user", "are you there?", nil, nil, nil, 1778922002)
	// A call in flight when the session was reset: aborted.
	session("cron_job1_20260516_100000", 1778925600, 1778925700, "session_reset")
	msg("cron_job1_20260516_100000", "user", "run the nightly report", nil, nil, nil, 1778925601)
	msg("cron_job1_20260516_100000", "assistant", nil, `[{"id":"call_r","type":"function","function":{"name":"terminal","arguments":"{}"}}]`, nil, "tool_calls", 1778925602)
	// Split by compression: the work goes on in the child, unknown.
	session("20260516_110000_c0ffee00", 1778929200, 1778929300, "compression")
	msg("20260516_110000_c0ffee00", "user", "continue", nil, nil, nil, 1778929201)
	// No messages at all.
	session("20260516_120000_e0e0e0e0", 1778932800, nil, nil)
	// Messages of no session, before and after every id.
	msg("0000_orphan", "user", "lost", nil, nil, nil, 1)
	msg("zzzz_orphan", "user", "lost", nil, nil, nil, 1)
}

func TestHermesDB(t *testing.T) {
	start := localTime(t, "2026-05-15T20:18:41.120044")
	for _, tt := range []struct {
		name, schema string
		usage        lore.Usage
	}{
		{"v2", hermesSchemaV2, lore.Usage{InputTokens: 5000, OutputTokens: 700}},
		{"v11", hermesSchemaV11, lore.Usage{InputTokens: 5000, OutputTokens: 700, CacheReadTokens: 1200, CacheWriteTokens: 300}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			hermesDB(t, path, tt.schema)
			var counts [2][]*lore.Session
			for i, keep := range []bool{false, true} {
				ss, err := Read(context.Background(), path, Options{Messages: keep, NoGit: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(ss) != 5 {
					t.Fatalf("got %d sessions, want 5", len(ss))
				}
				counts[i] = ss
				// The .jsonl's session with two more turns; the usage of the row.
				hermesCheck(t, ss[0], hermesWant{"hermes:" + hermesSID, 3, 5, 4, 3, lore.OutcomeSuccess, "gpt-5.3-codex",
					start, start.Add(900 * time.Second)})
				if ss[0].Usage != tt.usage {
					t.Errorf("usage %+v, want %+v", ss[0].Usage, tt.usage)
				}
				hermesCheck(t, ss[1], hermesWant{"hermes:20260516_090000_deadbeef", 1, 0, 0, 0, lore.OutcomeUnknown, "gpt-5.3-codex", time.Time{}, time.Time{}})
				hermesCheck(t, ss[2], hermesWant{"hermes:20260516_110000_c0ffee00", 1, 0, 0, 0, lore.OutcomeUnknown, "gpt-5.3-codex", time.Time{}, time.Time{}})
				hermesCheck(t, ss[3], hermesWant{"hermes:20260516_120000_e0e0e0e0", 0, 0, 0, 0, lore.OutcomeUnknown, "gpt-5.3-codex",
					time.Unix(1778932800, 0), time.Unix(1778932800, 0)})
				hermesCheck(t, ss[4], hermesWant{"hermes:cron_job1_20260516_100000", 1, 1, 1, 0, lore.OutcomeAborted, "gpt-5.3-codex", time.Time{}, time.Time{}})
			}
			// A count-only read (message bodies left in the database) counts
			// exactly as a full read.
			for i := range counts[0] {
				a, b := *counts[0][i], *counts[1][i]
				a.Messages, b.Messages = nil, nil
				if a.UserMessages != b.UserMessages || a.AssistantMessages != b.AssistantMessages || a.ToolCalls != b.ToolCalls ||
					a.ToolErrors != b.ToolErrors || a.Outcome != b.Outcome || a.Size != b.Size || !a.StartedAt.Equal(b.StartedAt) || !a.EndedAt.Equal(b.EndedAt) {
					t.Errorf("%s: count-only %+v, full %+v", a.ID, a, b)
				}
			}
			kept := counts[1][0].Messages
			if kept[len(kept)-1].Text != "You're welcome." {
				t.Errorf("last message %+v", kept[len(kept)-1])
			}
		})
	}
}

// The same session in its .jsonl, its snapshot and state.db has one id:
// a scan lists it once, from state.db, which holds most of it.
func TestHermesOneSessionThreeFiles(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{hermesJSONL, hermesSnapshot} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(home, "sessions", filepath.Base(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hermesDB(t, filepath.Join(home, "state.db"), hermesSchemaV11)
	var roots []string
	for _, r := range hermesRoots(Env{Home: "/nowhere", Getenv: func(k string) string {
		if k == "HERMES_HOME" {
			return home
		}
		return ""
	}}) {
		roots = append(roots, r.Path)
	}
	res, err := Scan(context.Background(), roots, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems %v", res.Problems)
	}
	n := 0
	for _, s := range res.Sessions {
		if s.ID == "hermes:"+hermesSID {
			n++
			if filepath.Base(s.Path) != "state.db" || s.UserMessages != 3 {
				t.Errorf("kept the copy from %s with %d user turns", s.Path, s.UserMessages)
			}
		}
	}
	if n != 1 || len(res.Sessions) != 5 {
		t.Errorf("session listed %d times among %d", n, len(res.Sessions))
	}
}

func TestHermesRoots(t *testing.T) {
	rs := hermesRoots(Env{Home: "/home/u"})
	if len(rs) != 2 || rs[0].Path != "/home/u/.hermes/sessions" || rs[1].Path != "/home/u/.hermes/state.db" || rs[0].Source != "default" {
		t.Errorf("roots %+v", rs)
	}
}

func FuzzHermes(f *testing.F) {
	for _, p := range []string{hermesJSONL, hermesOld, hermesTraj,
		filepath.Join("..", "..", "shared", "corpus", "hermes", "hermes-backup__20260515_201841_a64c801a.jsonl")} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
			f.Add(data[:len(data)*2/3])
		}
	}
	if data, err := os.ReadFile(hermesSnapshot); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"role": "tool", "content": "{\"exit_code\": \"2\", \"error\": {}}", "timestamp": 1e300}` + "\n"))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, hermesSID+".jsonl", data)
		fuzzFile(t, "session_"+hermesSID+".json", data)
	})
}
