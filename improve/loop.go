package improve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/llm"
)

// Defaults of Config.
const (
	DefaultTries        = 3
	DefaultApproaches   = 3
	DefaultBenchTimeout = 10 * time.Minute
	DefaultAgentTimeout = 30 * time.Minute
	DefaultBranch       = "lore/improve"
)

// LLMPrefix starts an --agent that is a model rather than a command.
const LLMPrefix = "llm:"

// Journal is what the loop asks of lore's journal: it logs every attempt
// and reads the similar past ones into the prompt.
type Journal interface {
	LogAttempts(ctx context.Context, as []lore.Attempt) ([]lore.Attempt, error)
	SimilarAttempts(ctx context.Context, q lore.AttemptQuery) ([]lore.AttemptHit, error)
}

// Config is one lore improve run.
type Config struct {
	Repo  string // a folder in the repository
	Bench string // the shell command that prints points per area
	Agent string // the shell command that improves, or llm:SPEC
	// Model answers for an llm: agent.
	Model llm.Client
	// Rounds to run; 0 with Forever runs until ctx is done.
	Rounds  int
	Forever bool
	// Approve, Protect: see Policy.
	Approve, Protect []string
	// BenchSource finds the benchmark's source, shown to the agent;
	// BenchFiles are the benchmark's files and test data besides it and
	// the script Bench names, which no change may touch.
	BenchSource, BenchFiles  []string
	Tries, Approaches        int
	BenchTimeout             time.Duration
	AgentTimeout             time.Duration
	Branch                   string
	StopWhenStuck            bool
	RetryStuck               bool // give the areas escalated before another go
	Journal                  Journal
	RepoID                   string // the repository's identity for the journal
	Boot                     func(ctx context.Context, task string) string
	Log                      io.Writer // a line per step
	Sleep                    func(ctx context.Context, d time.Duration) error
	stateDir, root, runID    string
	approve, protect, judgeG Globs
	procs                    *procs
}

// ErrStuck ends a run whose area failed every approach, with
// StopWhenStuck.
var ErrStuck = errors.New("stuck")

// lore's own state in a repository, which no change may touch.
var loreState = []string{".lore/", ".lore-backup", ".lore-improve/"}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

func (c *Config) defaults() error {
	if c.Tries <= 0 {
		c.Tries = DefaultTries
	}
	if c.Approaches <= 0 {
		c.Approaches = DefaultApproaches
	}
	if c.BenchTimeout <= 0 {
		c.BenchTimeout = DefaultBenchTimeout
	}
	if c.AgentTimeout <= 0 {
		c.AgentTimeout = DefaultAgentTimeout
	}
	if c.Branch == "" {
		c.Branch = DefaultBranch
	}
	if c.Sleep == nil {
		c.Sleep = func(ctx context.Context, d time.Duration) error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
				return nil
			}
		}
	}
	approve := c.Approve
	if len(approve) == 0 {
		approve = DefaultApprove
	}
	var err error
	if c.approve, err = CompileGlobs(approve); err != nil {
		return fmt.Errorf("--approve: %w", err)
	}
	if c.protect, err = CompileGlobs(c.Protect); err != nil {
		return fmt.Errorf("--protect: %w", err)
	}
	judge := append(append(append([]string{}, c.BenchSource...), c.BenchFiles...), loreState...)
	if c.judgeG, err = CompileGlobs(judge); err != nil {
		return fmt.Errorf("--bench-files: %w", err)
	}
	return nil
}

// protected says whether a change to path waits for a person: it matches
// --protect, or, when no --protect is given, no --approve.
func (c *Config) protected(path string) bool {
	if c.protect.Match(path) {
		return true
	}
	return len(c.protect) == 0 && !c.approve.Match(path)
}

