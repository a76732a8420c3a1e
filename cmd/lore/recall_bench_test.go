package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/benchstore"
	"github.com/lorehq/lore/internal/synth"
)

// BenchmarkRecallProcess runs lore recall as Claude Code's tool hooks run
// it: a process of its own, the hook's JSON on standard input, the
// repository found from the session's folder (a git checkout of the
// pitfall's repository), each note handed over recorded; against a copy
// of a store of 100,000 items (synth.RecallItems, kept under
// LORE_BENCH_DIR as the recall package's benchmark keeps it). before is
// PreToolUse for a command a pitfall knows, after PostToolUseFailure for
// its error; three calls in four are of a known command. It reports the
// median, 95th and 99th percentile, and the share of calls answered with
// a note; nostore is the process with no store to open.
func BenchmarkRecallProcess(b *testing.B) {
	items, cmds := synth.RecallItems()
	cached := benchstore.Path(b, "bench-recall-100000.db", items)
	pitfalls := items[len(items)-len(cmds):]
	store := filepath.Join(b.TempDir(), "lore.db") // every note is recorded: a copy
	if err := copyFile(cached, store); err != nil {
		b.Fatal(err)
	}
	bin := buildLore(b)
	// Sessions in checkouts of the pitfalls' repositories.
	r := rand.New(rand.NewPCG(3, 17))
	type call struct{ dir, cmd, output string }
	var calls []call
	for i := range 200 {
		k := r.IntN(len(pitfalls))
		for pitfalls[k].Repo == "" {
			k = r.IntN(len(pitfalls))
		}
		d := filepath.Join(b.TempDir(), fmt.Sprint(i))
		os.MkdirAll(filepath.Join(d, ".git"), 0o755)
		config := "[remote \"origin\"]\n\turl = git@github.com:" + pitfalls[k].Repo + ".git\n"
		if err := os.WriteFile(filepath.Join(d, ".git", "config"), []byte(config), 0o644); err != nil {
			b.Fatal(err)
		}
		c := call{d, cmds[k].Command, cmds[k].Output}
		if i%4 == 3 {
			c.cmd, c.output = "tar -czf out.tgz ./dist", "Exit code 2\ntar: ./dist: Cannot stat: No such file or directory"
		}
		calls = append(calls, c)
	}
	// nostore is the same process with no store to open: what starting
	// lore and reading the hook's input cost on this machine, for the
	// others to be read against.
	missing := filepath.Join(b.TempDir(), "none.db")
	for _, tt := range []struct{ name, flag, event, store string }{
		{"before", "--before-tool", "PreToolUse", store},
		{"after", "--after-tool", "PostToolUseFailure", store},
		{"nostore", "--before-tool", "PreToolUse", missing},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var times []time.Duration
			answered, i := 0, 0
			for b.Loop() {
				c := calls[i%len(calls)]
				in := map[string]any{"session_id": fmt.Sprint("bench-", i), "cwd": c.dir, "hook_event_name": tt.event, "tool_name": "Bash",
					"tool_input": map[string]any{"command": c.cmd}, "tool_use_id": "toolu_1"}
				if tt.event == "PostToolUseFailure" {
					in["error"] = c.output
				}
				stdin, _ := json.Marshal(in)
				cmd := exec.Command(bin, "recall", tt.flag, "--store", tt.store)
				cmd.Stdin = strings.NewReader(string(stdin))
				t := time.Now()
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("lore recall: %v", err)
				}
				times = append(times, time.Since(t))
				if len(out) > 0 {
					answered++
				}
				i++
			}
			slices.Sort(times)
			for _, p := range []int{50, 95, 99} {
				b.ReportMetric(float64(times[len(times)*p/100].Microseconds())/1000, fmt.Sprintf("p%d-ms", p))
			}
			b.ReportMetric(float64(answered)/float64(i), "answered")
		})
	}
}
