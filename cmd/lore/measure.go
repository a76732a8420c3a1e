package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
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

func newMeasureCmd(fac *factory, runF func(context.Context, *measureOptions) error) *cobra.Command {
	opts := &measureOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "measure [PATH...]",
		Short: "Show whether the loop compounds: velocity, hit rate, recurrence, would-have-known",
		Long: `Measure what lore's knowledge does for sessions, from the sessions (PATHs, else the
agents' default locations), the store and the boot records:

  velocity          new items per day, and per million tokens of harvested sessions
  coverage          sessions and repositories harvested, of those found
  hit rate          notes boot handed a session that it cited (lore:ID) or acted on
                    (ran a command the note quotes)
  recall            notes lore recall handed a session before a shell command or after
                    a failed tool call, and how many it cited (shown when there are some)
  recurrence        sessions that met an error signature lore already knew when they
                    started; per signature, sessions per week before and after
  first-try success sessions whose tool calls all worked, week by week
  outcomes          sessions by outcome; tokens and minutes of a median session by week
  knowledge         active items, candidates, median age, share not confirmed in 90 days
  would-have-known  sessions replayed in time order into a fresh temporary store, each
                    harvested after the ones before it: of the errors each met, the share
                    earlier sessions had taught, and the share boot (its repository, its
                    first message as the task) would have handed it

--since keeps the sessions active on or after the day, and counts in velocity only
the items first seen since; knowledge is the whole store. --replay prints
would-have-known alone and does not open the store. --json prints one object (see
the README).

` + repoFilterHelp + ` --repo keeps those sessions and items.

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
			if err := opts.useConfig(opts.Env); err != nil {
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
// metrics; dashboard shares it. With --replay the store is not opened:
// would-have-known replays into a temporary store of its own, so the
// user's store, even a damaged one, plays no part.
func measureMetrics(ctx context.Context, opts *measureOptions) (measure.Metrics, error) {
	sessions, err := filteredSessions(ctx, opts.IO, opts.Env, opts.Paths, &opts.filterOptions)
	if err != nil {
		return measure.Metrics{}, err
	}
	var st lore.Store
	if !opts.ReplayOnly {
		if st, err = opts.openOrEmpty(ctx, opts.Env, true); err != nil {
			return measure.Metrics{}, err
		}
		defer st.Close()
	}
	bar := newCountProgress(opts.IO, "measuring sessions")
	defer bar.stop()
	return measure.Compute(ctx, sessions, st, measure.Options{
		Since: opts.since, Repo: opts.Repo, Now: opts.Now, Replay: true,
		ReplayStore: func(ctx context.Context) (lore.Store, error) { return opts.tempStore(ctx, "lore-replay-") },
		Progress:    func(done, total int) { bar.update(int64(done), int64(total)) },
	})
}

func measureRun(ctx context.Context, opts *measureOptions) error {
	m, err := measureMetrics(ctx, opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		if opts.ReplayOnly {
			return writeJSON(opts.IO.Out, m.WouldHaveKnown, jsonIndent)
		}
		return writeJSON(opts.IO.Out, m, jsonIndent)
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
	return fmt.Sprintf("%s of %d", measure.Percent(rate), of)
}

// nOf says how many of a total, then the share: "3 of 29 sessions
// harvested (10%)"; a share of nothing is "no data".
func nOf(n, of int, what string) string {
	if of == 0 {
		return "no data"
	}
	return fmt.Sprintf("%d of %d %s (%s)", n, of, what, measure.Percent(float64(n)/float64(of)))
}

// plural is a count and its noun, singular for one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// replayShown is how many sessions writeReplay lists; --json has them all.
const replayShown = 15

func writeReplay(w io.Writer, k measure.WouldHaveKnown) {
	fmt.Fprintf(w, "would-have-known  %s replayed in time order, %s met\n", plural(k.Sessions, "session"), plural(k.Errors, "error"))
	fmt.Fprintf(w, "  known           %s\n", nOf(k.Known, k.Errors, "errors taught by an earlier session"))
	fmt.Fprintf(w, "  delivered       %s\n", nOf(k.Delivered, k.Errors, "errors in the boot context of the session"))
	fmt.Fprintf(w, "  at the action   %d before the command that met the error, %d after the failure (lore recall); %s\n",
		k.DeliveredBefore, k.DeliveredAfter, nOf(k.DeliveredAny, k.Known, "known errors delivered at some point"))
	if k.KnownOrMet > 0 {
		fmt.Fprintf(w, "  with episodes   %s (%d by an earlier episode); %d had every agent lore's hooks\n",
			nOf(k.DeliveredOrEpisode, k.KnownOrMet, "errors known or met before delivered at some point"), k.DeliveredEpisode,
			k.AllHooked.DeliveredOrEpisode)
	}
	if b := k.Boots; b.Sessions > 0 {
		fmt.Fprintf(w, "  boots           median %d tokens (90th percentile %d), %d notes; %s held a note, median %d tokens\n",
			b.MedianTokens, b.P90Tokens, b.MedianNotes, nOf(b.WithNotes, b.Sessions, "boots"), b.MedianTokensWithNotes)
	}
	if e := k.Episodes; e.SeenBefore > 0 {
		fmt.Fprintf(w, "  episodes        %s (%d first; %d of them errors of the agent's own tools)\n",
			nOf(e.Found, e.SeenBefore, "errors met before named an earlier occurrence in the top 5"), e.FoundFirst, e.AgentTool)
		fmt.Fprintf(w, "                  %s; median %.1f ms (95th percentile %.1f), median %d tokens\n",
			nOf(e.WithFix, e.Found, "found with the call that got past it"), e.MedianMillis, e.P95Millis, e.MedianTokens)
	}
	var knew []measure.ReplayedSession
	for _, s := range slices.Backward(k.BySession) {
		if slices.ContainsFunc(s.Errors, func(e measure.ReplayedError) bool { return e.Known }) {
			knew = append(knew, s)
		}
	}
	if len(knew) == 0 {
		return
	}
	fmt.Fprintf(w, "  sessions that met an error lore knew, latest first:\n")
	for _, s := range knew[:min(len(knew), replayShown)] {
		started := "(no date)       "
		if s.StartedAt != nil {
			started = s.StartedAt.Local().Format("2006-01-02 15:04")
		}
		known, delivered := 0, 0
		for _, e := range s.Errors {
			if e.Known {
				known++
			}
			if e.Delivered {
				delivered++
			}
		}
		fmt.Fprintf(w, "    %s  %s  %s  %s: %d of %d known, %d delivered\n", started, cmp.Or(s.Repo, "-"), s.Agent, s.Session, known, len(s.Errors), delivered)
		for _, e := range s.Errors {
			if !e.Known {
				continue
			}
			how := "known    "
			if e.Delivered {
				how = "delivered"
			}
			fmt.Fprintf(w, "      %s %s  %s\n", how, lore.Cite(e.ItemID), oneLine(e.Signature, 100))
		}
	}
	if len(knew) > replayShown {
		fmt.Fprintf(w, "    … %d more (--json lists all)\n", len(knew)-replayShown)
	}
}

func writeMetrics(w io.Writer, m measure.Metrics) {
	fmt.Fprintf(w, "verdict           %s\n", m.Verdict)
	fmt.Fprintf(w, "%s measured\n", plural(m.Sessions, "session"))
	v := m.Velocity
	items := fmt.Sprintf("%d items", v.Items)
	if m.Since != "" {
		items = fmt.Sprintf("%d items new since %s", v.Items, m.Since)
	}
	perMillion := "no data"
	if v.HarvestedTokens > 0 {
		perMillion = fmt.Sprintf("%.1f", v.ItemsPerMillionTokens)
	}
	fmt.Fprintf(w, "velocity          %s, %.2f a day, %s per million tokens harvested\n", items, v.ItemsPerDay, perMillion)
	c := m.Coverage
	fmt.Fprintf(w, "coverage          %s, %d of %d repositories\n", nOf(c.SessionsHarvested, c.Sessions, "sessions harvested"), c.ReposHarvested, c.Repos)
	h := m.HitRate
	if h.Injected == 0 {
		fmt.Fprintf(w, "hit rate          no data (no boot handed the measured sessions a note)\n")
	} else {
		fmt.Fprintf(w, "hit rate          %s: %d cited, %d acted on, over %s\n",
			nOf(h.Cited+h.ActedOn, h.Injected, "injected notes used"), h.Cited, h.ActedOn, plural(h.Boots, "boot"))
	}
	if rc := m.Recall; rc.BeforeTool+rc.AfterFailure > 0 {
		fmt.Fprintf(w, "recall            %s: %d before a command, %d after a failure\n",
			nOf(rc.Cited, rc.BeforeTool+rc.AfterFailure, "notes handed over at the point of action cited"), rc.BeforeTool, rc.AfterFailure)
	}
	r := m.Recurrence
	fmt.Fprintf(w, "recurrence        %s\n", nOf(r.SessionsHitKnown, r.SessionsWithErrors, "sessions with errors met one lore already knew"))
	if len(r.Signatures) > 0 {
		fmt.Fprintf(w, "  the errors met most, before → after lore knew them:\n")
		for _, s := range r.Signatures[:min(len(r.Signatures), 3)] {
			fmt.Fprintf(w, "    %d → %d sessions, %s → %s a week: %s\n", s.Before, s.After,
				measure.Decimal(s.BeforePerWeek), measure.Decimal(s.AfterPerWeek), oneLine(s.Signature, 80))
		}
	}
	f := m.FirstTry
	fmt.Fprintf(w, "first-try success %s%s\n", nOf(f.Succeeded, f.Sessions, "sessions with tool calls had none fail"), firstTryTrend(f.Weeks))
	fmt.Fprintf(w, "outcomes          %d success, %d failure, %d aborted, %d unknown\n",
		m.Outcomes["success"], m.Outcomes["failure"], m.Outcomes["aborted"], m.Outcomes["unknown"])
	fmt.Fprintf(w, "cost              %s\n", costTrend(m.PerSession))
	k := m.Knowledge
	if k.Active == 0 {
		fmt.Fprintf(w, "knowledge         0 active, %s\n", plural(k.Candidates, "candidate"))
	} else {
		fmt.Fprintf(w, "knowledge         %d active, %s, median age %.0f days, not confirmed in 90 days: %s\n",
			k.Active, plural(k.Candidates, "candidate"), k.MedianAgeDays, pct(k.StaleShare, k.Active))
	}
	writeJournal(w, m.Journal)
	writeHoldout(w, m.Holdout)
	writeSplits(w, "by agent", m.ByAgent)
	writeSplits(w, "by repository", m.ByRepo)
	writeReplay(w, m.WouldHaveKnown)
}

// writeJournal prints what the journal's attempts tell, when it has any.
func writeJournal(w io.Writer, j measure.Journal) {
	if j.Attempts == 0 {
		return
	}
	ended := j.Succeeded + j.Failed + j.RolledBack
	fmt.Fprintf(w, "journal           %s: %d succeeded, %d failed, %d rolled back, %d pending; %s\n",
		plural(j.Attempts, "attempt"), j.Succeeded, j.Failed, j.RolledBack, j.Pending, nOf(j.Succeeded, ended, "ended attempts succeeded"))
	var dated []measure.JournalWeek
	for _, wk := range j.Weeks {
		if wk.Week != "unknown" {
			dated = append(dated, wk)
		}
	}
	if len(dated) > 0 {
		n := 0
		for _, wk := range dated {
			n += wk.Attempts
		}
		first, last := dated[0], dated[len(dated)-1]
		trend := ""
		if len(dated) > 1 {
			trend = fmt.Sprintf("; success %s (week of %s) → %s (week of %s)", pctOf(first.SuccessRate, first.Ended), first.Week,
				pctOf(last.SuccessRate, last.Ended), last.Week)
		}
		fmt.Fprintf(w, "  per week        %.1f on average over %s with attempts%s\n",
			float64(n)/float64(len(dated)), plural(len(dated), "week"), trend)
	}
	for _, g := range []struct {
		name string
		fs   []measure.Failing
	}{{"areas", j.Areas}, {"files", j.Files}} {
		if len(g.fs) == 0 {
			continue
		}
		var parts []string
		for _, f := range g.fs[:min(len(g.fs), 5)] {
			parts = append(parts, fmt.Sprintf("%s (%d of %d)", oneLine(f.Name, 60), f.Failures, f.Attempts))
		}
		fmt.Fprintf(w, "  failing %-7s %s\n", g.name, strings.Join(parts, ", "))
	}
}

// writeHoldout prints the two arms of the holdout, when sessions were
// held out.
func writeHoldout(w io.Writer, h measure.Holdout) {
	if h.Withheld.Sessions == 0 {
		return
	}
	fmt.Fprintf(w, "holdout           sessions with notes against sessions held out (95%% intervals):\n")
	for _, a := range []struct {
		name string
		arm  measure.Arm
	}{{"with notes", h.Treated}, {"held out", h.Withheld}} {
		fmt.Fprintf(w, "  %-10s  %4d sessions; met a known error %s; first try %s; median %s tokens, %s min\n",
			a.name, a.arm.Sessions, a.arm.KnownRate.Of(a.arm.MetKnown, a.arm.Sessions),
			a.arm.FirstTryRate.Of(a.arm.FirstTry, a.arm.ToolSessions),
			measure.ShortTokens(a.arm.MedianTokens), measure.Decimal(a.arm.MedianMinutes))
	}
}

// writeSplits prints the main figures per agent or repository, where the
// sessions mix them.
func writeSplits(w io.Writer, title string, ss []measure.Split) {
	if len(ss) == 0 {
		return
	}
	fmt.Fprintf(w, "%-17s sessions  first try  met a known error  notes used\n", title)
	for _, s := range ss {
		fmt.Fprintf(w, "  %-24s %5d  %9s  %17s  %10s\n", oneLine(cmp.Or(s.Name, "-"), 24), s.Sessions,
			pctOf(s.FirstTryRate, s.ToolSessions), pctOf(s.RecurrenceRate, s.SessionsWithErrors), pctOf(s.HitRate, s.Injected))
	}
}

// pctOf is a share, or "-" when it is of nothing.
func pctOf(r float64, of int) string {
	if of == 0 {
		return "-"
	}
	return measure.Percent(r)
}

// firstTryTrend compares the first and the latest week with sessions:
// "; 50% (week of 2026-05-04) → 70% (week of 2026-05-11)", or nothing
// with fewer than two such weeks.
func firstTryTrend(weeks []measure.Rate) string {
	var dated []measure.Rate
	for _, r := range weeks {
		if r.N > 0 && r.Week != "unknown" {
			dated = append(dated, r)
		}
	}
	if len(dated) < 2 {
		return ""
	}
	a, b := dated[0], dated[len(dated)-1]
	return fmt.Sprintf("; %s (week of %s) → %s (week of %s)", measure.Percent(a.Rate), a.Week, measure.Percent(b.Rate), b.Week)
}

// costTrend is the median session of the first and the latest week that
// say anything about cost.
func costTrend(periods []measure.Period) string {
	var dated []measure.Period
	for _, p := range periods {
		if p.Week != "unknown" && p.SessionsWithTokens+p.SessionsWithMinutes > 0 {
			dated = append(dated, p)
		}
	}
	if len(dated) == 0 {
		return "no data"
	}
	median := func(p measure.Period) string {
		tokens, minutes := "no token data", "no time data"
		if p.SessionsWithTokens > 0 {
			tokens = measure.ShortTokens(p.MedianTokens) + " tokens"
		}
		if p.SessionsWithMinutes > 0 {
			minutes = fmt.Sprintf("%.0f min", p.MedianMinutes)
		}
		return fmt.Sprintf("%s, %s (week of %s)", tokens, minutes, p.Week)
	}
	out := "median session " + median(dated[0])
	if len(dated) > 1 {
		out += " → " + median(dated[len(dated)-1])
	}
	return out
}
