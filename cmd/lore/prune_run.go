package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/archive"
	"github.com/lorehq/lore/transcript"
)

type pruneRunOptions struct {
	IO           *iostreams.IOStreams
	Env          transcript.Env
	Now          func() time.Time
	DB           string
	Archive      string
	LeakAfter    time.Duration
	ArchiveAfter time.Duration
	MaxSessions  int
	DryRun       bool
	NoVacuum     bool
	NoBackup     bool
	JSON         bool
}

// noStateDB turns a missing database into what to do about it.
func noStateDB(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no Hermes state.db at %s: pass --db PATH or set HERMES_HOME", path)
	}
	return err
}

func pruneRun(ctx context.Context, opts *pruneRunOptions) error {
	path, err := stateDBPath(opts.Env, opts.DB)
	if err != nil {
		return err
	}
	bar := newCountProgress(opts.IO, "archiving sessions")
	defer bar.stop()
	r, err := prune.Run(ctx, path, prune.Options{
		LeakAfter: opts.LeakAfter, ArchiveAfter: opts.ArchiveAfter, MaxSessions: opts.MaxSessions,
		Archive: opts.Archive, DryRun: opts.DryRun, NoBackup: opts.NoBackup, NoVacuum: opts.NoVacuum,
		Now:      opts.Now(),
		Progress: func(done, total int) { bar.update(int64(done), int64(total)) },
	})
	bar.stop()
	if err != nil {
		return noStateDB(path, err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, r)
	}
	if r.DryRun {
		writeDryRun(opts.IO.Out, r)
	} else {
		writePruned(opts.IO.Out, r)
	}
	return nil
}

