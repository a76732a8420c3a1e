package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/sample"
	"github.com/lorehq/lore/transcript"
)

type sampleOptions struct {
	IO         *iostreams.IOStreams
	Env        transcript.Env
	Paths      []string
	Count      int
	TopPercent float64
	MinScore   int
	Format     string
	JSON       bool
	Output     string
	Now        time.Time // zero: the current time
	filterOptions
}

func newSampleCmd(fac *factory, runF func(context.Context, *sampleOptions) error) *cobra.Command {
	opts := &sampleOptions{IO: fac.IO, Env: fac.Env}
	cmd := &cobra.Command{
		Use:   "sample [PATH...]",
		Short: "Pick the sessions most worth harvesting",
		Long: `Score sessions by how much harvesting them is likely to yield, and print the
best first. With no PATH, the agents' default locations are read.

Score (16 at most), the sum of:
  recency      last active within 7 days 3, within 30 days 2, older 1
  length       more than 50 messages 3, more than 20 2, else 1
  repo_unique  the oldest session of each repository 5, others 1
  outcome      failure 3, success 2, aborted or unknown 1
  tool_calls   more than 10 tool calls 2, else 0
Ties go to the more recently active session, then to the smaller id.

--format json (or --json) prints one object per line, best first: {path, id, agent, score, breakdown,
messages, repos, is_failure}; --format paths prints one transcript path a line,
ready for xargs.`,
		Example: `  lore sample --count 20
  lore sample ~/.claude/projects --top-percent 10 --format paths
  lore sample --repo owner/name --since 2026-01-01 --json --output sample.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := chooseFormat(cmd, opts.JSON, &opts.Format, "table", "json", "paths"); err != nil {
				return err
			}
			if opts.Count < 0 {
				return usagef("--count must not be negative")
			}
			if opts.TopPercent < 0 || opts.TopPercent > 100 {
				return usagef("--top-percent must be between 0 and 100")
			}
			if err := opts.check(); err != nil {
				return err
			}
			if err := opts.useConfig(opts.Env); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sampleRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.Count, "count", "n", 100, "how many sessions to pick (0: all)")
	f.Float64Var(&opts.TopPercent, "top-percent", 0, "pick the best `P` percent instead of --count")
	f.IntVar(&opts.MinScore, "min-score", 0, "drop sessions scoring below this")
	f.StringVar(&opts.Format, "format", "table", "output format: table, json or paths")
	f.BoolVar(&opts.JSON, "json", false, "same as --format json")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` instead of standard output")
	opts.addFlags(cmd)
	return cmd
}

// sampleJSON is one element of lore sample --json.
type sampleJSON struct {
	Path      string           `json:"path"`
	ID        string           `json:"id"`
	Agent     string           `json:"agent"`
	Score     int              `json:"score"`
	Breakdown sample.Breakdown `json:"breakdown"`
	Messages  int              `json:"messages"`
	Repos     []string         `json:"repos"`
	IsFailure bool             `json:"is_failure"`
}

func sampleRun(ctx context.Context, opts *sampleOptions) error {
	pool, err := filteredSessions(ctx, opts.IO, opts.Env, opts.Paths, &opts.filterOptions)
	if err != nil {
		return err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	picked := sample.Select(sample.Score(pool, now), sample.Selection{
		Count: opts.Count, TopPercent: opts.TopPercent, MinScore: opts.MinScore,
	})

	var out io.Writer = opts.IO.Out
	if opts.Output != "" {
		f, err := os.OpenFile(opts.Output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("open output: %w", err)
		}
		defer f.Close()
		out = f
	}
	w := bufio.NewWriter(out)
	redacted := 0 // paths printed redacted
	switch opts.Format {
	case "json":
		// A list: one object per line, as every command that lists
		// prints it (sessions, search, list).
		for _, p := range picked {
			s := p.Session
			repos := []string{}
			if s.Repo != "" {
				repos = append(repos, s.Repo)
			}
			if err := writeJSON(w, sampleJSON{
				Path: secrets.String(s.Path), ID: s.ID, Agent: s.Agent, Score: p.Score, Breakdown: p.Breakdown,
				Messages: s.MessageCount(), Repos: repos, IsFailure: s.Outcome == "failure",
			}); err != nil {
				return err
			}
		}
	case "paths":
		for _, p := range picked {
			path := secrets.String(p.Session.Path)
			if path != p.Session.Path {
				redacted++
			}
			fmt.Fprintln(w, path)
		}
	default:
		rows := make([][]string, len(picked))
		for i, p := range picked {
			s, b := p.Session, p.Breakdown
			rows[i] = []string{strconv.Itoa(p.Score), strconv.Itoa(b.Recency), strconv.Itoa(b.Length), strconv.Itoa(b.RepoUnique),
				strconv.Itoa(b.Outcome), strconv.Itoa(b.ToolCalls), strconv.Itoa(s.MessageCount()), s.Agent,
				cmp.Or(secrets.String(s.Repo), "-"), s.ID}
		}
		// On a terminal the repository is cut to fit its width, never the id.
		if err := writeTable(w, opts.IO.TerminalWidth(), []string{"SCORE", "REC", "LEN", "UNIQ", "OUT", "TOOLS", "MSGS", "AGENT",
			"REPO", "ID"}, rows, 8); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if redacted > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "lore: %d of the paths name what looks like a secret and are printed redacted; give their folder to lore harvest instead\n", redacted)
	}
	if opts.Output != "" {
		fmt.Fprintf(opts.IO.ErrOut, "wrote %d of %d sessions to %s\n", len(picked), len(pool), opts.Output)
	}
	return nil
}
