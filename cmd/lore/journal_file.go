package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
)

type journalFileOptions struct {
	journalOptions
	Path  string
	Limit int
}

func newJournalFileCmd(fac *factory, runF func(context.Context, *journalFileOptions) error) *cobra.Command {
	opts := &journalFileOptions{journalOptions: newJournalOptions(fac)}
	cmd := &cobra.Command{
		Use:   "file PATH",
		Short: "The attempts that touched a file, newest first",
		Long: `List the attempts that touched a file, newest first, with their outcomes and
lessons. PATH is taken from the current folder when such a file is there, else
from the checkout's root, as git names files.

With --json, each attempt is one JSON object on its own line, without its diff.

` + storeHelp,
		Example: `  lore journal file client/retry.go
  lore journal file go.mod --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = opts.relFile(args[0])
			if opts.Limit < 0 {
				return usagef("--limit %d: want 0 (every one) or more", opts.Limit)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalFileRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 0, "at most this many attempts (0: every one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one attempt per line as JSON, newest first")
	opts.addRepoFlags(cmd, true)
	return cmd
}

func journalFileRun(ctx context.Context, opts *journalFileOptions) error {
	all := func(lore.Attempt) bool { return true }
	return opts.listAttempts(ctx, lore.AttemptFilter{File: opts.Path}, all, opts.Limit, func(repo string) string {
		return "No attempt" + inRepo(repo) + " touched " + opts.Path + "."
	})
}
