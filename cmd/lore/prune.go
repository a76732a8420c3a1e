package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/transcript"
)

// pruneRunners replace the work of prune and its subcommands, so that
// tests check flag parsing alone; nil runs the real thing.
type pruneRunners struct {
	Run     func(context.Context, *pruneRunOptions) error
	Stats   func(context.Context, *pruneStatsOptions) error
	Restore func(context.Context, *pruneRestoreOptions) error
	List    func(context.Context, *pruneListOptions) error
}

const pruneDBHelp = `The database is $HERMES_HOME/state.db (HERMES_HOME defaults to ~/.hermes);
--db PATH names another. The archive is state-archive.db beside it unless
--archive names another.`

func newPruneCmd(fac *factory, runners *pruneRunners) *cobra.Command {
	if runners == nil {
		runners = &pruneRunners{}
	}
	opts := &pruneRunOptions{IO: fac.IO, Env: fac.Env, Now: time.Now}
	var leakAfter, archiveAfter string
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Look after an agent's own session database (Hermes state.db)",
		Long: `An agent's own session database grows without bound: Hermes keeps every
session and message in ~/.hermes/state.db, and sessions the agent never closed
(it crashed or was killed) pile up with them. lore prune:

  1. backs the database up (VACUUM INTO state-backup.db beside it, 0600)
     unless --no-backup;
  2. closes leaked sessions, open with no message for longer than
     --leak-after: ended_at becomes their last message's time, end_reason
     "leaked";
  3. moves to the archive the sessions ended longer ago than --archive-after,
     and the oldest beyond --max-sessions, with their messages. A session
     moves only with the sessions that continue it (parent_session_id), so
     every link left in the database holds. The archive is an SQLite file of
     zstd-compressed rows sharing one trained dictionary; every row is read
     back and compared before anything is deleted, and deletes run in short
     transactions through Hermes' own triggers, so the FTS index stays
     consistent and the agent can go on writing;
  4. checks the database (integrity_check, each FTS table's integrity-check,
     foreign keys) and VACUUMs it, unless the agent wrote to it meanwhile or
     --no-vacuum.

A prune cut off at any moment leaves a sound database with every message in
it or in the archive; the next run finishes the job. One prune or restore at
a time uses an archive (a lock file beside it, which the system releases when
the process ends): another is refused, naming the one running. --dry-run changes
nothing and reports the age distribution, the leaked sessions, what would be
archived and about how many bytes it would save.

lore prune restore puts archived sessions back exactly as they were; lore
prune list shows what the archive holds; lore prune stats reports the
database's shape without changing it.

` + pruneDBHelp + `

Exit codes: 0 ok, 1 no database, not a Hermes state.db, or a step failed
(nothing is lost: the error says what stayed where), 2 usage error.`,
		Example: `  lore prune --dry-run
  lore prune
  lore prune --archive-after 14d --max-sessions 500 --json
  lore prune list
  lore prune restore 20250301_101500_a1b2c3
  lore prune stats --db ~/backup/state.db`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown prune command %q: want stats, list or restore, or no argument to prune", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.LeakAfter, err = parseSpan(leakAfter); err != nil {
				return usagef("--leak-after: %v", err)
			}
			if opts.ArchiveAfter, err = parseSpan(archiveAfter); err != nil {
				return usagef("--archive-after: %v", err)
			}
			if opts.MaxSessions < 0 {
				return usagef("--max-sessions: %d: want 0 (no cap) or more", opts.MaxSessions)
			}
			if runners.Run != nil {
				return runners.Run(cmd.Context(), opts)
			}
			return pruneRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.DB, "db", "", "the state.db to prune (default $HERMES_HOME/state.db, else ~/.hermes/state.db)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "change nothing; report what a prune would do")
	f.StringVar(&leakAfter, "leak-after", "7d", "close open sessions idle longer than this (e.g. 7d, 12h)")
	f.StringVar(&archiveAfter, "archive-after", "30d", "archive sessions ended longer ago than this")
	f.IntVar(&opts.MaxSessions, "max-sessions", 0, "keep at most this many sessions, archiving the oldest (0: no cap)")
	f.StringVar(&opts.Archive, "archive", "", "the archive file (default state-archive.db beside the database)")
	f.BoolVar(&opts.NoVacuum, "no-vacuum", false, "do not VACUUM the database afterwards")
	f.BoolVar(&opts.NoBackup, "no-backup", false, "do not back the database up first")
	f.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	cmd.AddCommand(newPruneStatsCmd(fac, runners.Stats), newPruneRestoreCmd(fac, runners.Restore), newPruneListCmd(fac, runners.List))
	return cmd
}

