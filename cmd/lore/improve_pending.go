package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

type improvePendingOptions struct{ improveOptions }

func newImprovePendingCmd(fac *factory, runF func(context.Context, *improvePendingOptions) error) *cobra.Command {
	opts := &improvePendingOptions{newImproveOptions(fac)}
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List the changes that scored higher but touch protected paths",
		Long: `List the changes the loop held: the bench scored them higher with no area lower,
but they touch protected paths. Each has a number for lore improve approve N and
lore improve reject N, and its patch in a file.

With --json, one object per change per line: n, round, at, area, base, commit,
files, protected, before, after (points per area), patch.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improvePendingRun(cmd.Context(), opts)
		},
	}
	opts.addRepoFlag(cmd)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON object per change per line")
	return cmd
}

func improvePendingRun(ctx context.Context, opts *improvePendingOptions) error {
	s, _, err := opts.readStatus(ctx)
	if err != nil {
		return err
	}
	for _, p := range s.Pending {
		if opts.JSON {
			if err := writeJSON(opts.IO.Out, p); err != nil {
				return err
			}
			continue
		}
		bt, _ := p.Before.Total()
		at, _ := p.After.Total()
		fmt.Fprintf(opts.IO.Out, "%d  round %d  %s  %s→%s  protected: %s\n   %s\n", p.N, p.Round, p.Area, fmtNum(bt), fmtNum(at), strings.Join(p.Protected, ", "), p.Patch)
	}
	if len(s.Pending) == 0 && !opts.JSON {
		fmt.Fprintln(opts.IO.ErrOut, "No change waits for approval.")
	}
	return nil
}
