package episode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/sqlite"
)

// benchEpisodes is how many episodes the benchmark's store holds.
const benchEpisodes = 100_000

// benchStore opens a store of synth.Episodes, building it when
// LORE_BENCH_DIR does not hold it yet.
func benchStore(b *testing.B) *sqlite.Store {
	b.Helper()
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "bench-episodes-100000.db")
	_, statErr := os.Stat(path)
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if statErr == nil {
		return s
	}
	eps := synth.Episodes(benchEpisodes, 1)
	for i := 0; i < len(eps); i += 20 {
		if err := s.RecordEpisodes(ctx, lore.SessionEpisodes{Session: eps[i].Session, Episodes: eps[i : i+20]}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkRecall answers failures from a store of 100,000 episodes:
// the lookup and the note, as a session waits for them after a failure.
// Three failures in four meet a signature the store has.
func BenchmarkRecall(b *testing.B) {
	st := benchStore(b)
	qs := synth.Failures(1000, 7)
	ctx := context.Background()
	if _, err := Recall(ctx, st, Failure{Signature: qs[0].Signature, Line: qs[0].Text}, Options{}); err != nil {
		b.Fatal(err) // loads the tokenizer, once per process
	}
	var ds []time.Duration
	found := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		start := time.Now()
		a, err := Recall(ctx, st, Failure{Signature: q.Signature, Line: q.Text, Repo: q.Repo, Agent: q.Agent}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if len(a.Episodes) > 0 {
			found++
		}
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(found)/float64(len(ds)), "answered")
}
