package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
)

type journalSimilarOptions struct {
	journalOptions
	Query lore.AttemptQuery
	Since string
}

func newJournalSimilarCmd(fac *factory, runF func(context.Context, *journalSimilarOptions) error) *cobra.Command {
	opts := &journalSimilarOptions{journalOptions: newJournalOptions(fac)}
	cmd := &cobra.Command{
		Use:   "similar [TEXT] [--file F]...",
		Short: "Find the past attempts most like a new one, with their outcomes and lessons",
		Long: `Find the past attempts most like one about to be made: those whose task,
approach, analysis or reflection share the words of TEXT (ranked by bm25), raised
when they touched the same files (a file few attempts touch counts for more) and
when they are recent. Each shows its outcome and its lesson: the reflection, else
the analysis.

With --json, each attempt is one JSON object on its own line, best first, with
its score and shared_files; without its diff (lore journal show ID has it).

` + storeHelp,
		Example: `  lore journal similar "make the retry test stable" --file client/retry_test.go
  lore journal similar --file go.mod --outcome failure
  lore journal similar "flaky login" --all-repos --limit 10 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			q := &opts.Query
			q.Text = strings.Join(args, " ")
			for i, f := range q.Files {
				q.Files[i] = opts.relFile(f)
			}
			if strings.TrimSpace(q.Text) == "" && len(q.Files) == 0 {
				return usagef("give the task's words, or --file, or both: lore journal similar \"fix the flaky test\" --file x_test.go")
			}
			var err error
			if q.Outcome, err = journalOutcome(q.Outcome); err != nil {
				return err
			}
			if q.Limit < 0 {
				return usagef("--limit %d: want 1 or more", q.Limit)
			}
			if q.Repo, err = opts.repo(); err != nil {
				return err
			}
			if opts.Since != "" {
				if q.Since, err = parseSince(opts.Since, time.Now()); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalSimilarRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Query.Files, "file", nil, "a file the new attempt will touch (repeat for more)")
	f.StringVar(&opts.Query.Outcome, "outcome", "", "only attempts with this outcome: success, failure, rollback or pending")
	f.StringVar(&opts.Since, "since", "", "only attempts since then: a day (2026-01-01) or a span back from now (7d, 12h, 2w)")
	f.IntVarP(&opts.Query.Limit, "limit", "n", 5, "at most this many attempts")
	f.BoolVar(&opts.JSON, "json", false, "one attempt per line as JSON, best first")
	opts.addRepoFlags(cmd, true)
	return cmd
}

func journalSimilarRun(ctx context.Context, opts *journalSimilarOptions) error {
	j, closeStore, err := opts.openJournal(ctx, false)
	if err != nil {
		return err
	}
	defer closeStore()
	hits, err := j.SimilarAttempts(ctx, opts.Query)
	if err != nil {
		return storeError(err)
	}
	out := opts.IO.Out
	if opts.JSON {
		for _, h := range hits {
			if err := writeJSON(out, h); err != nil {
				return err
			}
		}
		return nil
	}
	if len(hits) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No past attempt is like it.")
		return nil
	}
	for _, h := range hits {
		fmt.Fprintln(out, attemptLine(h.Attempt))
		if len(h.SharedFiles) > 0 {
			fmt.Fprintf(out, "    same files: %s\n", oneLine(strings.Join(h.SharedFiles, ", "), 200))
		}
	}
	return nil
}
