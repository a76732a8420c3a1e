package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/measure"
)

type dashboardOptions struct {
	measureOptions
	Out string
}

func newDashboardCmd(fac *factory, runF func(context.Context, *dashboardOptions) error) *cobra.Command {
	opts := &dashboardOptions{measureOptions: measureOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}}
	cmd := &cobra.Command{
		Use:   "dashboard [PATH...]",
		Short: "Write the metrics as Markdown, JSON and an HTML page with charts",
		Long: `Measure as lore measure does, from the sessions (PATHs, else the agents' default
locations), the store and the boot records, and write three files into --out:

  dashboard.md   the headline numbers and week-by-week tables, for people and git
  metrics.json   the metrics, as lore measure --json prints them
  index.html     one self-contained page (no script, nothing fetched) with charts:
                 velocity, first-try success, would-have-known, hit rate, known
                 errors before and after, and cost per session

A share of nothing is reported as "no data", never as 0%. Each file is replaced
whole, so a reader never sees half of one. ` + repoFilterHelp + `

` + storeHelp,
		Example: `  lore dashboard
  lore dashboard --out /srv/www/lore --since 2026-06-01 --repo acme/api
  lore dashboard ~/.claude/projects --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.check(); err != nil {
				return err
			}
			if err := opts.useConfig(opts.Env); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return dashboardRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "metrics", "the folder to write the three files into")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the paths written as JSON")
	opts.filterOptions.addFlags(cmd)
	opts.storeOptions.addFlag(cmd)
	return cmd
}

func dashboardRun(ctx context.Context, opts *dashboardOptions) error {
	m, err := measureMetrics(ctx, &opts.measureOptions)
	if err != nil {
		return err
	}
	m.Improve = measure.ImproveRounds(ctx, opts.Env.Cwd)
	if err := measure.WriteDashboard(opts.Out, m); err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	md := filepath.Join(opts.Out, measure.DashboardMarkdown)
	js := filepath.Join(opts.Out, measure.DashboardJSON)
	page := filepath.Join(opts.Out, measure.DashboardHTML)
	if opts.JSON {
		return writeJSON(opts.IO.Out, map[string]string{"markdown": md, "json": js, "html": page})
	}
	fmt.Fprintf(opts.IO.Out, "%s\n%s\n%s\n", md, js, page)
	return nil
}
