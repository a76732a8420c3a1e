package improve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// StopTimeout is how long Stop gives the loop to stop by itself before
// it kills the loop and what it started.
const StopTimeout = 3 * time.Second

// StopReport says what Stop found and did.
type StopReport struct {
	WasRunning bool `json:"was_running"`
	PID        int  `json:"pid,omitempty"`
	// Killed says the loop did not stop within StopTimeout and was killed
	// with what it started.
	Killed bool          `json:"killed"`
	Took   time.Duration `json:"took_ns"`
}

// Stop stops the loop running on the repository holding dir and every
// process it started, and leaves the repository as it was before the
// round: the round's worktree removed, the branch where the last kept
// round left it.
func Stop(ctx context.Context, dir string) (StopReport, error) {
	start := time.Now()
	sd, err := Dir(ctx, dir)
	if err != nil {
		return StopReport{}, err
	}
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return StopReport{}, err
	}
	var rep StopReport
	raw := readRunning(sd)
	if r := LoadRunning(sd); r != nil {
		rep.WasRunning, rep.PID = true, r.PID
		if err := signalTerm(r.PID); err == nil {
			if !waitGone(func() bool { return processAlive(r.PID) }, StopTimeout) {
				rep.Killed = true
				killProcesses([]int{r.PID}, 0)
			}
		}
	}
	runID := ""
	if raw != nil {
		runID = raw.RunID
	}
	cleanUp(ctx, root, sd, runID, 0) // the loop had its chance to stop them
	os.Remove(runningPath(sd))
	rep.Took = time.Since(start)
	return rep, nil
}