// Run runs the loop: rounds until c.Rounds are done, or until ctx is
// done with Forever. A run already going on the repository is an error.
func Run(ctx context.Context, c Config) error {
	if err := c.defaults(); err != nil {
		return err
	}
	root, err := git(ctx, c.Repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("%s is not in a git repository: %w", c.Repo, err)
	}
	c.root = root
	if c.stateDir, err = Dir(ctx, root); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(c.stateDir, "worktrees"), 0o700); err != nil {
		return err
	}
	var id [8]byte
	rand.Read(id[:])
	c.runID = hex.EncodeToString(id[:])
	running := &Running{PID: os.Getpid(), RunID: c.runID, Started: time.Now().UTC()}
	prev := readRunning(c.stateDir)
	if err := running.claim(c.stateDir); err != nil {
		return err
	}
	defer os.Remove(runningPath(c.stateDir))
	if prev != nil {
		cleanUp(ctx, root, c.stateDir, prev.RunID, killGrace) // what a run that died left
	} else {
		cleanUp(ctx, root, c.stateDir, "", killGrace)
	}
	c.procs = &procs{path: procsPath(c.stateDir), runID: c.runID, live: map[int]bool{}}
	st, err := c.loadOrStart(ctx)
	if err != nil {
		return err
	}
	if c.RetryStuck {
		for _, as := range st.Areas {
			if as.Stuck {
				*as = AreaState{Attempts: as.Attempts, Approach: 1, Try: 1}
			}
		}
	}
	defer cleanUp(ctx, root, c.stateDir, c.runID, killGrace)
	for done := 0; c.Forever || done < c.Rounds; done++ {
		if ctx.Err() != nil {
			break
		}
		more, err := c.round(ctx, st, running)
		if serr := st.save(c.stateDir); serr != nil && err == nil {
			err = serr
		}
		if err != nil || !more {
			if ctx.Err() != nil {
				return nil // stopped: the round was undone
			}
			return err
		}
	}
	return nil
}

