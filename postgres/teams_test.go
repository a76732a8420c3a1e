package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestClaimSkipLocked: workers of two servers (each its own pool) claim
// at once, many at a time; every upload is claimed exactly once.
func TestClaimSkipLocked(t *testing.T) {
	a := openTestTeams(t)
	admin := strings.Trim(a.admin.Config().ConnConfig.RuntimeParams["search_path"], `"`)
	b, err := openTeams(context.Background(), a.url, admin, a.schema)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	const jobs, workers = 300, 32
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	for i := range jobs {
		if _, err := a.Enqueue(ctx, lore.QueuedUpload{Team: "acme", ID: fmt.Sprint("j", i), Name: "s.jsonl", Received: at, Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	claims := map[string]int{}
	var wg sync.WaitGroup
	for w := range workers {
		q := []*Teams{a, b}[w%2]
		wg.Go(func() {
			for {
				u, ok, err := q.Claim(ctx, fmt.Sprint("w", w), at, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				claims[u.ID]++
				mu.Unlock()
				u.State = lore.UploadHarvested
				if err := q.Finish(ctx, u); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(claims) != jobs {
		t.Errorf("%d uploads claimed, want %d", len(claims), jobs)
	}
	for id, n := range claims {
		if n != 1 {
			t.Errorf("%s claimed %d times", id, n)
		}
	}
}
