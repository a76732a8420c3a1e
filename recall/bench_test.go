package recall

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/benchstore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/sqlite"
)

// benchStore is the path of a store of synth.RecallItems, 100,000 items,
// built once under LORE_BENCH_DIR when set, with the pitfalls among them
// and their commands.
func benchStore(b *testing.B) (string, []lore.Item, []synth.PitfallCommand) {
	b.Helper()
	items, cmds := synth.RecallItems()
	return benchstore.Path(b, "bench-recall-100000.db", items), items[len(items)-len(cmds):], cmds
}

// benchCall is one hook a session sends: a command about to run, or one
// that failed, in a session of some repository and agent.
type benchCall struct {
	opts          Options
	after         bool
	input, output string
}

// benchCalls are the hooks sessions would send: half before a command,
// half after a failure; three in four of a command (or an error) a
// pitfall knows, in that pitfall's scope, the rest of a command nothing
// is known of.
func benchCalls(pitfalls []lore.Item, cmds []synth.PitfallCommand, n int) []benchCall {
	r := rand.New(rand.NewPCG(3, 17))
	calls := make([]benchCall, n)
	for i := range calls {
		k := r.IntN(len(pitfalls))
		it, c := pitfalls[k], cmds[k]
		o := Options{Repo: it.Repo, Agent: it.Agent}
		if o.Agent == "" {
			o.Agent = lore.Agents[r.IntN(len(lore.Agents))]
		}
		if o.Repo == "" {
			o.Repo = pitfalls[r.IntN(len(pitfalls))].Repo
		}
		cmd, output := c.Command, c.Output
		if r.IntN(4) == 0 {
			cmd, output = "tar -czf out.tgz ./dist", "Exit code 2\ntar: ./dist: Cannot stat: No such file or directory"
		}
		input, _ := json.Marshal(map[string]string{"command": cmd, "description": "run it"})
		calls[i] = benchCall{opts: o, after: i%2 == 1, input: string(input), output: output}
	}
	return calls
}

// BenchmarkRecall100k answers hooks on a store of 100,000 items (see
// benchStore), each as lore recall does once its store is open, and
// reports the median, 95th and 99th percentile of one answer, and the
// notes an answer hands over.
func BenchmarkRecall100k(b *testing.B) {
	path, pitfalls, cmds := benchStore(b)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	calls := benchCalls(pitfalls, cmds, 1000)
	var before, after []time.Duration
	notes := 0
	i := 0
	for b.Loop() {
		c := calls[i%len(calls)]
		t := time.Now()
		var n Note
		if c.after {
			n, err = AfterFailure(ctx, st, c.opts, "Bash", c.input, c.output)
		} else {
			n, err = BeforeTool(ctx, st, c.opts, "Bash", c.input)
		}
		if err != nil {
			b.Fatal(err)
		}
		if c.after {
			after = append(after, time.Since(t))
		} else {
			before = append(before, time.Since(t))
		}
		notes += len(n.Items)
		i++
	}
	report(b, before, "before-ms")
	report(b, after, "after-ms")
	b.ReportMetric(float64(notes)/float64(i), "notes/answer")
}

// report reports the median, 95th and 99th percentile of ds as
// p50-unit, p95-unit and p99-unit.
func report(b *testing.B, ds []time.Duration, unit string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	for _, p := range []int{50, 95, 99} {
		b.ReportMetric(float64(ds[len(ds)*p/100].Microseconds())/1000, "p"+string(rune('0'+p/10))+string(rune('0'+p%10))+"-"+unit)
	}
}