// loadOrStart resumes the state in the repository's state folder, or
// starts one: the branch at HEAD when it does not exist, the pristine
// copy of the benchmark taken from its tip.
func (c *Config) loadOrStart(ctx context.Context) (*State, error) {
	st, err := LoadState(c.stateDir)
	if err != nil {
		return nil, err
	}
	ref := "refs/heads/" + c.Branch
	tip, err := git(ctx, c.root, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil || tip == "" {
		head, err := git(ctx, c.root, "rev-parse", "--verify", "HEAD^{commit}")
		if err != nil {
			return nil, fmt.Errorf("the repository has no commit to start from: %w", err)
		}
		if _, err := git(ctx, c.root, "update-ref", ref, head, ""); err != nil {
			return nil, err
		}
		tip = head
		c.logf("branch %s starts at %s", c.Branch, short(head))
	}
	if st != nil && st.Branch == c.Branch {
		st.Best = tip // a person may have moved it (lore improve approve)
		st.Bench = c.Bench
		c.logf("resuming at round %d, best %s", st.Round+1, short(tip))
		return st, nil
	}
	st = &State{Branch: c.Branch, Bench: c.Bench, Best: tip, Judge: map[string]string{}, Baselines: map[string]Points{}, Areas: map[string]*AreaState{}}
	files, err := git(ctx, c.root, "ls-tree", "-r", "--full-tree", tip)
	if err != nil {
		return nil, err
	}
	named := c.benchScripts()
	for _, l := range lines(files) {
		meta, path, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		if c.judgeG.Match(path) || named[path] {
			st.Judge[path] = f[2]
		}
	}
	return st, st.save(c.stateDir)
}

// benchScripts are the repository's files the bench command names (sh
// bench/score.sh names bench/score.sh), relative to the root.
func (c *Config) benchScripts() map[string]bool {
	named := map[string]bool{}
	for _, w := range strings.Fields(c.Bench) {
		w = strings.Trim(w, `"'`)
		if rel, err := filepath.Rel(c.root, filepath.Join(c.root, w)); err == nil && !strings.HasPrefix(rel, "..") {
			if fi, err := os.Stat(filepath.Join(c.root, rel)); err == nil && fi.Mode().IsRegular() {
				named[filepath.ToSlash(rel)] = true
			}
		}
	}
	return named
}

// judged says whether path is one of the benchmark's files, its data or
// lore's state.
func (c *Config) judged(st *State, path string) bool {
	_, ok := st.Judge[path]
	return ok || c.judgeG.Match(path)
}

// round runs one round; it returns false when the run should end.
func (c *Config) round(ctx context.Context, st *State, running *Running) (bool, error) {
	// A person may have moved the branch (lore improve approve).
	if tip, err := git(ctx, c.root, "rev-parse", "--verify", "refs/heads/"+st.Branch+"^{commit}"); err == nil {
		st.Best = tip
	}
	base := st.Best
	before, err := c.baseline(ctx, st, base, st.Round+1)
	if err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		if !c.Forever {
			return false, fmt.Errorf("bench on %s: %w", short(base), err)
		}
		c.logf("bench on %s: %s; trying again in a minute", short(base), err)
		return true, c.Sleep(ctx, time.Minute)
	}
	area := c.weakest(st, before)
	if area == "" {
		c.logf("nothing left to improve: every area is at its maximum, stuck or waiting for approval (%s)", before)
		if c.Forever {
			return true, c.Sleep(ctx, time.Minute) // an approval may change that
		}
		return false, nil
	}
	st.Round++
	as := st.areaState(area)
	as.Attempts++
	rec := Record{Round: st.Round, At: time.Now().UTC(), Area: area, Approach: as.Approach, Try: as.Try}
	bt, bm := before.Total()
	rec.Before, rec.Max = &bt, bm
	running.Round, running.Area, running.Base = st.Round, area, base
	wt := filepath.Join(c.stateDir, "worktrees", fmt.Sprintf("round-%d", st.Round))
	running.Worktree = wt
	running.save(c.stateDir)
	st.save(c.stateDir) // the baseline, for lore improve status while the agent works
	defer func() {
		running.Worktree, running.Base = "", ""
		running.save(c.stateDir)
	}()
	c.logf("round %d: %s %s/%s (total %s/%s), approach %d try %d", st.Round, area, num(before[area].Points), num(before[area].Max), num(bt), num(bm), as.Approach, as.Try)
	dir := c.roundDir(st.Round)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	if err := addWorktree(ctx, c.root, wt, base); err != nil {
		return false, err
	}
	defer removeWorktree(ctx, c.root, wt)
	prompt := c.prompt(ctx, st, area, before, wt)
	promptFile := filepath.Join(dir, "prompt.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o600); err != nil {
		return false, err
	}
	agentLog := filepath.Join(dir, "agent.log")
	explain, agentErr := c.runAgent(ctx, st, area, before, wt, prompt, promptFile, agentLog)
	if ctx.Err() != nil {
		as.Attempts--
		st.Round--
		os.RemoveAll(dir)
		return false, nil
	}
	var diff, benchTail string
	finish := func() (bool, error) {
		rec.Reason = oneLine(rec.Reason)
		c.logf("round %d: %s: %s", rec.Round, rec.Outcome, rec.Reason)
		c.journal(ctx, st, &rec, as, diff, explain)
		st.History = append(st.History, rec)
		return c.afterRound(ctx, st, area, rec, explain, benchTail)
	}
	if moved := c.branchMoved(ctx, st, base); moved != "" {
		rec.Outcome, rec.Reason = Tampered, moved
		return finish()
	}
	if agentErr != nil {
		rec.Outcome, rec.Reason = agentErr.outcome, agentErr.reason
		return finish()
	}
	commit, files, err := snapshot(ctx, wt, base, fmt.Sprintf("lore improve: %s (round %d)\n\n%s", area, st.Round, firstLine(explain)))
	if err != nil {
		rec.Outcome, rec.Reason = AgentFailed, "the worktree could not be read: "+err.Error()
		return finish()
	}
	rec.Files = files
	if commit == "" {
		rec.Outcome, rec.Reason = NoChange, "the agent changed nothing"
		return finish()
	}
	if d, err := git(ctx, c.root, "diff", "--binary", base, commit); err == nil {
		diff = d
	}
	var touched []string
	for _, f := range files {
		if c.judged(st, f) {
			touched = append(touched, f)
		}
	}
	if len(touched) > 0 {
		rec.Outcome, rec.Reason = Tampered, "it changes the benchmark or lore's state: "+strings.Join(touched, ", ")
		return finish()
	}
	after, err := c.measure(ctx, st, commit, st.Round)
	benchTail = c.benchOutput(st.Round, commit)
	if ctx.Err() != nil {
		st.Round--
		as.Attempts--
		os.RemoveAll(dir)
		return false, nil
	}
	if err != nil {
		rec.Outcome, rec.Reason = BenchFailed, err.Error()
		return finish()
	}
	at, _ := after.Total()
	rec.After = &at
	v := Judge(before, after)
	if !v.Better {
		rec.Outcome, rec.Reason = RolledBack, v.Reason+" ("+delta(before, after)+")"
		return finish()
	}
	var protected []string
	for _, f := range files {
		if c.protected(f) {
			protected = append(protected, f)
		}
	}
	rec.Commit = commit
	if len(protected) > 0 {
		p, err := c.hold(ctx, st, area, base, commit, files, protected, before, after, diff)
		if err != nil {
			return false, err
		}
		rec.Outcome, rec.Reason = Held, fmt.Sprintf("%s, but it touches protected %s: waits as pending change %d (lore improve approve %d)", v.Reason, strings.Join(protected, ", "), p.N, p.N)
		return finish()
	}
	if _, err := git(ctx, c.root, "update-ref", "refs/heads/"+st.Branch, commit, base); err != nil {
		rec.Outcome, rec.Reason = RolledBack, "the branch moved under the loop: "+err.Error()
		return finish()
	}
	st.Best = commit
	st.Baselines[commit] = after
	rec.Outcome, rec.Reason = Kept, v.Reason+" ("+delta(before, after)+")"
	return finish()
}

