package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/improve"
	"github.com/lorehq/lore/llm"
	"github.com/lorehq/lore/transcript"
)

type improveRunOptions struct {
	improveOptions
	storeOptions
	Config  improve.Config
	OnStuck string
	Model   string
	NoStore bool
}

func newImproveRunCmd(fac *factory, runF func(context.Context, *improveRunOptions) error) *cobra.Command {
	opts := &improveRunOptions{improveOptions: newImproveOptions(fac), storeOptions: fac.storeOptions()}
	c := &opts.Config
	cmd := &cobra.Command{
		Use:   "run --bench CMD --agent CMD [--rounds N | --forever]",
		Short: "Run the improvement loop",
		Long: `Run rounds of the loop. Each round, in a fresh git worktree of the best commit
(the tip of --branch, created at HEAD when missing):

  1. the bench command runs (by /bin/sh, at the worktree's root, once per
     commit) and prints points per area: lines NAME: P/MAX, with an optional
     TOTAL: P/MAX that must be their sum, or JSON
     {"areas":{"NAME":{"points":P,"max":M}}}; anything else is an error naming
     the line, and a bench that exits non-zero or times out has failed (on the
     best commit it ends the run, or is tried again a minute later with
     --forever; on a change it counts as no improvement);
  2. the weakest area is picked: the largest gap to its maximum (ties: the fewest
     attempts);
  3. the agent command runs at the worktree's root, the prompt on its standard
     input (the area, its points, the benchmark's source for it with --bench-source, the similar
     past attempts and their lessons from the journal, lore's notes for the
     repository, what failed before) and these variables: LORE_IMPROVE_AREA, _POINTS,
     _MAX, _ROUND, _APPROACH, _TRY, _PROMPT (the prompt's file), _WORKTREE;
     --agent llm:SPEC asks a model (the specs of lore harvest --llm) for a unified
     diff and applies it with git apply;
  4. the bench runs again, from lore's own copy of the benchmark files, on what the
     agent left (committed or not);
  5. the change is kept (a commit on the branch) only when the total rose and no
     area fell; otherwise it is rolled back. A change touching the benchmark's files
     (the script --bench names, --bench-source, --bench-files) or lore's state is
     rejected as tampered, whatever its points. One touching protected paths is held
     for lore improve approve. Every round is logged in the journal.

The agent gets --tries tries per approach and --approaches approaches per area;
after all fail, lore writes an escalation report and moves to the next area, or
stops with --on-stuck stop. With --forever the loop runs until lore improve stop,
surviving agents that crash, hang (killed after --agent-timeout) or leave a mess.
Run again to resume where it stopped.

Protected paths: those --protect matches; without --protect, every path --approve
does not match (default --approve: tests and data: ` + strings.Join(improve.DefaultApprove, " ") + `).
--approve '**' lets the loop keep any change.

` + storeHelp,
		Example: `  lore improve run --bench "sh bench/score.sh" --agent "claude -p --permission-mode acceptEdits" --rounds 3
  lore improve run --bench "go test ./bench -run Score" --bench-source 'bench/**' \
      --agent llm:openai:http://localhost:11434/v1 --model qwen2.5-coder --forever --approve '**'`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(c.Bench) == "" || strings.TrimSpace(c.Agent) == "" {
				return usagef("give --bench CMD (prints points per area) and --agent CMD (changes the code)")
			}
			if c.Forever && cmd.Flags().Changed("rounds") {
				return usagef("--rounds and --forever: give one")
			}
			if !c.Forever && c.Rounds < 1 {
				return usagef("--rounds %d: want 1 or more", c.Rounds)
			}
			switch opts.OnStuck {
			case "next":
			case "stop":
				c.StopWhenStuck = true
			default:
				return usagef("--on-stuck %q: want next or stop", opts.OnStuck)
			}
			if c.Tries < 1 || c.Approaches < 1 {
				return usagef("--tries and --approaches: want 1 or more")
			}
			if opts.Model != "" && !strings.HasPrefix(c.Agent, improve.LLMPrefix) {
				return usagef("--model needs --agent llm:SPEC")
			}
			for _, g := range [][]string{c.Approve, c.Protect, c.BenchSource, c.BenchFiles} {
				if _, err := improve.CompileGlobs(g); err != nil {
					return usagef("bad glob: %v", err)
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improveRunRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Bench, "bench", "", "the command that prints points per area (run by /bin/sh in the worktree)")
	f.StringVar(&c.Agent, "agent", "", "the command that changes the code (run by /bin/sh in the worktree, the prompt on stdin), or llm:SPEC")
	f.StringVar(&opts.Model, "model", "", "the model for --agent llm:SPEC (required for openai)")
	f.IntVar(&c.Rounds, "rounds", 1, "rounds to run")
	f.BoolVar(&c.Forever, "forever", false, "run rounds until lore improve stop")
	f.StringArrayVar(&c.Approve, "approve", nil, "paths a kept change may touch without approval (repeat; '**' for all)")
	f.StringArrayVar(&c.Protect, "protect", nil, "paths whose changes wait for approval (repeat)")
	f.StringArrayVar(&c.BenchSource, "bench-source", nil, "the benchmark's source, shown to the agent and out of its reach (repeat)")
	f.StringArrayVar(&c.BenchFiles, "bench-files", nil, "more of the benchmark's files and test data, out of the agent's reach (repeat)")
	f.IntVar(&c.Tries, "tries", improve.DefaultTries, "tries per approach")
	f.IntVar(&c.Approaches, "approaches", improve.DefaultApproaches, "approaches per area before it is escalated")
	f.DurationVar(&c.BenchTimeout, "bench-timeout", improve.DefaultBenchTimeout, "the longest one bench run may take")
	f.DurationVar(&c.AgentTimeout, "agent-timeout", improve.DefaultAgentTimeout, "the longest one agent run may take")
	f.StringVar(&c.Branch, "branch", improve.DefaultBranch, "the branch kept changes go on")
	f.StringVar(&opts.OnStuck, "on-stuck", "next", "after an area's last approach failed: next (area) or stop")
	f.BoolVar(&c.RetryStuck, "retry-stuck", false, "give the areas escalated before another go (after you fixed what the report says)")
	f.BoolVar(&opts.NoStore, "no-journal", false, "neither read nor write lore's store (no journal, no notes)")
	opts.addRepoFlag(cmd)
	opts.storeOptions.addFlag(cmd)
	cmd.RegisterFlagCompletionFunc("agent", cobra.NoFileCompletions)
	return cmd
}

func improveRunRun(ctx context.Context, opts *improveRunOptions) error {
	c := opts.Config
	c.Repo = opts.dir()
	c.Log = opts.IO.ErrOut
	if strings.HasPrefix(c.Agent, improve.LLMPrefix) {
		m, err := llm.New(strings.TrimPrefix(c.Agent, improve.LLMPrefix), llm.Options{Model: opts.Model, Timeout: c.AgentTimeout, Env: []string{"LORE_HARVEST=1"}})
		if err != nil {
			return usagef("--agent: %v", err)
		}
		c.Model = m
	}
	if !opts.NoStore {
		if err := opts.local(opts.Env, "lore improve keeps its journal in a store on this machine", "pass --store PATH, or --no-journal"); err != nil {
			return err
		}
		st, err := opts.open(ctx, opts.Env, false)
		if err != nil {
			return err
		}
		defer st.Close()
		if j, ok := st.(lore.Journal); ok {
			c.Journal = j
		}
		root := transcript.CheckoutRoot(c.Repo)
		c.RepoID = transcript.RepoOfDir(c.Repo)
		c.Boot = func(ctx context.Context, task string) string {
			b, err := boot.Build(ctx, st, boot.Options{Repo: c.RepoID, Dir: root, Cwd: root, Task: task})
			if err != nil {
				return ""
			}
			return b.Text
		}
	}
	start := time.Now()
	err := improve.Run(ctx, c)
	if err == nil || errors.Is(err, improve.ErrStuck) {
		if s, _, serr := improve.ReadStatus(context.WithoutCancel(ctx), c.Repo); serr == nil {
			printRunSummary(opts.IO.Out, s, time.Since(start))
		}
	}
	if errors.Is(err, improve.ErrStuck) {
		return err
	}
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	return nil
}

func printRunSummary(w io.Writer, s improve.Status, took time.Duration) {
	fmt.Fprintf(w, "%s at %s: %s/%s points after round %d (%s)", s.Branch, shortCommit(s.Best), fmtNum(s.Total), fmtNum(s.Max), s.Round, took.Round(time.Second))
	if n := len(s.Pending); n > 0 {
		fmt.Fprintf(w, "; %d change(s) wait for approval: lore improve pending", n)
	}
	fmt.Fprintln(w)
}

func shortCommit(c string) string {
	if len(c) > 10 {
		return c[:10]
	}
	return c
}

func fmtNum(f float64) string { return fmt.Sprint(f) }