// writeDryRun prints what a prune would do.
func writeDryRun(w io.Writer, r prune.Result) {
	b := r.Before
	fmt.Fprintf(w, "dry run: nothing was changed\n")
	fmt.Fprintf(w, "%s: %s (%s free), %s\n", r.DB, humanBytes(b.FileBytes+b.WALBytes), humanBytes(b.FreeBytes), b.Schema.Summary)
	fmt.Fprintf(w, "sessions  %s: %s ended, %s open, %s of them leaked; messages %s\n\n",
		count(b.Sessions), count(b.Ended), count(b.Open), count(b.Leaked), count(b.Messages))
	writeAges(w, b)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "would close   %s leaked sessions (open, idle over %s): ended_at = their last message, end_reason leaked\n",
		count(r.Leaked), spanString(time.Duration(r.LeakAfterSeconds)*time.Second))
	writeMoves(w, r, "would archive")
	fmt.Fprintf(w, "would save    about %s (VACUUM afterwards)\n", humanBytes(r.EstimatedSavedBytes))
	if r.Unfinished > 0 {
		fmt.Fprintf(w, "would finish  %s sessions an interrupted prune left in both the database and the archive\n", count(r.Unfinished))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeMoves prints what moves (or would move) to the archive and why.
func writeMoves(w io.Writer, r prune.Result, verb string) {
	why := []string{fmt.Sprintf("%s ended over %s ago", count(r.ArchivedByAge), spanString(time.Duration(r.ArchiveAfterSeconds)*time.Second))}
	if r.MaxSessions > 0 {
		why = append(why, fmt.Sprintf("%s beyond --max-sessions %d", count(r.ArchivedByCap), r.MaxSessions))
	}
	fmt.Fprintf(w, "%-13s %s sessions (%s) with %s messages, %s of content, into %s\n",
		verb, count(r.Archived), strings.Join(why, ", "), count(r.ArchivedMessages), humanBytes(r.ArchivedContentBytes), r.Archive)
	if r.KeptForChildren > 0 {
		fmt.Fprintf(w, "kept          %s old sessions that recent or open sessions continue (their links hold)\n", count(r.KeptForChildren))
	}
	if r.CapShort > 0 {
		fmt.Fprintf(w, "kept          %s sessions above --max-sessions: open, or continued by open sessions\n", count(r.CapShort))
	}
	if r.Undated > 0 {
		fmt.Fprintf(w, "kept          %s sessions with no time lore can read\n", count(r.Undated))
	}
}

// writePruned prints what a prune did, before and after.
func writePruned(w io.Writer, r prune.Result) {
	fmt.Fprintf(w, "pruned %s in %.1f s\n", r.DB, r.Seconds)
	if r.Backup != "" {
		size := ""
		if fi, err := os.Stat(r.Backup); err == nil {
			size = " (" + humanBytes(fi.Size()) + ")"
		}
		// The backup stays until the user has seen the prune through.
		fmt.Fprintf(w, "backup        %s%s is still there: once the agent runs well on the pruned database, rm %s\n",
			r.Backup, size, claudehook.ShellQuote(r.Backup))
	}
	fmt.Fprintf(w, "closed        %s leaked sessions\n", count(r.Leaked))
	writeMoves(w, r, "archived")
	if r.ArchivedBytes > 0 {
		fmt.Fprintf(w, "              rows %s compressed to %s (%.1f×); the archive is %s\n", humanBytes(r.ArchivedRawBytes), humanBytes(r.ArchivedBytes),
			float64(r.ArchivedRawBytes)/float64(r.ArchivedBytes), humanBytes(r.ArchiveFileBytes))
	}
	if r.Unfinished > 0 {
		fmt.Fprintf(w, "finished      %s sessions an interrupted prune had left in both places\n", count(r.Unfinished))
	}
	if c := r.Checks; c != nil {
		var fts []string
		for _, name := range slices.Sorted(maps.Keys(c.FTS)) {
			fts = append(fts, name+" "+c.FTS[name])
		}
		fmt.Fprintf(w, "checks        integrity %s; FTS %s; foreign key violations %d\n", c.Integrity, strings.Join(fts, ", "), c.ForeignKeyViolations)
	}
	fmt.Fprintf(w, "vacuum        %s\n", r.Vacuum)
	if a := r.After; a != nil {
		b := r.Before
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "\tbefore\tafter\t")
		fmt.Fprintf(tw, "file\t%s\t%s\t\n", humanBytes(b.FileBytes+b.WALBytes), humanBytes(a.FileBytes+a.WALBytes))
		fmt.Fprintf(tw, "sessions\t%s\t%s\t\n", count(b.Sessions), count(a.Sessions))
		fmt.Fprintf(tw, "open\t%s\t%s\t\n", count(b.Open), count(a.Open))
		fmt.Fprintf(tw, "leaked\t%s\t%s\t\n", count(b.Leaked), count(a.Leaked))
		fmt.Fprintf(tw, "messages\t%s\t%s\t\n", count(b.Messages), count(a.Messages))
		tw.Flush()
		fmt.Fprintf(w, "\nsaved %s\n", humanBytes(r.SavedBytes))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.Archived > 0 {
		fmt.Fprintf(w, "lore prune list shows the archived sessions; lore prune restore ID puts one back\n")
	}
}

type pruneRestoreOptions struct {
	IO      *iostreams.IOStreams
	Env     transcript.Env
	DB      string
	Archive string
	IDs     []string
	JSON    bool
}

func newPruneRestoreCmd(fac *factory, runF func(context.Context, *pruneRestoreOptions) error) *cobra.Command {
	opts := &pruneRestoreOptions{IO: fac.IO, Env: fac.Env}
	cmd := &cobra.Command{
		Use:   "restore SESSION_ID...",
		Short: "Put archived sessions back into the database exactly as they were",
		Long: `Put archived sessions back into the agent's database exactly as they were:
every column of every row, message ids included, indexed again by the
database's own FTS triggers. A session whose parent was archived too brings
the parent back first, so its link holds. Restored sessions leave the archive.

Nothing changes when a session is not in the archive. Restoring works while
the agent runs (one short transaction per session). A restored session older
than --archive-after goes back to the archive at the next lore prune.

` + pruneDBHelp,
		Example: `  lore prune list
  lore prune restore 20250301_101500_a1b2c3 20250302_090000_d4e5f6`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name the sessions to restore: lore prune list shows them")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return pruneRestoreRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "the state.db to restore into (default $HERMES_HOME/state.db, else ~/.hermes/state.db)")
	cmd.Flags().StringVar(&opts.Archive, "archive", "", "the archive (default state-archive.db beside the database)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was restored as JSON")
	return cmd
}

func pruneRestoreRun(ctx context.Context, opts *pruneRestoreOptions) error {
	path, err := stateDBPath(opts.Env, opts.DB)
	if err != nil {
		return err
	}
	r, err := prune.Restore(ctx, path, opts.Archive, opts.IDs)
	if err != nil {
		return noStateDB(path, err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, r)
	}
	for _, s := range r.Restored {
		fmt.Fprintf(opts.IO.Out, "restored %s (%s messages)", s.ID, count(s.Messages))
		if s.ParentOf != "" {
			fmt.Fprintf(opts.IO.Out, ", the parent of %s", s.ParentOf)
		}
		fmt.Fprintln(opts.IO.Out)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(opts.IO.Out, "note: %s\n", n)
	}
	return nil
}

type pruneListOptions struct {
	IO      *iostreams.IOStreams
	Env     transcript.Env
	DB      string
	Archive string
	JSON    bool
}

func newPruneListCmd(fac *factory, runF func(context.Context, *pruneListOptions) error) *cobra.Command {
	opts := &pruneListOptions{IO: fac.IO, Env: fac.Env}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the sessions in the archive",
		Long: `List the sessions prune moved to the archive: id, parent, messages, size
as encoded and as stored, and when it was archived, oldest archived first.

` + pruneDBHelp,
		Example: `  lore prune list
  lore prune list --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return pruneListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "the state.db whose archive to list (default $HERMES_HOME/state.db)")
	cmd.Flags().StringVar(&opts.Archive, "archive", "", "the archive (default state-archive.db beside the database)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON object per archived session")
	return cmd
}

func pruneListRun(ctx context.Context, opts *pruneListOptions) error {
	path := opts.Archive
	if path == "" {
		db, err := stateDBPath(opts.Env, opts.DB)
		if err != nil {
			return err
		}
		path = prune.DefaultArchivePath(db)
	}
	a, err := archive.Open(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no archive at %s: nothing was pruned there yet (--archive names another)", path)
	}
	if err != nil {
		return err
	}
	defer a.Close()
	entries, err := a.List(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		for _, e := range entries {
			if err := writeJSON(opts.IO.Out, struct {
				ID         string    `json:"id"`
				Parent     string    `json:"parent,omitempty"`
				ArchivedAt time.Time `json:"archived_at"`
				Messages   int       `json:"messages"`
				RawBytes   int64     `json:"raw_bytes"`
				Bytes      int64     `json:"bytes"`
			}{e.ID, e.ParentID, e.ArchivedAt, e.Messages, e.RawSize, e.Size}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintf(opts.IO.Out, "the archive %s holds no sessions\n", path)
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "session\tparent\tmessages\trows\tstored\tarchived")
	for _, e := range entries {
		parent := e.ParentID
		if parent == "" {
			parent = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, parent, count(e.Messages), humanBytes(e.RawSize), humanBytes(e.Size), e.ArchivedAt.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}
