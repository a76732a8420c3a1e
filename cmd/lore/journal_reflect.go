package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

type journalReflectOptions struct {
	journalOptions
	ID, Text string
}

func newJournalReflectCmd(fac *factory, runF func(context.Context, *journalReflectOptions) error) *cobra.Command {
	opts := &journalReflectOptions{journalOptions: newJournalOptions(fac)}
	cmd := &cobra.Command{
		Use:   "reflect ID TEXT",
		Short: "Add or replace the lesson of an attempt",
		Long: `Set the reflection of an attempt: the lesson learned from it, which lore journal
similar and failures show before its analysis. It replaces the one there was.
ID may be the start of an id, when only one attempt's starts so.

` + storeHelp,
		Example: `  lore journal reflect 3f9a "inject the clock; never sleep in tests"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("lore journal reflect takes an attempt's id and the lesson: lore journal reflect ID TEXT")
			}
			opts.ID, opts.Text = args[0], strings.Join(args[1:], " ")
			if strings.TrimSpace(opts.Text) == "" {
				return usagef("the lesson is empty")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalReflectRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the attempt as JSON")
	opts.addFlag(cmd)
	return cmd
}

func journalReflectRun(ctx context.Context, opts *journalReflectOptions) error {
	j, closeStore, err := opts.openJournal(ctx, true)
	if err != nil {
		return err
	}
	defer closeStore()
	a, err := j.Reflect(ctx, opts.ID, opts.Text)
	if err != nil {
		return storeError(err)
	}
	if err := addLessons(ctx, j, a); err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, a)
	}
	fmt.Fprintln(opts.IO.Out, attemptLine(a))
	return nil
}
