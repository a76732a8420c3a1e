package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/knowledge"
	"github.com/lorehq/lore/transcript"
)

type importOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Path string
	AsIs bool
	JSON bool
}

func newImportCmd(fac *factory, runF func(context.Context, *importOptions) error) *cobra.Command {
	opts := &importOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "import PATH",
		Short: "Read items from an export or a JSON-lines file into the store",
		Long: `Read knowledge items into the store. PATH is a folder written by lore export
(its index.json is read), an index.json, or a file of items as JSON, one per line
(what lore search --json prints); - reads standard input.

Items keep their ids, confidence, times and status (an item written by hand
without a confidence has lore add's, 0.7); an item whose id is already
stored is merged into it. The whole file is checked first and written in one
transaction: a file with a mistake is rejected with its line, and nothing of it
is stored.

A file may come from anyone, and its items are handed to agents, so they pass
the screen harvest applies: an item that reads as an instruction aimed at an
agent ("ignore previous instructions", however spelled) is left out and named
on stderr, and an order that names nothing of a project or asks for harm
("always push with --force to main") is imported as a held candidate, never
handed out until a person makes it active. --as-is imports a file you wrote or
trust as it is.

` + storeHelp,
		Example: `  lore import knowledge
  lore import items.jsonl
  lore search token --status any --json | lore import - --store other.db
  lore import my-notes.jsonl --as-is`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return importRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.AsIs, "as-is", false, "import every item as written: no instruction is left out, no order held")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was imported as JSON")
	opts.addFlag(cmd)
	return cmd
}

func importRun(ctx context.Context, opts *importOptions) error {
	var f *knowledge.File
	var err error
	if opts.Path == "-" {
		f, err = knowledge.ReadFrom(opts.IO.In, "standard input")
	} else {
		f, err = knowledge.Read(opts.Path)
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	var sc knowledge.Screened
	if !opts.AsIs {
		sc = f.Screen()
	}
	for _, at := range sc.Refused {
		fmt.Fprintf(opts.IO.ErrOut, "%s: left out: it reads as an instruction aimed at an agent (--as-is imports it)\n", at)
	}
	s, err := opts.open(ctx, opts.Env, false)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := f.Import(ctx, s)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	counts := map[lore.AddAction]int{}
	for _, r := range res {
		counts[r.Action]++
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, map[string]any{"path": opts.Path, "items": len(res),
			"created": counts[lore.Created], "merged": counts[lore.Merged], "unchanged": counts[lore.Unchanged],
			"refused": len(sc.Refused), "held": sc.Held})
	}
	fmt.Fprintf(opts.IO.Out, "Imported %d items from %s: %d new, %d merged, %d unchanged.\n",
		len(res), opts.Path, counts[lore.Created], counts[lore.Merged], counts[lore.Unchanged])
	if len(sc.Refused) > 0 || sc.Held > 0 {
		fmt.Fprintf(opts.IO.Out, "Left out %d that read as instructions to an agent; held %d orders as candidates, tagged %s.\n",
			len(sc.Refused), sc.Held, lore.TagHeld)
	}
	return nil
}
