package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/fixguard"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// newGuardCmd is lore guard: regression guards mined from a repository's
// fix commits, and the check that fails when a fix is undone.
func newGuardCmd(fac *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "guard",
		Short: "Guard a repository's fixes: fail when a later change undoes one",
		Long: `lore guard reads a repository's git history for fix commits (fix:, fixes #N,
bug, regression, hotfix, a Fixes: trailer, a revert saying what broke) and keeps,
for each, a guard: the lines that carry the fix (not whitespace, imports,
comments, formatting, version bumps, generated files or lockfiles), the tests it
added or changed, its files and message. lore guard check then fails when a tree
has undone a fix: its lines gone, not moved (code moved, renamed or re-indented
is not undone; a copy that stood elsewhere all along does not keep it), or a test
it added deleted or skipped.

Guards are kept in the knowledge store, per repository; each fix also teaches a
candidate pitfall of the repository. Nothing is written to the repository
(lore guard install aside, which adds a git hook).

` + storeHelp,
		Example: `  lore guard scan
  lore guard check                 # HEAD
  lore guard check --staged        # what is about to be committed
  lore guard list --json           # the guards kept, one JSON object per line
  lore guard test --fix 1a2b3c4 --run 'go test ./config'
  lore guard install --hook pre-push`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown guard command %q; see lore guard --help", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		newGuardScanCmd(fac, nil),
		newGuardCheckCmd(fac, nil),
		newGuardListCmd(fac, nil),
		newGuardTestCmd(fac, nil),
		newGuardInstallCmd(fac, nil, false),
		newGuardInstallCmd(fac, nil, true),
	)
	return cmd
}

// guardOptions are what every lore guard command takes.
type guardOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Dir  string // --repo: a folder of the repository
	Name string // --name: the identity guards are kept under
	JSON bool
}

func newGuardOptions(fac *factory) guardOptions {
	return guardOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
}

func (o *guardOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Dir, "repo", "", "a folder of the git repository (default: the current folder)")
	cmd.Flags().StringVar(&o.Name, "name", "", "the repository's name in the store (default: its remote's owner/name, else its folder's name)")
	o.addFlag(cmd)
}

// openRepo opens the repository --repo names (the current folder by
// default) and says the name its guards are kept under.
func (o *guardOptions) openRepo(ctx context.Context) (*fixguard.Repo, string, error) {
	dir := o.Dir
	if dir == "" {
		dir = o.Env.Cwd
	} else if !filepath.IsAbs(dir) && o.Env.Cwd != "" {
		dir = filepath.Join(o.Env.Cwd, dir)
	}
	if dir == "" {
		dir = "."
	}
	r, err := fixguard.Open(ctx, dir)
	if errors.Is(err, fixguard.ErrNotRepo) {
		return nil, "", fmt.Errorf("%s is not in a git repository: lore guard reads a repository's history (--repo DIR)", dir)
	}
	if err != nil {
		return nil, "", err
	}
	name := o.Name
	if name == "" {
		name = transcript.RepoOfDir(cmp.Or(r.Root, dir))
	}
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return nil, "", usagef("cannot name the repository of %s: give --name owner/name", dir)
	}
	return r, name, nil
}

// openGuards opens the store (for writing, or an existing one for
// reading) and its guards.
func (o *guardOptions) openGuards(ctx context.Context, write bool) (lore.Store, lore.FixGuards, error) {
	g, s, err := openAs[lore.FixGuards](ctx, &o.storeOptions, o.Env, write, "guards")
	return s, g, err
}

// readGuards returns the guards kept of the repository name, from an
// existing store opened for reading.
func (o *guardOptions) readGuards(ctx context.Context, name string) ([]lore.FixGuard, error) {
	p, err := o.storePath(o.Env)
	if err != nil {
		return nil, err
	}
	if missing(p) {
		return nil, nil // no store yet: no guards (a hook on a new machine lets the commit through)
	}
	st, guards, err := o.openGuards(ctx, false)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	gs, err := guards.Guards(ctx, name)
	if err != nil {
		return nil, storeError(err)
	}
	return gs, nil
}
