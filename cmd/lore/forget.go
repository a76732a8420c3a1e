package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type forgetOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	ID      string
	Session string
	Purge   bool
	JSON    bool
}

func newForgetCmd(fac *factory, runF func(context.Context, *forgetOptions) error) *cobra.Command {
	opts := &forgetOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "forget ID | --session SESSION_ID",
		Short: "Retire or delete an item, or take back what one session taught",
		Long: `Retire an item: it stays in the store (and in exports) but is no longer found or
handed to sessions, and no harvest makes it active again. The retirement is
recorded on the item (lore show ID lists who retired it, and when); lore
promote --reactivate ID brings it back. With --purge it is deleted instead.

With --session, the session's evidence is removed from every item; items left
with no evidence (and not added by hand) are deleted, the others have their
confidence recomputed from the sessions that remain. This is how to take back
what one session taught, for instance one that read a poisoned web page. The
session is marked forgotten: no harvest learns from it again, not when its
transcript grows, not lore harvest --rebuild.

` + storeHelp,
		Example: `  lore forget 3f9a2c1b7d4e
  lore forget 3f9a --purge
  lore forget --session claude-code:1af7fc5e-8c1b-4d0e-9a51-0f3c2b7d9e11`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Session != "" && len(args) > 0:
				return usagef("give an item ID or --session, not both")
			case opts.Session != "" && opts.Purge:
				return usagef("--purge applies to an item ID; --session always deletes what nothing else supports")
			case opts.Session == "" && len(args) != 1:
				return usagef("lore forget takes one item ID, or --session SESSION_ID")
			}
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return forgetRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "remove this session's evidence everywhere")
	cmd.Flags().BoolVar(&opts.Purge, "purge", false, "delete the item instead of retiring it")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was done as JSON")
	opts.addFlag(cmd)
	return cmd
}

func forgetRun(ctx context.Context, opts *forgetOptions) error {
	s, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return err
	}
	defer s.Close()
	var report map[string]any
	if opts.Session != "" {
		res, err := s.ForgetSession(ctx, opts.Session)
		if err != nil {
			return storeError(err)
		}
		// Marked, so that no harvest learns from it again (lore.Forgotten).
		if err := s.RecordHarvest(ctx, lore.Harvest{Session: opts.Session, Extractor: lore.Forgotten, At: time.Now()}); err != nil {
			return storeError(err)
		}
		report = map[string]any{"session": opts.Session, "evidence_removed": res.Evidence,
			"items_updated": res.Updated, "items_deleted": res.Deleted}
		if !opts.JSON {
			if res.Evidence == 0 {
				fmt.Fprintf(opts.IO.Out, "No item has evidence from %s.\n", opts.Session)
				return nil
			}
			fmt.Fprintf(opts.IO.Out, "Removed %d evidence entries of %s: %d item(s) deleted, %d recomputed.\n",
				res.Evidence, opts.Session, res.Deleted, res.Updated)
			return nil
		}
	} else {
		it, err := s.Item(ctx, opts.ID)
		if err != nil {
			return storeError(err)
		}
		action := "retired"
		switch {
		case opts.Purge:
			action = "deleted"
			err = s.Delete(ctx, it.ID)
		case it.Status == lore.StatusRetired:
			// Retired already, and recorded when it was.
		default:
			_, err = s.Review(ctx, it.ID, lore.Decision{Action: lore.ReviewRetire, By: reviewer(opts.Env, "lore forget")})
		}
		if err != nil {
			return storeError(err)
		}
		report = map[string]any{"id": it.ID, "action": action}
		if !opts.JSON {
			fmt.Fprintf(opts.IO.Out, "%s %s\n", action, it.ID)
			return nil
		}
	}
	return writeJSON(opts.IO.Out, report)
}
