package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lorehq/lore"
)

type journalLogOptions struct {
	journalOptions
	Attempt lore.Attempt
	// DiffFile and TestsFile are --diff and --tests: a file, or - for
	// standard input.
	DiffFile, TestsFile       string
	PointsBefore, PointsAfter float64
	// FromGit is what --from-git reads: a revision, gitStaged or
	// gitWorktree; "" for none.
	FromGit string
	// flags are the flags given, which a JSON attempt on standard input
	// takes over.
	flags map[string]bool
}

// What --from-git reads besides a revision.
const (
	gitStaged   = "--staged"
	gitWorktree = "--worktree"
)

func newJournalLogCmd(fac *factory, runF func(context.Context, *journalLogOptions) error) *cobra.Command {
	opts := &journalLogOptions{journalOptions: newJournalOptions(fac)}
	var staged, worktree bool
	cmd := &cobra.Command{
		Use:   "log [--task TEXT | < attempt.json] [flags]",
		Short: "Record an attempt to change code",
		Long: `Record an attempt to change code: what was tried (--task, --approach), on which
files, with what diff and test output, and how it ended (--outcome success,
failure, rollback or pending, the default). Prints the attempt's id, or with
--json the attempt as stored.

Without --task, the attempt is one JSON object on standard input, with the
fields lore journal show --json prints (task, approach, area, files, diff, tests,
outcome, analysis, reflection, retries, parent, tags, at, agent, session); flags
given as well replace its fields.

--from-git fills the files and the diff from git: --from-git alone or
--from-git REV reads a commit (HEAD by default), and also takes the task, approach
and time from its message and date when not given; --from-git --staged reads
what is staged, --from-git --worktree every change to tracked files since HEAD
(and the names of new files).

Every text is redacted before it is stored. A diff over 1 MiB is cut at a line's
end and the attempt says how many bytes were left out; of the test output, the
last 16 KiB are kept. An attempt logged again with the same repository, session,
task and files (one with a session) replaces the one stored.

` + storeHelp,
		Example: `  lore journal log --task "cache the token lookups" --file auth/cache.go --outcome success
  go test ./... > test.log; lore journal log --task "fix the retry race" --tests test.log \
      --outcome failure --analysis "the race is in the server" --from-git --worktree
  lore journal log --from-git HEAD~1 --outcome rollback --analysis "broke the login page"
  echo '{"task":"bump go to 1.23","outcome":"success","files":["go.mod"]}' | lore journal log`,
		Args: func(cmd *cobra.Command, args []string) error {
			// --from-git REV, as --from-git=REV.
			if len(args) == 1 && cmd.Flags().Changed("from-git") && opts.FromGit == "HEAD" && !staged && !worktree {
				opts.FromGit = args[0]
				return nil
			}
			if len(args) > 0 {
				return usagef("lore journal log takes no arguments (got %q); the task is --task TEXT", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.flags = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.flags[f.Name] = true })
			switch {
			case staged && worktree:
				return usagef("--staged and --worktree: give one")
			case staged:
				opts.FromGit = gitStaged
			case worktree:
				opts.FromGit = gitWorktree
			}
			if err := opts.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalLogRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	a := &opts.Attempt
	f.StringVar(&a.Task, "task", "", "what the attempt set out to do (required, unless a JSON attempt is on standard input)")
	f.StringVar(&a.Approach, "approach", "", "how it went about it")
	f.StringVar(&a.Area, "area", "", "a label to group attempts by: a component, a benchmark's area")
	f.StringArrayVar(&a.Files, "file", nil, "a file the attempt changed (repeat for more)")
	f.StringVar(&opts.DiffFile, "diff", "", "the diff: a file, or - for standard input")
	f.StringVar(&opts.TestsFile, "tests", "", "the test or build output: a file, or - for standard input (its last 16 KiB are kept)")
	f.StringVar(&a.Outcome, "outcome", "", "success, failure, rollback or pending (default pending)")
	f.StringVar(&a.Analysis, "analysis", "", "why it failed or was rolled back")
	f.StringVar(&a.Reflection, "reflection", "", "the lesson learned")
	f.IntVar(&a.Retries, "retries", 0, "how many times it was retried")
	f.StringVar(&a.Parent, "parent", "", "the id of the attempt this one retries")
	f.Float64Var(&opts.PointsBefore, "points-before", 0, "a benchmark's score before the attempt")
	f.Float64Var(&opts.PointsAfter, "points-after", 0, "a benchmark's score after it")
	f.StringArrayVar(&a.Tags, "tag", nil, "a tag (repeat for more)")
	f.StringVar(&a.Agent, "agent", "", "the agent that made the attempt")
	f.StringVar(&a.Session, "session", "", "the session that made it")
	f.StringVar(&opts.FromGit, "from-git", "", "fill files and diff from git: a commit (HEAD when no value), or with --staged or --worktree")
	f.Lookup("from-git").NoOptDefVal = "HEAD"
	f.BoolVar(&staged, "staged", false, "with --from-git: what is staged")
	f.BoolVar(&worktree, "worktree", false, "with --from-git: every change to tracked files since HEAD")
	f.BoolVar(&opts.JSON, "json", false, "print the stored attempt as JSON")
	opts.addRepoFlags(cmd, false)
	return cmd
}

// parse checks the flags that need no input read.
func (o *journalLogOptions) parse() error {
	if (o.FromGit == gitStaged || o.FromGit == gitWorktree) && !o.flags["from-git"] {
		return usagef("--staged and --worktree go with --from-git")
	}
	if o.FromGit != "" && o.DiffFile != "" {
		return usagef("--diff and --from-git both give the diff; give one")
	}
	if o.DiffFile == "-" && o.TestsFile == "-" {
		return usagef("--diff - and --tests -: standard input holds one of them")
	}
	if o.flags["outcome"] {
		outcome, err := journalOutcome(o.Attempt.Outcome)
		if err != nil {
			return err
		}
		o.Attempt.Outcome = outcome
	}
	if o.Attempt.Retries < 0 {
		return usagef("--retries %d: want 0 or more", o.Attempt.Retries)
	}
	if p := strings.ToLower(o.Attempt.Parent); p != "" && !lore.ValidIDPrefix(p) {
		return usagef("--parent %q: want an attempt id (4 to 24 hex digits)", o.Attempt.Parent)
	}
	if o.flags["points-before"] {
		o.Attempt.PointsBefore = &o.PointsBefore
	}
	if o.flags["points-after"] {
		o.Attempt.PointsAfter = &o.PointsAfter
	}
	return nil
}

// fromStdin reports whether the attempt is a JSON object on standard
// input: no --task, no commit to take it from, and no terminal to read.
func (o *journalLogOptions) fromStdin() bool {
	return !o.flags["task"] && o.FromGit == "" && o.DiffFile != "-" && o.TestsFile != "-" && !o.IO.IsStdinTTY()
}

func journalLogRun(ctx context.Context, opts *journalLogOptions) error {
	a, err := opts.attempt(ctx)
	if err != nil {
		return err
	}
	j, closeStore, err := opts.openJournal(ctx, true)
	if err != nil {
		return err
	}
	defer closeStore()
	as, err := j.LogAttempts(ctx, []lore.Attempt{a})
	if err != nil {
		return storeError(err)
	}
	a = as[0]
	if err := addLessons(ctx, j, a); err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, a)
	}
	fmt.Fprintln(opts.IO.Out, a.ID)
	if a.DiffCut > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "The diff was cut to its first %s: %s left out.\n", humanBytes(int64(len(a.Diff))), humanBytes(int64(a.DiffCut)))
	}
	return nil
}

