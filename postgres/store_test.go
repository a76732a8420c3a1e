package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
)

// testURL returns the database the tests use, skipping the test when
// LORE_TEST_PG_URL names none.
func testURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("LORE_TEST_PG_URL")
	if url == "" {
		t.Skip("set LORE_TEST_PG_URL=postgres://… to run the PostgreSQL tests (.ci/run does)")
	}
	return url
}

// testTeam returns a team of its own for the test, whose schema is
// dropped when it ends.
func testTeam(t testing.TB) string {
	t.Helper()
	url := testURL(t)
	team := fmt.Sprintf("test-%x", rand.Uint64())
	t.Cleanup(func() { dropSchema(t, url, Schema(team)) })
	return team
}

func dropSchema(t testing.TB, url, schema string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
	}
}

// open returns a new, empty store in a team of its own.
func openTest(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), testURL(t), Options{Team: testTeam(t), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	testURL(t) // skips the suite at once without a database
	storetest.Run(t, func(t *testing.T, now func() time.Time) lore.Store { return openTest(t, now) })
}

func TestJournal(t *testing.T) {
	testURL(t) // skips the suite at once without a database
	storetest.RunJournal(t, func(t *testing.T, now func() time.Time) lore.Journal { return openTest(t, now) })
}

func TestGuards(t *testing.T) {
	testURL(t) // skips the suite at once without a database
	storetest.RunGuards(t, func(t *testing.T) lore.FixGuards { return openTest(t, time.Now) })
}

// TestMigrateOnce: stores of one team opened at once migrate its schema
// once, and opening it again changes nothing.
func TestMigrateOnce(t *testing.T) {
	url, team := testURL(t), testTeam(t)
	ctx := context.Background()
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			s, err := Open(ctx, url, Options{Team: team})
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatalf("open at once: %v", err)
		}
	}
	s := open2(t, url, team)
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	var n, max int
	if err := s.pool.QueryRow(ctx, `SELECT count(*), max(version) FROM lore_migrations`).Scan(&n, &max); err != nil || n != len(names) || max != len(names) {
		t.Errorf("%d migrations recorded, up to %d (%v); want each of the %d once", n, max, err, len(names))
	}
}

func open2(t *testing.T, url, team string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, Options{Team: team})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestCancel: a call whose context ends returns at once with an error,
// also while it waits for another writer's lock.
func TestCancel(t *testing.T) {
	s := openTest(t, nil)
	item := []lore.Item{{Text: "The api listens on 8080", Category: lore.CategoryFact}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Search(ctx, lore.Query{Text: "api"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: %v", err)
	}
	if _, err := s.Add(ctx, item); !errors.Is(err, context.Canceled) {
		t.Errorf("Add with a cancelled context: %v", err)
	}
	// Another writer holds the team's write lock.
	bg := context.Background()
	tx, err := s.pool.Begin(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(bg)
	if _, err := tx.Exec(bg, `SELECT pg_advisory_xact_lock(hashtextextended('lore write ' || $1, 0))`, s.schema); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(bg, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.Add(ctx, item); err == nil {
		t.Errorf("Add while another holds the lock, till a deadline: no error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Add returned %v after its deadline", d)
	}
	tx.Rollback(bg)
	if _, err := s.Add(bg, item); err != nil {
		t.Errorf("Add once the lock is free: %v", err)
	}
}

// TestRetry: a transaction PostgreSQL aborts for a serialisation failure
// or a deadlock is tried again; other errors are not.
func TestRetry(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		code string
		runs int
	}{{"40001", 2}, {"40P01", 2}, {"23505", 1}} {
		runs := 0
		err := inTx(ctx, s.pool, func(tx pgx.Tx) error {
			runs++
			if runs == 1 {
				return &pgconn.PgError{Code: tt.code}
			}
			return nil
		})
		if runs != tt.runs || (tt.runs == 2) != (err == nil) {
			t.Errorf("SQLSTATE %s: %d runs, %v; want %d", tt.code, runs, err, tt.runs)
		}
	}
	runs := 0
	err := inTx(ctx, s.pool, func(pgx.Tx) error { runs++; return &pgconn.PgError{Code: "40001"} })
	if runs != maxAttempts || err == nil {
		t.Errorf("a conflict every time: %d runs, %v; want %d and the error", runs, err, maxAttempts)
	}
}

// TestJournalHistory measures the journal's retrieval on real git
// histories (storetest.RunJournalHistory), as the SQLite store's is.
func TestJournalHistory(t *testing.T) {
	testURL(t)
	storetest.RunJournalHistory(t, func(t *testing.T) lore.Journal { return openTest(t, nil) })
}