type pruneStatsOptions struct {
	IO        *iostreams.IOStreams
	Env       transcript.Env
	Now       func() time.Time
	DB        string
	LeakAfter time.Duration
	JSON      bool
}

func newPruneStatsCmd(fac *factory, runF func(context.Context, *pruneStatsOptions) error) *cobra.Command {
	opts := &pruneStatsOptions{IO: fac.IO, Env: fac.Env, Now: time.Now}
	var leakAfter string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Report the shape of an agent's session database without changing it",
		Long: `Report the shape of a Hermes state.db: file size and free pages; sessions
ended, open and leaked (open, with no message for longer than --leak-after);
sessions by last activity (under 1, 7, 30, 90 and 365 days, and older) with
their messages and bytes; messages by role and the bytes of their content; the
largest sessions; the space each table and FTS index takes; and the schema
(version, columns, FTS tables and how triggers feed them) as the database
itself reports it.

The database is opened read-only and never changed, so stats is safe while the
agent runs. ` + pruneDBHelp + `

Exit codes: 0 ok, 1 no database or not a Hermes state.db, 2 usage error.`,
		Example: `  lore prune stats
  lore prune stats --leak-after 12h --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseSpan(leakAfter)
			if err != nil {
				return usagef("--leak-after: %v", err)
			}
			opts.LeakAfter = d
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return pruneStatsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "the state.db to read (default $HERMES_HOME/state.db, else ~/.hermes/state.db)")
	cmd.Flags().StringVar(&leakAfter, "leak-after", "7d", "an open session idle longer than this counts as leaked (e.g. 7d, 12h, 30m)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

// parseSpan reads a positive span written as numbers with units w, d,
// h, m or s: 7d, 12h, 30m, 1d12h.
func parseSpan(s string) (time.Duration, error) {
	units := map[byte]time.Duration{'w': 7 * 24 * time.Hour, 'd': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute, 's': time.Second}
	bad := fmt.Errorf("%q: want a positive span such as 7d, 12h or 30m", s)
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, bad
	}
	var total time.Duration
	for in != "" {
		i := 0
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
		if i == 0 || i == len(in) {
			return 0, bad
		}
		unit, ok := units[in[i]]
		if !ok {
			return 0, bad
		}
		n, err := strconv.ParseInt(in[:i], 10, 64)
		if err != nil || n > int64(1<<62)/int64(unit) {
			return 0, bad
		}
		total += time.Duration(n) * unit
		if total < 0 {
			return 0, bad
		}
		in = in[i+1:]
	}
	if total <= 0 {
		return 0, bad
	}
	return total, nil
}

// hermesStateDB is where Hermes keeps its database on this machine, as
// transcript discovery knows it ($HERMES_HOME, else ~/.hermes).
func hermesStateDB(env transcript.Env) (string, error) {
	home := ""
	if env.Getenv != nil {
		home = strings.TrimSpace(env.Getenv("HERMES_HOME"))
	}
	if home == "" && env.Home == "" {
		return "", usagef("no home folder to find Hermes in: set HERMES_HOME or pass --db")
	}
	for _, r := range transcript.DefaultRoots(env) {
		if r.Agent == lore.AgentHermes && filepath.Base(r.Path) == "state.db" {
			return r.Path, nil
		}
	}
	return "", usagef("no default place for Hermes' state.db: pass --db")
}

// stateDBPath is the database a prune command works on: --db, with ~/
// expanded, else Hermes' own.
func stateDBPath(env transcript.Env, db string) (string, error) {
	if db == "" {
		return hermesStateDB(env)
	}
	if strings.HasPrefix(db, "~/") && env.Home != "" {
		return filepath.Join(env.Home, db[2:]), nil
	}
	return db, nil
}

func pruneStatsRun(ctx context.Context, opts *pruneStatsOptions) error {
	path, err := stateDBPath(opts.Env, opts.DB)
	if err != nil {
		return err
	}
	db, err := prune.OpenReadOnly(ctx, path)
	if err != nil {
		return noStateDB(path, err)
	}
	defer db.Close()
	r, err := prune.Stats(ctx, db, opts.Now(), opts.LeakAfter)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, r)
	}
	writeStats(opts.IO.Out, r, opts.LeakAfter)
	return nil
}

// writeStats prints a report for people.
func writeStats(w io.Writer, r prune.Report, leakAfter time.Duration) {
	wal := "no WAL"
	if r.WALBytes > 0 {
		wal = "WAL " + humanBytes(r.WALBytes)
	}
	fmt.Fprintf(w, "%s: %s (%s pages of %s, %s free = %s), %s\n", r.Path, humanBytes(r.FileBytes),
		count(r.Pages), humanBytes(r.PageSize), count(r.FreePages), humanBytes(r.FreeBytes), wal)
	fmt.Fprintf(w, "schema    %s\n", r.Schema.Summary)
	fmt.Fprintf(w, "sessions  %s: %s ended, %s open, %s leaked (open and idle over %s)",
		count(r.Sessions), count(r.Ended), count(r.Open), count(r.Leaked), spanString(leakAfter))
	if r.Children > 0 {
		fmt.Fprintf(w, "; %s continue a parent", count(r.Children))
		if r.BrokenLinks > 0 {
			fmt.Fprintf(w, " (%s parents missing)", count(r.BrokenLinks))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "messages  %s", count(r.Messages))
	if len(r.ByRole) > 0 {
		var parts []string
		for _, role := range rolesByCount(r.ByRole) {
			parts = append(parts, fmt.Sprintf("%s %s", role, count(r.ByRole[role])))
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, ": content %s, system prompts %s", humanBytes(r.ContentBytes), humanBytes(r.SystemPromptBytes))
	if r.OrphanMessages > 0 {
		fmt.Fprintf(w, "; %s belong to no session", count(r.OrphanMessages))
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w)
	writeAges(w, r)

	if len(r.Largest) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "largest sessions\tmessages\tcontent\tlast activity\tstate")
		for _, s := range r.Largest {
			state := "ended"
			if s.Open {
				state = "open"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, count(s.Messages), humanBytes(s.ContentBytes), s.LastActivity.Local().Format("2006-01-02 15:04"), state)
		}
		tw.Flush()
	}
	if len(r.Space) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "space (with indexes)\tbytes")
		for _, s := range r.Space {
			fmt.Fprintf(tw, "%s\t%s\n", s.Name, humanBytes(s.Bytes))
		}
		tw.Flush()
	}
}

// writeAges prints the sessions by last activity.
func writeAges(w io.Writer, r prune.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "last activity\tsessions\topen\tleaked\tmessages\tcontent\t")
	for _, b := range r.Ages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", b.Label, count(b.Sessions), count(b.Open), count(b.Leaked), count(b.Messages), humanBytes(b.ContentBytes))
	}
	tw.Flush()
}

// count writes n with thousands separators.
func count[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// spanString writes a span the way --leak-after takes it.
func spanString(d time.Duration) string {
	for _, u := range []struct {
		unit string
		d    time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}} {
		if d >= u.d && d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.unit
		}
	}
	return d.String()
}

// rolesByCount lists the roles, most messages first.
func rolesByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	return keys
}
