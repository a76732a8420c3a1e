package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lorehq/lore"
)

// TestPurgeLeavesNoTrace deletes items holding a secret the redactor
// missed, by id and by forgetting their session, and greps the store's
// raw files for it: not in a page, a freed page, a full-text segment or
// the write-ahead log, while the store is open and after it is closed.
func TestPurgeLeavesNoTrace(t *testing.T) {
	for _, tt := range []struct {
		name   string
		forget func(ctx context.Context, s *Store, id string) error
	}{
		{"delete", func(ctx context.Context, s *Store, id string) error { return s.Delete(ctx, id) }},
		{"forget session", func(ctx context.Context, s *Store, id string) error {
			_, err := s.ForgetSession(ctx, "leaky")
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "lore.db")
			s, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// Lower case, one word: the full-text index keeps it as it is.
			const secret = "zqxcanary7731vault"
			// Items before and after it, added one batch at a time, so that
			// the index has several segments and the secret's pages are
			// not the last ones written.
			for i := range 30 {
				items := []lore.Item{{Text: fmt.Sprintf("Service %d restarts nightly at %d:00", i, i%24),
					Category: lore.CategoryFact, Evidence: []lore.Evidence{{Session: fmt.Sprintf("s%d", i), Position: 1}}}}
				if i == 10 {
					items = append(items, lore.Item{Text: "The deploy needs the vault passphrase " + secret,
						Category: lore.CategoryFact, Tags: []string{secret}, Evidence: []lore.Evidence{{Session: "leaky", Position: 2}}})
				}
				if _, err := s.Add(ctx, items); err != nil {
					t.Fatal(err)
				}
			}
			hits, err := s.Search(ctx, lore.Query{Text: secret, Limit: 5})
			if err != nil || len(hits) != 1 {
				t.Fatalf("search before: %v %v", hits, err)
			}
			if err := tt.forget(ctx, s, hits[0].ID); err != nil {
				t.Fatal(err)
			}
			grepStore(t, path, secret, "open")
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			grepStore(t, path, secret, "closed")
			s, err = Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if hits, err := s.Search(ctx, lore.Query{Text: "restarts", Limit: 50}); err != nil || len(hits) != 30 {
				t.Errorf("the other items after the purge: %d found, %v", len(hits), err)
			}
			if _, err := s.db.Exec(`INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
				t.Errorf("full-text index inconsistent: %v", err)
			}
		})
	}
}

// grepStore fails when secret is in the store's file or its -wal or
// -shm.
func grepStore(t *testing.T, path, secret, when string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte(secret)); n > 0 {
			t.Errorf("store %s: %s holds the purged secret %d times", when, filepath.Base(p), n)
		}
	}
}
