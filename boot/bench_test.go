package boot

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/internal/tokens"
	"github.com/lorehq/lore/sqlite"
)

// benchStore opens the store of 100,000 synthetic items the sqlite and
// cmd/lore benchmarks search (items across many repositories and agents),
// building it when LORE_BENCH_DIR does not hold it yet. It returns the
// items it was built from too.
func benchStore(b *testing.B) (lore.Store, []lore.Item) {
	b.Helper()
	dir := os.Getenv("LORE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "bench-100000.db")
	_, statErr := os.Stat(path)
	items := synth.Items(100_000, synth.ItemOptions{Seed: 1})
	ctx := context.Background()
	if statErr != nil {
		s, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(items); i += 5000 {
			if _, err := s.Add(ctx, items[i:min(i+5000, len(items))]); err != nil {
				b.Fatal(err)
			}
		}
		s.Close() // the last connection out checkpoints the WAL
	}
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, items
}

// benchBoots are the boots sessions would ask for: a repository that has
// notes (picked as often as it has them), one in eight with none; any
// agent; a task in people's words, one in four with none.
func benchBoots(items []lore.Item, n int) []Options {
	r := rand.New(rand.NewPCG(5, 11))
	var repos []string
	for _, it := range items {
		if it.Repo != "" {
			repos = append(repos, it.Repo)
		}
	}
	tasks := synth.Queries(n, 9)
	boots := make([]Options, n)
	for i := range boots {
		o := Options{Agent: lore.Agents[r.IntN(len(lore.Agents))], Task: tasks[i]}
		if r.IntN(8) != 0 {
			o.Repo = repos[r.IntN(len(repos))]
		}
		if r.IntN(4) == 0 {
			o.Task = ""
		}
		boots[i] = o
	}
	return boots
}

// BenchmarkBoot100k builds contexts (the default budget, tokens counted)
// for varied repositories, agents and tasks on a store of 100,000 items,
// and reports the median and 99th percentile of one boot. Loading the
// tokenizer happens once per process; it is reported apart
// (tokenizer-load-ms) and left out of the per-boot figures.
func BenchmarkBoot100k(b *testing.B) {
	st, items := benchStore(b)
	t := time.Now()
	if _, err := tokens.Get(""); err != nil {
		b.Fatal(err)
	}
	load := time.Since(t)
	boots := benchBoots(items, 1000)
	ctx := context.Background()
	var times []time.Duration
	var notes, used int
	i := 0
	for b.Loop() {
		t := time.Now()
		c, err := Build(ctx, st, boots[i%len(boots)])
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t))
		notes += len(c.Items)
		used += c.Tokens
		i++
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(load.Microseconds())/1000, "tokenizer-load-ms")
	b.ReportMetric(float64(notes)/float64(i), "notes/boot")
	b.ReportMetric(float64(used)/float64(i), "tokens/boot")
}
