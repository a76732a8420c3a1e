package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
)

// batch is how many items one Add call writes, as harvest does.
const batchSize = 5000

// fill adds items to s in batches.
func fill(tb testing.TB, s *Store, items []lore.Item) {
	tb.Helper()
	ctx := context.Background()
	for i := 0; i < len(items); i += batchSize {
		if _, err := s.Add(ctx, items[i:min(i+batchSize, len(items))]); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkAdd100k adds 100,000 synthetic items (a fifth of them repeats
// from other sessions) to an empty store in batches of 5,000, with merging
// by id and by near-duplicate.
func BenchmarkAdd100k(b *testing.B) {
	items := synth.Items(100_000, synth.ItemOptions{Seed: 1})
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		s, err := Open(context.Background(), filepath.Join(dir, "lore.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		fill(b, s, items)
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(items))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// searchStore returns a store of n synthetic items, built once per size
// and kept under LORE_BENCH_DIR when set (building a million items takes
// minutes).
func searchStore(b *testing.B, n int) (*Store, int64) {
	b.Helper()
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "bench-"+strconv.Itoa(n)+".db")
	_, statErr := os.Stat(path)
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if statErr != nil {
		items := synth.Items(n, synth.ItemOptions{Seed: 1})
		start := time.Now()
		fill(b, s, items)
		b.Logf("added %d items in %s (%.0f items/s)", n, time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds())
		if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return s, fi.Size()
}

// benchSearch runs natural-language questions against a store of n items
// and reports the median and 99th percentile of one search.
func benchSearch(b *testing.B, n int) {
	s, size := searchStore(b, n)
	var items int
	if err := s.db.QueryRow(`SELECT count(*) FROM items`).Scan(&items); err != nil {
		b.Fatal(err)
	}
	queries := synth.Queries(1000, 2)
	ctx := context.Background()
	var times []time.Duration
	b.ResetTimer()
	i := 0
	for b.Loop() {
		t := time.Now()
		if _, err := s.Search(ctx, lore.Query{Text: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t))
		i++
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(size)/(1<<20), "store-MiB")
	b.ReportMetric(float64(items), "items")
}

// BenchmarkSearch100k searches a store built from 100,000 synthetic items.
func BenchmarkSearch100k(b *testing.B) { benchSearch(b, 100_000) }

// BenchmarkSearch1M searches a store built from a million synthetic items;
// it runs only with LORE_BENCH_LARGE=1, as building the store takes
// minutes.
func BenchmarkSearch1M(b *testing.B) {
	if os.Getenv("LORE_BENCH_LARGE") == "" {
		b.Skip("set LORE_BENCH_LARGE=1 (and LORE_BENCH_DIR to keep the store) to search a million items")
	}
	benchSearch(b, 1_000_000)
}

// BenchmarkSimilarAttempts100k asks a journal of 100,000 synthetic
// attempts (synth.Attempts: ten repositories, two years) for the attempts
// most like a task and its files, in one repository, as lore journal
// similar does; it reports the median, 95th and 99th percentile.
func BenchmarkSimilarAttempts100k(b *testing.B) {
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "bench-attempts-100000.db")
	ctx := context.Background()
	_, statErr := os.Stat(path)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if statErr != nil {
		as := synth.Attempts(100_000, 1)
		for i := 0; i < len(as); i += batchSize {
			if _, err := s.LogAttempts(ctx, as[i:min(i+batchSize, len(as))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	qs := synth.AttemptQueries(500, 2)
	var times []time.Duration
	hits, i := 0, 0
	for b.Loop() {
		t := time.Now()
		got, err := s.SimilarAttempts(ctx, qs[i%len(qs)])
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t))
		hits += len(got)
		i++
	}
	slices.Sort(times)
	for _, p := range []int{50, 95, 99} {
		b.ReportMetric(float64(times[len(times)*p/100].Microseconds())/1000, "p"+strconv.Itoa(p)+"-ms")
	}
	b.ReportMetric(float64(hits)/float64(i), "hits/query")
}
