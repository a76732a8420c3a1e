package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/fixguard"
)

type guardCheckOptions struct {
	guardOptions
	Rev      string
	Staged   bool
	Worktree bool
	Base     string
	All      bool
}

func newGuardCheckCmd(fac *factory, runF func(context.Context, *guardCheckOptions) error) *cobra.Command {
	opts := &guardCheckOptions{guardOptions: newGuardOptions(fac)}
	cmd := &cobra.Command{
		Use:   "check [--repo DIR] [REV | --staged | --worktree]",
		Short: "Fail when a tree undoes a guarded fix",
		Long: `Check a commit (HEAD by default), what is staged, or the work tree against the
guards of the fixes in its history (lore guard scan keeps them): a fix is undone
when more than half of its guarded lines are gone from every file of the tree (a line
found anywhere, however indented, is kept: code moved or renamed is not undone) or
were taken out of the fix's files by the change and put nowhere else (a copy that
stood elsewhere all along does not keep them), or when a test it added is deleted
or skipped. Only what the change undid fails
the check: a fix already undone in its parent (HEAD for the staged or work tree;
--base names another commit, such as the branch it will be merged into) is
counted as stale; --all reports every fix the tree has undone, whenever.

A fix is let go on purpose by a later commit whose message has a line
"Reverts SHA", "Supersedes SHA" or "Guard-Override: SHA reason" (git revert's own
"This reverts commit" is not one: a revert undoes the fix). A line a later fix
took out is that fix's.

Exit codes: 0 when no fix is undone, 1 when one is (the report names each fix,
its message, its files and lines, and how to let it go), 2 for a usage error.
With --json, one object: the commit, the tree, the guards counted and the alarms.

` + storeHelp,
		Example: `  lore guard check
  lore guard check origin/main
  lore guard check --staged --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("lore guard check takes one revision at most")
			}
			n := len(args)
			if opts.Staged {
				n++
			}
			if opts.Worktree {
				n++
			}
			if n > 1 {
				return usagef("give one of REV, --staged and --worktree")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Rev = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return guardCheckRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Staged, "staged", false, "check what is staged (git add), as the next commit would be")
	cmd.Flags().BoolVar(&opts.Worktree, "worktree", false, "check the files as they are in the work tree")
	cmd.Flags().StringVar(&opts.Base, "base", "", "measure the change from this commit (default: the commit's parent, or HEAD)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "report every guarded fix the tree has undone, not only those the change undid")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	opts.addFlags(cmd)
	return cmd
}

type guardCheckReport struct {
	Repo string `json:"repo"`
	OK   bool   `json:"ok"`
	*fixguard.CheckResult
}

func guardCheckRun(ctx context.Context, opts *guardCheckOptions) error {
	r, name, err := opts.openRepo(ctx)
	if err != nil {
		return err
	}
	if err := opts.local(opts.Env, "lore keeps its guards in a store on this machine", "pass --store PATH"); err != nil {
		// A team's server keeps none: the commit goes on (git's hook runs this).
		fmt.Fprintf(opts.IO.ErrOut, "note: %v (nothing checked)\n", err)
		return nil
	}
	gs, err := opts.readGuards(ctx, name)
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "note: no guards of %s in the store: lore guard scan finds its fixes\n", name)
	}
	res, err := fixguard.Check(ctx, r, gs, fixguard.Target{Rev: opts.Rev, Staged: opts.Staged, Worktree: opts.Worktree, Base: opts.Base, All: opts.All})
	if err != nil {
		return err
	}
	if res.Alarms == nil {
		res.Alarms = []fixguard.Alarm{}
	}
	if res.Overridden == nil {
		res.Overridden = []string{}
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, guardCheckReport{Repo: name, OK: len(res.Alarms) == 0, CheckResult: res}); err != nil {
			return err
		}
	} else {
		writeCheck(opts, name, res)
	}
	if len(res.Alarms) > 0 {
		return errSilent
	}
	return nil
}

// writeCheck writes what check found for a person.
func writeCheck(opts *guardCheckOptions, name string, res *fixguard.CheckResult) {
	what := "commit " + lore.ShortCommit(res.Commit)
	switch res.Tree {
	case "staged":
		what = "the staged tree"
	case "worktree":
		what = "the work tree"
	}
	out := opts.IO.Out
	if len(res.Alarms) == 0 {
		fmt.Fprintf(out, "ok: %s undoes none of the %d guarded fixes of %s", what, res.Guards, name)
		if n := len(res.Overridden); n > 0 {
			fmt.Fprintf(out, "; %d let go by a later commit", n)
		}
		if res.Stale > 0 {
			fmt.Fprintf(out, "; %d undone before %s (lore guard check --all lists them)", res.Stale, lore.ShortCommit(res.Base))
		}
		fmt.Fprintln(out)
		return
	}
	fixes := "fix"
	if len(res.Alarms) > 1 {
		fixes = "fixes"
	}
	fmt.Fprintf(out, "%s undoes %d guarded %s of %s:\n", what, len(res.Alarms), fixes, name)
	for _, a := range res.Alarms {
		g := a.Guard
		fmt.Fprintf(out, "\nfix %s (%s) %q\n", lore.ShortCommit(g.Commit), g.At.Format("2006-01-02"), oneLine(g.Subject, 100))
		if len(a.Missing) > 0 {
			byFile := map[string][]string{}
			var files []string
			for _, l := range a.Missing {
				if byFile[l.File] == nil {
					files = append(files, l.File)
				}
				byFile[l.File] = append(byFile[l.File], l.Text)
			}
			fmt.Fprintf(out, "  %d of its %d lines are gone, not moved:\n", len(a.Missing), len(g.Lines))
			for _, f := range files {
				fmt.Fprintf(out, "    %s:\n", f)
				for i, l := range byFile[f] {
					if i == 8 {
						fmt.Fprintf(out, "      … %d more\n", len(byFile[f])-i)
						break
					}
					fmt.Fprintf(out, "      - %s\n", oneLine(l, 120))
				}
			}
		}
		for _, t := range a.DeletedTests {
			fmt.Fprintf(out, "  its test %s (%s) is deleted\n", t.Name, t.File)
		}
		for _, t := range a.SkippedTests {
			fmt.Fprintf(out, "  its test %s (%s) is skipped\n", t.Name, t.File)
		}
		if len(a.Changes) > 0 {
			fmt.Fprintf(out, "  changed by: %s\n", strings.Join(a.Changes, "\n              "))
		}
	}
	var shas []string
	for _, a := range res.Alarms {
		shas = append(shas, lore.ShortCommit(a.Guard.Commit))
	}
	fmt.Fprintf(out, "\nIf that is meant, say so in the commit message, one line per fix:\n  Guard-Override: %s <reason>\n",
		strings.Join(shas, " <reason>\n  Guard-Override: "))
}