func (st *State) areaState(area string) *AreaState {
	as := st.Areas[area]
	if as == nil {
		as = &AreaState{Approach: 1, Try: 1}
		st.Areas[area] = as
	}
	return as
}

// weakest is the area furthest below its maximum that is not stuck; ties
// go to the area attempted least, then by name.
func (c *Config) weakest(st *State, p Points) string {
	waiting := map[string]bool{} // an area with a held change waits for the person
	for _, pd := range openPending(c.stateDir, st) {
		waiting[pd.Area] = true
	}
	best := ""
	for _, n := range p.Names() {
		if p[n].Gap() <= 0 || st.Areas[n] != nil && st.Areas[n].Stuck || waiting[n] {
			continue
		}
		if best == "" {
			best = n
			continue
		}
		g, bg := p[n].Gap(), p[best].Gap()
		if g > bg || g == bg && st.areaState(n).Attempts < st.areaState(best).Attempts {
			best = n
		}
	}
	return best
}

func (c *Config) roundDir(round int) string {
	return filepath.Join(c.stateDir, "rounds", strconv.Itoa(round))
}

// baseline is the points of commit, measured once: the best commits'
// are kept in the state (a change measured and rolled back never comes
// back, so its points are not).
func (c *Config) baseline(ctx context.Context, st *State, commit string, round int) (Points, error) {
	if p, ok := st.Baselines[commit]; ok {
		return p, nil
	}
	p, err := c.measure(ctx, st, commit, round)
	if err == nil {
		st.Baselines[commit] = p
	}
	return p, err
}

// measure runs the bench on commit, in a fresh worktree with lore's
// pristine copy of the benchmark laid over it.
func (c *Config) measure(ctx context.Context, st *State, commit string, round int) (Points, error) {
	wt := filepath.Join(c.stateDir, "worktrees", "bench-"+short(commit))
	if err := addWorktree(ctx, c.root, wt, commit); err != nil {
		return nil, err
	}
	defer removeWorktree(ctx, c.root, wt)
	for path, blob := range st.Judge {
		b, err := gitBytes(ctx, c.root, nil, "cat-file", "blob", blob)
		if err != nil {
			return nil, fmt.Errorf("the pristine copy of %s: %w", path, err)
		}
		full := filepath.Join(wt, filepath.FromSlash(path))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.Remove(full)
		if err := os.WriteFile(full, b, 0o755); err != nil {
			return nil, err
		}
	}
	dir := c.roundDir(round)
	os.MkdirAll(dir, 0o700)
	logFile := filepath.Join(dir, "bench-"+short(commit)+".log")
	outFile := filepath.Join(dir, "bench-"+short(commit)+".out")
	r, err := c.procs.run(ctx, command{Line: c.Bench, Dir: wt, Env: c.env(nil), Timeout: c.BenchTimeout, Log: logFile, Stdout: outFile})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		return nil, fmt.Errorf("the bench %s%s", r, lastWords(tail(logFile, 300)))
	}
	out, err := os.ReadFile(outFile)
	if err != nil {
		return nil, err
	}
	return ParsePoints(out)
}

// benchOutput is the end of what the bench printed on commit in round:
// its errors, then its points.
func (c *Config) benchOutput(round int, commit string) string {
	base := filepath.Join(c.roundDir(round), "bench-"+short(commit))
	var parts []string
	for _, f := range []string{base + ".log", base + ".out"} {
		if t := tail(f, 1000); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// env is the environment of every command the loop runs: lore's own,
// with the run's mark and extra.
func (c *Config) env(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LORE_IMPROVE_") {
			env = append(env, kv)
		}
	}
	return append(append(env, runEnv+"="+c.runID), extra...)
}

// agentError is how an agent's run failed.
type agentError struct{ outcome, reason string }

