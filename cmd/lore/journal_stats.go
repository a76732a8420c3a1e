package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
)

type journalStatsOptions struct {
	journalOptions
	By    string
	Since string
	Limit int
	since time.Time
}

// journalGroupings are what lore journal stats --by groups attempts by.
var journalGroupings = []string{"area", "file", "approach", "week"}

func newJournalStatsCmd(fac *factory, runF func(context.Context, *journalStatsOptions) error) *cobra.Command {
	opts := &journalStatsOptions{journalOptions: newJournalOptions(fac)}
	cmd := &cobra.Command{
		Use:   "stats [--by area|file|approach|week]",
		Short: "Success rates of attempts, overall and per area, file, approach or week",
		Long: `Count attempts by outcome and give their success rate: successes among the
attempts that ended (success, failure or rollback; pending ones are counted but
not rated). With --by, the same per area, per file (an attempt counts for each
file it touched), per approach or per week, the groups with most attempts first
(weeks in order).

With --json, one object: the counts, the rate and the groups.

` + storeHelp,
		Example: `  lore journal stats
  lore journal stats --by file --since 30d
  lore journal stats --by week --all-repos --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("lore journal stats takes no arguments; --by groups the attempts")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.By != "" && !slices.Contains(journalGroupings, opts.By) {
				return usagef("--by %q: want one of %s", opts.By, strings.Join(journalGroupings, ", "))
			}
			if opts.Limit < 0 {
				return usagef("--limit %d: want 0 (every group) or more", opts.Limit)
			}
			if opts.Since != "" {
				var err error
				if opts.since, err = parseSince(opts.Since, time.Now()); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return journalStatsRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.By, "by", "", "group by area, file, approach or week")
	f.StringVar(&opts.Since, "since", "", "only attempts since then: a day (2026-01-01) or a span back from now (7d, 12h, 2w)")
	f.IntVarP(&opts.Limit, "limit", "n", 20, "at most this many groups (0: every one)")
	f.BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	opts.addRepoFlags(cmd, true)
	cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions(journalGroupings, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// outcomeCounts counts attempts by outcome.
type outcomeCounts struct {
	Group    string   `json:"group,omitempty"`
	Attempts int      `json:"attempts"`
	Success  int      `json:"success"`
	Failure  int      `json:"failure"`
	Rollback int      `json:"rollback"`
	Pending  int      `json:"pending"`
	Rate     *float64 `json:"success_rate"` // nil: none ended
}

func (c *outcomeCounts) add(a lore.Attempt) {
	c.Attempts++
	switch a.Outcome {
	case lore.AttemptSuccess:
		c.Success++
	case lore.AttemptFailure:
		c.Failure++
	case lore.AttemptRollback:
		c.Rollback++
	default:
		c.Pending++
	}
	if ended := c.Success + c.Failure + c.Rollback; ended > 0 {
		r := float64(c.Success) / float64(ended)
		c.Rate = &r
	}
}

func (c outcomeCounts) rate() string {
	if c.Rate == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100**c.Rate)
}

// journalStats is what lore journal stats --json prints.
type journalStats struct {
	outcomeCounts
	Repo   string          `json:"repo"`
	By     string          `json:"by,omitempty"`
	Groups []outcomeCounts `json:"groups,omitempty"`
	// More is how many groups --limit left out.
	More int `json:"more_groups,omitempty"`
}

func journalStatsRun(ctx context.Context, opts *journalStatsOptions) error {
	j, repo, closeStore, err := opts.readJournal(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	st := journalStats{Repo: repo, By: opts.By}
	groups := map[string]*outcomeCounts{}
	err = j.Attempts(ctx, lore.AttemptFilter{Repo: repo, Since: opts.since}, func(a lore.Attempt) error {
		st.add(a)
		for _, key := range groupsOf(a, opts.By) {
			g := groups[key]
			if g == nil {
				g = &outcomeCounts{Group: key}
				groups[key] = g
			}
			g.add(a)
		}
		return nil
	})
	if err != nil {
		return storeError(err)
	}
	for _, g := range groups {
		st.Groups = append(st.Groups, *g)
	}
	slices.SortFunc(st.Groups, func(a, b outcomeCounts) int {
		if opts.By == "week" {
			return strings.Compare(a.Group, b.Group)
		}
		return cmp.Or(cmp.Compare(b.Attempts, a.Attempts), strings.Compare(a.Group, b.Group))
	})
	if opts.Limit > 0 && len(st.Groups) > opts.Limit {
		st.More = len(st.Groups) - opts.Limit
		if opts.By == "week" {
			st.Groups = st.Groups[st.More:] // the latest weeks
		} else {
			st.Groups = st.Groups[:opts.Limit]
		}
	}
	out := opts.IO.Out
	if opts.JSON {
		return writeJSON(out, st)
	}
	if st.Attempts == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No attempts recorded"+inRepo(repo)+" yet: lore journal log records one.")
		return nil
	}
	fmt.Fprintf(out, "%s%s: %d succeeded, %d failed, %d rolled back, %d pending; success rate %s\n",
		plural(st.Attempts, "attempt"), inRepo(repo), st.Success, st.Failure, st.Rollback, st.Pending, st.rate())
	if opts.By == "" {
		return nil
	}
	fmt.Fprintln(out)
	rows := make([][]string, len(st.Groups))
	for i, g := range st.Groups {
		rows[i] = []string{oneLine(g.Group, 0), strconv.Itoa(g.Attempts), strconv.Itoa(g.Success), strconv.Itoa(g.Failure),
			strconv.Itoa(g.Rollback), strconv.Itoa(g.Pending), g.rate()}
	}
	if err := writeTable(out, opts.IO.TerminalWidth(), []string{strings.ToUpper(opts.By), "ATTEMPTS", "SUCCESS", "FAILURE", "ROLLBACK",
		"PENDING", "RATE"}, rows, 0); err != nil {
		return err
	}
	if st.More > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "%d more groups; --limit 0 lists every one.\n", st.More)
	}
	return nil
}

func inRepo(repo string) string {
	if repo == "" {
		return ""
	}
	return " in " + repo
}

// groupsOf returns the groups an attempt counts in.
func groupsOf(a lore.Attempt, by string) []string {
	none := func(s string) string {
		if s = strings.TrimSpace(s); s == "" {
			return "(none)"
		}
		return s
	}
	switch by {
	case "area":
		return []string{none(a.Area)}
	case "approach":
		return []string{none(oneLine(a.Approach, 80))}
	case "file":
		if len(a.Files) == 0 {
			return []string{"(none)"}
		}
		return a.Files
	case "week":
		y, w := a.At.Local().ISOWeek()
		return []string{fmt.Sprintf("%d-W%02d", y, w)}
	}
	return nil
}
