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

type searchOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	itemFlags
	Query  lore.Query
	Status string
	JSON   bool
}

func newSearchCmd(fac *factory, runF func(context.Context, *searchOptions) error) *cobra.Command {
	opts := &searchOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find knowledge items that answer a question",
		Long: `Find the knowledge items that answer a question in your own words. Any word may
match (stop words such as "the" or "how" are dropped, "failing" finds "fails"),
and the best matches come first. No character is special: quotes, colons,
asterisks and words like NEAR or OR are searched as they are.

Active, unexpired items are searched unless --status says otherwise.
--json prints one item per line, best first.

` + repoFilterHelp + `

` + storeHelp,
		Example: `  lore search why does git push fail with 405
  lore search "flaky tests" --repo acme/api --category pitfall
  lore search token --status any --json | jq -r .id`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("lore search needs a QUERY")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query.Text = strings.Join(args, " ")
			if err := opts.filter(&opts.Query.Filter); err != nil {
				return err
			}
			f, err := parseStatusFilter(opts.Status)
			if err != nil {
				return err
			}
			opts.Query.Statuses, opts.Query.AnyStatus = f.Statuses, f.AnyStatus
			if opts.Query.Limit < 1 {
				return usagef("--limit %d: want 1 or more", opts.Query.Limit)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return searchRun(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd, "items")
	f := cmd.Flags()
	f.StringVar(&opts.Status, "status", "active", "only items with this status (active, candidate, superseded, retired; comma-separated), or any")
	f.IntVarP(&opts.Query.Limit, "limit", "n", 10, "at most this many items")
	f.BoolVar(&opts.Query.Expired, "expired", false, "include items whose expiry has passed")
	f.BoolVar(&opts.JSON, "json", false, "one item per line as JSON, best first")
	opts.addFlag(cmd)
	return cmd
}

// parseStatusFilter reads --status: statuses separated by commas, or any.
func parseStatusFilter(s string) (lore.Filter, error) {
	var f lore.Filter
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "any" || part == "all" {
			return lore.Filter{AnyStatus: true}, nil
		}
		st, err := lore.ParseStatus(part)
		if err != nil {
			return f, usageError{fmt.Errorf("--status: %w, or any", err)}
		}
		f.Statuses = append(f.Statuses, st)
	}
	return f, nil
}

func searchRun(ctx context.Context, opts *searchOptions) error {
	s, err := opts.openRead(ctx, opts.Env)
	if err != nil {
		return err
	}
	defer s.Close()
	hits, err := s.Search(ctx, opts.Query)
	if err != nil {
		return storeError(err)
	}
	out := opts.IO.Out
	if opts.JSON {
		for _, h := range hits {
			if err := writeJSON(out, h.Item); err != nil {
				return err
			}
		}
		return nil
	}
	if len(hits) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No items match.")
		return nil
	}
	// The text is cut to the terminal's width; to a pipe, whole.
	rows := make([][]string, len(hits))
	for i, h := range hits {
		rows[i] = []string{h.ID, string(h.Category), fmt.Sprintf("%.2f", h.Confidence), scopeOf(h.Item), oneLine(h.Text, 0)}
	}
	return writeTable(out, opts.IO.TerminalWidth(), []string{"ID", "CATEGORY", "CONF", "SCOPE", "TEXT"}, rows, 4)
}

// scopeOf names an item's scope for people.
func scopeOf(it lore.Item) string {
	switch {
	case it.Repo != "" && it.Agent != "":
		return it.Repo + " · " + it.Agent
	case it.Repo != "":
		return it.Repo
	case it.Agent != "":
		return it.Agent
	}
	return "global"
}
