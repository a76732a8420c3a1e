package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
)

func newGuardListCmd(fac *factory, runF func(context.Context, *guardOptions) error) *cobra.Command {
	opts := newGuardOptions(fac)
	cmd := &cobra.Command{
		Use:   "list [--repo DIR | --name NAME] [--json]",
		Short: "List the guards kept of a repository's fixes",
		Long: `List the guards lore guard scan kept of a repository's fixes, the oldest fix
first: commit, date, why it is a fix, its subject, how many lines and tests it
guards and its proof. --name reads the guards kept under that name without a
checkout.

With --json, one guard per line, whole (its lines, tests, files and proof): the
guards as the store keeps them, to export or read with jq.

` + storeHelp,
		Example: `  lore guard list
  lore guard list --name spf13/cobra --json > guards.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), &opts)
			}
			return guardListRun(cmd.Context(), &opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one guard per line as JSON")
	opts.addFlags(cmd)
	return cmd
}

func guardListRun(ctx context.Context, opts *guardOptions) error {
	name := opts.Name
	if name == "" {
		_, n, err := opts.openRepo(ctx)
		if err != nil {
			return err
		}
		name = n
	}
	gs, err := opts.readGuards(ctx, name)
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if opts.JSON {
		for _, g := range gs {
			if err := writeJSON(out, g); err != nil {
				return err
			}
		}
		return nil
	}
	if len(gs) == 0 {
		fmt.Fprintf(out, "no guards of %s: lore guard scan finds its fixes\n", name)
		return nil
	}
	for _, g := range gs {
		proof := g.Proof
		if proof == "" {
			proof = "untested"
		}
		fmt.Fprintf(out, "%s  %s  %-8s %s  (%d lines, %d tests, %s)\n", lore.ShortCommit(g.Commit), g.At.Format("2006-01-02"),
			g.Why, oneLine(g.Subject, 70), len(g.Lines), len(g.Tests), proof)
	}
	return nil
}
