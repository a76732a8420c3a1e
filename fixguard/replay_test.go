package fixguard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// TestReplay walks real histories in order and reports every alarm check
// would have raised: LORE_HISTORY names the repositories (folders,
// separated by commas), LORE_REPLAY_OUT a folder for alarms.tsv. Each
// history's first-parent line is checked at every LORE_REPLAY_STEP-th
// commit (default 1): an alarm is a fix undone in the commits since the
// last check, with the guards of the fixes made by then; it was restored
// when a later check finds the fix back.
func TestReplay(t *testing.T) {
	histories := os.Getenv("LORE_HISTORY")
	if histories == "" {
		t.Skip("set LORE_HISTORY to repositories to replay (and LORE_REPLAY_OUT to a folder for alarms.tsv)")
	}
	step := 1
	if s := os.Getenv("LORE_REPLAY_STEP"); s != "" {
		step, _ = strconv.Atoi(s)
	}
	var rows []string
	for _, dir := range strings.Split(histories, ",") {
		rows = append(rows, replay(t, dir, max(step, 1))...)
	}
	if out := os.Getenv("LORE_REPLAY_OUT"); out != "" {
		header := "repo\tat\tsince\tfix\tsubject\tmissing\tlines\tdeleted_tests\tskipped_tests\trestored_at\tchanges\n"
		if err := os.WriteFile(filepath.Join(out, "alarms.tsv"), []byte(header+strings.Join(rows, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func replay(t *testing.T, dir string, step int) []string {
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(strings.TrimSuffix(dir, "/"))
	start := time.Now()
	res, err := Scan(ctx, r, ScanOptions{Repo: name})
	if err != nil {
		t.Fatal(err)
	}
	scanTime := time.Since(start)
	out, err := gitOut(ctx, dir, "rev-list", "--first-parent", "--reverse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Fields(string(out))
	var samples []string
	for i := step - 1; i < len(line); i += step {
		samples = append(samples, line[i])
	}
	if samples[len(samples)-1] != line[len(line)-1] {
		samples = append(samples, line[len(line)-1])
	}
	type open struct {
		row   []string
		guard lore.FixGuard
	}
	undone := map[string]*open{} // fix → its alarm, while undone
	var rows []string
	var checkTime time.Duration
	prev := ""
	alarms, restored, left := 0, 0, 0
	for _, c := range samples {
		t0 := time.Now()
		cr, err := Check(ctx, r, res.Guards, Target{Rev: c, All: true})
		if err != nil {
			t.Fatal(err)
		}
		checkTime += time.Since(t0)
		now := map[string]bool{}
		for _, a := range cr.Alarms {
			now[a.Guard.Commit] = true
			if undone[a.Guard.Commit] != nil {
				continue
			}
			alarms++
			var tests []string
			for _, tt := range a.DeletedTests {
				tests = append(tests, tt.Name)
			}
			var skipped []string
			for _, tt := range a.SkippedTests {
				skipped = append(skipped, tt.Name)
			}
			changes := ""
			if prev != "" {
				files := guardFiles(a)
				b, _ := gitOut(ctx, dir, append([]string{"log", "--format=%h %s", prev + ".." + c, "--"}, files...)...)
				changes = strings.Join(strings.Split(strings.TrimSpace(string(b)), "\n"), " | ")
			}
			undone[a.Guard.Commit] = &open{guard: a.Guard, row: []string{name, c[:12], short(prev), a.Guard.Commit[:12], clean(a.Guard.Subject),
				strconv.Itoa(len(a.Missing)), strconv.Itoa(len(a.Guard.Lines)), strings.Join(tests, ","), strings.Join(skipped, ","), "", clean(changes)}}
		}
		// What the change since the last check took out of the fixes'
		// files while copies stand elsewhere: the alarms lore guard check
		// on c, prev as its base, raises beyond those above.
		if prev != "" {
			ch, err := Check(ctx, r, res.Guards, Target{Rev: c, Base: prev})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range ch.Alarms {
				if now[a.Guard.Commit] || len(a.Missing) == 0 {
					continue
				}
				left++
				files := guardFiles(a)
				b, _ := gitOut(ctx, dir, append([]string{"log", "--format=%h %s", prev + ".." + c, "--"}, files...)...)
				rows = append(rows, strings.Join([]string{name, c[:12], short(prev), a.Guard.Commit[:12], clean(a.Guard.Subject),
					strconv.Itoa(len(a.Missing)), strconv.Itoa(len(a.Guard.Lines)), "", "", "left its file",
					clean(strings.Join(strings.Split(strings.TrimSpace(string(b)), "\n"), " | "))}, "\t")+"\n")
			}
		}
		for fix, o := range undone {
			if !now[fix] {
				if back(t, r, o.guard, c) {
					restored++
					o.row[9] = c[:12]
				} else {
					o.row[9] = "retired " + c[:12]
				}
				rows = append(rows, strings.Join(o.row, "\t")+"\n")
				delete(undone, fix)
			}
		}
		prev = c
	}
	for _, o := range undone {
		rows = append(rows, strings.Join(o.row, "\t")+"\n")
	}
	t.Logf("%s: %d commits, %d fixes guarded, scan %v; %d checks, %v each; %d alarms, %d restored later; %d more where a change took a fix's lines out of their files while copies stood elsewhere",
		name, res.Commits, len(res.Guards), scanTime.Round(time.Millisecond), len(samples),
		(checkTime / time.Duration(len(samples))).Round(time.Millisecond), alarms, restored, left)
	return rows
}

func guardFiles(a Alarm) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range a.Guard.Lines {
		if !seen[l.File] {
			seen[l.File] = true
			out = append(out, l.File)
		}
	}
	for _, tt := range a.Guard.Tests {
		if !seen[tt.File] {
			seen[tt.File] = true
			out = append(out, tt.File)
		}
	}
	return out
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300]
	}
	return fmt.Sprint(s)
}

// back reports whether the tree of commit c has the guard's lines and
// tests back: most lines found, every added test defined.
func back(t *testing.T, r *Repo, g lore.FixGuard, c string) bool {
	st, err := readState(context.Background(), r, []lore.FixGuard{g}, Target{Rev: c}, c)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, l := range g.Lines {
		if st.found(norm(l.Text)) {
			found++
		}
	}
	for _, tt := range g.Tests {
		if tt.Added && !st.tests[tt.Name].defined {
			return false
		}
	}
	return found*2 > len(g.Lines) || len(g.Lines) == 0
}

// TestRebaseMatchesRead: the base's state rebased from the commit's is
// the state read from the base, at every 25th commit of the histories
// LORE_HISTORY names.
func TestRebaseMatchesRead(t *testing.T) {
	histories := os.Getenv("LORE_HISTORY")
	if histories == "" {
		t.Skip("set LORE_HISTORY to repositories")
	}
	ctx := context.Background()
	for _, dir := range strings.Split(histories, ",") {
		r, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Scan(ctx, r, ScanOptions{Repo: "x"})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := gitOut(ctx, dir, "rev-list", "--first-parent", "HEAD")
		line := strings.Fields(string(out))
		for i := 0; i+1 < len(line); i += 25 {
			c, base := line[i], line[i+1]
			now, err := readState(ctx, r, res.Guards, Target{Rev: c}, c)
			if err != nil {
				t.Fatal(err)
			}
			rebased, err := now.rebase(ctx, r, base, c)
			if err != nil {
				t.Fatal(err)
			}
			read, err := readState(ctx, r, res.Guards, Target{Rev: base}, base)
			if err != nil {
				t.Fatal(err)
			}
			a, b := evaluate(res.Guards, rebased, nil), evaluate(res.Guards, read, nil)
			if len(a) != len(b) {
				t.Errorf("%s at %s: %d alarms rebased, %d read", dir, base[:12], len(a), len(b))
			}
			for n := range read.wanted {
				if found := read.found(n); rebased.found(n) != found {
					t.Errorf("%s at %s: line %q found %v read, %v rebased", dir, base[:12], n, found, rebased.found(n))
					break
				}
			}
		}
	}
}
