// Command lore-synth writes a synthetic transcript corpus of any size, in
// any of the major formats, for benchmarks:
//
//	go run ./cmd/lore-synth -format claude-code -size 1GiB -out /tmp/corpus
//
// Exit codes: 0 ok, 1 failure, 2 usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore/internal/synth"
)

func main() {
	fs := flag.NewFlagSet("lore-synth", flag.ContinueOnError)
	format := fs.String("format", "claude-code", "format: "+strings.Join(synth.Formats, ", "))
	size := fs.String("size", "100MiB", "corpus size (B, KiB, MiB, GiB, or KB, MB, GB)")
	out := fs.String("out", "", "folder to write into (required)")
	seed := fs.Uint64("seed", 1, "random seed: the same seed writes the same corpus")
	mean := fs.String("session-size", "400KiB", "mean size of one session file")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	bytes, err := parseSize(*size)
	if err == nil && *out == "" {
		err = fmt.Errorf("-out is required")
	}
	meanBytes, err2 := parseSize(*mean)
	if err == nil {
		err = err2
	}
	if err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(os.Stderr, "lore-synth: %v\n", err)
		os.Exit(2)
	}
	start := time.Now()
	st, err := synth.Write(*out, synth.Options{Format: *format, Bytes: bytes, Seed: *seed, SessionBytes: meanBytes})
	if err != nil {
		fmt.Fprintf(os.Stderr, "lore-synth: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d %s sessions in %d files, %d bytes, to %s in %s\n",
		st.Sessions, *format, st.Files, st.Bytes, *out, time.Since(start).Round(time.Millisecond))
}

// parseSize reads "1GiB", "500MB", "4096".
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit such as 500MiB", s)
	}
	return int64(f * float64(mult)), nil
}
