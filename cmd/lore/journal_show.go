package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

type journalShowOptions struct {
	journalOptions
	ID string
}

func newJournalShowCmd(fac *factory, runF func(context.Context, *journalShowOptions) error) *cobra.Command {
	opts := &journalShowOptions{journalOptions: newJournalOptions(fac)}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one attempt, with its test output and diff",
		Long: `Show one attempt: its task, approach, files, outcome, analysis and reflection,
the tail of its test output and its diff. ID may be the start of an id, when only
one attempt's starts so.

` + storeHelp,
		Example: `  lore journal show 3f9a2c1b7d4e
  lore journal show 3f9a --json | jq -r .diff`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalShowRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the attempt as JSON")
	opts.addFlag(cmd)
	return cmd
}

func journalShowRun(ctx context.Context, opts *journalShowOptions) error {
	j, closeStore, err := opts.openJournal(ctx, false)
	if err != nil {
		return err
	}
	defer closeStore()
	a, err := j.Attempt(ctx, opts.ID)
	if err != nil {
		return storeError(err)
	}
	out := opts.IO.Out
	if opts.JSON {
		return writeJSON(out, a, jsonIndent)
	}
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(out, "%-11s %s\n", name+":", value)
		}
	}
	field("Attempt", a.ID)
	field("Task", a.Task)
	field("Outcome", a.Outcome)
	field("When", a.At.Local().Format("2006-01-02 15:04"))
	field("Repository", a.Repo)
	field("Agent", a.Agent)
	field("Session", a.Session)
	field("Area", a.Area)
	field("Approach", a.Approach)
	field("Analysis", a.Analysis)
	field("Reflection", a.Reflection)
	if a.Retries > 0 {
		field("Retries", fmt.Sprint(a.Retries))
	}
	field("Retry of", a.Parent)
	if a.PointsBefore != nil || a.PointsAfter != nil {
		p := func(v *float64) string {
			if v == nil {
				return "?"
			}
			return fmt.Sprint(*v)
		}
		field("Points", p(a.PointsBefore)+" → "+p(a.PointsAfter))
	}
	field("Tags", strings.Join(a.Tags, ", "))
	field("Files", strings.Join(a.Files, ", "))
	if a.Tests != "" {
		fmt.Fprintf(out, "\nTests (the end of the output):\n%s\n", a.Tests)
	}
	if a.Diff != "" {
		fmt.Fprintf(out, "\nDiff:\n%s", a.Diff)
		if !strings.HasSuffix(a.Diff, "\n") {
			fmt.Fprintln(out)
		}
	}
	if a.DiffCut > 0 {
		fmt.Fprintf(out, "[… %s of the diff left out]\n", humanBytes(int64(a.DiffCut)))
	}
	return nil
}
