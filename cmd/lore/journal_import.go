package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/journal"
	"github.com/lorehq/lore/transcript"
)

type journalImportOptions struct {
	IO    *iostreams.IOStreams
	Env   transcript.Env
	Paths []string
	storeOptions
	filterOptions
	Workers int
	DryRun  bool
	JSON    bool
}

// journalImportSummary is what lore journal import --json prints.
type journalImportSummary struct {
	SessionsSeen     int               `json:"sessions_seen"`
	SessionsImported int               `json:"sessions_imported"`
	SessionsSkipped  int               `json:"sessions_skipped"`
	Attempts         int               `json:"attempts"`
	AttemptsFailed   int               `json:"attempts_failed"`
	LessonsNew       int               `json:"lessons_new"`
	LessonsMerged    int               `json:"lessons_merged"`
	Errors           int               `json:"errors"`
	Seconds          float64           `json:"seconds"`
	Bytes            int64             `json:"bytes"`
	Problems         []harvest.Problem `json:"problems,omitempty"`
}

func newJournalImportCmd(fac *factory, runF func(context.Context, *journalImportOptions) error) *cobra.Command {
	opts := &journalImportOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "import [PATH...]",
		Short: "Reconstruct attempts from agents' sessions on disk",
		Long: `Read agents' sessions, as lore harvest finds them, and log each attempt they
made to change code: an arc of file edits followed by build or test runs. An
attempt holds the files edited (relative to the session's folder; edits outside
it are left out), the diff where the transcript holds the edits (Edit, MultiEdit,
Write, replace, str_replace_editor, apply_patch), the user's request it served as
its task, and the tail of its last run's output; it succeeded when that run
passed, and failed when it failed. An arc after a failed one of the same request
on a file it touched too is a retry of it. Edits that no build or test run
followed make no attempt. With no PATH, the agents' default locations are read.

Like harvest, import is incremental: a session whose transcript has not changed
since it was imported is not read again; one that grew is read again, and its
attempts replace those it gave before. Secrets are redacted before anything is
stored. --dry-run imports into a copy of the store and says what it would log.

--json prints one object: sessions_seen, sessions_imported, sessions_skipped,
attempts, attempts_failed, lessons_new, lessons_merged, errors, seconds, bytes,
problems.

A transcript or session that cannot be read is an error: a line on stderr, and
counted, and the run goes on.

` + storeHelp,
		Example: `  lore journal import
  lore journal import ~/.claude/projects --since 2026-01-01
  lore journal import --repo lorehq/lore --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.check(); err != nil {
				return err
			}
			if opts.Workers < 0 {
				return usagef("--workers must not be negative")
			}
			if err := opts.useConfig(opts.Env); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalImportRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Workers, "workers", 0, "transcripts read at once (default: one per CPU)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "count what would be logged, store nothing")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	opts.filterOptions.addFlags(cmd)
	opts.storeOptions.addFlag(cmd)
	return cmd
}

func journalImportRun(ctx context.Context, opts *journalImportOptions) error {
	errOut, out := io.Writer(redactingWriter{opts.IO.ErrOut}), io.Writer(redactingWriter{opts.IO.Out})
	if err := pathsThere(errOut, opts.Paths); err != nil {
		return err
	}
	// A dry run imports into a copy of the store, as harvest's does.
	hopts := &harvestOptions{Env: opts.Env, storeOptions: opts.storeOptions, DryRun: opts.DryRun}
	st, err := hopts.openForHarvest(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	j, ok := journalOf(st)
	if !ok {
		return errors.New("this store keeps no journal")
	}
	listing, pool, err := listForRun(ctx, opts.IO, errOut, opts.Env, opts.Paths, &opts.filterOptions,
		harvest.ListOptions{Store: st, Extractor: lore.JournalImported, DryRun: opts.DryRun})
	if err != nil {
		return err
	}
	im := &journal.Importer{Journal: j}
	bar := newCountProgress(opts.IO, "importing sessions")
	sum, err := harvest.Run(ctx, pool, harvest.Options{Store: st, Extractor: im, Workers: opts.Workers, Listing: listing,
		Progress: func(s harvest.Summary) {
			bar.update(int64(s.SessionsHarvested+s.SessionsSkipped+s.Errors), int64(len(pool)))
		}})
	bar.stop()
	for _, p := range sum.Problems {
		fmt.Fprintf(errOut, "%s (%s): %s\n", p.Session, p.Path, p.Error)
	}
	if err != nil {
		return err
	}
	res := journalImportSummary{SessionsSeen: sum.SessionsSeen, SessionsImported: sum.SessionsHarvested,
		SessionsSkipped: sum.SessionsSkipped, Attempts: im.Logged, AttemptsFailed: im.Failed,
		LessonsNew: sum.ItemsNew, LessonsMerged: sum.ItemsMerged, Errors: sum.Errors + len(listing.Problems),
		Seconds: sum.Seconds, Bytes: sum.Bytes, Problems: sum.Problems}
	for _, p := range listing.Problems {
		res.Problems = append(res.Problems, harvest.Problem{Path: p.Path, Error: p.Err.Error()})
	}
	if opts.JSON {
		return writeJSON(out, res)
	}
	verb := "logged"
	if opts.DryRun {
		verb = "found (dry run, nothing stored)"
	}
	fmt.Fprintf(errOut, "%d sessions: %d imported, %d unchanged or lore's own; %d errors\n",
		res.SessionsSeen, res.SessionsImported, res.SessionsSkipped, res.Errors)
	fmt.Fprintf(errOut, "attempts %s: %d, %d of them failed; lessons: %d new, %d merged\n",
		verb, res.Attempts, res.AttemptsFailed, res.LessonsNew, res.LessonsMerged)
	fmt.Fprintf(errOut, "%.1f s, %s of transcripts read\n", res.Seconds, humanBytes(res.Bytes))
	if res.Attempts > 0 && !opts.DryRun {
		fmt.Fprintln(errOut, "next: lore journal failures lists what failed, lore journal similar TEXT finds earlier attempts like a new one")
	}
	return nil
}

// journalOf is the journal a store keeps, the store's own or that of the
// store a dry run's copy wraps.
func journalOf(st lore.Store) (lore.Journal, bool) {
	if r, ok := st.(removeOnClose); ok {
		st = r.Store
	}
	j, ok := st.(lore.Journal)
	return j, ok
}

// addLessons adds the lessons of attempts as the journal stored them to
// the store that keeps it (lore.AddLessons): lore journal log and
// reflect call it with what they wrote.
func addLessons(ctx context.Context, j lore.Journal, as ...lore.Attempt) error {
	st, ok := j.(interface {
		Add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error)
	})
	if !ok {
		return nil
	}
	_, err := lore.AddLessons(ctx, st, as...)
	return err
}
