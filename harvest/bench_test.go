package harvest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/sqlite"
	"github.com/lorehq/lore/transcript"
)

// BenchmarkHarvestRules harvests a 64 MiB synthetic Claude Code corpus
// (LORE_BENCH_CORPUS: another folder) with the rules extractor into an
// empty store, end to end as lore harvest does: listing the sessions,
// reading each with its messages, extracting, redacting, storing and
// recording.
func BenchmarkHarvestRules(b *testing.B) {
	dir := os.Getenv("LORE_BENCH_CORPUS")
	if dir == "" {
		dir = b.TempDir()
		if _, err := synth.Write(dir, synth.Options{Format: "claude-code", Bytes: 64 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		// The synthetic sessions' text is filler, which teaches nothing;
		// sessions like the golden test's give the store items to merge.
		for i := range 300 {
			writeClaude(b, dir, fmt.Sprintf("rich-%03d", i), fmt.Sprintf("/home/dev/repo%d", i%20), sessionOne())
		}
	}
	ctx := context.Background()
	var bytes int64
	var sum Summary
	for b.Loop() {
		b.StopTimer()
		st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "lore.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := transcript.Scan(ctx, []string{dir}, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		sum, err = Run(ctx, res.Sessions, Options{Store: st, Extractor: Rules{}})
		if err != nil || sum.Errors > 0 {
			b.Fatalf("%v %+v", err, sum.Problems)
		}
		bytes = res.Bytes
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.SetBytes(bytes)
	b.ReportMetric(float64(sum.SessionsHarvested), "sessions")
	b.ReportMetric(float64(sum.ItemsNew), "items")
}
