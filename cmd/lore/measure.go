package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/measure"
	"github.com/lorehq/lore/transcript"
)

type measureOptions struct {
	IO    *iostreams.IOStreams
	Env   transcript.Env
	Paths []string
	storeOptions
	filterOptions
	ReplayOnly bool
	JSON       bool
	Now        time.Time // zero: the current time
}

func newMeasureCmd(ios *iostreams.IOStreams, runF func(context.Context, *measureOptions) error) *cobra.Command {
	opts := &measureOptions{IO: ios, Env: hostEnv()}
	cmd := &cobra.Command{
		Use:   "measure [PATH...]",
		Short: "Show whether the loop compounds: velocity, hit rate, recurrence, would-have-known",
		Long: `Measure what lore's knowledge does for sessions, from the sessions (PATHs, else the
agents' default locations), the store and the boot records:

  velocity          new items per day, and per million tokens of harvested sessions
  coverage          sessions and repositories harvested, of those found
  hit rate          notes boot handed a session that it cited (lore:ID) or acted on
                    (ran a command the note quotes)
  recurrence        sessions that met an error signature lore already knew when they
                    started; per signature, sessions per week before and after
  first-try success sessions whose tool calls all worked, week by week
  outcomes          sessions by outcome; tokens and minutes of a median session by week
  knowledge         active items, candidates, median age, share not confirmed in 90 days
  would-have-known  sessions replayed in time order into a fresh temporary store, each
                    harvested after the ones before it: of the errors each met, the share
                    earlier sessions had taught, and the share boot (its repository, its
                    first message as the task) would have handed it

--replay prints would-have-known alone. --json prints one object (see the README).

` + storeHelp,
		Example: `  lore measure
  lore measure ~/.claude/projects --since 2026-06-01 --json
  lore measure --replay ./transcripts
  lore dashboard               # the same as Markdown, JSON and an HTML page with charts`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return measureRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.ReplayOnly, "replay", false, "print would-have-known alone")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object")
	opts.filterOptions.addFlags(cmd)
	opts.storeOptions.addFlag(cmd)
	return cmd
}

// measureMetrics reads the sessions and the store and computes the
// metrics; dashboard shares it.
func measureMetrics(ctx context.Context, opts *measureOptions) (measure.Metrics, error) {
	sessions, err := filteredSessions(ctx, opts.IO, opts.Env, opts.Paths, &opts.filterOptions)
	if err != nil {
		return measure.Metrics{}, err
	}
	st, err := opts.openOrEmpty(ctx, opts.Env, true)
	if err != nil {
		return measure.Metrics{}, err
	}
	defer st.Close()
	bar := newCountProgress(opts.IO, "measuring sessions")
	defer bar.stop()
	return measure.Compute(ctx, sessions, st, measure.Options{
		Since: opts.since, Repo: opts.Repo, Now: opts.Now, Replay: true,
		Progress: func(done, total int) { bar.update(int64(done), int64(total)) },
	})
}

func measureRun(ctx context.Context, opts *measureOptions) error {
	m, err := measureMetrics(ctx, opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if opts.ReplayOnly {
			return enc.Encode(m.WouldHaveKnown)
		}
		return enc.Encode(m)
	}
	if opts.ReplayOnly {
		writeReplay(opts.IO.Out, m.WouldHaveKnown)
		return nil
	}
	writeMetrics(opts.IO.Out, m)
	return nil
}

// pct shows a share, or "no data" when it is a share of nothing.
func pct(rate float64, of int) string {
	if of == 0 {
		return "no data"
	}
	return fmt.Sprintf("%.0f%% of %d", rate*100, of)
}

func writeReplay(w io.Writer, k measure.WouldHaveKnown) {
	fmt.Fprintf(w, "would-have-known  %d sessions replayed in time order, %d errors met\n", k.Sessions, k.Errors)
	fmt.Fprintf(w, "  known           %s (taught by an earlier session)\n", pct(k.KnownRate, k.Errors))
	fmt.Fprintf(w, "  delivered       %s (in the boot context of the session)\n", pct(k.DeliveredRate, k.Errors))
}

func writeMetrics(w io.Writer, m measure.Metrics) {
	fmt.Fprintf(w, "%d sessions measured\n", m.Sessions)
	v := m.Velocity
	fmt.Fprintf(w, "velocity          %d items, %.2f a day, %.1f per million tokens harvested\n", v.Items, v.ItemsPerDay, v.ItemsPerMillionTokens)
	c := m.Coverage
	fmt.Fprintf(w, "coverage          %s of sessions harvested, %d of %d repositories\n", pct(c.Share, c.Sessions), c.ReposHarvested, c.Repos)
	h := m.HitRate
	fmt.Fprintf(w, "hit rate          %s injected notes used (%d cited, %d acted on) over %d boots\n", pct(h.Rate, h.Injected), h.Cited, h.ActedOn, h.Boots)
	r := m.Recurrence
	fmt.Fprintf(w, "recurrence        %s sessions with errors met one lore already knew\n", pct(r.Rate, r.SessionsWithErrors))
	f := m.FirstTry
	fmt.Fprintf(w, "first-try success %s sessions with tool calls had none fail\n", pct(f.Rate, f.Sessions))
	fmt.Fprintf(w, "outcomes          %d success, %d failure, %d aborted, %d unknown\n",
		m.Outcomes["success"], m.Outcomes["failure"], m.Outcomes["aborted"], m.Outcomes["unknown"])
	k := m.Knowledge
	fmt.Fprintf(w, "knowledge         %d active, %d candidates, median age %.0f days, %.0f%% stale\n", k.Active, k.Candidates, k.MedianAgeDays, k.StaleShare*100)
	writeReplay(w, m.WouldHaveKnown)
}
