package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

type improveStatusOptions struct{ improveOptions }

func newImproveStatusCmd(fac *factory, runF func(context.Context, *improveStatusOptions) error) *cobra.Command {
	opts := &improveStatusOptions{newImproveOptions(fac)}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Where the loop stands: running, round, area, points over time, pending, escalations",
		Long: `Say whether the loop is running, its round and area, the points of the best
commit and after every round, the last round's outcome, the changes waiting for
approval and the areas escalated.

With --json, one object: running, pid, round, area, branch, best, points (per
area), total, max, points_over_time [{round, at, total, max}], last (the last
round), pending, escalations.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return improveStatusRun(cmd.Context(), opts)
		},
	}
	opts.addRepoFlag(cmd)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "the status as one JSON object")
	return cmd
}

func improveStatusRun(ctx context.Context, opts *improveStatusOptions) error {
	s, st, err := opts.readStatus(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, s)
	}
	out := opts.IO.Out
	if st == nil {
		fmt.Fprintln(out, "lore improve has not run on this repository: lore improve run --help")
		return nil
	}
	if s.Running {
		fmt.Fprintf(out, "running (pid %d): round %d, area %s\n", s.PID, s.Round, s.Area)
	} else {
		fmt.Fprintf(out, "not running; %d rounds so far\n", s.Round)
	}
	fmt.Fprintf(out, "best: %s at %s, %s/%s points\n", s.Branch, shortCommit(s.Best), fmtNum(s.Total), fmtNum(s.Max))
	for _, n := range s.Points.Names() {
		fmt.Fprintf(out, "  %-20s %s/%s\n", n, fmtNum(s.Points[n].Points), fmtNum(s.Points[n].Max))
	}
	if len(s.OverTime) > 0 {
		var pts []string
		for _, p := range s.OverTime {
			pts = append(pts, fmtNum(p.Total))
		}
		fmt.Fprintf(out, "points over time: %s\n", strings.Join(pts, " "))
	}
	if s.Last != nil {
		fmt.Fprintf(out, "last: round %d, %s: %s: %s\n", s.Last.Round, s.Last.Area, s.Last.Outcome, s.Last.Reason)
	}
	for _, p := range s.Pending {
		fmt.Fprintf(out, "pending %d: %s, touches %s (lore improve approve %d)\n", p.N, p.Area, strings.Join(p.Protected, ", "), p.N)
	}
	for _, e := range s.Escalations {
		fmt.Fprintf(out, "stuck on %s: %s\n", e.Area, e.Report)
	}
	return nil
}
