package archive

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var clock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newArchive(t testing.TB) *Archive {
	t.Helper()
	a, err := Create(context.Background(), filepath.Join(t.TempDir(), "hermes", "state-archive.db"))
	if err != nil {
		t.Fatal(err)
	}
	a.now = func() time.Time { return clock }
	t.Cleanup(func() { a.Close() })
	return a
}

// rawDB opens the archive file directly, as another program would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// edgeSession is a session whose rows hold every storage class at its
// edges, and a child of another.
func edgeSession() Session {
	return Session{
		ID:       "20260101_000000_edge",
		ParentID: "20251231_000000_parent",
		Row:      append(Row{textValue("id", "20260101_000000_edge")}, edgeValues()...),
		Messages: []Row{edgeValues(), {intValue("id", 1)}, {}},
	}
}

func TestCreateMode(t *testing.T) {
	a := newArchive(t)
	ctx := context.Background()
	if err := a.Put(ctx, []Session{edgeSession()}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a.Path(), a.Path() + "-wal", a.Path() + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(p), st.Mode().Perm())
		}
	}
	st, err := os.Stat(filepath.Dir(a.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", st.Mode().Perm())
	}
}

func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	_, err := Open(context.Background(), path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Open created the file")
	}
}

func TestCreateRefusesOtherDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db := rawDB(t, path)
	if _, err := db.Exec("CREATE TABLE sessions (id TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	_, err := Create(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "not a lore archive") {
		t.Fatalf("got %v", err)
	}
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Create(context.Background(), text)
	if err == nil || !strings.Contains(err.Error(), "not a lore archive") {
		t.Fatalf("got %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	sessions := append(newGen(1).sessions(80), edgeSession())
	if err := a.Put(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	if err := a.Verify(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	for _, want := range []Session{sessions[0], sessions[len(sessions)-1]} {
		got, err := a.Get(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkSession(t, want, got)
	}

	entries, err := a.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(sessions) {
		t.Fatalf("%d entries, want %d", len(entries), len(sessions))
	}
	var raw int64
	for _, e := range entries {
		if !e.ArchivedAt.Equal(clock) || e.Size <= 0 || e.Size >= e.RawSize {
			t.Errorf("entry %+v", e)
		}
		raw += e.RawSize
	}
	if want := rawSize(sessions); raw != want {
		t.Errorf("raw sizes add up to %d, want %d", raw, want)
	}
	var edge Entry
	for _, e := range entries {
		if e.ID == edgeSession().ID {
			edge = e
		}
	}
	if edge.ID != "20260101_000000_edge" || edge.ParentID != "20251231_000000_parent" || edge.Messages != 3 {
		t.Errorf("edge entry %+v", edge)
	}

	// Another process reads what this one wrote, dictionary and all.
	b, err := Open(ctx, a.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Verify(ctx, sessions); err != nil {
		t.Fatal(err)
	}

	if err := a.Delete(ctx, []string{sessions[0].ID, "not-archived"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, sessions[0].ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if err := b.Verify(ctx, sessions[1:]); err != nil {
		t.Fatal(err)
	}
	var left int
	rawDB(t, a.Path()).QueryRow("SELECT count(*) FROM messages WHERE session_id = ?", sessions[0].ID).Scan(&left)
	if left != 0 {
		t.Errorf("%d messages left after Delete", left)
	}
}

func checkSession(t *testing.T, want, got Session) {
	t.Helper()
	if got.ID != want.ID || got.ParentID != want.ParentID {
		t.Errorf("got %s (parent %q), want %s (parent %q)", got.ID, got.ParentID, want.ID, want.ParentID)
	}
	if d := want.Row.diff(got.Row); d != "" {
		t.Errorf("session %s row: %s", want.ID, d)
	}
	if len(got.Messages) != len(want.Messages) {
		t.Fatalf("session %s: %d messages, want %d", want.ID, len(got.Messages), len(want.Messages))
	}
	for i := range want.Messages {
		if d := want.Messages[i].diff(got.Messages[i]); d != "" {
			t.Errorf("session %s message %d: %s", want.ID, i, d)
		}
	}
}

func TestPutReplaces(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	s := newGen(1).session(0)
	if err := a.Put(ctx, []Session{s}); err != nil {
		t.Fatal(err)
	}
	// A prune that died before deleting the session archives it again,
	// perhaps with messages written since.
	s.Messages = append(s.Messages[:2:2], Row{intValue("id", 999), textValue("role", "user")})
	if err := a.Put(ctx, []Session{s}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkSession(t, s, got)
}

func TestPutRefuses(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	for _, tc := range []struct {
		name     string
		sessions []Session
		want     string
	}{
		{"no id", []Session{{Row: Row{}}}, "without an id"},
		{"twice", []Session{{ID: "a"}, {ID: "a"}}, "session a given twice"},
		{"bad row", []Session{{ID: "a", Messages: []Row{{intValue("x", 1), intValue("x", 2)}}}}, `session a: message 0: column "x" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := a.Put(ctx, tc.sessions)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	if entries, _ := a.List(ctx); len(entries) != 0 {
		t.Errorf("refused puts left %d sessions", len(entries))
	}
}

func TestVerifyCatches(t *testing.T) {
	ctx := context.Background()
	sessions := newGen(1).sessions(70)
	victim := sessions[40]
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, db *sql.DB, originals []Session)
		want   error
	}{
		{"a flipped byte in a message", func(t *testing.T, db *sql.DB, _ []Session) {
			flip(t, db, "messages", "session_id = ? AND seq = 3", victim.ID)
		}, ErrCorrupt},
		{"a flipped byte in a session row", func(t *testing.T, db *sql.DB, _ []Session) {
			flip(t, db, "sessions", "id = ?", victim.ID)
		}, ErrCorrupt},
		{"a lost message", func(t *testing.T, db *sql.DB, _ []Session) {
			exec(t, db, "DELETE FROM messages WHERE session_id = ? AND seq = 1", victim.ID)
		}, ErrCorrupt},
		{"a lost session", func(t *testing.T, db *sql.DB, _ []Session) {
			exec(t, db, "DELETE FROM messages WHERE session_id = ?", victim.ID)
			exec(t, db, "DELETE FROM sessions WHERE id = ?", victim.ID)
		}, ErrNotFound},
		{"rows of another session", func(t *testing.T, db *sql.DB, _ []Session) {
			exec(t, db, "UPDATE sessions SET row = (SELECT row FROM sessions WHERE id = ?), raw_size = (SELECT raw_size FROM sessions WHERE id = ?), checksum = (SELECT checksum FROM sessions WHERE id = ?) WHERE id = ?",
				sessions[0].ID, sessions[0].ID, sessions[0].ID, victim.ID)
		}, ErrMismatch},
		{"an original that changed", func(t *testing.T, _ *sql.DB, originals []Session) {
			m := originals[40].Messages[2]
			m[3].Text += "!"
		}, ErrMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArchive(t)
			if err := a.Put(ctx, sessions); err != nil {
				t.Fatal(err)
			}
			originals := clone(sessions)
			tc.damage(t, rawDB(t, a.Path()), originals)
			err := a.Verify(ctx, originals)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), victim.ID) {
				t.Fatalf("got %v, want %v naming %s", err, tc.want, victim.ID)
			}
			t.Log(err)
			if _, err := a.Get(ctx, sessions[0].ID); err != nil && tc.name != "an original that changed" {
				t.Errorf("an undamaged session: %v", err)
			}
		})
	}
}

// flip inverts one byte in the middle of the stored row that where picks.
func flip(t *testing.T, db *sql.DB, table, where string, args ...any) {
	t.Helper()
	var z []byte
	if err := db.QueryRow("SELECT row FROM "+table+" WHERE "+where, args...).Scan(&z); err != nil {
		t.Fatal(err)
	}
	z[len(z)/2] ^= 0xff
	exec(t, db, "UPDATE "+table+" SET row = ? WHERE "+where, append([]any{z}, args...)...)
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	r, err := db.Exec(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		t.Fatalf("%s changed nothing", query)
	}
}

// clone copies sessions deeply enough that changing a value changes
// only the copy.
func clone(sessions []Session) []Session {
	out := make([]Session, len(sessions))
	for i, s := range sessions {
		s.Row = append(Row(nil), s.Row...)
		msgs := make([]Row, len(s.Messages))
		for j, m := range s.Messages {
			msgs[j] = append(Row(nil), m...)
		}
		s.Messages = msgs
		out[i] = s
	}
	return out
}

func TestConcurrentPut(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	// A second handle on the file stands for a second process.
	b, err := Open(ctx, a.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sessions := newGen(1).sessions(160)
	batches := [][]Session{sessions[:40], sessions[40:80], sessions[80:120], sessions[120:]}
	var wg sync.WaitGroup
	errs := make([]error, len(batches))
	for i, batch := range batches {
		w := a
		if i%2 == 1 {
			w = b
		}
		wg.Go(func() {
			if err := w.Put(ctx, batch); err != nil {
				errs[i] = err
				return
			}
			errs[i] = w.Verify(ctx, batch)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if err := a.Verify(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	entries, err := b.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(sessions) {
		t.Fatalf("%d sessions archived, want %d", len(entries), len(sessions))
	}
}

func TestDictionaries(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	sessions := newGen(1).sessions(100)
	// Too few rows to train from: stored without a dictionary.
	small := sessions[:1]
	small[0].Messages = small[0].Messages[:3]
	if err := a.Put(ctx, small); err != nil {
		t.Fatal(err)
	}
	// Enough: Put trains one and uses it from then on.
	if err := a.Put(ctx, sessions[1:50]); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, sessions[50:]); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, a.Path())
	var dicts, plain, with int
	db.QueryRow("SELECT count(*) FROM dictionaries").Scan(&dicts)
	db.QueryRow("SELECT count(*) FROM messages WHERE dictionary_id IS NULL").Scan(&plain)
	db.QueryRow("SELECT count(DISTINCT dictionary_id) FROM messages").Scan(&with)
	if dicts != 1 || plain != 3 || with != 1 {
		t.Errorf("%d dictionaries, %d rows without one, %d in use; want 1, 3, 1", dicts, plain, with)
	}
	// An explicitly trained dictionary replaces it for later rows; old
	// rows still read with theirs.
	if err := a.Train(ctx, sessions[50:]); err != nil {
		t.Fatal(err)
	}
	extra := newGen(2).sessions(3)
	if err := a.Put(ctx, extra); err != nil {
		t.Fatal(err)
	}
	db.QueryRow("SELECT count(DISTINCT dictionary_id) FROM messages").Scan(&with)
	if with != 2 {
		t.Errorf("%d dictionaries in use, want 2", with)
	}
	b, err := Open(ctx, a.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Verify(ctx, append(small, append(sessions[1:], extra...)...)); err != nil {
		t.Fatal(err)
	}
	// A dictionary that is gone makes its rows unreadable, and says so.
	exec(t, db, "UPDATE messages SET dictionary_id = 99 WHERE session_id = ?", extra[0].ID)
	if err := b.Verify(ctx, extra); err == nil || !strings.Contains(err.Error(), "dictionary 99 is missing") {
		t.Fatalf("got %v", err)
	}
}

func TestTrainDictionaryDeterministic(t *testing.T) {
	var samples [][]byte
	for _, s := range newGen(1).sessions(20) {
		b, _ := s.Row.MarshalBinary()
		samples = append(samples, b)
		for _, m := range s.Messages {
			b, _ := m.MarshalBinary()
			samples = append(samples, b)
		}
	}
	d1, err := TrainDictionary(samples)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := TrainDictionary(samples)
	if string(d1) != string(d2) {
		t.Error("two trainings on the same samples differ")
	}
	if _, err := TrainDictionary(samples[:1]); err == nil {
		t.Error("trained from one sample")
	}
}

func TestSource(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t)
	if s, err := a.Source(ctx); err != nil || s.Path != "" {
		t.Fatalf("empty archive: %+v, %v", s, err)
	}
	def := "0"
	want := Source{Path: "/home/u/.hermes/state.db", SchemaVersion: 11, Tables: map[string][]Column{
		"sessions": {{Name: "id", Type: "TEXT", PK: 1}, {Name: "message_count", Type: "INTEGER", Default: def, HasDefault: true}},
		"messages": {{Name: "id", Type: "INTEGER", PK: 1}, {Name: "role", Type: "TEXT", NotNull: true}},
	}}
	if err := a.SetSource(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := a.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != want.Path || got.SchemaVersion != 11 || len(got.Tables["messages"]) != 2 ||
		got.Tables["sessions"][1].Default != "0" || !got.Tables["messages"][1].NotNull {
		t.Errorf("got %+v", got)
	}
	var format string
	rawDB(t, a.Path()).QueryRow("SELECT value FROM meta WHERE key = 'format'").Scan(&format)
	if format != "1" {
		t.Errorf("format %q", format)
	}
}

// TestOddPaths keeps archives in folders whose names a URI would take
// apart: each is the file at its path, and gives back what was put.
func TestOddPaths(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"a b", "100%", "q?x=1", "h#y"} {
		path := filepath.Join(t.TempDir(), name, "state-archive.db")
		a, err := Create(ctx, path)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if err := a.Put(ctx, []Session{edgeSession()}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		a.Close()
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%q: the archive is not at its path: %v", name, err)
		}
		a, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("%q: reopen: %v", name, err)
		}
		s, err := a.Get(ctx, edgeSession().ID)
		a.Close()
		if err != nil || s.ID != edgeSession().ID {
			t.Errorf("%q: got %q, %v", name, s.ID, err)
		}
	}
}
