package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/improve"
)

type improveReportOptions struct{ improveOptions }

func newImproveReportCmd(fac *factory, runF func(context.Context, *improveReportOptions) error) *cobra.Command {
	opts := &improveReportOptions{newImproveOptions(fac)}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "The loop's work as markdown: points, rounds, what waits, where it is stuck",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improveReportRun(cmd.Context(), opts)
		},
	}
	opts.addRepoFlag(cmd)
	return cmd
}

func improveReportRun(ctx context.Context, opts *improveReportOptions) error {
	s, st, err := opts.readStatus(ctx)
	if err != nil {
		return err
	}
	fmt.Fprint(opts.IO.Out, improve.Report(s, st))
	return nil
}
