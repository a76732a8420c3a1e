package improve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/sqlite"
)

// benchScript scores each area by the "ok" lines in src/AREA.txt, 5 at
// most.
const benchScript = `#!/bin/sh
set -e
for a in alpha beta; do
  test -f "src/$a.txt"
  p=$(grep -c '^ok$' "src/$a.txt" || true)
  [ -z "$p" ] && p=0
  [ "$p" -gt 5 ] && p=5
  echo "$a: $p/5"
done
`

// testRepo makes a git repository with the bench and alpha at 1/5, beta
// at 3/5.
func testRepo(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("lore improve's tests run shell scripts")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	write(t, dir, "bench/score.sh", benchScript)
	write(t, dir, "src/alpha.txt", "ok\n")
	write(t, dir, "src/beta.txt", "ok\nok\nok\n")
	write(t, dir, "README", "a tiny project\n")
	write(t, dir, "bench/data/cases.txt", "hard\n")
	testRepoIn(t, dir)
	return dir
}

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(context.Background(), dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// agent writes a scripted agent and returns the command that runs it.
func agent(t *testing.T, name, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), strings.ReplaceAll(name, " ", "-")+".sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + p
}

const (
	improves = `echo ok >> "src/$LORE_IMPROVE_AREA.txt"; echo "approach: add an ok line"`
	worsens  = `echo ok >> src/alpha.txt; sed -i '/ok/d' src/beta.txt; echo "approach: trade beta for alpha"`
	tampers  = `printf '#!/bin/sh\necho "alpha: 5/5"\necho "beta: 5/5"\n' > bench/score.sh; echo "approach: fix the judge"`
	crashes  = `echo ok >> src/alpha.txt; echo "segfault, sort of" >&2; exit 3`
)

