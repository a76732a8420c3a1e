package prune_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/testenv"
	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/archive"
	"github.com/lorehq/lore/prune/hermesdb"
)

// snapshot is every row of a state.db's sessions and messages, each
// value as stored.
type snapshot struct {
	sessions map[string]archive.Row
	messages map[string][]archive.Row // by session, in rowid order
	// ids are the message ids, for counting where each went.
	ids map[int64]string
}

func rowsOf(t testing.TB, db *sql.DB, table string) []archive.Row {
	t.Helper()
	var cols []string
	rs, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var c string
		rs.Scan(&c)
		cols = append(cols, c)
	}
	rs.Close()
	rows, err := db.Query(fmt.Sprintf("SELECT %s FROM %s ORDER BY rowid", archive.SelectColumns(cols), table))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []archive.Row
	for rows.Next() {
		r, err := archive.ScanRow(rows)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rw opens a database for the test's own reads and writes.
func rw(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func take(t testing.TB, path string) snapshot {
	t.Helper()
	db := rw(t, path)
	defer db.Close()
	s := snapshot{sessions: map[string]archive.Row{}, messages: map[string][]archive.Row{}, ids: map[int64]string{}}
	for _, r := range rowsOf(t, db, "sessions") {
		id, _ := r.Get("id")
		s.sessions[id.Text] = r
	}
	for _, r := range rowsOf(t, db, "messages") {
		sid, _ := r.Get("session_id")
		id, _ := r.Get("id")
		s.messages[sid.Text] = append(s.messages[sid.Text], r)
		s.ids[id.Int] = sid.Text
	}
	return s
}

func fileHash(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	io.Copy(h, f)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// healthy checks what every prune must leave: integrity_check and each
// FTS table's integrity-check (against messages, for external content)
// pass, no foreign key is broken and no parent link points nowhere that
// did not before.
func healthy(t testing.TB, path string, brokenBefore int) {
	t.Helper()
	db := rw(t, path)
	defer db.Close()
	var ic string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ic); err != nil || ic != "ok" {
		t.Errorf("integrity_check: %q %v", ic, err)
	}
	s, err := prune.Inspect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.FTS {
		stmt := fmt.Sprintf("INSERT INTO %[1]s(%[1]s) VALUES('integrity-check')", f.Name)
		if f.Kind == prune.FTSExternal {
			stmt = fmt.Sprintf("INSERT INTO %[1]s(%[1]s, rank) VALUES('integrity-check', 1)", f.Name)
		}
		if _, err := db.Exec(stmt); err != nil {
			t.Errorf("%s integrity-check: %v", f.Name, err)
		}
		if f.Kind == prune.FTSOwn {
			var indexed, messages int
			db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s", f.Name)).Scan(&indexed)
			db.QueryRow("SELECT count(*) FROM messages").Scan(&messages)
			if indexed != messages {
				t.Errorf("%s holds %d rows for %d messages", f.Name, indexed, messages)
			}
		}
	}
	var fk int
	db.QueryRow("SELECT count(*) FROM pragma_foreign_key_check('messages')").Scan(&fk)
	if fk != 0 {
		t.Errorf("%d messages name a session that is gone", fk)
	}
	var broken int
	db.QueryRow("SELECT count(*) FROM sessions c WHERE parent_session_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = c.parent_session_id)").Scan(&broken)
	if broken > brokenBefore {
		t.Errorf("%d sessions name a parent that is gone, %d before", broken, brokenBefore)
	}
}

func pruneOptions(dir string, now time.Time) prune.Options {
	return prune.Options{Now: now, Archive: filepath.Join(dir, "state-archive.db"), Backup: filepath.Join(dir, "state-backup.db")}
}

// TestPruneVersions prunes a database of each schema version and checks
// every row against the original: each session is either in the database
// or in the archive, equal to what it was except for the leaked ones
// closed; then restores some and finds them exactly as they were.
func TestPruneVersions(t *testing.T) {
	for _, tt := range []struct {
		version  int
		migrated bool
	}{{2, false}, {6, false}, {6, true}, {11, false}, {11, true}} {
		t.Run(fmt.Sprintf("v%d migrated=%t", tt.version, tt.migrated), func(t *testing.T) {
			if tt.version != hermesdb.Versions[len(hermesdb.Versions)-1] {
				testenv.SkipUnlessSlow(t, "an older schema") // the newest always runs
			}
			ctx := context.Background()
			o := hermesdb.Options{Version: tt.version, Migrated: tt.migrated, Sessions: 150, MessagesPerSession: 8, Leaked: 0.6, Parents: 0.2, Seed: 7, ContentScale: 0.5}
			path, sum := generate(t, o)
			dir := filepath.Dir(path)
			if tt.migrated {
				// A setting of its own, which prune must leave as it is.
				exec(t, path, "INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 8)")
			}
			settings := ftsSettings(t, path)
			before := take(t, path)
			now := newest(sum).Add(24 * time.Hour)
			opts := pruneOptions(dir, now)

			// A dry run changes nothing and says what the real run does.
			hash := fileHash(t, path)
			dry := opts
			dry.DryRun = true
			plan, err := prune.Run(ctx, path, dry)
			if err != nil {
				t.Fatal(err)
			}
			if got := fileHash(t, path); got != hash {
				t.Fatal("the dry run changed the database")
			}
			for _, f := range []string{path + "-wal", opts.Archive, opts.Backup} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("the dry run made %s", f)
				}
			}
			if plan.Archived == 0 || plan.Leaked == 0 || plan.EstimatedSavedBytes <= 0 {
				t.Fatalf("dry run plans nothing: %+v", plan)
			}

			res, err := prune.Run(ctx, path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Archived != plan.Archived || res.Leaked != plan.Leaked || res.ArchivedMessages != plan.ArchivedMessages {
				t.Errorf("run: %d archived, %d leaked, %d messages; the dry run said %d, %d, %d",
					res.Archived, res.Leaked, res.ArchivedMessages, plan.Archived, plan.Leaked, plan.ArchivedMessages)
			}
			t.Logf("archived %d (%d by age) of %d sessions, %d messages; leaked %d; kept for children %d; %d → %d bytes; archive %d bytes; phases %v",
				res.Archived, res.ArchivedByAge, res.Before.Sessions, res.ArchivedMessages, res.Leaked, res.KeptForChildren, res.Before.FileBytes, res.After.FileBytes, res.ArchiveFileBytes, res.Phases)
			if res.Checks == nil || !res.Checks.OK() || res.Vacuum != "done" {
				t.Errorf("checks %+v, vacuum %q", res.Checks, res.Vacuum)
			}
			if res.After.FileBytes >= res.Before.FileBytes {
				t.Errorf("file %d bytes after, %d before", res.After.FileBytes, res.Before.FileBytes)
			}
			for _, f := range []string{opts.Archive, opts.Backup} {
				if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: %v %v, want mode 0600", f, fi.Mode(), err)
				}
			}
			if b := take(t, opts.Backup); len(b.sessions) != len(before.sessions) || len(b.ids) != len(before.ids) {
				t.Errorf("backup holds %d sessions and %d messages, want %d and %d", len(b.sessions), len(b.ids), len(before.sessions), len(before.ids))
			}
			healthy(t, path, 0)
			if got := ftsSettings(t, path); got != settings {
				t.Errorf("FTS settings after the prune:\n%s\nbefore:\n%s", got, settings)
			}

			after := take(t, path)
			arc, err := archive.Open(ctx, opts.Archive)
			if err != nil {
				t.Fatal(err)
			}
			defer arc.Close()
			leakCut := now.Add(-7 * 24 * time.Hour)
			archived := 0
			for id, orig := range before.sessions {
				got, inDB := after.sessions[id]
				var msgs []archive.Row
				if inDB {
					msgs = after.messages[id]
				} else {
					s, err := arc.Get(ctx, id)
					if err != nil {
						t.Fatalf("session %s is in neither place: %v", id, err)
					}
					got, msgs = s.Row, s.Messages
					archived++
				}
				if !slices.EqualFunc(msgs, before.messages[id], archive.Row.Equal) {
					t.Errorf("session %s: messages differ from the original", id)
				}
				ended, _ := orig.Get("ended_at")
				if ended.Kind != archive.Null || !idleSince(orig, before.messages[id]).Before(leakCut) {
					if !got.Equal(orig) {
						t.Errorf("session %s changed:\n%v\n%v", id, got, orig)
					}
					continue
				}
				// A leaked session: closed at its last message's time.
				e, _ := got.Get("ended_at")
				r, _ := got.Get("end_reason")
				wantEnd := lastTimestamp(orig, before.messages[id])
				if !e.Equal(wantEnd) || r.Text != "leaked" {
					t.Errorf("leaked session %s: ended_at %v end_reason %v, want %v and leaked", id, e, r, wantEnd)
				}
			}
			if archived != res.Archived || len(after.sessions) != len(before.sessions)-archived {
				t.Errorf("%d sessions archived, result says %d", archived, res.Archived)
			}

			// Restore a child whose parent went too: both come back as
			// they were, and the archive lets them go.
			var child, parent string
			for id := range before.sessions {
				if _, ok := after.sessions[id]; ok {
					continue
				}
				s, _ := arc.Get(ctx, id)
				if s.ParentID != "" {
					if _, ok := after.sessions[s.ParentID]; !ok {
						child, parent = id, s.ParentID
						break
					}
				}
			}
			if child == "" {
				t.Fatal("no archived child with an archived parent")
			}
			want := map[string]archive.Session{}
			for _, id := range []string{child, parent} {
				want[id], _ = arc.Get(ctx, id)
			}
			rr, err := prune.Restore(ctx, path, opts.Archive, []string{child})
			if err != nil {
				t.Fatal(err)
			}
			if len(rr.Restored) < 2 || rr.Restored[len(rr.Restored)-1].ID != child || rr.Restored[0].ParentOf == "" {
				t.Errorf("restored %+v, want %s after its parent %s", rr.Restored, child, parent)
			}
			back := take(t, path)
			for id, s := range want {
				if !back.sessions[id].Equal(s.Row) || !slices.EqualFunc(back.messages[id], s.Messages, archive.Row.Equal) {
					t.Errorf("restored session %s differs from what was archived", id)
				}
				if _, err := arc.Get(ctx, id); err == nil {
					t.Errorf("restored session %s is still in the archive", id)
				}
			}
			healthy(t, path, 0)
			if _, err := prune.Restore(ctx, path, opts.Archive, []string{"no-such-session"}); err == nil || !strings.Contains(err.Error(), "not in the archive") {
				t.Errorf("restore of an unknown session: %v", err)
			}
		})
	}
}