// attempt builds the attempt from standard input, the flags, the files
// they name and git, reading nothing into the store.
func (o *journalLogOptions) attempt(ctx context.Context) (lore.Attempt, error) {
	a := o.Attempt
	if o.fromStdin() {
		in, err := readAttemptJSON(o.IO.In)
		if err != nil {
			return a, err
		}
		o.overlay(&in)
		a = in
	}
	if o.DiffFile != "" {
		diff, cut, err := o.readHead(o.DiffFile, lore.MaxAttemptDiff+journalReadMargin)
		if err != nil {
			return a, fmt.Errorf("--diff: %w", err)
		}
		a.Diff, a.DiffCut = diff, cut
	}
	if o.TestsFile != "" {
		tests, err := o.readTail(o.TestsFile, lore.MaxAttemptTests+journalReadMargin)
		if err != nil {
			return a, fmt.Errorf("--tests: %w", err)
		}
		a.Tests = tests
	}
	if o.FromGit != "" {
		root := o.checkoutRoot()
		if root == "" {
			return a, usagef("--from-git: %s is not in a git checkout", o.Env.Cwd)
		}
		if err := fromGit(ctx, root, o.FromGit, &a, o.flags); err != nil {
			return a, err
		}
	}
	for i, f := range a.Files {
		a.Files[i] = o.relFile(f)
	}
	if a.Repo == "" {
		repo, err := o.repo()
		if err != nil {
			return a, err
		}
		a.Repo = repo
	}
	if strings.TrimSpace(a.Task) == "" {
		if o.fromStdin() {
			return a, usagef("the attempt on standard input has no task")
		}
		return a, usagef("an attempt needs a task: --task TEXT, or one JSON attempt on standard input")
	}
	if _, err := journalOutcome(a.Outcome); err != nil {
		return a, usagef("unknown outcome %q: want one of %s", a.Outcome, strings.Join(lore.AttemptOutcomes, ", "))
	}
	return a, nil
}

