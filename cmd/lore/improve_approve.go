package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/improve"
)

type improveApproveOptions struct {
	improveOptions
	N            int
	BenchTimeout time.Duration
}

func newImproveApproveCmd(fac *factory, runF func(context.Context, *improveApproveOptions) error) *cobra.Command {
	opts := &improveApproveOptions{improveOptions: newImproveOptions(fac)}
	cmd := &cobra.Command{
		Use:   "approve N",
		Short: "Put a held change on the branch",
		Long: `Put pending change N on the loop's branch: a fast-forward when the branch has not
moved since the change was held; otherwise the change is picked onto the branch's
tip and the bench runs again, and it goes on only when the total still rises and
no area falls.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := pendingNumber(args[0])
			if err != nil {
				return err
			}
			opts.N = n
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improveApproveRun(cmd.Context(), opts)
		},
	}
	opts.addRepoFlag(cmd)
	cmd.Flags().DurationVar(&opts.BenchTimeout, "bench-timeout", improve.DefaultBenchTimeout, "the longest one bench run may take")
	return cmd
}

func improveApproveRun(ctx context.Context, opts *improveApproveOptions) error {
	commit, err := improve.Approve(ctx, opts.dir(), opts.N, opts.BenchTimeout)
	if err != nil {
		return fmt.Errorf("improve approve: %w", err)
	}
	fmt.Fprintf(opts.IO.Out, "Approved %d: the branch is at %s.\n", opts.N, shortCommit(commit))
	return nil
}
