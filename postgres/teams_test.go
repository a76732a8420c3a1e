package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
)

// openTestTeams returns teams of the test's own: their tokens and stores in
// schemas named after it, dropped when it ends.
func openTestTeams(t *testing.T) *Teams {
	t.Helper()
	url := testURL(t)
	prefix := fmt.Sprintf("test_%x_", rand.Uint64())
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		rows, _ := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, prefix)
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Error(err)
		}
		for _, n := range names {
			dropSchema(t, url, n)
		}
	})
	ts, err := openTeams(context.Background(), url, prefix+"admin", func(team string) string { return prefix + team })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts
}

func TestTokens(t *testing.T) {
	testURL(t) // skips the suite at once without a database
	storetest.RunTokens(t, func(t *testing.T) lore.Tokens { return openTestTeams(t) })
}

func TestUploadQueue(t *testing.T) {
	testURL(t) // skips the suite at once without a database
	storetest.RunUploadQueue(t, func(t *testing.T) lore.UploadQueue { return openTestTeams(t) })
}

func TestTeams(t *testing.T) {
	testURL(t) // skips the suite at once without a database
	storetest.RunTeams(t, func(t *testing.T) lore.Teams { return openTestTeams(t) })
}
