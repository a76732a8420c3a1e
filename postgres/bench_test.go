package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/recall"
)

// batchSize is how many items one Add call writes, as harvest does.
const batchSize = 5000

// fill adds items to s in batches, and says how fast.
func fill(tb testing.TB, s *Store, items []lore.Item) {
	tb.Helper()
	start := time.Now()
	for i := 0; i < len(items); i += batchSize {
		if _, err := s.Add(context.Background(), items[i:min(i+batchSize, len(items))]); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Logf("added %d items in %s (%.0f items/s)", len(items), time.Since(start).Round(time.Millisecond), float64(len(items))/time.Since(start).Seconds())
}

// benchStore returns the store of a team named after the benchmark's
// items, filled with them once: with LORE_BENCH_KEEP=1 it stays for the
// next run (filling 100,000 items takes a minute or more), else it is
// dropped at the end.
func benchStore(b *testing.B, name string, items func() []lore.Item) *Store {
	b.Helper()
	url, team := testURL(b), "bench-"+name
	if os.Getenv("LORE_BENCH_KEEP") == "" {
		team = testTeam(b)
	}
	s, err := Open(context.Background(), url, Options{Team: team})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if n, err := s.Count(context.Background(), lore.Filter{AnyStatus: true, Expired: true}); err != nil {
		b.Fatal(err)
	} else if n == 0 {
		fill(b, s, items())
		if _, err := s.pool.Exec(context.Background(), `VACUUM ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkAdd adds 5,000 synthetic items (a fifth of them repeats from
// other sessions) in one batch to a store of 20,000, with merging by id
// and by near-duplicate; each run adds the next 5,000.
func BenchmarkAdd(b *testing.B) {
	items := synth.Items(20_000+100*batchSize, synth.ItemOptions{Seed: 1})
	s := openTest(b, nil)
	fill(b, s, items[:20_000])
	next := 20_000
	for b.Loop() {
		if next+batchSize > len(items) {
			b.Fatal("out of items: lower -benchtime")
		}
		if _, err := s.Add(context.Background(), items[next:next+batchSize]); err != nil {
			b.Fatal(err)
		}
		next += batchSize
	}
	b.ReportMetric(float64(batchSize)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkSearch100k asks natural-language questions of a store built
// from 100,000 synthetic items, and reports the median and 99th
// percentile of one search.
func BenchmarkSearch100k(b *testing.B) {
	s := benchStore(b, "items-100000", func() []lore.Item { return synth.Items(100_000, synth.ItemOptions{Seed: 1}) })
	queries := synth.Queries(1000, 2)
	var times []time.Duration
	i := 0
	for b.Loop() {
		t := time.Now()
		if _, err := s.Search(context.Background(), lore.Query{Text: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t))
		i++
	}
	report(b, times, "ms")
}

// BenchmarkRecall100k answers hooks as lore recall does (recall.BeforeTool
// and AfterFailure) on a store of 100,000 items, 10,000 of them pitfalls
// of commands: half before a command, half after its failure; three in
// four of a command a pitfall knows, in its scope.
func BenchmarkRecall100k(b *testing.B) {
	all, cmds := synth.RecallItems()
	s := benchStore(b, "recall-100000", func() []lore.Item { return all })
	pitfalls := all[len(all)-len(cmds):]
	r := rand.New(rand.NewPCG(3, 17))
	var before, after []time.Duration
	ctx := context.Background()
	for b.Loop() {
		k := r.IntN(len(pitfalls))
		it, c := pitfalls[k], cmds[k]
		o := recall.Options{Repo: it.Repo, Agent: cmp.Or(it.Agent, lore.Agents[r.IntN(len(lore.Agents))])}
		cmd, output := c.Command, c.Output
		if r.IntN(4) == 0 {
			cmd, output = "tar -czf out.tgz ./dist", "Exit code 2\ntar: ./dist: Cannot stat: No such file or directory"
		}
		input, _ := json.Marshal(map[string]string{"command": cmd})
		t := time.Now()
		var err error
		if r.IntN(2) == 0 {
			_, err = recall.BeforeTool(ctx, s, o, "Bash", string(input))
			before = append(before, time.Since(t))
		} else {
			_, err = recall.AfterFailure(ctx, s, o, "Bash", string(input), output)
			after = append(after, time.Since(t))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	report(b, before, "before-ms")
	report(b, after, "after-ms")
}

// report reports the median, 95th and 99th percentile of ds as
// p50-unit, p95-unit and p99-unit.
func report(b *testing.B, ds []time.Duration, unit string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	for _, p := range []int{50, 95, 99} {
		b.ReportMetric(float64(ds[len(ds)*p/100].Microseconds())/1000, "p"+strconv.Itoa(p)+"-"+unit)
	}
}
