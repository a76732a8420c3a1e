package prune

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestIntegrityReportsRealDamage damages an FTS5 index while no one else
// writes: the check reports it at once, rather than running again.
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
	if got, err := integrity(ctx, db); err != nil || got != "ok" {
		t.Fatalf("sound database: %q, %v", got, err)
	}
	// The stored text changes behind the index's back.
	if _, err := db.Exec("UPDATE notes_content SET c0 = 'something else entirely' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	got, err := integrity(ctx, db)
	if err != nil || got == "ok" || !strings.Contains(strings.ToLower(got), "fts5") {
		t.Errorf("damaged index: %q, %v; want FTS5's report of it", got, err)
	}
}
