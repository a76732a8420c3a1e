package improve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The outcomes of a round, as the state and lore improve status show them.
const (
	Kept        = "kept"        // the branch moved to the change
	RolledBack  = "rolled-back" // the bench did not score it higher, or an area fell
	Tampered    = "tampered"    // it touched the benchmark, its data or lore's state
	Held        = "held"        // better, but touching protected paths: waits for a person
	AgentFailed = "agent-failed"
	TimedOut    = "timed-out"
	NoChange    = "no-change"
	BenchFailed = "bench-failed"
)

// State is what a run keeps between rounds, in the repository's git
// folder (out of every worktree's reach), so that a restart resumes.
type State struct {
	Branch string `json:"branch"`
	Bench  string `json:"bench"` // the command, which approve runs too
	// Best is the commit every round starts from: the branch's tip.
	Best string `json:"best"`
	// Judge maps every benchmark file to its blob at the start: the
	// pristine copy every measurement runs with.
	Judge     map[string]string     `json:"judge"`
	Round     int                   `json:"round"`
	Baselines map[string]Points     `json:"baselines"` // by commit
	Areas     map[string]*AreaState `json:"areas"`
	History   []Record              `json:"history"`
	Pending   []Pending             `json:"pending"`
	Escalated []Escalation          `json:"escalations"`
}

// AreaState is where the loop stands with one area.
type AreaState struct {
	Attempts int `json:"attempts"`
	// Failures since the area last improved; Approach and Try count from
	// 1.
	Failures   int      `json:"failures"`
	Approach   int      `json:"approach"`
	Try        int      `json:"try"`
	Approaches []string `json:"approaches"` // what each approach was, as the agent named it
	// LastFailure is what the next prompt says failed.
	LastFailure string `json:"last_failure,omitempty"`
	Stuck       bool   `json:"stuck"`
}

// Record is one round.
type Record struct {
	Round    int       `json:"round"`
	At       time.Time `json:"at"`
	Area     string    `json:"area"`
	Approach int       `json:"approach"`
	Try      int       `json:"try"`
	Outcome  string    `json:"outcome"`
	Reason   string    `json:"reason"`
	Before   *float64  `json:"before"` // totals
	After    *float64  `json:"after"`
	Max      float64   `json:"max"`
	Files    []string  `json:"files"`
	Commit   string    `json:"commit,omitempty"` // the change, kept or held
	Attempt  string    `json:"attempt,omitempty"`
}

// Pending is a change held for a person's approval.
type Pending struct {
	N      int       `json:"n"`
	Round  int       `json:"round"`
	At     time.Time `json:"at"`
	Area   string    `json:"area"`
	Base   string    `json:"base"`
	Commit string    `json:"commit"`
	Files  []string  `json:"files"`
	// Protected are the files that made it wait.
	Protected []string `json:"protected"`
	Before    Points   `json:"before"`
	After     Points   `json:"after"`
	Patch     string   `json:"patch"` // its file
}

// Escalation is an area the loop gave up on after every approach failed.
type Escalation struct {
	Area   string    `json:"area"`
	At     time.Time `json:"at"`
	Report string    `json:"report"` // the markdown file
}

// Running is what a running loop says about itself, in its own file.
type Running struct {
	PID      int       `json:"pid"`
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	Round    int       `json:"round"`
	Area     string    `json:"area"`
	Worktree string    `json:"worktree,omitempty"`
	Base     string    `json:"base,omitempty"`
}

// Dir is where lore improve keeps its state for the repository holding
// dir: lore-improve in its git folder.
func Dir(ctx context.Context, dir string) (string, error) {
	common, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("%s is not in a git repository: %w", dir, err)
	}
	return filepath.Join(common, "lore-improve"), nil
}

func statePath(dir string) string   { return filepath.Join(dir, "state.json") }
func runningPath(dir string) string { return filepath.Join(dir, "running.json") }
func procsPath(dir string) string   { return filepath.Join(dir, "procs") }

// LoadState reads the state in dir; a missing one is (nil, nil).
func LoadState(dir string) (*State, error) {
	b, err := os.ReadFile(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", statePath(dir), err)
	}
	if s.Baselines == nil {
		s.Baselines = map[string]Points{}
	}
	if s.Areas == nil {
		s.Areas = map[string]*AreaState{}
	}
	return &s, nil
}

func (s *State) save(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(statePath(dir), append(b, '\n'))
}

// LoadRunning reads what a running loop says about itself; nil when no
// loop is running (none started, or it died: its process is gone).
func LoadRunning(dir string) *Running {
	b, err := os.ReadFile(runningPath(dir))
	if err != nil {
		return nil
	}
	var r Running
	if json.Unmarshal(b, &r) != nil || !processAlive(r.PID) {
		return nil
	}
	return &r
}

func (r *Running) save(dir string) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writeFileAtomic(runningPath(dir), b)
}

// claim writes r as the running loop's file, unless a loop that is still
// alive has it.
func (r *Running) claim(dir string) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	for range 2 {
		f, err := os.OpenFile(runningPath(dir), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.Write(b)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		if other := LoadRunning(dir); other != nil {
			return fmt.Errorf("lore improve is already running on this repository (pid %d); lore improve stop ends it", other.PID)
		}
		os.Remove(runningPath(dir)) // a loop that died left it
	}
	return fmt.Errorf("lore improve: %s keeps coming back", runningPath(dir))
}