func readRunning(dir string) *Running {
	b, err := os.ReadFile(runningPath(dir))
	if err != nil {
		return nil
	}
	var r Running
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

// Status is where lore improve stands on a repository.
type Status struct {
	Running bool    `json:"running"`
	PID     int     `json:"pid,omitempty"`
	Round   int     `json:"round"`
	Area    string  `json:"area,omitempty"` // the area the running round works on
	Branch  string  `json:"branch,omitempty"`
	Best    string  `json:"best,omitempty"`
	Points  Points  `json:"points,omitempty"` // the best commit's
	Total   float64 `json:"total"`
	Max     float64 `json:"max"`
	// Over time: the total after every round.
	OverTime    []PointsAt   `json:"points_over_time"`
	Last        *Record      `json:"last,omitempty"`
	Pending     []Pending    `json:"pending"`
	Escalations []Escalation `json:"escalations"`
}

// PointsAt is the best total after a round.
type PointsAt struct {
	Round int       `json:"round"`
	At    time.Time `json:"at"`
	Total float64   `json:"total"`
	Max   float64   `json:"max"`
	// Outcome is how the round ended.
	Outcome string `json:"outcome"`
}

// ReadStatus reads where lore improve stands on the repository holding
// dir; a repository it never ran on has a zero Status.
func ReadStatus(ctx context.Context, dir string) (Status, *State, error) {
	sd, err := Dir(ctx, dir)
	if err != nil {
		return Status{}, nil, err
	}
	s := Status{Pending: []Pending{}, Escalations: []Escalation{}, OverTime: []PointsAt{}}
	if r := LoadRunning(sd); r != nil {
		s.Running, s.PID, s.Area = true, r.PID, r.Area
	}
	st, err := LoadState(sd)
	if err != nil || st == nil {
		return s, st, err
	}
	s.Round, s.Branch, s.Best = st.Round, st.Branch, st.Best
	if r := LoadRunning(sd); r != nil && r.Round > 0 {
		s.Round = r.Round
	}
	if p, ok := st.Baselines[st.Best]; ok {
		s.Points = p
		s.Total, s.Max = p.Total()
	}
	var best float64
	for i, r := range st.History {
		if r.Before == nil {
			continue
		}
		if i == 0 || *r.Before > best {
			best = *r.Before
		}
		if r.Outcome == Kept && r.After != nil {
			best = *r.After
		}
		s.OverTime = append(s.OverTime, PointsAt{Round: r.Round, At: r.At, Total: best, Max: r.Max, Outcome: r.Outcome})
	}
	if n := len(st.History); n > 0 {
		s.Last = &st.History[n-1]
	}
	s.Pending = openPending(sd, st)
	if st.Escalated != nil {
		s.Escalations = st.Escalated
	}
	return s, st, nil
}

// openPending are the held changes no one has approved or rejected.
func openPending(sd string, st *State) []Pending {
	out := []Pending{}
	for _, p := range st.Pending {
		if decision(sd, p.N) == "" {
			out = append(out, p)
		}
	}
	return out
}

func decisionPath(sd string, n int) string {
	return filepath.Join(sd, "pending", strconv.Itoa(n)+".decision")
}

// decision is what a person decided about pending change n: "approved
// COMMIT", "rejected", or "".
func decision(sd string, n int) string {
	b, _ := os.ReadFile(decisionPath(sd, n))
	return strings.TrimSpace(string(b))
}

// Approve applies pending change n to the branch: a fast-forward when
// the branch has not moved since, else the change picked onto its tip,
// kept only when the bench scores it no lower in any area and higher in
// total. It returns the commit the branch is now at.
func Approve(ctx context.Context, dir string, n int, benchTimeout time.Duration) (string, error) {
	sd, p, st, err := findPending(ctx, dir, n)
	if err != nil {
		return "", err
	}
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	ref := "refs/heads/" + st.Branch
	tip, err := git(ctx, root, "rev-parse", "--verify", ref+"^{commit}")
	if err != nil {
		return "", err
	}
	commit := p.Commit
	if tip != p.Base {
		c := &Config{Repo: root, Bench: st.Bench, BenchTimeout: benchTimeout, Branch: st.Branch}
		if err := c.defaults(); err != nil {
			return "", err
		}
		c.root, c.stateDir, c.runID = root, sd, "approve"
		c.procs = &procs{path: filepath.Join(sd, "procs-approve"), live: map[int]bool{}}
		if commit, err = pick(ctx, root, sd, tip, p.Commit); err != nil {
			return "", fmt.Errorf("pending change %d no longer applies to %s (the branch moved since): %w", n, st.Branch, err)
		}
		before, err := c.baseline(ctx, st, tip, st.Round)
		if err != nil {
			return "", fmt.Errorf("bench on %s: %w", short(tip), err)
		}
		after, err := c.measure(ctx, st, commit, st.Round)
		if err != nil {
			return "", fmt.Errorf("bench on pending change %d: %w", n, err)
		}
		if v := Judge(before, after); !v.Better {
			return "", fmt.Errorf("pending change %d no longer improves %s: %s; lore improve reject %d drops it", n, st.Branch, v.Reason, n)
		}
	}
	if _, err := git(ctx, root, "update-ref", ref, commit, tip); err != nil {
		return "", err
	}
	return commit, os.WriteFile(decisionPath(sd, n), []byte("approved "+commit+"\n"), 0o600)
}

// Reject drops pending change n.
func Reject(ctx context.Context, dir string, n int) error {
	sd, _, _, err := findPending(ctx, dir, n)
	if err != nil {
		return err
	}
	if err := os.WriteFile(decisionPath(sd, n), []byte("rejected\n"), 0o600); err != nil {
		return err
	}
	git(ctx, dir, "update-ref", "-d", pendingRef(n))
	return nil
}

func findPending(ctx context.Context, dir string, n int) (string, Pending, *State, error) {
	sd, err := Dir(ctx, dir)
	if err != nil {
		return "", Pending{}, nil, err
	}
	st, err := LoadState(sd)
	if err != nil {
		return "", Pending{}, nil, err
	}
	if st == nil {
		return "", Pending{}, nil, fmt.Errorf("lore improve never ran on this repository")
	}
	for _, p := range st.Pending {
		if p.N == n {
			if d := decision(sd, n); d != "" {
				return "", Pending{}, nil, fmt.Errorf("pending change %d was %s already", n, strings.Fields(d)[0])
			}
			return sd, p, st, nil
		}
	}
	return "", Pending{}, nil, fmt.Errorf("no pending change %d (lore improve pending lists them)", n)
}

// pick makes commit's change again on top of onto, in a worktree of its
// own, and returns the new commit.
func pick(ctx context.Context, root, sd, onto, commit string) (string, error) {
	wt := filepath.Join(sd, "worktrees", "approve-"+short(commit))
	if err := addWorktree(ctx, root, wt, onto); err != nil {
		return "", err
	}
	defer removeWorktree(ctx, root, wt)
	if _, err := git(ctx, wt, "cherry-pick", "--allow-empty", commit); err != nil {
		return "", err
	}
	return git(ctx, wt, "rev-parse", "HEAD")
}
