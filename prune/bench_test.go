package prune_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/hermesdb"
)

// issueDB returns a database of the issue's size (5,508 sessions, 82,244
// messages, ~420 MB) in the given version: the one in LORE_BENCH_DIR
// when TestIssueSize in prune/hermesdb left it there, else written now
// (35–60 s).
func issueDB(b *testing.B, version int) string {
	if dir := os.Getenv("LORE_BENCH_DIR"); dir != "" {
		path := filepath.Join(dir, fmt.Sprintf("state-v%d.db", version))
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	path := filepath.Join(b.TempDir(), "state.db")
	if _, err := hermesdb.Write(context.Background(), path, hermesdb.IssueSize(version)); err != nil {
		b.Fatal(err)
	}
	return path
}

func copyFile(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPruneIssueSize is the whole prune, backup to VACUUM, of a
// database of the issue's size, a year after its last session: every
// leaked session is closed and every session archived, the worst case.
// The issue's target is under 60 s.
func BenchmarkPruneIssueSize(b *testing.B) {
	for _, v := range hermesdb.Versions {
		b.Run(fmt.Sprintf("v%d", v), func(b *testing.B) {
			src := issueDB(b, v)
			fi, err := os.Stat(src)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				path := filepath.Join(dir, "state.db")
				copyFile(b, src, path)
				b.StartTimer()
				r, err := prune.Run(context.Background(), path, prune.Options{Now: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if r.Archived != 5508 || r.Checks == nil || !r.Checks.OK() {
					b.Fatalf("archived %d of 5,508 sessions; checks %+v", r.Archived, r.Checks)
				}
				for _, p := range r.Phases {
					b.ReportMetric(p.Seconds, strings.ReplaceAll(p.Name, " ", "-")+"-s")
				}
				b.ReportMetric(float64(r.After.FileBytes)/1e6, "MB-after")
				b.ReportMetric(float64(r.ArchiveFileBytes)/1e6, "MB-archive")
				os.RemoveAll(dir)
				b.StartTimer()
			}
		})
	}
}
