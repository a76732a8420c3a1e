package hermesdb

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, o Options) (Summary, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	sum, err := Write(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return sum, db
}

func one[T any](t *testing.T, db *sql.DB, q string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

func TestWriteInvariants(t *testing.T) {
	for _, tt := range []struct {
		version  int
		migrated bool
	}{{2, false}, {6, false}, {11, false}, {6, true}, {11, true}} {
		t.Run(fmt.Sprintf("v%d migrated=%t", tt.version, tt.migrated), func(t *testing.T) {
			o := Options{Version: tt.version, Migrated: tt.migrated, Sessions: 80, MessagesPerSession: 12.5, Leaked: 0.6, Parents: 0.15, Seed: 3, ContentScale: 1}
			if tt.version >= 11 {
				o.ContentScale = 0.4 // the trigram index is slow to build
			}
			sum, db := write(t, o)
			path := sum.Path

			if sum.Sessions != 80 || sum.Messages != 1000 {
				t.Errorf("summary: %d sessions, %d messages; want 80 and 1000", sum.Sessions, sum.Messages)
			}
			if got := one[int](t, db, `SELECT count(*) FROM sessions`); got != sum.Sessions {
				t.Errorf("sessions: %d rows, summary says %d", got, sum.Sessions)
			}
			if got := one[int](t, db, `SELECT count(*) FROM messages`); got != sum.Messages {
				t.Errorf("messages: %d rows, summary says %d", got, sum.Messages)
			}
			if got := one[int](t, db, `SELECT count(*) FROM sessions WHERE ended_at IS NULL`); got != 48 || sum.Open != 48 {
				t.Errorf("open sessions: %d (summary %d), want 48", got, sum.Open)
			}
			if got := one[int](t, db, `SELECT count(*) FROM sessions WHERE parent_session_id IS NOT NULL`); got != 12 || sum.Children != 12 {
				t.Errorf("children: %d (summary %d), want 12", got, sum.Children)
			}
			if got := one[int](t, db, `SELECT version FROM schema_version`); got != tt.version {
				t.Errorf("schema_version %d, want %d", got, tt.version)
			}
			if got := one[int64](t, db, `SELECT sum(coalesce(octet_length(content), 0)) FROM messages`); got != sum.ContentBytes {
				t.Errorf("content bytes %d, summary says %d", got, sum.ContentBytes)
			}
			for role, n := range sum.ByRole {
				if got := one[int](t, db, `SELECT count(*) FROM messages WHERE role = ?`, role); got != n {
					t.Errorf("%s messages: %d, summary says %d", role, got, n)
				}
			}

			for _, q := range []struct{ what, sql string }{
				{"message_count differs from the messages", `SELECT count(*) FROM sessions s WHERE message_count != (SELECT count(*) FROM messages WHERE session_id = s.id)`},
				{"tool_call_count differs", `SELECT count(*) FROM sessions s WHERE tool_call_count != (SELECT count(*) FROM messages WHERE session_id = s.id AND (tool_calls IS NOT NULL OR role = 'tool'))`},
				{"a role Hermes does not write", `SELECT count(*) FROM messages WHERE role NOT IN ('user', 'assistant', 'tool')`},
				{"a timestamp not REAL", `SELECT count(*) FROM messages WHERE typeof(timestamp) != 'real'`},
				{"a start or end not REAL", `SELECT count(*) FROM sessions WHERE typeof(started_at) != 'real' OR typeof(ended_at) NOT IN ('real', 'null')`},
				{"an end before the last message", `SELECT count(*) FROM sessions s WHERE ended_at < (SELECT max(timestamp) FROM messages WHERE session_id = s.id)`},
				{"tool_calls not JSON", `SELECT count(*) FROM messages WHERE tool_calls IS NOT NULL AND NOT json_valid(tool_calls)`},
				{"a tool result JSON object broken", `SELECT count(*) FROM messages WHERE role = 'tool' AND NOT json_valid(content)`},
				{"a tool result answering no call", `SELECT count(*) FROM messages t WHERE role = 'tool' AND NOT EXISTS (
					SELECT 1 FROM messages a, json_each(a.tool_calls) j WHERE a.session_id = t.session_id AND a.id < t.id
					AND json_extract(j.value, '$.id') = t.tool_call_id AND json_extract(j.value, '$.function.name') = t.tool_name)`},
				{"tool fields on a message that is no tool result", `SELECT count(*) FROM messages WHERE role != 'tool' AND (tool_name IS NOT NULL OR tool_call_id IS NOT NULL)`},
				{"a parent that did not end by compression", `SELECT count(*) FROM sessions c JOIN sessions p ON p.id = c.parent_session_id
					WHERE p.end_reason IS NOT 'compression' OR p.ended_at > c.started_at`},
				{"a cli session with a user_id", `SELECT count(*) FROM sessions WHERE source = 'cli' AND user_id IS NOT NULL`},
				{"message ids out of time order", `SELECT count(*) FROM messages a JOIN messages b ON b.id = a.id + 1 WHERE b.timestamp < a.timestamp`},
			} {
				if n := one[int](t, db, q.sql); n != 0 {
					t.Errorf("%d rows with %s", n, q.what)
				}
			}
			if tt.version >= 11 {
				if n := one[int](t, db, `SELECT count(*) FROM sessions s WHERE api_call_count != (SELECT count(*) FROM messages WHERE session_id = s.id AND role = 'assistant')`); n != 0 {
					t.Errorf("%d sessions whose api_call_count is not their assistant messages", n)
				}
			}
			if tt.version >= 6 {
				if n := one[int](t, db, `SELECT count(*) FROM messages WHERE reasoning IS NOT NULL`); n == 0 {
					t.Error("no message has reasoning")
				}
				if n := one[int](t, db, `SELECT count(DISTINCT title) - count(title) FROM sessions`); n != 0 {
					t.Error("titles repeat")
				}
			}

			// What real databases look like: one long prompt most sessions
			// share, some large tool outputs, some empty sessions.
			prompt := one[int](t, db, `SELECT max(n) FROM (SELECT count(*) AS n FROM sessions WHERE system_prompt IS NOT NULL GROUP BY system_prompt)`)
			if prompt < sum.Sessions/2 {
				t.Errorf("the most shared system prompt is in %d of %d sessions", prompt, sum.Sessions)
			}
			if n := one[int](t, db, `SELECT max(octet_length(system_prompt)) FROM sessions`); n < 9_000 || n > 16_000 {
				t.Errorf("system prompt of %d bytes, want about 10 KB", n)
			}
			if n := one[int](t, db, `SELECT max(octet_length(content)) FROM messages WHERE role = 'tool'`); n < int(30_000*o.ContentScale) {
				t.Errorf("largest tool output %d bytes, want some large ones", n)
			}
			if n := one[int](t, db, `SELECT count(*) FROM messages WHERE content IS NULL`); n == 0 {
				t.Error("no NULL content (assistant tool calls often have none)")
			}
			if n := one[int](t, db, `SELECT count(*) FROM messages WHERE octet_length(content) != length(content)`); n == 0 {
				t.Error("every message is ASCII")
			}

			// Consistency checks SQLite itself runs.
			if got := one[string](t, db, `PRAGMA integrity_check`); got != "ok" {
				t.Errorf("integrity_check: %s", got)
			}
			rows, err := db.Query(`PRAGMA foreign_key_check`)
			if err != nil {
				t.Fatal(err)
			}
			if rows.Next() {
				t.Error("foreign_key_check reports violations")
			}
			rows.Close()
			for _, f := range ftsTables(tt.version) {
				if _, err := rwExec(path, fmt.Sprintf(`INSERT INTO %[1]s(%[1]s) VALUES('integrity-check')`, f)); err != nil {
					t.Errorf("%s integrity-check: %v", f, err)
				}
				if n := one[int](t, db, fmt.Sprintf(`SELECT count(*) FROM %[1]s WHERE %[1]s MATCH 'error'`, f)); n == 0 {
					t.Errorf("%s finds nothing", f)
				}
			}

			// WAL mode in the header, and nothing left beside the file.
			hdr := make([]byte, 20)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Read(hdr)
			f.Close()
			if hdr[18] != 2 || hdr[19] != 2 {
				t.Errorf("header says journal format %d/%d, want WAL (2)", hdr[18], hdr[19])
			}
			for _, side := range []string{"-wal", "-shm", "-journal"} {
				if _, err := os.Stat(path + side); err == nil {
					t.Errorf("%s left beside the database", side)
				}
			}
		})
	}
}

// rwExec runs one statement on a read-write connection (FTS5's
// integrity-check is an INSERT) and closes it.
func rwExec(path, q string) (sql.Result, error) {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Exec(q)
}

func TestWriteSummaryMatchesRows(t *testing.T) {
	sum, db := write(t, Options{Version: 2, Sessions: 40, Leaked: 0.5, Parents: 0.2, Seed: 9})
	if len(sum.SessionList) != sum.Sessions {
		t.Fatalf("%d sessions listed of %d", len(sum.SessionList), sum.Sessions)
	}
	for _, s := range sum.SessionList {
		var started float64
		var ended, last sql.NullFloat64
		var parent sql.NullString
		var n int
		var bytes sql.NullInt64
		err := db.QueryRow(`SELECT started_at, ended_at, parent_session_id,
			(SELECT max(timestamp) FROM messages WHERE session_id = s.id),
			(SELECT count(*) FROM messages WHERE session_id = s.id),
			(SELECT sum(octet_length(content)) FROM messages WHERE session_id = s.id)
			FROM sessions s WHERE id = ?`, s.ID).Scan(&started, &ended, &parent, &last, &n, &bytes)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		at := func(f float64) time.Time { return time.UnixMicro(int64(math.Round(f * 1e6))) }
		switch {
		case !at(started).Equal(s.Started):
			t.Errorf("%s started %v, summary %v", s.ID, at(started), s.Started)
		case ended.Valid != !s.Ended.IsZero() || ended.Valid && !at(ended.Float64).Equal(s.Ended):
			t.Errorf("%s ended %v, summary %v", s.ID, ended, s.Ended)
		case last.Valid != !s.LastMessage.IsZero() || last.Valid && !at(last.Float64).Equal(s.LastMessage):
			t.Errorf("%s last message %v, summary %v", s.ID, last, s.LastMessage)
		case parent.String != s.Parent || n != s.Messages || bytes.Int64 != s.ContentBytes:
			t.Errorf("%s: parent %q, %d messages, %d bytes; summary %+v", s.ID, parent.String, n, bytes.Int64, s)
		}
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	o := Options{Version: 11, Sessions: 30, Leaked: 0.5, Seed: 42, ContentScale: 0.3}
	a, _ := write(t, o)
	b, _ := write(t, o)
	if a.ContentBytes != b.ContentBytes || !slices.EqualFunc(a.SessionList, b.SessionList, func(x, y Session) bool { return x == y }) {
		t.Error("the same options wrote different rows")
	}
	o.Seed = 43
	c, _ := write(t, o)
	if c.ContentBytes == a.ContentBytes {
		t.Error("another seed wrote the same rows")
	}
}

func TestWriteMigratedColumnOrder(t *testing.T) {
	names := func(db *sql.DB, table string) string {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			out = append(out, n)
		}
		return strings.Join(out, " ")
	}
	_, fresh := write(t, Options{Version: 11, Sessions: 3})
	_, migrated := write(t, Options{Version: 11, Sessions: 3, Migrated: true})
	if a, b := names(fresh, "sessions"), names(migrated, "sessions"); a == b || !strings.Contains(b, "output_tokens title cache_read_tokens") {
		t.Errorf("migrated sessions columns %q, fresh %q: want title added before the billing columns", b, a)
	}
	if got := names(migrated, "messages"); !strings.HasSuffix(got, "reasoning reasoning_details codex_reasoning_items reasoning_content codex_message_items") {
		t.Errorf("migrated messages columns %q", got)
	}
}

func TestWriteOptions(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{{Version: 3}, {Sessions: -1}, {Leaked: 1.5}, {Parents: -0.1}, {ContentScale: -1}} {
		if _, err := Write(context.Background(), filepath.Join(dir, "x.db"), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	path := filepath.Join(dir, "state.db")
	os.WriteFile(path, []byte("x"), 0o600)
	if _, err := Write(context.Background(), path, Options{Sessions: 1}); err == nil {
		t.Error("wrote over an existing file")
	}
	// All sessions leaked, with children: the parents stay ended.
	sum, _ := write(t, Options{Version: 2, Sessions: 20, Leaked: 1, Parents: 0.5, Seed: 1})
	parents := map[string]bool{}
	for _, s := range sum.SessionList {
		if s.Parent != "" {
			parents[s.Parent] = true
		}
	}
	for _, s := range sum.SessionList {
		if parents[s.ID] && (s.Ended.IsZero() || s.EndReason != "compression") {
			t.Errorf("parent %s: ended %v, reason %q", s.ID, s.Ended, s.EndReason)
		}
	}
	if sum.Children != 10 || sum.Open != sum.Sessions-len(parents) {
		t.Errorf("%d open and %d children of %d with %d parents", sum.Open, sum.Children, sum.Sessions, len(parents))
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, v := range Versions {
		b.Run(fmt.Sprintf("v%d", v), func(b *testing.B) {
			dir := b.TempDir()
			var sum Summary
			i := 0
			for b.Loop() {
				var err error
				sum, err = Write(context.Background(), filepath.Join(dir, fmt.Sprintf("%d.db", i)), Options{Version: v, Sessions: 100, Leaked: 0.83, Parents: 0.1, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(sum.FileBytes)/1e6, "MB/db")
			b.ReportMetric(float64(sum.Messages), "messages/db")
		})
	}
}

// TestIssueSize writes a database of the size issue 7 names (5,508
// sessions, 82,244 messages, 83% never ended) in each version and reports
// how long it took and how big the file is. Set LORE_BENCH_LARGE=1 to
// run it; LORE_BENCH_DIR keeps the files in that folder.
func TestIssueSize(t *testing.T) {
	if os.Getenv("LORE_BENCH_LARGE") == "" {
		t.Skip("set LORE_BENCH_LARGE=1 to write databases of the issue's size (5,508 sessions, ~420 MB)")
	}
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, v := range Versions {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("state-v%d.db", v))
			os.Remove(path)
			sum, err := Write(context.Background(), path, IssueSize(v))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("v%d: %d sessions, %d messages (%d open), content %.1f MB: %.1f MB file in %v",
				v, sum.Sessions, sum.Messages, sum.Open, float64(sum.ContentBytes)/1e6, float64(sum.FileBytes)/1e6, sum.Elapsed.Round(time.Millisecond))
			if sum.Sessions != 5508 || sum.Messages != 82244 {
				t.Errorf("%d sessions and %d messages, want 5,508 and 82,244", sum.Sessions, sum.Messages)
			}
		})
	}
}
