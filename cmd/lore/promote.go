package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type promoteOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	ID         string
	Reactivate bool
	JSON       bool
}

func newPromoteCmd(fac *factory, runF func(context.Context, *promoteOptions) error) *cobra.Command {
	opts := &promoteOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "promote ID",
		Short: "Make a knowledge item active: you vouch for it",
		Long: `Make a knowledge item active, so that new sessions are handed it. You vouch for
it as lore add does: a confidence of 0.7 given by hand joins what sessions gave
it, and stays when lore forget --session takes their evidence back. The
promotion is recorded on the item (lore show ID lists it), and from then on no
harvest changes its status: sessions neither take it back to a candidate nor
supersede it.

A retired or superseded item is not promoted unless you say --reactivate: a
person retired it, or a newer item replaced it (lore show ID says which).
Promoting an active item records that you vouch for it.

Prints the item's id; with --json, the promoted item.

` + storeHelp,
		Example: `  lore promote 3f9a2c1b7d4e
  lore list --status candidate --repo acme/api
  lore promote 3f9a --reactivate     # an item retired by mistake`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return promoteRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Reactivate, "reactivate", false, "promote a retired or superseded item too")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the promoted item as JSON")
	opts.addFlag(cmd)
	return cmd
}

func promoteRun(ctx context.Context, opts *promoteOptions) error {
	s, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return err
	}
	defer s.Close()
	it, err := s.Item(ctx, opts.ID)
	if err != nil {
		return storeError(err)
	}
	if err := promotable(it, opts.Reactivate); err != nil {
		return err
	}
	was := it.Status
	it, err = s.Review(ctx, it.ID, lore.Decision{Action: lore.ReviewPromote, By: reviewer(opts.Env, "lore promote")})
	if err != nil {
		return storeError(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, it)
	}
	fmt.Fprintln(opts.IO.Out, it.ID)
	if was == lore.StatusActive {
		fmt.Fprintf(opts.IO.ErrOut, "active already; recorded that you vouch for it (confidence %.2f)\n", it.Confidence)
	} else {
		fmt.Fprintf(opts.IO.ErrOut, "%s → active (confidence %.2f)\n", was, it.Confidence)
	}
	return nil
}

// promotable refuses to promote a retired or superseded item unless
// reactivate says to: a person took it back, or a newer item replaced it.
func promotable(it lore.Item, reactivate bool) error {
	if reactivate || (it.Status != lore.StatusRetired && it.Status != lore.StatusSuperseded) {
		return nil
	}
	why := ""
	for _, r := range it.Reviews {
		if r.To == lore.StatusRetired && r.By != "" {
			why = fmt.Sprintf(" (by %s, %s)", r.By, r.At.Local().Format("2006-01-02"))
		}
	}
	return lore.Errorf(lore.ECONFLICT, "%s is %s%s; lore promote --reactivate %s makes it active again", it.ID, it.Status, why, it.ID)
}
