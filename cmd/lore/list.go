package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type listOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	itemFlags
	Filter lore.Filter
	Status string
	Limit  int
	JSON   bool
}

// itemFlags choose items by scope and category, as a person names them:
// list, review and search take them.
type itemFlags struct {
	Repo     string
	Agent    string
	Category string
}

// addFlags adds --repo, --agent and --category, saying which of items
// they select ("items", "candidates").
func (o *itemFlags) addFlags(cmd *cobra.Command, items string) {
	cmd.Flags().StringVar(&o.Repo, "repo", "", "only "+items+" of this repository: "+repoFilterFlag)
	cmd.Flags().StringVar(&o.Agent, "agent", "", "only "+items+" scoped to this agent")
	cmd.Flags().StringVarP(&o.Category, "category", "c", "", "only "+items+" of this category")
}

// filter checks the flags and sets them in f.
func (o *itemFlags) filter(f *lore.Filter) error {
	if o.Category != "" {
		c, err := lore.ParseCategory(o.Category)
		if err != nil {
			return usageError{err}
		}
		f.Category = c
	}
	if err := checkAgent(&o.Agent); err != nil {
		return err
	}
	f.Repo, f.Agent = o.Repo, o.Agent
	f.AnyOwner = true // --repo is a person's filter: lore.RepoMatches
	return nil
}

func newListCmd(fac *factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the knowledge items in the store, newest first",
		Long: `List the knowledge items in the store, the most recently learned first: what lore
knows, and what it is still unsure of. Active items and candidates are listed
unless --status says otherwise; candidates are what lore learned from one
session and hands out only once a second session confirms them, or you promote
them (lore review, lore promote ID).

` + repoFilterHelp + `

With --json, each item is one JSON object on its own line, as lore search --json
writes them.

` + storeHelp,
		Example: `  lore list
  lore list --status candidate --repo acme/api
  lore list --category pitfall --status any --json | jq -r .text`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("lore list takes no arguments; to find items by words: lore search %s", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.filter(&opts.Filter); err != nil {
				return err
			}
			f, err := parseStatusFilter(opts.Status)
			if err != nil {
				return err
			}
			opts.Filter.Statuses, opts.Filter.AnyStatus = f.Statuses, f.AnyStatus
			if opts.Limit < 0 {
				return usagef("--limit %d: want 0 (every item) or more", opts.Limit)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd, "items")
	f := cmd.Flags()
	f.StringVar(&opts.Status, "status", "active,candidate", "only items with this status (active, candidate, superseded, retired; comma-separated), or any")
	f.IntVarP(&opts.Limit, "limit", "n", 0, "at most this many items (0: every one)")
	f.BoolVar(&opts.Filter.Expired, "expired", false, "include items whose expiry has passed")
	f.BoolVar(&opts.JSON, "json", false, "one item per line as JSON, newest first")
	opts.addFlag(cmd)
	return cmd
}

func listRun(ctx context.Context, opts *listOptions) error {
	s, err := opts.openRead(ctx, opts.Env)
	if err != nil {
		return err
	}
	defer s.Close()
	items, err := listItems(ctx, s, opts.Filter)
	if err != nil {
		return err
	}
	slices.SortStableFunc(items, func(a, b lore.Item) int {
		return cmp.Or(b.FirstSeen.Compare(a.FirstSeen), cmp.Compare(a.ID, b.ID))
	})
	if opts.Limit > 0 && len(items) > opts.Limit {
		items = items[:opts.Limit]
	}
	out := opts.IO.Out
	if opts.JSON {
		for _, it := range items {
			if err := writeJSON(out, it); err != nil {
				return err
			}
		}
		return nil
	}
	if len(items) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No items match.")
		return nil
	}
	// The text is cut to the terminal's width; to a pipe, whole.
	rows := make([][]string, len(items))
	for i, it := range items {
		rows[i] = []string{it.ID, string(it.Status), string(it.Category), fmt.Sprintf("%.2f", it.Confidence),
			strconv.Itoa(it.SourceCount), scopeOf(it), oneLine(it.Text, 0)}
	}
	return writeTable(out, opts.IO.TerminalWidth(), []string{"ID", "STATUS", "CATEGORY", "CONF", "SESSIONS", "SCOPE", "TEXT"}, rows, 6)
}

// listItems reads every item f selects.
func listItems(ctx context.Context, s lore.Store, f lore.Filter) ([]lore.Item, error) {
	var items []lore.Item
	err := s.Items(ctx, f, func(it lore.Item) error {
		items = append(items, it)
		return nil
	})
	return items, err
}
