package boot

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/benchstore"
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
	items := synth.Items(100_000, synth.ItemOptions{Seed: 1})
	path := benchstore.Path(b, "bench-100000.db", items)
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
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

// percentiles reports the median and 99th percentile of ds as p50-unit
// and p99-unit.
func percentiles(b *testing.B, ds []time.Duration, unit string) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-"+unit)
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-"+unit)
}

// tokenizerLoad is how long loading the tokenizer took, measured once: a
// process loads it once, and later runs of a benchmark find it loaded.
var tokenizerLoad = sync.OnceValues(func() (time.Duration, error) {
	t := time.Now()
	_, err := tokens.Get("")
	return time.Since(t), err
})

// BenchmarkBoot100k builds contexts (the default budget, tokens counted)
// for varied repositories, agents and tasks on a store of 100,000 items,
// and reports the median and 99th percentile of one boot: on the clock
// (ms) and, on Linux, in processor time (cpu-ms), which waiting for a core
// on a busy machine does not inflate. Loading the tokenizer happens once
// per process; it is reported apart (tokenizer-load-ms) and left out of
// the per-boot figures.
func BenchmarkBoot100k(b *testing.B) {
	st, items := benchStore(b)
	load, err := tokenizerLoad()
	if err != nil {
		b.Fatal(err)
	}
	boots := benchBoots(items, 1000)
	ctx := context.Background()
	// One thread, so that its processor time is the boot's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var times, cpu []time.Duration
	var notes, used int
	i := 0
	for b.Loop() {
		t, c0 := time.Now(), threadCPU()
		c, err := Build(ctx, st, boots[i%len(boots)])
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t))
		cpu = append(cpu, threadCPU()-c0)
		notes += len(c.Items)
		used += c.Tokens
		i++
	}
	percentiles(b, times, "ms")
	if cpu[0] > 0 {
		percentiles(b, cpu, "cpu-ms")
	}
	b.ReportMetric(float64(load.Microseconds())/1000, "tokenizer-load-ms")
	b.ReportMetric(float64(notes)/float64(i), "notes/boot")
	b.ReportMetric(float64(used)/float64(i), "tokens/boot")
}

// BenchmarkPastFailures is what asking the journal for past failures
// adds to a boot (failures), on the store of BenchmarkBoot100k, whose
// journal is empty: what every boot pays before anyone logs an attempt.
func BenchmarkPastFailures(b *testing.B) {
	st, items := benchStore(b)
	boots := benchBoots(items, 1000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := failures(ctx, st, boots[i%len(boots)]); err != nil {
			b.Fatal(err)
		}
	}
}
