package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/fixguard"
)

type guardTestOptions struct {
	guardOptions
	Fix     string
	Run     string
	Timeout time.Duration
}

func newGuardTestCmd(fac *factory, runF func(context.Context, *guardTestOptions) error) *cobra.Command {
	opts := &guardTestOptions{guardOptions: newGuardOptions(fac)}
	cmd := &cobra.Command{
		Use:   "test --fix SHA [--run CMD]",
		Short: "Prove a fix's guard: its tests fail before the fix and pass with it",
		Long: `Prove a guarded fix the way a regression test is proven: run the command (by
default the tests the fix added: go test -run for Go, pytest for Python) on the
fix's parent with the fix's test files put in, and on the fix, each in a
temporary folder git archive fills; nothing is written to the repository. The
guard is "proven" when the command fails on the parent and passes on the fix,
"not proven" otherwise, and "no test" when the fix added none and no --run was
given. The result is kept on the guard (lore guard scan finds the fix first).

Exit codes: 0 proven, 1 not proven or no test, 2 usage.
With --json, one object: the commit, the proof, the command, how each run went.

` + storeHelp,
		Example: `  lore guard test --fix 1a2b3c4
  lore guard test --fix 1a2b3c4 --run 'go test ./config'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(opts.Fix) == "" {
				return usagef("--fix SHA is required: the fix commit to prove")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return guardTestRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Fix, "fix", "", "the fix commit (a revision)")
	cmd.Flags().StringVar(&opts.Run, "run", "", "the command that runs the tests, in sh (default: the tests the fix added)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "the longest both runs may take together")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	opts.addFlags(cmd)
	return cmd
}

func guardTestRun(ctx context.Context, opts *guardTestOptions) error {
	r, name, err := opts.openRepo(ctx)
	if err != nil {
		return err
	}
	commit, err := r.Resolve(ctx, opts.Fix)
	if err != nil {
		return fmt.Errorf("--fix: %w", err)
	}
	st, guards, err := opts.openGuards(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	gs, err := guards.Guards(ctx, name)
	if err != nil {
		return storeError(err)
	}
	var g *lore.FixGuard
	for i := range gs {
		if gs[i].Commit == commit {
			g = &gs[i]
		}
	}
	if g == nil {
		return fmt.Errorf("no guard of %s in %s: lore guard scan finds its fixes (is %s a fix commit?)", lore.ShortCommit(commit), name, opts.Fix)
	}
	pctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	p, err := fixguard.Prove(pctx, r, *g, opts.Run)
	if err != nil {
		if pctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("the tests ran longer than --timeout %s", opts.Timeout)
		}
		return err
	}
	if _, err := guards.SetProof(ctx, name, commit, p.Proof, p.Command, time.Now()); err != nil {
		return storeError(err)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, p); err != nil {
			return err
		}
	} else {
		out := opts.IO.Out
		fmt.Fprintf(out, "fix %s %q: %s\n", lore.ShortCommit(commit), oneLine(g.Subject, 80), p.Proof)
		if p.Proof != lore.ProofNoTest {
			fmt.Fprintf(out, "  %s\n  on its parent: %s; on the fix: %s\n", p.Command, failedOrPassed(!p.ParentFailed), failedOrPassed(p.FixPassed))
		} else {
			fmt.Fprintf(out, "  it added no test lore can run; give the command with --run\n")
		}
		if p.Output != "" {
			fmt.Fprintf(out, "  output:\n%s\n", indent(p.Output, "    "))
		}
	}
	if p.Proof != lore.ProofProven {
		return errSilent
	}
	return nil
}

func failedOrPassed(passed bool) string {
	if passed {
		return "passed"
	}
	return "failed"
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