// runAgent runs the agent in the worktree and returns its explanation:
// the tail of what it printed.
func (c *Config) runAgent(ctx context.Context, st *State, area string, before Points, wt, prompt, promptFile, logFile string) (string, *agentError) {
	if strings.HasPrefix(c.Agent, LLMPrefix) {
		return c.runModel(ctx, wt, prompt, logFile)
	}
	as := st.areaState(area)
	env := c.env([]string{
		"LORE_IMPROVE_AREA=" + area,
		"LORE_IMPROVE_POINTS=" + num(before[area].Points),
		"LORE_IMPROVE_MAX=" + num(before[area].Max),
		"LORE_IMPROVE_ROUND=" + strconv.Itoa(st.Round),
		"LORE_IMPROVE_APPROACH=" + strconv.Itoa(as.Approach),
		"LORE_IMPROVE_TRY=" + strconv.Itoa(as.Try),
		"LORE_IMPROVE_PROMPT=" + promptFile,
		"LORE_IMPROVE_WORKTREE=" + wt,
	})
	in, err := os.Open(promptFile)
	if err != nil {
		return "", &agentError{AgentFailed, err.Error()}
	}
	defer in.Close()
	r, err := c.procs.run(ctx, command{Line: c.Agent, Dir: wt, Stdin: in, Env: env, Timeout: c.AgentTimeout, Log: logFile})
	explain := tail(logFile, 2000)
	switch {
	case err != nil:
		return explain, &agentError{AgentFailed, err.Error()}
	case r.TimedOut:
		return explain, &agentError{TimedOut, "the agent " + r.String() + "; its process group was killed"}
	case r.Exit != 0 && !r.Stopped:
		return explain, &agentError{AgentFailed, "the agent " + r.String() + lastWords(explain)}
	}
	return explain, nil
}

func lastWords(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	ls := lines(s)
	return ": " + ls[len(ls)-1]
}

// branchMoved says how the branch moved while the agent ran, and puts it
// back: an agent's worktree shares the repository's refs, and only lore,
// or a person approving a held change, moves the branch.
func (c *Config) branchMoved(ctx context.Context, st *State, base string) string {
	ref := "refs/heads/" + st.Branch
	tip, err := git(ctx, c.root, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if tip == base {
		return ""
	}
	if err == nil {
		for _, p := range st.Pending {
			if decision(c.stateDir, p.N) == "approved "+tip {
				st.Best = tip
				return ""
			}
		}
	}
	git(ctx, c.root, "update-ref", ref, base)
	return fmt.Sprintf("the branch %s was moved to %q while the agent ran: put back", st.Branch, short(tip))
}

// afterRound moves the area's tries and approaches on; after every
// approach failed, it writes the escalation report and gives up on the
// area, or ends the run with StopWhenStuck.
func (c *Config) afterRound(ctx context.Context, st *State, area string, rec Record, explain, benchTail string) (bool, error) {
	as := st.areaState(area)
	switch rec.Outcome {
	case Kept:
		*as = AreaState{Attempts: as.Attempts, Approach: 1, Try: 1}
		return true, nil
	case Held:
		return true, nil
	}
	as.Failures++
	as.LastFailure = failureNote(rec, explain, benchTail)
	if len(as.Approaches) < as.Approach {
		as.Approaches = append(as.Approaches, approachName(explain, as.Approach))
	}
	as.Try++
	if as.Try > c.Tries {
		as.Try = 1
		as.Approach++
	}
	if as.Failures < c.Tries*c.Approaches {
		return true, nil
	}
	as.Stuck = true
	report, err := c.escalate(st, area)
	if err != nil {
		return false, err
	}
	st.Escalated = append(st.Escalated, Escalation{Area: area, At: time.Now().UTC(), Report: report})
	c.logf("area %s: %d failures; escalation report: %s", area, as.Failures, report)
	if c.StopWhenStuck {
		return false, fmt.Errorf("%w on %s after %d failures: see %s", ErrStuck, area, as.Failures, report)
	}
	return true, nil
}

// failureNote is what the next prompt says about a failed try.
func failureNote(rec Record, explain, benchTail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d (approach %d, try %d): %s — %s.", rec.Round, rec.Approach, rec.Try, rec.Outcome, rec.Reason)
	if len(rec.Files) > 0 {
		fmt.Fprintf(&b, " Files: %s.", strings.Join(rec.Files, ", "))
	}
	if benchTail != "" {
		fmt.Fprintf(&b, "\nThe bench printed:\n%s", benchTail)
	}
	if e := strings.TrimSpace(explain); e != "" {
		fmt.Fprintf(&b, "\nThe agent said:\n%s", cut(e, 1500))
	}
	return b.String()
}

// approachName is the approach as the agent named it on a line
// "approach: …", else its number.
func approachName(explain string, n int) string {
	for _, l := range lines(explain) {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "approach") && strings.TrimSpace(v) != "" {
			return cut(strings.TrimSpace(v), 200)
		}
	}
	return "approach " + strconv.Itoa(n)
}