func config(t *testing.T, repo, agentCmd string) Config {
	return Config{
		Repo: repo, Bench: "sh bench/score.sh", Agent: agentCmd, Rounds: 1,
		Approve: []string{"src/"}, BenchTimeout: 20 * time.Second, AgentTimeout: 20 * time.Second,
		Log: testLog{t},
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// bench runs the bench on the branch's tip as a person would.
func benchOf(t *testing.T, repo, ref string) Points {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "check")
	gitT(t, repo, "worktree", "add", "-q", "--detach", wt, ref)
	defer gitT(t, repo, "worktree", "remove", "--force", wt)
	cmd := exec.Command("sh", "bench/score.sh")
	cmd.Dir = wt
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePoints(out)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func state(t *testing.T, repo string) *State {
	t.Helper()
	sd, err := Dir(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	st, err := LoadState(sd)
	if err != nil || st == nil {
		t.Fatalf("state: %v %v", st, err)
	}
	return st
}

// noWorktrees checks that every round's worktree is gone.
func noWorktrees(t *testing.T, repo string) {
	t.Helper()
	if wts := lines(gitT(t, repo, "worktree", "list", "--porcelain")); len(wts) > 0 {
		n := 0
		for _, l := range wts {
			if strings.HasPrefix(l, "worktree ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("worktrees left: %v", wts)
		}
	}
}

func last(st *State) Record { return st.History[len(st.History)-1] }

func TestRunOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		setup        func(*Config)
		outcome      string
		reason       string
		alpha        float64 // alpha's points on the branch after
	}{
		{name: "improves", script: improves, outcome: Kept, reason: "total rose 4→5", alpha: 2},
		{name: "worsens", script: worsens, outcome: RolledBack, reason: "beta fell 3→0", alpha: 1},
		{name: "tampers", script: tampers, outcome: Tampered, reason: "bench/score.sh", alpha: 1},
		{name: "bench data", script: `echo ok >> src/alpha.txt; echo easy > bench/data/cases.txt`, setup: func(c *Config) { c.BenchFiles = []string{"bench/data/"} },
			outcome: Tampered, reason: "bench/data/cases.txt", alpha: 1},
		{name: "lore state", script: `echo ok >> src/alpha.txt; mkdir .lore; echo x > .lore/notes`, outcome: Tampered, reason: ".lore/notes", alpha: 1},
		{name: "json bench", script: improves, setup: func(c *Config) {
			c.Bench = `printf '{"areas":{"alpha":{"points":%d,"max":5},"beta":{"points":3,"max":5}}}' "$(grep -c ok src/alpha.txt)"`
		}, outcome: Kept, reason: "total rose 4→5", alpha: 2},
		{name: "protected", script: improves, setup: func(c *Config) { c.Approve = nil }, outcome: Held, reason: "protected src/alpha.txt", alpha: 1},
		{name: "protect glob", script: improves, setup: func(c *Config) { c.Approve = []string{"**"}; c.Protect = []string{"src/alpha.txt"} }, outcome: Held, alpha: 1},
		{name: "approve all", script: improves, setup: func(c *Config) { c.Approve = []string{"**"} }, outcome: Kept, alpha: 2},
		{name: "crashes", script: crashes, outcome: AgentFailed, reason: "exited with status 3: segfault, sort of", alpha: 1},
		{name: "moves the branch", script: `echo ok >> src/alpha.txt; git -c user.name=a -c user.email=a@a commit -qam mine; git update-ref refs/heads/lore/improve HEAD`,
			outcome: Tampered, reason: "was moved", alpha: 1},
		{name: "nothing", script: `echo "approach: think hard"`, outcome: NoChange, alpha: 1},
		{name: "hangs", script: "sleep 600", setup: func(c *Config) { c.AgentTimeout = time.Second }, outcome: TimedOut, alpha: 1},
		{name: "bench fails", script: `echo ok >> src/alpha.txt; rm src/beta.txt`, outcome: BenchFailed, alpha: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testRepo(t)
			c := config(t, repo, agent(t, tc.name, tc.script))
			if tc.setup != nil {
				tc.setup(&c)
			}
			start := time.Now()
			if err := Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			st := state(t, repo)
			r := last(st)
			if r.Outcome != tc.outcome || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("outcome %s (%s), want %s (%s)", r.Outcome, r.Reason, tc.outcome, tc.reason)
			}
			if r.Area != "alpha" {
				t.Errorf("area %s, want the weakest, alpha", r.Area)
			}
			got := benchOf(t, repo, "lore/improve")
			if got["alpha"].Points != tc.alpha || got["beta"].Points != 3 {
				t.Errorf("branch scores %s, want alpha %v, beta 3", got, tc.alpha)
			}
			if head := gitT(t, repo, "rev-parse", "HEAD"); head != gitT(t, repo, "rev-parse", "main") {
				t.Errorf("the checkout moved")
			}
			if status := gitT(t, repo, "status", "--porcelain"); status != "" {
				t.Errorf("the checkout is dirty: %s", status)
			}
			noWorktrees(t, repo)
			if tc.outcome == TimedOut && time.Since(start) > 15*time.Second {
				t.Errorf("a hanging agent took %s", time.Since(start))
			}
		})
	}
}

// TestRunKillsLeftovers: an agent that leaves children behind, one that
// ignores SIGTERM and one in a session of its own, has its change judged
// (kept here) and no child of it outlives the round.
func TestRunKillsLeftovers(t *testing.T) {
	linuxOnly(t)
	repo := testRepo(t)
	pids := filepath.Join(t.TempDir(), "pids")
	c := config(t, repo, agent(t, "leaves", fmt.Sprintf(`sh -c 'trap "" TERM; echo $$ >> %[1]s; sleep 600' &
setsid sh -c 'trap "" TERM; echo $$ >> %[1]s; sleep 600' &
while [ "$(wc -l < %[1]s 2>/dev/null)" != 2 ]; do sleep 0.05; done
`+improves, pids)))
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if r := last(state(t, repo)); r.Outcome != Kept {
		t.Errorf("%s: %s", r.Outcome, r.Reason)
	}
	b, _ := os.ReadFile(pids)
	if len(strings.Fields(string(b))) != 2 {
		t.Fatalf("pids %q", b)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if processAlive(pid) {
			t.Errorf("the agent's child %d outlived the round", pid)
			killProcesses([]int{pid}, 0)
		}
	}
}

