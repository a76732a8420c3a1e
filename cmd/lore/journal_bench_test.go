package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/benchstore"
	"github.com/lorehq/lore/internal/synth"
)

// BenchmarkJournalProcess runs lore journal as an agent or a script runs
// it, a process each time, against a copy of a journal of 100,000
// synthetic attempts (synth.Attempts, kept under LORE_BENCH_DIR as the
// sqlite package's benchmark keeps it): log records an attempt with its
// files, similar asks for the attempts most like a task and its files in
// one repository, and nostore is lore journal similar with no store to
// open, for the others to be read against. It reports the median, 95th
// and 99th percentile, and the median processor time.
func BenchmarkJournalProcess(b *testing.B) {
	cached := benchstore.AttemptsPath(b, "bench-attempts-100000.db", synth.Attempts(100_000, 1))
	store := filepath.Join(b.TempDir(), "lore.db") // log writes: a copy
	if err := copyFile(cached, store); err != nil {
		b.Fatal(err)
	}
	bin := buildLore(b)
	qs := synth.AttemptQueries(500, 2)
	dir := b.TempDir() // not a checkout: --repo says which
	args := func(name string, i int) []string {
		q := qs[i%len(qs)]
		var a []string
		switch name {
		case "log":
			a = []string{"journal", "log", "--task", fmt.Sprintf("%s (%d)", q.Text, i), "--outcome", "failure",
				"--analysis", "the cache was cold", "--repo", q.Repo, "--store", store}
		default:
			a = []string{"journal", "similar", q.Text, "--repo", q.Repo, "--store", store}
			if name == "nostore" {
				a[len(a)-1] = filepath.Join(dir, "none.db")
			}
		}
		for _, f := range q.Files {
			a = append(a, "--file", f)
		}
		return a
	}
	for _, name := range []string{"log", "similar", "nostore"} {
		b.Run(name, func(b *testing.B) {
			var times, cpu []time.Duration
			i := 0
			for b.Loop() {
				cmd := exec.Command(bin, args(name, i)...)
				cmd.Dir = dir
				t := time.Now()
				out, err := cmd.Output()
				if err != nil && name != "nostore" {
					b.Fatalf("lore %v: %v: %s", cmd.Args[1:3], err, out)
				}
				times = append(times, time.Since(t))
				cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				i++
			}
			slices.Sort(times)
			for _, p := range []int{50, 95, 99} {
				b.ReportMetric(float64(times[len(times)*p/100].Microseconds())/1000, fmt.Sprintf("p%d-ms", p))
			}
			reportCPU(b, cpu)
		})
	}
}