// idleSince is when an open session was last active: its last message,
// else its start.
func idleSince(session archive.Row, messages []archive.Row) time.Time {
	v := lastTimestamp(session, messages)
	return time.Unix(0, int64(v.Float*1e9))
}

func lastTimestamp(session archive.Row, messages []archive.Row) archive.Value {
	started, _ := session.Get("started_at")
	if len(messages) == 0 {
		started.Column = "ended_at"
		return started
	}
	last, _ := messages[0].Get("timestamp")
	for _, m := range messages {
		if ts, _ := m.Get("timestamp"); ts.Float > last.Float {
			last = ts
		}
	}
	last.Column = "ended_at"
	return last
}

// newest is the latest activity in a generated database.
func newest(sum hermesdb.Summary) time.Time {
	var t time.Time
	for _, s := range sum.SessionList {
		if a := s.LastActivity(); a.After(t) {
			t = a
		}
	}
	return t
}

// ftsSettings lists the rows of every FTS table's config shadow table.
func ftsSettings(t testing.TB, path string) string {
	t.Helper()
	db := rw(t, path)
	defer db.Close()
	var b strings.Builder
	for _, f := range inspect(t, path).FTS {
		rows, err := db.Query(fmt.Sprintf("SELECT k, v FROM %s_config ORDER BY k", f.Name))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k, v any
			rows.Scan(&k, &v)
			fmt.Fprintf(&b, "%s %v=%v\n", f.Name, k, v)
		}
		rows.Close()
	}
	return b.String()
}

