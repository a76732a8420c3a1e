// Package benchstore builds the large stores benchmarks read, once: one
// of 100,000 items takes minutes to build, and LORE_BENCH_DIR keeps it
// between runs.
package benchstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/sqlite"
)

// Path is the path of the store called name in LORE_BENCH_DIR (else in a
// temporary folder of tb), built from items when it is not there yet.
func Path(tb testing.TB, name string, items []lore.Item) string {
	tb.Helper()
	return build(tb, name, func(ctx context.Context, s *sqlite.Store) error {
		for i := 0; i < len(items); i += 5000 {
			if _, err := s.Add(ctx, items[i:min(i+5000, len(items))]); err != nil {
				return err
			}
		}
		return nil
	})
}

// AttemptsPath is Path for a store of attempts (lore.Journal).
func AttemptsPath(tb testing.TB, name string, as []lore.Attempt) string {
	tb.Helper()
	return build(tb, name, func(ctx context.Context, s *sqlite.Store) error {
		for i := 0; i < len(as); i += 5000 {
			if _, err := s.LogAttempts(ctx, as[i:min(i+5000, len(as))]); err != nil {
				return err
			}
		}
		return nil
	})
}

// build returns the path of the store called name, filled by fill when it
// is not there yet.
func build(tb testing.TB, name string, fill func(context.Context, *sqlite.Store) error) string {
	tb.Helper()
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = tb.TempDir()
	}
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := fill(ctx, s); err != nil {
		tb.Fatal(err)
	}
	if err := s.Close(); err != nil { // the last connection out checkpoints the WAL
		tb.Fatal(err)
	}
	return path
}