// hold keeps a change that waits for a person: a ref that keeps its
// commit, and its patch.
func (c *Config) hold(ctx context.Context, st *State, area, base, commit string, files, protected []string, before, after Points, diff string) (Pending, error) {
	n := 1
	for _, p := range st.Pending {
		n = max(n, p.N+1)
	}
	if _, err := git(ctx, c.root, "update-ref", pendingRef(n), commit); err != nil {
		return Pending{}, err
	}
	patch := filepath.Join(c.stateDir, "pending", strconv.Itoa(n)+".patch")
	os.MkdirAll(filepath.Dir(patch), 0o700)
	if err := os.WriteFile(patch, []byte(diff), 0o600); err != nil {
		return Pending{}, err
	}
	p := Pending{N: n, Round: st.Round, At: time.Now().UTC(), Area: area, Base: base, Commit: commit, Files: files, Protected: protected, Before: before, After: after, Patch: patch}
	st.Pending = append(st.Pending, p)
	return p, nil
}

func pendingRef(n int) string { return "refs/lore-improve/pending/" + strconv.Itoa(n) }

// journal logs the round as an attempt, when there is a journal.
func (c *Config) journal(ctx context.Context, st *State, rec *Record, as *AreaState, diff, explain string) {
	if c.Journal == nil {
		return
	}
	a := lore.Attempt{
		Repo: c.RepoID, Agent: "lore-improve", Session: "lore-improve:" + c.runID + ":" + strconv.Itoa(rec.Round),
		Task:     "improve " + rec.Area + " on the benchmark",
		Approach: approachName(explain, rec.Approach),
		Area:     rec.Area, Files: rec.Files, Diff: diff, Tests: tail(filepath.Join(c.roundDir(rec.Round), "agent.log"), 4000),
		Analysis:     rec.Outcome + ": " + rec.Reason,
		Retries:      rec.Try - 1,
		PointsBefore: rec.Before, PointsAfter: rec.After,
		Tags: []string{"lore-improve", rec.Outcome},
	}
	switch rec.Outcome {
	case Kept:
		a.Outcome = lore.AttemptSuccess
	case Held:
		a.Outcome = lore.AttemptPending
	case RolledBack, Tampered:
		a.Outcome = lore.AttemptRollback
	default:
		a.Outcome = lore.AttemptFailure
	}
	logged, err := c.Journal.LogAttempts(ctx, []lore.Attempt{a})
	if err != nil {
		c.logf("journal: %s", err)
		return
	}
	rec.Attempt = logged[0].ID
}

// cleanUp kills what a run left running (the process groups it recorded,
// the processes of runID on Linux), SIGTERM first and SIGKILL after
// grace, and removes its worktrees.
func cleanUp(ctx context.Context, root, stateDir, runID string, grace time.Duration) {
	kill(readProcs(procsPath(stateDir)), marked(runID), grace)
	os.Remove(procsPath(stateDir))
	ents, _ := os.ReadDir(filepath.Join(stateDir, "worktrees"))
	for _, e := range ents {
		removeWorktree(ctx, root, filepath.Join(stateDir, "worktrees", e.Name()))
	}
	git(context.WithoutCancel(ctx), root, "worktree", "prune")
}

// delta says how each area moved: "a 3→4, b 2→2".
func delta(before, after Points) string {
	var parts []string
	for _, n := range before.Names() {
		if a, ok := after[n]; ok && a.Points != before[n].Points {
			parts = append(parts, fmt.Sprintf("%s %s→%s", n, num(before[n].Points), num(a.Points)))
		}
	}
	if len(parts) == 0 {
		return "no area moved"
	}
	return strings.Join(parts, ", ")
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return cut(l, 200)
}

func oneLine(s string) string {
	return cut(strings.Join(strings.Fields(s), " "), 500)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
