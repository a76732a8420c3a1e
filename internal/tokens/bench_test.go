package tokens

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

// BenchmarkLoad loads each encoding afresh, as a new lore process does
// the first time it counts. tiktoken-go builds its vocabulary once per
// process, so its load is timed in a child process per iteration and
// reported as ns/load beside lore's; ns/op includes starting the child.
func BenchmarkLoad(b *testing.B) {
	for _, r := range reference {
		data := map[string]string{"o200k": o200kTokens, "cl100k": cl100kTokens}[r.name]
		b.Run("lore/"+r.name, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if _, err := newVocab(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N), "ns/load")
		})
		b.Run("tiktoken-go/"+r.name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestTiktokenLoadChild$")
				cmd.Env = append(os.Environ(), "LORE_TOKENS_LOAD_CHILD="+string(r.enc))
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("child: %v", err)
				}
				_, after, ok := strings.Cut(string(out), "load ")
				ns, err := strconv.ParseInt(strings.Fields(after + " x")[0], 10, 64)
				if !ok || err != nil {
					b.Fatalf("child said %q", out)
				}
				total += time.Duration(ns)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/load")
		})
	}
}

// TestTiktokenLoadChild is BenchmarkLoad's child process; on its own it
// does nothing.
func TestTiktokenLoadChild(t *testing.T) {
	enc := os.Getenv("LORE_TOKENS_LOAD_CHILD")
	if enc == "" {
		t.Skip("run by BenchmarkLoad")
	}
	start := time.Now()
	c, err := tokenizer.Get(tokenizer.Encoding(enc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Count("x"); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("load %d\n", time.Since(start).Nanoseconds())
}

// BenchmarkCount counts a markdown text of about 2,000 tokens: the start
// of lore's README.
func BenchmarkCount(b *testing.B) {
	raw, err := os.ReadFile("testdata/count.md")
	if err != nil {
		b.Fatal(err)
	}
	text := string(raw)
	for _, p := range pairs(b) {
		b.Run("lore/"+p.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = Count(p.ours, text)
			}
			b.ReportMetric(float64(n), "tokens")
		})
		b.Run("tiktoken-go/"+p.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n, _ = p.codec.Count(text)
			}
			b.ReportMetric(float64(n), "tokens")
		})
	}
}
