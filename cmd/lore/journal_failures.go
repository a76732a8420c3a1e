package main

import (
	"context"
	"errors"
	"fmt"

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

// errEnough stops reading attempts once a list is full.
var errEnough = errors.New("enough")

func journalFailuresRun(ctx context.Context, opts *journalFailuresOptions) error {
	repo, err := opts.repo()
	if err != nil {
		return err
	}
	j, closeStore, err := opts.openJournal(ctx, false)
	if err != nil {
		return err
	}
	defer closeStore()
	var as []lore.Attempt
	err = j.Attempts(ctx, lore.AttemptFilter{Repo: repo}, func(a lore.Attempt) error {
		if a.Outcome == lore.AttemptFailure || a.Outcome == lore.AttemptRollback {
			as = append(as, a)
		}
		if opts.Limit > 0 && len(as) == opts.Limit {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return storeError(err)
	}
	return writeAttempts(opts.journalOptions, as, "No attempt failed"+inRepo(repo)+".")
}

// writeAttempts lists attempts, as JSON lines with --json; none says so on
// standard error.
func writeAttempts(opts journalOptions, as []lore.Attempt, none string) error {
	out := opts.IO.Out
	if opts.JSON {
		for _, a := range as {
			if err := writeJSON(out, a); err != nil {
				return err
			}
		}
		return nil
	}
	if len(as) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, none)
		return nil
	}
	for _, a := range as {
		fmt.Fprintln(out, attemptLine(a))
	}
	return nil
}
