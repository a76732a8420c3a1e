package prune

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestIntegrityReportsRealDamage damages an FTS5 index behind its back:
// reading every FTS table first must not hide damage that is there.
func TestIntegrityReportsRealDamage(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE VIRTUAL TABLE notes USING fts5(body)",
		"INSERT INTO notes(body) VALUES ('the deploy needs a profile'), ('tests are flaky on ci')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := integrity(ctx, db, Schema{FTS: []FTS{{Name: "notes"}}}); err != nil || got != "ok" {
		t.Fatalf("sound database: %q, %v", got, err)
	}
	// The stored text changes behind the index's back.
	if _, err := db.Exec("UPDATE notes_content SET c0 = 'something else entirely' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	got, err := integrity(ctx, db, Schema{FTS: []FTS{{Name: "notes"}}})
	if err != nil || got == "ok" || !strings.Contains(strings.ToLower(got), "fts5") {
		t.Errorf("damaged index: %q, %v; want FTS5's report of it", got, err)
	}
}

// TestIntegrityAfterAnotherConnectionMerged reads an FTS5 table on one
// connection, so that FTS5 keeps its structure, then has another
// connection rewrite the index: PRAGMA integrity_check alone checks the
// stale copy and reports damage that is not there; integrity reads the
// table first, in the same transaction, and finds the index sound.
func TestIntegrityAfterAnotherConnectionMerged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	prune, agent := open(), open()
	exec := func(db *sql.DB, q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(prune, "CREATE VIRTUAL TABLE notes USING fts5(body)")
	for i := range 50 {
		exec(prune, "INSERT INTO notes(body) VALUES (?)", fmt.Sprintf("note %d about the deploy profile", i))
	}
	var n int
	if err := prune.QueryRow("SELECT count(*) FROM notes WHERE notes MATCH 'deploy'").Scan(&n); err != nil || n != 50 {
		t.Fatalf("%d matches, %v", n, err)
	}
	for i := range 50 {
		exec(agent, "INSERT INTO notes(body) VALUES (?)", fmt.Sprintf("message %d written by the agent", i))
	}
	exec(agent, "INSERT INTO notes(notes) VALUES ('optimize')")
	var raw string
	if err := prune.QueryRow("PRAGMA integrity_check").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	t.Logf("PRAGMA integrity_check alone: %q", raw)
	got, err := integrity(ctx, prune, Schema{FTS: []FTS{{Name: "notes"}}})
	if err != nil || got != "ok" {
		t.Errorf("integrity after another connection merged the index: %q, %v; want ok", got, err)
	}
}