// TestRunHeldApprove: a held change is not on the branch until approved,
// and approving it after the branch moved re-judges it on the new tip.
func TestRunHeldApprove(t *testing.T) {
	repo := testRepo(t)
	c := config(t, repo, agent(t, "improves", improves))
	c.Protect = []string{"src/alpha.txt"}
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	s, _, err := ReadStatus(context.Background(), repo)
	if err != nil || len(s.Pending) != 1 || s.Pending[0].N != 1 {
		t.Fatalf("pending %+v %v", s.Pending, err)
	}
	patch, _ := os.ReadFile(s.Pending[0].Patch)
	if !bytes.Contains(patch, []byte("+ok")) {
		t.Errorf("patch %q", patch)
	}
	// beta is improved meanwhile (alpha is protected, so each round holds).
	c.Protect, c.Approve = []string{"nothing"}, nil
	c.Agent = agent(t, "beta", `echo ok >> src/beta.txt`)
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got := benchOf(t, repo, "lore/improve"); got["beta"].Points != 4 || got["alpha"].Points != 1 {
		t.Fatalf("after the beta round: %s", got)
	}
	commit, err := Approve(context.Background(), repo, 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := benchOf(t, repo, "lore/improve"); got["beta"].Points != 4 || got["alpha"].Points != 2 {
		t.Fatalf("after approve: %s", got)
	}
	if tip := gitT(t, repo, "rev-parse", "lore/improve"); tip != commit {
		t.Errorf("tip %s, approve said %s", tip, commit)
	}
	if _, err := Approve(context.Background(), repo, 1, time.Minute); err == nil || !strings.Contains(err.Error(), "approved already") {
		t.Errorf("approving twice: %v", err)
	}
	if err := Reject(context.Background(), repo, 7); err == nil {
		t.Errorf("rejecting a change that is not there worked")
	}
}

// TestRunEscalates: after every try of every approach failed, the area
// gets an escalation report and the loop moves on, or stops.
func TestRunEscalates(t *testing.T) {
	repo := testRepo(t)
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lore.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// alpha can only be raised by lowering beta; beta can be raised.
	c := config(t, repo, agent(t, "mixed", `if [ "$LORE_IMPROVE_AREA" = alpha ]; then `+worsens+`; else `+improves+`; fi
echo "prompt had: $(grep -c 'trade beta for alpha' "$LORE_IMPROVE_PROMPT") mentions"`))
	c.Tries, c.Approaches, c.Rounds = 2, 2, 5
	c.Journal, c.RepoID = store, "acme/tiny"
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	st := state(t, repo)
	var outcomes []string
	for _, r := range st.History {
		outcomes = append(outcomes, r.Area+":"+r.Outcome)
	}
	want := "alpha:rolled-back alpha:rolled-back alpha:rolled-back alpha:rolled-back beta:kept"
	if strings.Join(outcomes, " ") != want {
		t.Fatalf("rounds %v, want %s", outcomes, want)
	}
	if len(st.Escalated) != 1 || st.Escalated[0].Area != "alpha" {
		t.Fatalf("escalations %+v", st.Escalated)
	}
	report, _ := os.ReadFile(st.Escalated[0].Report)
	for _, w := range []string{"stuck on \"alpha\"", "rolled back: an area fell, 4 of 4 times", "trade beta for alpha"} {
		if !bytes.Contains(report, []byte(w)) {
			t.Errorf("the report lacks %q:\n%s", w, report)
		}
	}
	// The second try's prompt carried the first's failure; the third
	// (a new approach) named the approach tried.
	p2, _ := os.ReadFile(filepath.Join(filepathDir(t, repo), "rounds", "2", "prompt.md"))
	p3, _ := os.ReadFile(filepath.Join(filepathDir(t, repo), "rounds", "3", "prompt.md"))
	if !bytes.Contains(p2, []byte("beta fell 3→0")) || !bytes.Contains(p2, []byte("The bench printed:\nalpha: 2/5\nbeta: 0/5")) || !bytes.Contains(p2, []byte("Approach 1 of 2, try 2 of 2")) {
		t.Errorf("prompt 2:\n%s", p2)
	}
	if !bytes.Contains(p3, []byte("take a different one:\n\n1. trade beta for alpha")) || !bytes.Contains(p3, []byte("Approach 2 of 2, try 1 of 2")) {
		t.Errorf("prompt 3:\n%s", p3)
	}
	// Every round is in the journal, and the later prompts show the past
	// attempts.
	var n int
	store.Attempts(context.Background(), lore.AttemptFilter{Repo: "acme/tiny", WithDiff: true}, func(a lore.Attempt) error {
		n++
		if a.PointsBefore == nil || a.Area == "" || a.Task == "" {
			t.Errorf("attempt %+v", a)
		}
		if a.Area == "alpha" && (a.Outcome != lore.AttemptRollback || a.Diff == "" || *a.PointsAfter != 2) {
			t.Errorf("alpha attempt: outcome %s, after %v, diff %q", a.Outcome, *a.PointsAfter, a.Diff)
		}
		return nil
	})
	if n != 5 {
		t.Errorf("%d attempts journaled, want 5", n)
	}
	if !bytes.Contains(p2, []byte("Similar past attempts (lore journal)")) {
		t.Errorf("prompt 2 shows no past attempt:\n%s", p2)
	}

	// With --on-stuck stop the run ends at the first stuck area.
	repo = testRepo(t)
	c = config(t, repo, agent(t, "worse", worsens))
	c.Tries, c.Approaches, c.Rounds, c.StopWhenStuck = 1, 2, 5, true
	if err := Run(context.Background(), c); !errors.Is(err, ErrStuck) {
		t.Fatalf("run: %v, want stuck", err)
	}
	if n := len(state(t, repo).History); n != 2 {
		t.Errorf("%d rounds, want 2", n)
	}
	// Run again: the stuck area stays stuck (beta is worked on) unless
	// --retry-stuck.
	c.StopWhenStuck, c.Rounds = false, 1
	c.Agent = agent(t, "improves", improves)
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if r := last(state(t, repo)); r.Area != "beta" {
		t.Errorf("after stuck: %s worked on", r.Area)
	}
	c.RetryStuck = true
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if r := last(state(t, repo)); r.Area != "alpha" || r.Outcome != Kept {
		t.Errorf("with RetryStuck: %s %s", r.Area, r.Outcome)
	}
}

// TestRunResumes: a second run continues the first's rounds, from its
// best commit, without measuring it again.
func TestRunResumes(t *testing.T) {
	repo := testRepo(t)
	c := config(t, repo, agent(t, "improves", improves))
	c.Rounds = 2
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	st := state(t, repo)
	if st.Round != 4 || len(st.History) != 4 {
		t.Fatalf("round %d, %d records", st.Round, len(st.History))
	}
	prev := -1.0
	for _, r := range st.History {
		if r.Outcome != Kept || *r.Before < prev || *r.After <= *r.Before {
			t.Errorf("round %d: %s %v→%v", r.Round, r.Outcome, *r.Before, *r.After)
		}
		prev = *r.After
	}
	if got := benchOf(t, repo, "lore/improve"); got["alpha"].Points != 4 && got["alpha"].Points+got["beta"].Points != 8 {
		t.Errorf("after 4 kept rounds: %s", got)
	}
	benches, _ := filepath.Glob(filepath.Join(filepathDir(t, repo), "rounds", "*", "bench-*.out"))
	if len(benches) != 5 { // the start, then each kept change once
		t.Errorf("%d bench runs, want 5: %v", len(benches), benches)
	}
}

// TestRunForeverSurvives: --forever goes on through an agent that
// crashes, hangs, leaves the worktree dirty, or breaks the bench, and the
// points never fall.
func TestRunForeverSurvives(t *testing.T) {
	repo := testRepo(t)
	script := `n=$LORE_IMPROVE_ROUND
case $n in
1) exit 9 ;;
2) sleep 600 ;;
3) echo junk > untracked.txt; echo ok >> src/alpha.txt; sed -i '/ok/d' src/beta.txt ;;
4) rm src/beta.txt ;;
*) echo ok >> "src/$LORE_IMPROVE_AREA.txt" ;;
esac`
	c := config(t, repo, agent(t, "chaos", script))
	c.Forever, c.Rounds, c.AgentTimeout, c.Tries = true, 0, time.Second, 9
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error)
	go func() { done <- Run(ctx, c) }()
	deadline := time.After(60 * time.Second)
	for {
		st, _ := LoadState(filepathDir(t, repo))
		if st != nil && len(st.History) >= 6 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the forever loop ended: %v", err)
		case <-deadline:
			t.Fatal("6 rounds took over a minute")
		case <-time.After(100 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st := state(t, repo)
	want := []string{AgentFailed, TimedOut, RolledBack, BenchFailed, Kept, Kept}
	best := 4.0
	for i, r := range st.History {
		if i < len(want) && r.Outcome != want[i] {
			t.Errorf("round %d: %s (%s), want %s", r.Round, r.Outcome, r.Reason, want[i])
		}
		if *r.Before < best {
			t.Errorf("round %d started from %v, below the best so far %v", r.Round, *r.Before, best)
		}
		if r.Outcome == Kept {
			best = *r.After
		}
	}
	noWorktrees(t, repo)
}

// linuxOnly skips tests of descendants that leave their process group,
// which lore finds by their environment where /proc shows it.
func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descendants outside the process group are found on Linux only")
	}
}

