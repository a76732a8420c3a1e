package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/tour"
)

func newTourCmd(fac *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "tour",
		Short: "Run the whole loop on example sessions, touching nothing of yours",
		Long: `Run lore's loop on example sessions built into lore (Claude Code, Codex and Gemini
CLI, four repositories, an error that comes back until a later session avoids it): read the
transcripts, rank them, harvest them, boot a new session, watch it use the note it
was handed, and measure. Everything happens in a temporary folder, removed at the
end; your transcripts and your store are not read or written.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			if _, err := tour.Run(cmd.Context(), fac.IO.Out); err != nil {
				return err
			}
			fmt.Fprintf(fac.IO.ErrOut, "(the tour took %.1f s)\n", time.Since(start).Seconds())
			return nil
		},
	}
}
