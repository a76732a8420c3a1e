package transcript

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lorehq/lore/internal/synth"
)

// benchCorpus writes (once per run) a synthetic corpus of one format, or
// uses $LORE_BENCH_CORPUS when set, and returns its folder and size.
func benchCorpus(b *testing.B, format string, size int64) (string, int64) {
	b.Helper()
	if dir := os.Getenv("LORE_BENCH_CORPUS"); dir != "" && format == "claude-code" {
		return dir, treeSize(dir)
	}
	key := format + "/" + filepath.Base(b.Name())
	benchDirs.Lock()
	defer benchDirs.Unlock()
	if c, ok := benchDirs.m[format]; ok {
		return c.dir, c.size
	}
	dir, err := os.MkdirTemp("", "lore-bench-"+format)
	if err != nil {
		b.Fatal(err)
	}
	st, err := synth.Write(dir, synth.Options{Format: format, Bytes: size, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	_ = key
	benchDirs.m[format] = benchCorpusDir{dir, st.Bytes}
	return dir, st.Bytes
}

type benchCorpusDir struct {
	dir  string
	size int64
}

var benchDirs = struct {
	sync.Mutex
	m map[string]benchCorpusDir
}{m: map[string]benchCorpusDir{}}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, c := range benchDirs.m {
		os.RemoveAll(c.dir)
	}
	os.Exit(code)
}

func treeSize(dir string) int64 { return dirSize(dir) }

// BenchmarkScan reads a whole synthetic corpus per format the way lore
// sessions --json does (counters only, every core), and reports MB/s.
func BenchmarkScan(b *testing.B) {
	for _, format := range synth.Formats {
		b.Run(format, func(b *testing.B) {
			dir, size := benchCorpus(b, format, 64<<20)
			b.SetBytes(size)
			b.ResetTimer()
			for b.Loop() {
				res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
				if err != nil || len(res.Sessions) == 0 || len(res.Problems) > 0 {
					b.Fatalf("scan: %v, %d sessions, problems %v", err, len(res.Sessions), res.Problems)
				}
			}
		})
	}
}

// The synthetic corpora the benchmarks read are read whole: every
// session the generator wrote is found, with no problem and no damage.
func TestSynthCorpusReads(t *testing.T) {
	for _, format := range synth.Formats {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			st, err := synth.Write(dir, synth.Options{Format: format, Bytes: 2 << 20, Seed: 5, SessionBytes: 200 << 10})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) > 0 || len(res.Sessions) != st.Sessions {
				t.Fatalf("%d sessions of %d written, problems %v", len(res.Sessions), st.Sessions, res.Problems)
			}
			for _, s := range res.Sessions {
				checkInvariants(t, s)
				if s.Warnings > 0 || s.UserMessages == 0 || s.AssistantMessages == 0 || s.Agent != format {
					t.Errorf("%s: %+v", s.ID, s)
				}
			}
		})
	}
}
