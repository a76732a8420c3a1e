package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/improve"
)

type improveRejectOptions struct {
	improveOptions
	N int
}

func newImproveRejectCmd(fac *factory, runF func(context.Context, *improveRejectOptions) error) *cobra.Command {
	opts := &improveRejectOptions{improveOptions: newImproveOptions(fac)}
	cmd := &cobra.Command{
		Use:   "reject N",
		Short: "Drop a held change",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := pendingNumber(args[0])
			if err != nil {
				return err
			}
			opts.N = n
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improveRejectRun(cmd.Context(), opts)
		},
	}
	opts.addRepoFlag(cmd)
	return cmd
}

func improveRejectRun(ctx context.Context, opts *improveRejectOptions) error {
	if err := improve.Reject(ctx, opts.dir(), opts.N); err != nil {
		return fmt.Errorf("improve reject: %w", err)
	}
	fmt.Fprintf(opts.IO.Out, "Rejected %d.\n", opts.N)
	return nil
}
