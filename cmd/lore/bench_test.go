package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/sqlite"
)

// BenchmarkSearchProcess runs `lore search QUERY --store S` as a whole
// process (start, open the store, query, print) against a store of
// 100,000 synthetic items, and reports the median and 99th percentile.
// The store is kept under LORE_BENCH_DIR when set.
func BenchmarkSearchProcess(b *testing.B) {
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	store := filepath.Join(dir, "bench-100000.db")
	if _, err := os.Stat(store); err != nil {
		s, err := sqlite.Open(context.Background(), store, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		items := synth.Items(100_000, synth.ItemOptions{Seed: 1})
		for i := 0; i < len(items); i += 5000 {
			if _, err := s.Add(context.Background(), items[i:min(i+5000, len(items))]); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	}
	bin := filepath.Join(b.TempDir(), "lore")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	queries := synth.Queries(200, 3)
	var times []time.Duration
	i := 0
	for b.Loop() {
		t := time.Now()
		out, err := exec.Command(bin, "search", queries[i%len(queries)], "--store", store).Output()
		if err != nil || len(out) == 0 {
			b.Fatalf("lore search: %v (%d bytes out)", err, len(out))
		}
		times = append(times, time.Since(t))
		i++
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}
