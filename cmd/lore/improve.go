package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/improve"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// newImproveCmd is lore improve: a loop that has an agent improve the
// repository, kept only where a benchmark it cannot touch says so.
func newImproveCmd(fac *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "improve",
		Short: "Have an agent improve the repository, kept only when a benchmark scores it higher",
		Long: `lore improve runs a loop: measure the repository with a benchmark that prints
points per area, pick the weakest area, have an agent work on it in a worktree of
its own, measure again from lore's own copy of the benchmark, and keep the change
only when the total rose and no area fell. Kept changes go on a branch
(lore/improve); the checkout you work in is never touched.

A change that touches the benchmark, its data or lore's state is rejected; one
that touches protected paths waits for your approval (lore improve pending). After
three tries of three approaches on an area, lore writes an escalation report and
moves on. lore improve stop ends the loop and everything it started.

Its state is in the repository's git folder (.git/lore-improve).`,
		Example: `  lore improve run --bench "sh bench/score.sh" --agent "claude -p" --rounds 5
  lore improve status
  lore improve stop
  lore improve report > morning.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown improve command %q; see lore improve --help", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		newImproveRunCmd(fac, nil),
		newImproveStopCmd(fac, nil),
		newImproveStatusCmd(fac, nil),
		newImprovePendingCmd(fac, nil),
		newImproveApproveCmd(fac, nil),
		newImproveRejectCmd(fac, nil),
		newImproveReportCmd(fac, nil),
	)
	return cmd
}

// improveOptions are what every improve command shares: the repository
// and --json.
type improveOptions struct {
	IO   *iostreams.IOStreams
	Env  transcript.Env
	Repo string
	JSON bool
}

func newImproveOptions(fac *factory) improveOptions {
	return improveOptions{IO: fac.IO, Env: fac.Env}
}

func (o *improveOptions) addRepoFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Repo, "repo", "", "a folder of the repository (default: the current folder)")
}

// dir is the folder of the repository the command works on.
func (o *improveOptions) dir() string {
	if o.Repo != "" {
		return o.Repo
	}
	if o.Env.Cwd != "" {
		return o.Env.Cwd
	}
	return "."
}

// pendingNumber reads the N of approve N and reject N.
func pendingNumber(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return 0, usagef("%q is not a pending change's number (lore improve pending lists them)", arg)
	}
	return n, nil
}

// readImproveStatus reads the status of the repository the options name.
func (o *improveOptions) readStatus(ctx context.Context) (improve.Status, *improve.State, error) {
	s, st, err := improve.ReadStatus(ctx, o.dir())
	if err != nil {
		return s, st, fmt.Errorf("improve status: %w", err)
	}
	return s, st, nil
}
