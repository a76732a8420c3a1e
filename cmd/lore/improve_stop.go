package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/improve"
)

type improveStopOptions struct{ improveOptions }

func newImproveStopCmd(fac *factory, runF func(context.Context, *improveStopOptions) error) *cobra.Command {
	opts := &improveStopOptions{newImproveOptions(fac)}
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the loop and every process it started",
		Long: `Stop the loop running on the repository: it is asked to stop (SIGTERM) and, when
it has not within 3 seconds, killed; every process it started (the agent, the
bench, and what they started, a process that ignores SIGTERM or left its process
group too) is killed. The round under way is undone: its worktree removed, the
branch where the last kept round left it. It takes at most 5 seconds.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improveStopRun(cmd.Context(), opts)
		},
	}
	opts.addRepoFlag(cmd)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "what stop found and did, as JSON")
	return cmd
}

func improveStopRun(ctx context.Context, opts *improveStopOptions) error {
	rep, err := improve.Stop(context.WithoutCancel(ctx), opts.dir())
	if err != nil {
		return fmt.Errorf("improve stop: %w", err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, rep)
	}
	switch {
	case !rep.WasRunning:
		fmt.Fprintln(opts.IO.Out, "lore improve was not running; what a run left (processes, worktrees) is cleaned up.")
	case rep.Killed:
		fmt.Fprintf(opts.IO.Out, "Killed lore improve (pid %d) and what it started, in %s.\n", rep.PID, rep.Took.Round(time.Millisecond))
	default:
		fmt.Fprintf(opts.IO.Out, "Stopped lore improve (pid %d) and what it started, in %s.\n", rep.PID, rep.Took.Round(time.Millisecond))
	}
	return nil
}
