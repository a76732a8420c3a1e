package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/knowledge"
	"github.com/lorehq/lore/transcript"
)

type exportOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Dir  string
	JSON bool
	Now  time.Time // zero: the current time
}

func newExportCmd(fac *factory, runF func(context.Context, *exportOptions) error) *cobra.Command {
	opts := &exportOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "export DIR",
		Short: "Write the store as index.json and markdown files",
		Long: `Write every item of the store under DIR, in a layout meant for a git repository:

  DIR/index.json           every item, all fields ({"version":1,"last_updated",
                           "total_facts","facts":[…]}); what lore import reads
  DIR/global/CATEGORY.md   items with no repo and no agent
  DIR/repos/OWNER__NAME.md items of a repository, whatever their agent
  DIR/agents/AGENT.md      items of an agent, with no repository

The markdown files list active and candidate items for people to read. Markdown
files of an earlier export (known by the note under their title) that would now
be empty are removed; nothing else in DIR is touched, markdown files of your own
included. Exporting the same store twice gives the same files.

` + storeHelp,
		Example: `  lore export knowledge
  lore export ~/src/team-knowledge --store /srv/lore/lore.db`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return exportRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was written as JSON")
	opts.addFlag(cmd)
	return cmd
}

func exportRun(ctx context.Context, opts *exportOptions) error {
	s, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return err
	}
	defer s.Close()
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	st, err := knowledge.Export(ctx, s, opts.Dir, now)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, map[string]any{"dir": opts.Dir, "items": st.Items, "files": st.Files, "removed": st.Removed})
	}
	fmt.Fprintf(opts.IO.Out, "Exported %d items to %s (%d files", st.Items, opts.Dir, len(st.Files))
	if len(st.Removed) > 0 {
		fmt.Fprintf(opts.IO.Out, ", %d stale removed", len(st.Removed))
	}
	fmt.Fprintln(opts.IO.Out, ").")
	return nil
}
