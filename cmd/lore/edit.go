package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type editOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	ID   string
	Text string
	AsIs bool
	JSON bool
}

func newEditCmd(fac *factory, runF func(context.Context, *editOptions) error) *cobra.Command {
	opts := &editOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "edit ID --text TEXT",
		Short: "Reword a knowledge item",
		Long: `Reword a knowledge item. Its id, scope, evidence and status stay; the edit is
recorded on the item with the old text (lore show ID lists it), and from then
on no harvest changes its status: a session that teaches the old text again
adds its evidence to the edited item.

The new text passes the screen lore add applies: secrets are redacted, text
that reads as an instruction aimed at an agent is refused (exit 1), and an
order that names nothing of a project or asks for harm makes the item a held
candidate. --as-is takes your text as it is.

Prints the item's id; with --json, the edited item.

` + storeHelp,
		Example: `  lore edit 3f9a2c1b7d4e --text "Pushing to main returns HTTP 405: open a pull request"
  lore edit 3f9a --text "make check runs the linters and the tests" --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if !cmd.Flags().Changed("text") {
				return usagef(`lore edit needs the new text: lore edit %s --text "…"`, opts.ID)
			}
			if strings.TrimSpace(opts.Text) == "" {
				return usagef("--text is empty")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return editRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Text, "text", "", "the item's new text (required)")
	cmd.Flags().BoolVar(&opts.AsIs, "as-is", false, "take the text as written: not refused as an instruction, not held as an order")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the edited item as JSON")
	opts.addFlag(cmd)
	return cmd
}

func editRun(ctx context.Context, opts *editOptions) error {
	d, err := lore.EditDecision(opts.Text, opts.AsIs, reviewer(opts.Env, "lore edit"))
	if err != nil {
		return fmt.Errorf("%w; --as-is takes it as written", err)
	}
	s, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return err
	}
	defer s.Close()
	it, err := s.Review(ctx, opts.ID, d)
	if err != nil {
		return storeError(err)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, it); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(opts.IO.Out, it.ID)
	}
	if d.Hold {
		fmt.Fprintln(opts.IO.ErrOut, heldNote)
	}
	return nil
}

const heldNote = "held as a candidate: it reads as an order that names nothing of a project or asks for harm; --as-is takes it as written"

// reviewer names who decides, for the item's history: the user the
// environment names, and the command.
func reviewer(env transcript.Env, via string) string {
	if env.Getenv != nil {
		for _, k := range []string{"USER", "LOGNAME", "USERNAME"} {
			if u := strings.TrimSpace(env.Getenv(k)); u != "" {
				return u + " via " + via
			}
		}
	}
	return via
}
