package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
func open(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), testURL(t), Options{Team: testTeam(t), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) lore.Store { return open(t, now) })
}

func TestJournal(t *testing.T) {
	storetest.RunJournal(t, func(t *testing.T, now func() time.Time) lore.Journal { return open(t, now) })
}

func TestGuards(t *testing.T) {
	storetest.RunGuards(t, func(t *testing.T) lore.FixGuards { return open(t, time.Now) })
}
