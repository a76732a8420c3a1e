package improve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// killGrace is how long a process group has between SIGTERM and SIGKILL.
const killGrace = time.Second

// runEnv names the variable every process the loop starts inherits, set
// to the run's id: the mark by which stop finds a descendant that left its
// process group.
const runEnv = "LORE_IMPROVE_RUN"

// procs records the process groups the loop has running, in a file of
// the state folder, so that lore improve stop in another process can kill
// them when the loop itself cannot.
type procs struct {
	path  string
	runID string
	mu    sync.Mutex
	live  map[int]bool
}

func (p *procs) add(pgid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live[pgid] = true
	p.write()
}

func (p *procs) remove(pgid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.live, pgid)
	p.write()
}

func (p *procs) write() {
	var b bytes.Buffer
	for g := range p.live {
		fmt.Fprintln(&b, g)
	}
	writeFileAtomic(p.path, b.Bytes())
}

// readProcs reads the process groups a procs file records.
func readProcs(path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var gs []int
	for _, f := range strings.Fields(string(b)) {
		if g, err := strconv.Atoi(f); err == nil && g > 1 {
			gs = append(gs, g)
		}
	}
	return gs
}

// command is one command the loop runs: a shell command line, in a
// folder, with standard input and variables.
type command struct {
	Line    string
	Dir     string
	Stdin   *os.File // nil: /dev/null; a file, never a pipe lore must feed
	Env     []string
	Timeout time.Duration
	// Log receives standard output and error (a file, never a pipe, so
	// that a descendant holding it open cannot keep the loop waiting).
	Log string
	// Stdout, when set, receives standard output alone.
	Stdout string
}

// result is how a command ended.
type result struct {
	Exit     int // -1 when it did not exit by itself
	TimedOut bool
	Stopped  bool // the loop was told to stop
	Took     time.Duration
}

func (r result) ok() bool { return r.Exit == 0 && !r.TimedOut && !r.Stopped }

func (r result) String() string {
	switch {
	case r.Stopped:
		return "stopped"
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", r.Took.Round(time.Second))
	case r.Exit != 0:
		return fmt.Sprintf("exited with status %d", r.Exit)
	}
	return "exited with status 0"
}

// run runs c in a process group of its own and, whatever way it ends
// (exit, timeout, ctx done), kills what is left of the group: nothing the
// command started outlives it.
func (p *procs) run(ctx context.Context, c command) (result, error) {
	logf, err := os.OpenFile(c.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return result{}, err
	}
	defer logf.Close()
	cmd := exec.Command("/bin/sh", "-c", c.Line)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	if c.Stdin != nil {
		cmd.Stdin = c.Stdin
	}
	cmd.Stderr = logf
	cmd.Stdout = logf
	if c.Stdout != "" {
		out, err := os.Create(c.Stdout)
		if err != nil {
			return result{}, err
		}
		defer out.Close()
		cmd.Stdout = out
	}
	ownGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, fmt.Errorf("start %q: %w", c.Line, err)
	}
	pgid := cmd.Process.Pid
	p.add(pgid)
	defer p.remove(pgid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var r result
	select {
	case err = <-done:
	case <-timeout:
		r.TimedOut = true
	case <-ctx.Done():
		r.Stopped = true
	}
	// The group, and descendants that left it.
	kill([]int{pgid}, marked(p.runID), killGrace)
	if r.TimedOut || r.Stopped {
		err = <-done
	}
	r.Took = time.Since(start)
	r.Exit = -1
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.Exit = 0
	case errors.As(err, &ee) && ee.Exited():
		r.Exit = ee.ExitCode()
	}
	return r, nil
}

// tail is the last n bytes of the file at path, from a line's start.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-int64(n), 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	if off > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}

// writeFileAtomic writes b to path through a temporary file and a rename,
// so that a reader never sees half of it.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// waitGone waits until alive says no, at most d; it says whether it did.
func waitGone(alive func() bool, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
