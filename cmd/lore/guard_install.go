package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/fixguard"
	"github.com/lorehq/lore/internal/claudehook"
)

type guardInstallOptions struct {
	guardOptions
	Hook       string
	Uninstall  bool
	Executable func() (string, error)
}

func newGuardInstallCmd(fac *factory, runF func(context.Context, *guardInstallOptions) error, uninstall bool) *cobra.Command {
	opts := &guardInstallOptions{guardOptions: newGuardOptions(fac), Uninstall: uninstall, Executable: fac.Executable}
	use, short := "install", "Add a git hook that runs lore guard check"
	long := `Add to the repository's git hook (pre-push by default, or --hook pre-commit) a
block that runs lore guard check: before a push, lore guard scan (the fixes being
pushed are guarded too) and a check of each commit being pushed; before a
commit, a check of what is staged. An existing hook keeps its own lines; the block goes right after its
first line. lore guard uninstall removes the block, and the hook file when
nothing else is in it.`
	if uninstall {
		use, short = "uninstall", "Remove what lore guard install added to a git hook"
		long = `Remove the block lore guard install added to the git hook (pre-push by default,
or --hook pre-commit), and the hook file when nothing else is in it. Nothing
else in the hook is touched.`
	}
	cmd := &cobra.Command{
		Use:   use + " [--hook pre-push|pre-commit]",
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(fixguard.Hooks, opts.Hook) {
				return usagef("--hook %q: want one of %s", opts.Hook, strings.Join(fixguard.Hooks, ", "))
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return guardInstallRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Hook, "hook", "pre-push", "the git hook: pre-push or pre-commit")
	cmd.Flags().StringVar(&opts.Dir, "repo", "", "a folder of the git repository (default: the current folder)")
	return cmd
}

func guardInstallRun(ctx context.Context, opts *guardInstallOptions) error {
	r, _, err := opts.openRepo(ctx)
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if opts.Uninstall {
		p, changed, err := fixguard.UninstallHook(ctx, r, opts.Hook)
		if err != nil {
			return fmt.Errorf("uninstall the %s hook: %w", opts.Hook, err)
		}
		if changed {
			fmt.Fprintf(out, "removed lore guard from %s\n", p)
		} else {
			fmt.Fprintf(out, "lore guard is not in %s: nothing to remove\n", p)
		}
		return nil
	}
	exe, err := opts.Executable()
	if err != nil {
		return fmt.Errorf("find the lore binary: %w", err)
	}
	if err := claudehook.CheckInstalled(exe); err != nil {
		return err
	}
	p, changed, err := fixguard.InstallHook(ctx, r, opts.Hook, claudehook.ShellQuote(exe))
	if err != nil {
		return fmt.Errorf("install the %s hook: %w", opts.Hook, err)
	}
	if changed {
		fmt.Fprintf(out, "added lore guard check to %s\n", p)
	} else {
		fmt.Fprintf(out, "lore guard is in %s already\n", p)
	}
	return nil
}