func filepathDir(t *testing.T, repo string) string {
	sd, err := Dir(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

// TestStopLeavesNothing runs the loop in another process with an agent
// whose child ignores SIGTERM and one that escapes into a session of its
// own, stops it, and checks that no process it started survives and the
// repository is as before the round.
func TestStopLeavesNothing(t *testing.T) {
	t.Run("the loop stops", func(t *testing.T) { testStop(t, false) })
	t.Run("the loop ignores SIGTERM", func(t *testing.T) { testStop(t, true) })
}

// testStop: with deaf, the loop process ignores SIGTERM, so stop has to
// kill it and clean up after it.
func testStop(t *testing.T, deaf bool) {
	linuxOnly(t)
	repo := testRepo(t)
	cmd, loopDone, got := startLoop(t, repo, deaf)
	sd := filepathDir(t, repo)
	r := LoadRunning(sd)
	if r == nil || r.Worktree == "" {
		t.Fatalf("running: %+v", r)
	}
	start := time.Now()
	rep, err := Stop(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// A loop that stops takes about 2 s (a second of SIGTERM grace for its
	// agent, whose children ignore it); one that ignores SIGTERM is killed
	// after 3 s. Either way, within 5.
	if !rep.WasRunning || took > 5*time.Second || deaf && !rep.Killed {
		t.Errorf("stop: %+v in %s", rep, took)
	}
	select {
	case <-loopDone:
	case <-time.After(2 * time.Second):
		t.Error("the loop process is still there")
	}
	for _, pid := range append(got, cmd.Process.Pid) {
		if processAlive(pid) {
			t.Errorf("process %d survived stop", pid)
			killProcesses([]int{pid}, 0)
		}
	}
	if left := marked(r.RunID); len(left) > 0 {
		t.Errorf("processes of the run left: %v", left)
	}
	if _, err := os.Stat(r.Worktree); !os.IsNotExist(err) {
		t.Errorf("the round's worktree %s is still there", r.Worktree)
	}
	noWorktrees(t, repo)
	if tip, main := gitT(t, repo, "rev-parse", "lore/improve"), gitT(t, repo, "rev-parse", "main"); tip != main {
		t.Errorf("the branch moved: %s, was %s", tip, main)
	}
	if s, _, _ := ReadStatus(context.Background(), repo); s.Running {
		t.Errorf("status says running after stop")
	}
	t.Logf("stopped in %s (killed: %v)", took, rep.Killed)
}

// startLoop runs a forever loop on repo in another process, with an
// agent that starts two children (one in a session of its own), all
// ignoring SIGTERM, and waits until the three are up; deaf makes the loop
// ignore SIGTERM too. It returns the loop's command, the end of its
// wait, and the agent's processes.
func startLoop(t *testing.T, repo string, deaf bool) (*exec.Cmd, chan error, []int) {
	t.Helper()
	pids := filepath.Join(t.TempDir(), "pids")
	script := fmt.Sprintf(`echo ok >> src/alpha.txt
sh -c 'trap "" TERM; echo $$ >> %[1]s; sleep 600' &
setsid sh -c 'trap "" TERM; echo $$ >> %[1]s; sleep 600' &
trap "" TERM
echo $$ >> %[1]s
sleep 600
`, pids)
	ag := agent(t, "stubborn", script)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMain$")
	cmd.Env = append(os.Environ(), "LORE_IMPROVE_TEST_LOOP="+repo+"|"+ag)
	if deaf {
		cmd.Env = append(cmd.Env, "LORE_IMPROVE_TEST_DEAF=1")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	loopDone := make(chan error, 1)
	go func() { loopDone <- cmd.Wait() }()
	var got []int
	for deadline := time.Now().Add(30 * time.Second); len(got) < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the agent did not start its children; loop output:\n%s", out.String())
		}
		got = got[:0]
		b, _ := os.ReadFile(pids)
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			got = append(got, n)
		}
	}
	return cmd, loopDone, got
}

// TestRunAfterCrash: lore itself killed mid-round (SIGKILL: no clean-up)
// leaves the agent's processes and the round's worktree; the next run
// kills the one, removes the other, and resumes.
func TestRunAfterCrash(t *testing.T) {
	linuxOnly(t)
	repo := testRepo(t)
	cmd, loopDone, orphans := startLoop(t, repo, false)
	wt := LoadRunning(filepathDir(t, repo)).Worktree
	cmd.Process.Kill()
	<-loopDone
	for _, pid := range orphans {
		if !processAlive(pid) {
			t.Fatalf("process %d died with the loop: nothing to clean up", pid)
		}
	}
	c := config(t, repo, agent(t, "improves", improves))
	if err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, pid := range orphans {
		if processAlive(pid) {
			t.Errorf("process %d of the crashed run survived the next", pid)
			killProcesses([]int{pid}, 0)
		}
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the crashed round's worktree %s is still there", wt)
	}
	noWorktrees(t, repo)
	st := state(t, repo)
	if r := last(st); r.Outcome != Kept || r.Round != 2 || len(st.History) != 1 {
		t.Errorf("after the crash: %d records, last round %d %s", len(st.History), r.Round, r.Outcome)
	}
}

// TestMain runs the loop when TestStopLeavesNothing starts this binary
// as the loop's process; otherwise the tests.
func TestMain(m *testing.M) {
	if v := os.Getenv("LORE_IMPROVE_TEST_LOOP"); v != "" {
		repo, ag, _ := strings.Cut(v, "|")
		os.Unsetenv("LORE_IMPROVE_TEST_LOOP")
		ctx, stop := signalContext()
		defer stop()
		if os.Getenv("LORE_IMPROVE_TEST_DEAF") != "" {
			ignoreTerm()
		}
		err := Run(ctx, Config{Repo: repo, Bench: "sh bench/score.sh", Agent: ag, Forever: true, Approve: []string{"**"}, Log: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