// TestRestoreAfterUpgrade restores into a database whose tables changed
// since the prune: columns added by a newer Hermes take their defaults,
// and a column the archived rows have but the table lost stops the
// restore before anything changes.
func TestRestoreAfterUpgrade(t *testing.T) {
	ctx := context.Background()
	path, sum := generate(t, hermesdb.Options{Version: 6, Sessions: 30, MessagesPerSession: 5, Seed: 2, ContentScale: 0.3})
	opts := pruneOptions(filepath.Dir(path), newest(sum).Add(400*24*time.Hour))
	if _, err := prune.Run(ctx, path, opts); err != nil {
		t.Fatal(err)
	}
	arc, err := archive.Open(ctx, opts.Archive)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := arc.List(ctx)
	var id string
	for _, e := range entries {
		if e.ParentID == "" && e.Messages > 0 {
			id = e.ID
			break
		}
	}
	want, err := arc.Get(ctx, id)
	arc.Close()
	if err != nil {
		t.Fatal(err)
	}

	exec(t, path, "ALTER TABLE sessions ADD COLUMN api_call_count INTEGER DEFAULT 0",
		"ALTER TABLE messages ADD COLUMN codex_message_items TEXT")
	if _, err := prune.Restore(ctx, path, opts.Archive, []string{id}); err != nil {
		t.Fatal(err)
	}
	back := take(t, path)
	for _, v := range want.Row {
		if got, _ := back.sessions[id].Get(v.Column); !got.Equal(v) {
			t.Errorf("%s: %v, archived %v", v.Column, got, v)
		}
	}
	if v, _ := back.sessions[id].Get("api_call_count"); v.Kind != archive.Integer || v.Int != 0 {
		t.Errorf("the added column holds %v, want its default 0", v)
	}
	if len(back.messages[id]) != len(want.Messages) {
		t.Fatalf("%d messages back, %d archived", len(back.messages[id]), len(want.Messages))
	}
	healthy(t, path, 0)

	// A table that lost a column the rows have: nothing is restored.
	if _, err := prune.Run(ctx, path, opts); err != nil {
		t.Fatal(err)
	}
	exec(t, path, "ALTER TABLE messages DROP COLUMN finish_reason")
	_, err = prune.Restore(ctx, path, opts.Archive, []string{id})
	if err == nil || !strings.Contains(err.Error(), "finish_reason") {
		t.Errorf("restore into a table without finish_reason: %v", err)
	}
	if now := take(t, path); len(now.sessions) != 0 || len(now.ids) != 0 {
		t.Errorf("a failed restore left %d sessions and %d messages", len(now.sessions), len(now.ids))
	}
}