// overlay sets in's fields from the flags given.
func (o *journalLogOptions) overlay(in *lore.Attempt) {
	f, a := o.flags, o.Attempt
	for _, s := range []struct {
		name     string
		dst, src *string
	}{
		{"task", &in.Task, &a.Task}, {"approach", &in.Approach, &a.Approach}, {"area", &in.Area, &a.Area},
		{"outcome", &in.Outcome, &a.Outcome}, {"analysis", &in.Analysis, &a.Analysis}, {"reflection", &in.Reflection, &a.Reflection},
		{"parent", &in.Parent, &a.Parent}, {"agent", &in.Agent, &a.Agent}, {"session", &in.Session, &a.Session}, {"repo", &in.Repo, &o.Repo},
	} {
		if f[s.name] {
			*s.dst = *s.src
		}
	}
	if f["file"] {
		in.Files = a.Files
	}
	if f["tag"] {
		in.Tags = a.Tags
	}
	if f["retries"] {
		in.Retries = a.Retries
	}
	if f["points-before"] {
		in.PointsBefore = a.PointsBefore
	}
	if f["points-after"] {
		in.PointsAfter = a.PointsAfter
	}
}

// journalReadMargin is how much more than an attempt keeps of a diff or
// test output is read: room for the redaction to see whole secrets and
// for a cut at a line's end.
const journalReadMargin = 64 << 10

// maxAttemptJSON bounds the JSON attempt read from standard input: a
// diff of 1 MiB and its escapes, and the rest.
const maxAttemptJSON = 8 << 20

// readAttemptJSON reads one JSON attempt, and nothing after it.
func readAttemptJSON(r io.Reader) (lore.Attempt, error) {
	var a lore.Attempt
	b, err := io.ReadAll(io.LimitReader(r, maxAttemptJSON+1))
	if err != nil {
		return a, fmt.Errorf("read the attempt on standard input: %w", err)
	}
	if len(b) > maxAttemptJSON {
		return a, usagef("the attempt on standard input is over %s: give a long diff with --diff FILE, which is cut", humanBytes(maxAttemptJSON))
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return a, usagef("no attempt on standard input: give --task TEXT, or one JSON attempt")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, usagef("the attempt on standard input is not a JSON attempt: %s", jsonErrorLine(b, dec, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return a, usagef("standard input holds more than one JSON value: give one attempt")
	}
	return a, nil
}

// jsonErrorLine says what is wrong with a JSON document, and where.
func jsonErrorLine(b []byte, dec *json.Decoder, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := dec.InputOffset()
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "it ends too soon"
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Sprintf("%s (line %d)", oneLine(err.Error(), 120), line)
}

// readHead reads the first n bytes of a file (or standard input, for -)
// and counts the rest.
func (o *journalLogOptions) readHead(name string, n int) (string, int, error) {
	r, closeFile, err := o.openInput(name)
	if err != nil {
		return "", 0, err
	}
	defer closeFile()
	head, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return "", 0, err
	}
	rest, err := io.Copy(io.Discard, r)
	return string(head), int(rest), err
}

// readTail reads the last n bytes of a file (or standard input, for -).
func (o *journalLogOptions) readTail(name string, n int) (string, error) {
	r, closeFile, err := o.openInput(name)
	if err != nil {
		return "", err
	}
	defer closeFile()
	if f, ok := r.(*os.File); ok && name != "-" {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > int64(n) {
			if _, err := f.Seek(fi.Size()-int64(n), io.SeekStart); err != nil {
				return "", err
			}
		}
	}
	buf := make([]byte, 0, n)
	chunk := make([]byte, 32<<10)
	for {
		k, err := r.Read(chunk)
		buf = append(buf, chunk[:k]...)
		if len(buf) > 2*n {
			buf = append(buf[:0], buf[len(buf)-n:]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return string(buf[max(0, len(buf)-n):]), nil
}

func (o *journalLogOptions) openInput(name string) (io.Reader, func() error, error) {
	if name == "-" {
		return o.IO.In, func() error { return nil }, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}
