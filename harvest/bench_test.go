package harvest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/llm"
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
	var bytes int64
	var sum Summary
	for b.Loop() {
		var n int64
		sum, n = benchRun(b, []string{dir}, Rules{}, 0)
		bytes = n
	}
	b.SetBytes(bytes)
	b.ReportMetric(float64(sum.SessionsHarvested), "sessions")
	b.ReportMetric(float64(sum.ItemsNew), "items")
}

// BenchmarkHarvestRulesCLI is BenchmarkHarvestRules's harvest as lore
// harvest runs it: List reads the transcripts with their messages once
// (up to readAtOnce), checking the store's records, and Run harvests what
// it read. BenchmarkHarvestRules lists with transcript.Scan, which reads
// every transcript without messages first, and Run reads each again: the
// measure issue 4 set, kept as it was.
func BenchmarkHarvestRulesCLI(b *testing.B) {
	dir := b.TempDir()
	if _, err := synth.Write(dir, synth.Options{Format: "claude-code", Bytes: 64 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	for i := range 300 {
		writeClaude(b, dir, fmt.Sprintf("rich-%03d", i), fmt.Sprintf("/home/dev/repo%d", i%20), sessionOne())
	}
	var bytes int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			bytes += fi.Size()
		}
		return nil
	})
	ctx := context.Background()
	var sum Summary
	for b.Loop() {
		b.StopTimer()
		st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "lore.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		l, err := List(ctx, []string{dir}, ListOptions{Store: st, Extractor: Rules{}.Name()})
		if err != nil {
			b.Fatal(err)
		}
		if sum, err = Run(ctx, l.Sessions, Options{Store: st, Extractor: Rules{}, Listing: l}); err != nil || sum.Errors > 0 {
			b.Fatalf("%v %+v", err, sum.Problems)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.SetBytes(bytes)
	b.ReportMetric(float64(sum.SessionsHarvested), "sessions")
	b.ReportMetric(float64(sum.ItemsNew), "items")
}

// BenchmarkHarvestLLM harvests the fixture sessions (and ../shared/corpus
// when it is there) with the LLM extractor against a model that answers
// at once with two items per chunk and reports no usage, so that lore
// counts the tokens itself. It reports the calls made per chunk (one,
// unless an answer needs its retry), the tokens sent per session, and the
// tokens spent per item kept.
func BenchmarkHarvestLLM(b *testing.B) {
	dir := b.TempDir()
	for i := range 40 {
		writeClaude(b, dir, fmt.Sprintf("rich-%02d", i), fmt.Sprintf("/home/dev/repo%d", i%5), sessionOne())
	}
	paths := []string{dir}
	if corpus := filepath.Join("..", "..", "shared", "corpus"); dirExists(corpus) {
		paths = append(paths, corpus)
	}
	first := regexp.MustCompile(`(?m)^\[#(\d+)\]`)
	model := &fakeLLM{answer: func(n int, req llm.Request) (llm.Response, error) {
		pos := "0"
		if m := first.FindStringSubmatch(req.Prompt); m != nil {
			pos = m[1]
		}
		text := answerJSON(ans(fmt.Sprintf("Answer %d teaches one thing.", n), "fact", 0.7, pos),
			ans(fmt.Sprintf("Answer %d teaches another thing.", n), "pattern", 0.5, pos))
		return llm.Response{Text: text}, nil
	}}
	x, err := NewLLM(model, LLMOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var sum Summary
	var chunks int
	for b.Loop() {
		calls := len(model.reqs)
		sum, _ = benchRun(b, paths, x, 2)
		if got := len(model.reqs) - calls; got != sum.LLMCalls {
			b.Fatalf("%d requests, %d calls counted", got, sum.LLMCalls)
		}
		// A chunk is asked once without a retry note, and maybe once more
		// with one.
		chunks = 0
		for _, req := range model.reqs[calls:] {
			if !strings.HasSuffix(req.Prompt, retryEmpty) && !strings.HasSuffix(req.Prompt, retryInvalid) {
				chunks++
			}
		}
	}
	b.ReportMetric(float64(sum.LLMCalls)/float64(chunks), "calls/chunk")
	b.ReportMetric(float64(chunks), "chunks")
	b.ReportMetric(float64(sum.LLMTokensIn)/float64(sum.SessionsHarvested), "tokens-in/session")
	b.ReportMetric(sum.LLMTokensPerItem, "tokens/item")
	b.ReportMetric(float64(sum.SessionsHarvested), "sessions")
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// benchRun lists the sessions under paths and harvests them into a new
// store, timing both, and returns the summary and the bytes listed.
func benchRun(b *testing.B, paths []string, ex Extractor, workers int) (Summary, int64) {
	ctx := context.Background()
	b.StopTimer()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "lore.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		b.StopTimer() // closing the store is not harvesting
		st.Close()
		b.StartTimer()
	}()
	b.StartTimer()
	res, err := transcript.Scan(ctx, paths, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sum, err := Run(ctx, res.Sessions, Options{Store: st, Extractor: ex, Workers: workers})
	if err != nil || sum.Errors > 0 {
		b.Fatalf("%v %+v", err, sum.Problems)
	}
	return sum, res.Bytes
}
