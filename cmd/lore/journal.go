package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// newJournalCmd is lore journal: the record of attempts to change code,
// their outcomes and lessons (lore.Journal).
func newJournalCmd(fac *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "journal",
		Short: "Keep every attempt to change code, its outcome and its lesson",
		Long: `The journal keeps attempts to change code, by agents or people: what was
tried, on which files, with what diff and test output, whether it worked, failed
or was rolled back, why, and what was learned. Before the next attempt, the
similar past ones are one query away: lore journal similar.

Attempts are kept in the knowledge store, their secrets redacted. Commands that
read take the repository of the current checkout unless --repo names another or
--all-repos asks for every one.

` + storeHelp,
		Example: `  lore journal log --task "make the retry test stable" --outcome failure \
      --analysis "the test races the clock" --from-git --worktree
  lore journal similar "flaky retry test" --file client/retry_test.go
  lore journal stats --by area
  lore journal reflect 3f9a "inject the clock; never sleep in tests"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown journal command %q; see lore journal --help", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		newJournalLogCmd(fac, nil),
		newJournalSimilarCmd(fac, nil),
		newJournalStatsCmd(fac, nil),
		newJournalFailuresCmd(fac, nil),
		newJournalShowCmd(fac, nil),
		newJournalFileCmd(fac, nil),
		newJournalReflectCmd(fac, nil),
		newJournalImportCmd(fac, nil),
	)
	for _, c := range cmd.Commands() {
		switch c.Name() {
		case "show", "reflect":
			c.ValidArgsFunction = completeAttemptIDs(fac)
		}
	}
	return cmd
}

// completeAttemptIDs completes an attempt's id from the store (the one
// --store names), each with the start of its task; at most maxCompleted,
// the newest first.
func completeAttemptIDs(fac *factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		o := newJournalOptions(fac)
		o.Store, _ = cmd.Flags().GetString("store")
		j, closeStore, err := o.openJournal(cmd.Context(), false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer closeStore()
		var ids []cobra.Completion
		j.Attempts(cmd.Context(), lore.AttemptFilter{}, func(a lore.Attempt) error {
			if strings.HasPrefix(a.ID, toComplete) {
				ids = append(ids, cobra.CompletionWithDesc(a.ID, oneLine(a.Task, 60)))
			}
			if len(ids) == maxCompleted {
				return errEnough
			}
			return nil
		})
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

// journalOptions are what every journal command shares: the store, the
// repository and --json.
type journalOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Repo     string
	AllRepos bool
	JSON     bool
}

func newJournalOptions(fac *factory) journalOptions {
	return journalOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
}

// addRepoFlags adds --repo and, for commands that read, --all-repos.
func (o *journalOptions) addRepoFlags(cmd *cobra.Command, reads bool) {
	cmd.Flags().StringVar(&o.Repo, "repo", "", "the repository (owner/name, letters in any case); default: the current checkout's")
	if reads {
		cmd.Flags().BoolVar(&o.AllRepos, "all-repos", false, "attempts of every repository")
	}
	o.addFlag(cmd)
}

// repo is the repository the command works on: --repo, else the current
// checkout's, as sessions in it get theirs; "" with --all-repos or outside
// a checkout.
func (o *journalOptions) repo() (string, error) {
	if o.AllRepos {
		if o.Repo != "" {
			return "", usagef("--repo and --all-repos: give one")
		}
		return "", nil
	}
	if o.Repo != "" {
		if strings.ContainsAny(o.Repo, " \t\n") {
			return "", usagef("--repo %q: want owner/name", o.Repo)
		}
		return o.Repo, nil
	}
	if o.Env.Cwd == "" || transcript.CheckoutRoot(o.Env.Cwd) == "" {
		return "", nil
	}
	return transcript.RepoOfDir(o.Env.Cwd), nil
}

// checkoutRoot is the root of the current checkout, "" outside one.
func (o *journalOptions) checkoutRoot() string {
	if o.Env.Cwd == "" {
		return ""
	}
	return transcript.CheckoutRoot(o.Env.Cwd)
}

// openJournal opens the store for reading (an existing one) or writing,
// and its journal.
func (o *journalOptions) openJournal(ctx context.Context, write bool) (lore.Journal, func() error, error) {
	j, s, err := openAs[lore.Journal](ctx, &o.storeOptions, o.Env, write, "journal")
	if err != nil {
		return nil, nil, err
	}
	return j, s.Close, nil
}

// readJournal opens an existing store for reading, and says which
// repository to read (journalOptions.repo).
func (o *journalOptions) readJournal(ctx context.Context) (lore.Journal, string, func() error, error) {
	repo, err := o.repo()
	if err != nil {
		return nil, "", nil, err
	}
	j, closeStore, err := o.openJournal(ctx, false)
	return j, repo, closeStore, err
}

// listAttempts writes the attempts of the repository that f selects and
// keep keeps, newest first, at most limit of them (0: every one); none
// says, of the repository, that there are none.
func (o *journalOptions) listAttempts(ctx context.Context, f lore.AttemptFilter, keep func(lore.Attempt) bool, limit int,
	none func(repo string) string) error {
	j, repo, closeStore, err := o.readJournal(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	f.Repo = repo
	var as []lore.Attempt
	err = j.Attempts(ctx, f, func(a lore.Attempt) error {
		if keep(a) {
			as = append(as, a)
		}
		if limit > 0 && len(as) == limit {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return storeError(err)
	}
	out := o.IO.Out
	if o.JSON {
		for _, a := range as {
			if err := writeJSON(out, a); err != nil {
				return err
			}
		}
		return nil
	}
	if len(as) == 0 {
		fmt.Fprintln(o.IO.ErrOut, none(repo))
		return nil
	}
	for _, a := range as {
		fmt.Fprintln(out, attemptLine(a))
	}
	return nil
}

// errEnough stops reading attempts once a list is full.
var errEnough = errors.New("enough")

// journalOutcome checks an --outcome flag: "" or one of lore's outcomes.
func journalOutcome(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, o := range append([]string{""}, lore.AttemptOutcomes...) {
		if s == o {
			return s, nil
		}
	}
	return "", usagef("--outcome %q: want one of %s", s, strings.Join(lore.AttemptOutcomes, ", "))
}

// relFile is a --file or PATH argument as the journal keeps paths:
// relative to the checkout's root when it is inside it, with slashes.
func (o *journalOptions) relFile(p string) string {
	root := o.checkoutRoot()
	if root == "" || p == "" {
		return filepath.ToSlash(p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		// A path from the current folder when there is such a file; else
		// one from the checkout's root, as agents and git give them.
		if _, err := os.Stat(filepath.Join(o.Env.Cwd, p)); err != nil {
			return filepath.ToSlash(p)
		}
		abs = filepath.Join(o.Env.Cwd, p)
	}
	if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// attemptLine is an attempt on one line, for lists: id, time, outcome,
// task, and the lesson after a dash.
func attemptLine(a lore.Attempt) string {
	s := fmt.Sprintf("%s  %s  %-8s  %s", a.ID, a.At.Local().Format("2006-01-02"), a.Outcome, oneLine(a.Task, 100))
	if l := a.Lesson(); l != "" {
		s += "\n    lesson: " + oneLine(l, 200)
	}
	return s
}
