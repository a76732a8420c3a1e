package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
)

type journalFailuresOptions struct {
	journalOptions
	Limit int
}

func newJournalFailuresCmd(fac *factory, runF func(context.Context, *journalFailuresOptions) error) *cobra.Command {
	opts := &journalFailuresOptions{journalOptions: newJournalOptions(fac)}
	cmd := &cobra.Command{
		Use:   "failures",
		Short: "The latest attempts that failed or were rolled back, with their lessons",
		Long: `List the latest attempts that failed or were rolled back, newest first, each
with its lesson: the reflection, else the analysis.

With --json, each attempt is one JSON object on its own line, without its diff.

` + storeHelp,
		Example: `  lore journal failures
  lore journal failures --limit 30 --all-repos --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("lore journal failures takes no arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return usagef("--limit %d: want 0 (every one) or more", opts.Limit)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalFailuresRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 10, "at most this many attempts (0: every one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one attempt per line as JSON, newest first")
	opts.addRepoFlags(cmd, true)
	return cmd
}

func journalFailuresRun(ctx context.Context, opts *journalFailuresOptions) error {
	failed := func(a lore.Attempt) bool {
		return a.Outcome == lore.AttemptFailure || a.Outcome == lore.AttemptRollback
	}
	return opts.listAttempts(ctx, lore.AttemptFilter{}, failed, opts.Limit, func(repo string) string {
		return "No attempt failed" + inRepo(repo) + "."
	})
}
