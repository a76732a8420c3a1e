package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type showOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	ID   string
	JSON bool
}

func newShowCmd(fac *factory, runF func(context.Context, *showOptions) error) *cobra.Command {
	opts := &showOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one knowledge item with its evidence",
		Long: `Show one knowledge item: its text, scope, confidence, status, times, the
sessions it was learned from, and its history: what people decided about it
(lore review, promote, edit, forget), when and by whom. ID may be the start of an id, when only one item
starts so.

` + storeHelp,
		Example: `  lore show 3f9a2c1b7d4e
  lore show 3f9a --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the item as JSON")
	opts.addFlag(cmd)
	return cmd
}

func showRun(ctx context.Context, opts *showOptions) error {
	s, err := opts.openRead(ctx, opts.Env)
	if err != nil {
		return err
	}
	defer s.Close()
	it, err := s.Item(ctx, opts.ID)
	if err != nil {
		return storeError(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, it, jsonIndent)
	}
	return printItem(ctx, opts.IO.Out, s, it)
}

// printItem prints an item for people, as lore show and lore review
// show it: its text, scope, times, tags, related items (looked up in s),
// evidence and the history of what people decided about it.
func printItem(ctx context.Context, w io.Writer, s lore.Store, it lore.Item) error {
	fmt.Fprintf(w, "%s  %s · %s · confidence %.2f · %d session(s)\n\n", it.ID, it.Category, it.Status, it.Confidence, it.SourceCount)
	fmt.Fprintf(w, "%s\n\n", it.Text)
	row := func(k, v string) { fmt.Fprintf(w, "%-12s%s\n", k, v) }
	row("scope", scopeOf(it))
	row("first seen", it.FirstSeen.Local().Format("2006-01-02 15:04"))
	row("confirmed", it.LastConfirmed.Local().Format("2006-01-02 15:04"))
	if it.Expires.IsZero() {
		row("expires", "never")
	} else {
		note := ""
		if it.Expired(time.Now()) {
			note = " (expired)"
		}
		row("expires", it.Expires.Local().Format("2006-01-02 15:04")+note)
	}
	if it.Signature != "" {
		row("signature", it.Signature)
	}
	if len(it.Tags) > 0 {
		row("tags", strings.Join(it.Tags, ", "))
	}
	for i, id := range it.Related {
		k := ""
		if i == 0 {
			k = "related"
		}
		desc := id
		if r, err := s.Item(ctx, id); err == nil {
			desc = fmt.Sprintf("%s (%s) %s", id, r.Status, oneLine(r.Text, 80))
		}
		row(k, desc)
	}
	for i, e := range it.Evidence {
		k := ""
		if i == 0 {
			k = "evidence"
		}
		row(k, fmt.Sprintf("%s message %d", e.Session, e.Position))
		if i < maxExcerpts {
			if x := oneLine(harvest.Excerpt(ctx, s, e), 240); x != "" {
				row("", "  “"+x+"”")
			}
		}
	}
	for i, r := range it.Reviews {
		k := ""
		if i == 0 {
			k = "history"
		}
		row(k, describeReview(r))
	}
	return nil
}

// describeReview says in a line what a person decided.
func describeReview(r lore.Review) string {
	var b strings.Builder
	b.WriteString(r.At.Local().Format("2006-01-02 15:04") + "  ")
	switch r.Action {
	case lore.ReviewKeep:
		b.WriteString("kept as " + string(r.To))
	case lore.ReviewPromote:
		b.WriteString("promoted")
	case lore.ReviewRetire:
		b.WriteString("retired")
	case lore.ReviewEdit:
		b.WriteString("edited")
	default:
		b.WriteString(string(r.Action))
	}
	if r.From != r.To {
		fmt.Fprintf(&b, " (%s → %s)", r.From, r.To)
	}
	if r.By != "" {
		b.WriteString(" by " + r.By)
	}
	if r.Action == lore.ReviewEdit {
		fmt.Fprintf(&b, "; was: %s", oneLine(r.OldText, 100))
	}
	return b.String()
}

// maxExcerpts is how many of an item's sessions show the message they
// taught it: each is read from its transcript.
const maxExcerpts = 3
