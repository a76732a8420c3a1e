package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/benchstore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/sqlite"
)

// benchStore returns the path of a store of 100,000 synthetic items, built
// once and kept under LORE_BENCH_DIR when set, and the items it was built
// from.
func benchStore(b *testing.B) (string, []lore.Item) {
	b.Helper()
	items := synth.Items(100_000, synth.ItemOptions{Seed: 1})
	return benchstore.Path(b, "bench-100000.db", items), items
}

// buildLore builds the lore binary, as a user installs it.
func buildLore(b testing.TB) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "lore")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// reportTimes reports the median and 99th percentile of times.
func reportTimes(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// reportCPU reports the median processor time (user and system) of the
// processes cmds ran: on a busy machine, where waiting for a core adds to
// the time a process takes, what it costs of its own.
func reportCPU(b *testing.B, cpu []time.Duration) {
	slices.Sort(cpu)
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "p50-cpu-ms")
}

// BenchmarkSearchProcess runs `lore search QUERY --store S` as a whole
// process (start, open the store, query, print) against a store of
// 100,000 synthetic items, and reports the median and 99th percentile.
// The store is kept under LORE_BENCH_DIR when set.
func BenchmarkSearchProcess(b *testing.B) {
	store, _ := benchStore(b)
	bin := buildLore(b)
	queries := synth.Queries(200, 3)
	var times []time.Duration
	i := 0
	for b.Loop() {
		t := time.Now()
		out, err := exec.Command(bin, "search", queries[i%len(queries)], "--store", store).Output()
		if err != nil || len(out) == 0 {
			b.Fatalf("lore search: %v (%d bytes out)", err, len(out))
		}
		times = append(times, time.Since(t))
		i++
	}
	reportTimes(b, times)
}

// BenchmarkBootProcess runs `lore boot` as a whole process (start, open
// the store, load the tokenizer, build the context, record the boot,
// print) against a copy of the store of 100,000 synthetic items, and
// reports the median and 99th percentile. hook is what Claude Code's
// SessionStart hook pays: --format claude-hook with the hook's JSON on
// standard input, the repository found from the session's folder (a git
// checkout of one of the store's repositories), no task. task is lore boot
// --repo R --agent A --task T, as a person or a script asks.
func BenchmarkBootProcess(b *testing.B) {
	cached, items := benchStore(b)
	// Every boot is recorded: boot a copy, not the store others reuse.
	store := filepath.Join(b.TempDir(), "lore.db")
	if err := copyFile(cached, store); err != nil {
		b.Fatal(err)
	}
	s, err := sqlite.Open(context.Background(), store, sqlite.Options{}) // migrated before the clock runs
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	bin := buildLore(b)
	var repos []string
	for _, it := range items {
		if it.Repo != "" {
			repos = append(repos, it.Repo)
		}
	}
	r := rand.New(rand.NewPCG(5, 11))
	b.Run("hook", func(b *testing.B) {
		var dirs []string
		for i := range 50 {
			dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
			repo := repos[r.IntN(len(repos))]
			if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
				b.Fatal(err)
			}
			config := "[remote \"origin\"]\n\turl = git@github.com:" + repo + ".git\n"
			if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(config), 0o644); err != nil {
				b.Fatal(err)
			}
			dirs = append(dirs, dir)
		}
		timeBoots(b, func(i int) *exec.Cmd {
			cmd := exec.Command(bin, "boot", "--format", "claude-hook", "--store", store)
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"bench-%d","cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`,
				i, dirs[i%len(dirs)]))
			return cmd
		})
	})
	b.Run("task", func(b *testing.B) {
		tasks := synth.Queries(200, 9)
		timeBoots(b, func(i int) *exec.Cmd {
			return exec.Command(bin, "boot", "--repo", repos[r.IntN(len(repos))], "--agent", lore.Agents[r.IntN(len(lore.Agents))],
				"--task", tasks[i%len(tasks)], "--store", store)
		})
	})
}

// timeBoots runs the boot command cmd makes for each iteration, checks
// that it printed notes, and reports the times and processor times.
func timeBoots(b *testing.B, cmd func(i int) *exec.Cmd) {
	var times, cpu []time.Duration
	i := 0
	for b.Loop() {
		c := cmd(i)
		t := time.Now()
		out, err := c.Output()
		if err != nil || !strings.Contains(string(out), "lore:") {
			b.Fatalf("lore boot: %v, %.200s", err, out)
		}
		times = append(times, time.Since(t))
		cpu = append(cpu, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
		i++
	}
	reportTimes(b, times)
	reportCPU(b, cpu)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
