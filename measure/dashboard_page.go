package measure

import (
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/svgchart"
)

// dashboardHTML is the page, a template of its own so that its markup
// and style read as a page; dashboard.html.tmpl says what it holds.
//
//go:embed dashboard.html.tmpl
var dashboardHTML string

var dashboardPage = template.Must(template.New("index").Funcs(template.FuncMap{
	"shares": func(what, unit string, rows []dashCount) dashShares {
		return dashShares{What: what, Unit: unit, Rows: rows}
	},
}).Parse(dashboardHTML))

// dashShares is a table of counts and their shares.
type dashShares struct {
	What, Unit string
	Rows       []dashCount
}

type dashPage struct {
	Generated    string
	GeneratedISO string
	Scope        string
	Sessions     string
	Verdict      string
	Headlines    []dashHeadline
	Charts       []dashChart
	Signatures   []dashSignatureRow
	Outcomes     []dashCount
	Categories   []dashCount
	Failing      []dashFailing
	Splits       []dashSplits
	Holdout      []dashArm // the two arms, when sessions were held out
}

// dashSplits is the main figures by agent or by repository, where the
// measured sessions mix several.
type dashSplits struct {
	Title string
	Rows  []dashSplitRow
}

type dashSplitRow struct {
	Name, Sessions, FirstTry, MetKnown, NotesUsed string
}

// dashArm is one side of the holdout, with 95% intervals.
type dashArm struct {
	Name, Sessions, MetKnown, FirstTry, Tokens, Minutes string
}

func dashSplitTables(m Metrics) []dashSplits {
	var out []dashSplits
	for _, t := range []struct {
		title string
		ss    []Split
	}{{"By agent", m.ByAgent}, {"By repository", m.ByRepo}} {
		if len(t.ss) < 2 {
			continue
		}
		d := dashSplits{Title: t.title}
		for _, s := range t.ss {
			name := s.Name
			if name == "" {
				name = "(none)"
			}
			d.Rows = append(d.Rows, dashSplitRow{Name: name, Sessions: dashInt(int64(s.Sessions)),
				FirstTry: dashShareOf(s.FirstTryRate, s.ToolSessions), MetKnown: dashShareOf(s.RecurrenceRate, s.SessionsWithErrors),
				NotesUsed: dashShareOf(s.HitRate, s.Injected)})
		}
		out = append(out, d)
	}
	return out
}

// dashShareOf is a share with what it is of, or "–" when of nothing.
func dashShareOf(r float64, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%s of %d", Percent(r), of)
}

func dashHoldout(h Holdout) []dashArm {
	if h.Withheld.Sessions == 0 {
		return nil
	}
	var out []dashArm
	for _, a := range []struct {
		name string
		arm  Arm
	}{{"with notes", h.Treated}, {"held out", h.Withheld}} {
		out = append(out, dashArm{Name: a.name, Sessions: dashInt(int64(a.arm.Sessions)),
			MetKnown: a.arm.KnownRate.Of(a.arm.MetKnown, a.arm.Sessions),
			FirstTry: a.arm.FirstTryRate.Of(a.arm.FirstTry, a.arm.ToolSessions),
			Tokens:   ShortTokens(a.arm.MedianTokens), Minutes: Decimal(a.arm.MedianMinutes)})
	}
	return out
}

type dashSignatureRow struct {
	Signature, KnownSince, Before, After, BeforePerWeek, AfterPerWeek string
}

func newDashPage(m Metrics) dashPage {
	p := dashPage{
		Generated: dashGenerated(m.GeneratedAt),
		Scope:     dashScope(m),
		Sessions:  dashN(m.Sessions, "session"),
		Verdict:   m.Verdict,
		Headlines: dashHeadlines(m),
		Charts: []dashChart{
			// In pairs of about the same height, for the two-column grid.
			velocityChart(m.Velocity),
			firstTryChart(m.FirstTry),
			wouldHaveKnownChart(m.WouldHaveKnown),
			hitRateChart(m.HitRate),
			recurrenceChart(m.Recurrence),
			costChart(m.PerSession),
			journalAttemptsChart(m.Journal),
			journalSuccessChart(m.Journal),
		},
		Failing:    dashFailingRows(m.Journal),
		Outcomes:   dashOutcomes(m.Outcomes),
		Categories: dashCategories(m.Knowledge.ByCategory),
		Splits:     dashSplitTables(m),
		Holdout:    dashHoldout(m.Holdout),
	}
	if len(m.Improve) > 0 {
		p.Charts = append(p.Charts, improveChart(m.Improve))
	}
	if !m.GeneratedAt.IsZero() {
		p.GeneratedISO = m.GeneratedAt.UTC().Format(time.RFC3339)
	}
	for _, s := range m.Recurrence.Signatures {
		p.Signatures = append(p.Signatures, dashSignatureRow{
			Signature: s.Signature, KnownSince: dashDate(s.KnownSince),
			Before: dashInt(int64(s.Before)), After: dashInt(int64(s.After)),
			BeforePerWeek: Decimal(s.BeforePerWeek), AfterPerWeek: Decimal(s.AfterPerWeek),
		})
	}
	return p
}

// Charts: each is drawn here from the metrics as shapes in a 640-wide
// viewBox; svgchart writes them out and the page's style colours them.

const chartWidth = 640

// dashChart is one figure of the page: a heading, a sentence that says
// what the chart shows in words, and the chart (whose ID is the figure's
// data-chart).
type dashChart struct {
	Heading string
	Summary string
	Chart   *svgchart.Chart
}

// newDashChart starts a chart h high, with title the svg's title, and
// margins around its plot area.
func newDashChart(id, heading, title string, h, left, top, right, bottom float64) (dashChart, *svgchart.Frame) {
	f := svgchart.New(id, title, chartWidth, h, svgchart.Margins{Left: left, Top: top, Right: right, Bottom: bottom})
	return dashChart{Heading: heading, Chart: f.Chart}, f
}

func chartPercentTicks() []float64 { return []float64{0, 0.25, 0.5, 0.75, 1} }

func chartCount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func chartTokens(v float64) string { return ShortTokens(int64(math.Round(v))) }

func velocityChart(v Velocity) dashChart {
	c, f := newDashChart("velocity", "Knowledge velocity", "New knowledge items per day", 300, 56, 20, 36, 44)
	var days []Day
	undated := 0
	for _, d := range v.Days {
		if dashDated(d.Date) {
			days = append(days, d)
		} else {
			undated += d.Items
		}
	}
	c.Summary = "No items yet."
	if len(v.Days) > 0 {
		c.Summary = fmt.Sprintf("%s items per day on average; %s items in the store.", Decimal(v.ItemsPerDay), dashInt(int64(v.Items)))
	}
	c.Summary += dashUndrawn(undated, "items")
	if len(days) == 0 {
		f.Empty("day", "new items")
		return c
	}
	dates, counts := make([]string, len(days)), make([]int, len(days))
	for i, d := range days {
		dates[i], counts[i] = d.Date, d.Items
	}
	bars(f, dates, counts, 1, "day", "new items", func(i int) string {
		return fmt.Sprintf("%s: %s new items", dates[i], dashInt(int64(counts[i])))
	})
	return c
}

// bars draws a count per date (of days step days apart) as bars, each
// with its title.
func bars(f *svgchart.Frame, dates []string, counts []int, step int, axis, what string, title func(i int) string) {
	top, ticks := svgchart.Scale(float64(slices.Max(counts)), true)
	f.YAxis(top, ticks, chartCount, what)
	slots := f.TimeAxis(dates, step, axis)
	w := slots.Width
	if w >= 3 {
		w *= 0.8
	}
	w = max(w, 2) // a day on a span of years is still seen
	for i, n := range counts {
		y := f.Y(float64(n), top)
		f.Rect(slots.X[i]-w/2, y, w, f.Y1-y, "bar", title(i))
	}
}

// weekRate is a week's point of a line of shares: its rate of n.
type weekRate struct {
	week  string
	rate  float64
	n     int
	title string
}

// rateLine draws shares week by week as a line, leaving out the weeks
// of no data (n 0) and breaking it over weeks left out.
func rateLine(f *svgchart.Frame, weeks []weekRate, what string) {
	f.YAxis(1, chartPercentTicks(), Percent, what)
	dates := make([]string, len(weeks))
	for i, w := range weeks {
		dates[i] = w.week
	}
	slots := f.TimeAxis(dates, 7, "week (Monday)")
	samples := make([]svgchart.Sample, len(weeks))
	for i, w := range weeks {
		samples[i] = svgchart.Sample{X: slots.X[i], Y: f.Y(w.rate, 1), Missing: w.n == 0, Gap: i > 0 && weekGap(dates[i-1], dates[i]),
			Title: w.title}
	}
	f.Series("s1", samples)
}

func recurrenceChart(r Recurrence) dashChart {
	const rowH, top, bottom = 40.0, 40.0, 44.0
	top10 := dashTopSignatures(r.Signatures, 10)
	h := top + rowH*float64(len(top10)) + bottom
	if len(top10) == 0 {
		h = 300
	}
	c, f := newDashChart("recurrence", "Known errors, before and after",
		"Sessions per week that met each known error, before and after lore knew it", h, 16, top, 64, bottom)
	xLabel := "sessions per week that met the error"
	if len(top10) == 0 {
		c.Summary = "No known error has been met yet."
		f.Empty(xLabel, "")
		return c
	}
	c.Summary = fmt.Sprintf("The %d known errors met in most sessions; the after bar should be shorter.", len(top10))
	f.Legend(18, svgchart.Swatch{Class: "before", Name: "before lore knew it"}, svgchart.Swatch{Class: "after", Name: "after"})
	most := 0.0
	for _, s := range top10 {
		most = max(most, s.BeforePerWeek, s.AfterPerWeek)
	}
	scaleTop, ticks := svgchart.Scale(most, false)
	x := func(v float64) float64 { return f.X0 + v/scaleTop*(f.X1-f.X0) }
	for _, t := range ticks {
		f.Line(x(t), f.Y0-4, x(t), f.Y1, "grid")
		f.Text(x(t), f.Y1+17, "middle", "tick", chartCount(t))
	}
	f.Line(f.X0, f.Y1, f.X1, f.Y1, "axis")
	f.XLabel(xLabel)
	for i, s := range top10 {
		ry := f.Y0 + rowH*float64(i)
		label := s.Signature
		if utf8.RuneCountInString(label) > 80 {
			label = string([]rune(label)[:79]) + "…"
		}
		f.Text(f.X0, ry+10, "start", "siglabel", label)
		for j, bar := range []struct {
			class  string
			perWk  float64
			n      int
			period string
		}{{"before", s.BeforePerWeek, s.Before, "before"}, {"after", s.AfterPerWeek, s.After, "after"}} {
			by := ry + 14 + float64(j)*12
			w := x(bar.perWk) - f.X0
			f.Rect(f.X0, by, w, 10, bar.class,
				fmt.Sprintf("%s — %s lore knew it (%s): %s sessions, %s per week",
					s.Signature, bar.period, dashDate(s.KnownSince), dashInt(int64(bar.n)), Decimal(bar.perWk)))
			f.Text(f.X0+w+4, by+9, "start", "tick", Decimal(bar.perWk)+"/wk")
		}
	}
	return c
}

func hitRateChart(h HitRate) dashChart {
	c, f := newDashChart("hit-rate", "Hit rate", "What became of the items boot injected", 300, 24, 100, 24, 140)
	xLabel := "share of the items boot injected"
	if h.Injected == 0 {
		c.Summary = "No items injected into the measured sessions yet."
		f.Empty(xLabel, "")
		return c
	}
	unused := dashUnused(h)
	total := float64(max(h.Injected, h.Cited+h.ActedOn))
	c.Summary = fmt.Sprintf("%s of %s items injected into %s boots were used.", Percent(h.Rate), dashInt(int64(h.Injected)), dashInt(int64(h.Boots)))
	f.Legend(66,
		svgchart.Swatch{Class: "cited", Name: fmt.Sprintf("cited %s", dashInt(int64(h.Cited)))},
		svgchart.Swatch{Class: "acted", Name: fmt.Sprintf("acted on %s", dashInt(int64(h.ActedOn)))},
		svgchart.Swatch{Class: "unused", Name: fmt.Sprintf("unused %s", dashInt(int64(unused)))})
	barTop, barH := f.Y0, 52.0
	x := f.X0
	for _, seg := range []struct {
		class, name string
		n           int
	}{{"cited", "cited", h.Cited}, {"acted", "acted on", h.ActedOn}, {"unused", "unused", unused}} {
		w := float64(seg.n) / total * (f.X1 - f.X0)
		share := Percent(float64(seg.n) / total)
		f.Rect(x, barTop, w, barH, seg.class, fmt.Sprintf("%s: %s items (%s)", seg.name, dashInt(int64(seg.n)), share))
		if w >= 44 {
			class := "seglabel"
			if seg.class == "unused" {
				class += " muted" // dark text on the pale segment
			}
			f.Text(x+w/2, barTop+barH/2+5, "middle", class, share)
		}
		x += w
	}
	axisY := barTop + barH + 8
	f.Line(f.X0, axisY, f.X1, axisY, "axis")
	for _, t := range chartPercentTicks() {
		tx := f.X0 + t*(f.X1-f.X0)
		f.Line(tx, axisY, tx, axisY+4, "axis")
		f.Text(tx, axisY+18, "middle", "tick", Percent(t))
	}
	f.Text((f.X0+f.X1)/2, axisY+40, "middle", "label",
		fmt.Sprintf("share of the %s items injected into %s boots", dashInt(int64(h.Injected)), dashInt(int64(h.Boots))))
	return c
}

func firstTryChart(ft FirstTry) dashChart {
	c, f := newDashChart("first-try", "First-try success", "Share of sessions with no failed tool call, week by week", 300, 56, 20, 36, 44)
	var weeks []Rate
	undated := 0
	for _, w := range ft.Weeks {
		if dashDated(w.Week) {
			weeks = append(weeks, w)
		} else {
			undated += w.N
		}
	}
	c.Summary = "No sessions with tool calls yet."
	if ft.Sessions > 0 {
		c.Summary = fmt.Sprintf("%s of %s sessions with tool calls had no failed call.", Percent(ft.Rate), dashInt(int64(ft.Sessions)))
	}
	c.Summary += dashUndrawn(undated, "sessions")
	if len(weeks) == 0 {
		f.Empty("week", "first-try success")
		return c
	}
	rates := make([]weekRate, len(weeks))
	for i, w := range weeks {
		rates[i] = weekRate{w.Week, w.Rate, w.N, fmt.Sprintf("week of %s: %s of %s sessions", w.Week, Percent(w.Rate), dashInt(int64(w.N)))}
	}
	rateLine(f, rates, "first-try success")
	return c
}

func wouldHaveKnownChart(w WouldHaveKnown) dashChart {
	c, f := newDashChart("would-have-known", "Would have known",
		"Share of errors an earlier session had taught, and of errors boot would have delivered, week by week", 300, 56, 40, 36, 44)
	var weeks []Known
	undated := 0
	for _, k := range w.Weeks {
		if dashDated(k.Week) {
			weeks = append(weeks, k)
		} else {
			undated += k.Errors
		}
	}
	c.Summary = "No errors met in the replayed sessions yet."
	if w.Errors > 0 {
		c.Summary = fmt.Sprintf("Overall %s of %s errors were known from an earlier session; %s were in the boot context.",
			Percent(w.KnownRate), dashInt(int64(w.Errors)), Percent(w.DeliveredRate))
	}
	c.Summary += dashUndrawn(undated, "errors of sessions")
	if len(weeks) == 0 {
		f.Empty("week", "share of errors")
		return c
	}
	f.Legend(18, svgchart.Swatch{Class: "s1", Name: "known"}, svgchart.Swatch{Class: "s2", Name: "delivered by boot"})
	f.YAxis(1, chartPercentTicks(), Percent, "share of errors")
	dates := make([]string, len(weeks))
	for i, k := range weeks {
		dates[i] = k.Week
	}
	slots := f.TimeAxis(dates, 7, "week (Monday)")
	known, delivered := make([]svgchart.Sample, len(weeks)), make([]svgchart.Sample, len(weeks))
	for i, k := range weeks {
		x, missing, gap := slots.X[i], k.Errors == 0, i > 0 && weekGap(dates[i-1], dates[i])
		known[i] = svgchart.Sample{X: x, Y: f.Y(k.KnownRate, 1), Missing: missing, Gap: gap,
			Title: fmt.Sprintf("week of %s: %s of %s errors known", k.Week, Percent(k.KnownRate), dashInt(int64(k.Errors)))}
		delivered[i] = svgchart.Sample{X: x, Y: f.Y(k.DeliveredRate, 1), Missing: missing, Gap: gap,
			Title: fmt.Sprintf("week of %s: %s of %s errors delivered", k.Week, Percent(k.DeliveredRate), dashInt(int64(k.Errors)))}
	}
	f.Series("s1", known)
	f.Series("s2", delivered)
	return c
}

// costChart has two panels over the same weeks: median tokens above,
// median minutes below.
func costChart(all []Period) dashChart {
	c, tokens := newDashChart("cost", "Cost per session", "Median tokens and minutes per session, week by week", 480, 64, 20, 36, 44)
	tokens.Y1 = 210
	var ps []Period
	undated := 0
	for _, p := range all {
		if dashDated(p.Week) {
			ps = append(ps, p)
		} else {
			undated += p.Sessions
		}
	}
	c.Summary = "No sessions yet."
	if p, ok := dashLatestPeriod(all); ok {
		c.Summary = fmt.Sprintf("The median session of %s: %s, %s.",
			dashPeriodName(p), dashMedianTokens(p), dashMedianMinutes(p))
	}
	c.Summary += dashUndrawn(undated, "sessions")
	if len(ps) == 0 {
		tokens.Y1 = c.Chart.H - 44
		tokens.Empty("week", "tokens and minutes")
		return c
	}
	minutes := &svgchart.Frame{Chart: c.Chart, X0: tokens.X0, Y0: 246, X1: tokens.X1, Y1: c.Chart.H - 44}
	dates := make([]string, len(ps))
	var mostTokens, mostMinutes float64
	for i, p := range ps {
		dates[i] = p.Week
		mostTokens = max(mostTokens, float64(p.MedianTokens))
		mostMinutes = max(mostMinutes, p.MedianMinutes)
	}
	tTop, tTicks := svgchart.Scale(mostTokens, true)
	mTop, mTicks := svgchart.Scale(mostMinutes, false)
	tokens.YAxis(tTop, tTicks, chartTokens, "median tokens")
	minutes.YAxis(mTop, mTicks, chartCount, "median minutes")
	slots := minutes.TimeAxis(dates, 7, "week (Monday)")
	ts, ms := make([]svgchart.Sample, len(ps)), make([]svgchart.Sample, len(ps))
	for i, p := range ps {
		gap := i > 0 && weekGap(dates[i-1], dates[i])
		ts[i] = svgchart.Sample{X: slots.X[i], Y: tokens.Y(float64(p.MedianTokens), tTop), Missing: p.SessionsWithTokens == 0, Gap: gap,
			Title: fmt.Sprintf("week of %s: median %s tokens over %s", p.Week, dashInt(p.MedianTokens), dashN(p.SessionsWithTokens, "session"))}
		ms[i] = svgchart.Sample{X: slots.X[i], Y: minutes.Y(p.MedianMinutes, mTop), Missing: p.SessionsWithMinutes == 0, Gap: gap,
			Title: fmt.Sprintf("week of %s: median %s minutes over %s", p.Week, Decimal(p.MedianMinutes), dashN(p.SessionsWithMinutes, "session"))}
	}
	tokens.Series("s1", ts)
	minutes.Series("s2", ms)
	return c
}

// weekGap reports whether weeks with no data lie between two weeks
// (YYYY-MM-DD of their Mondays) drawn one after the other.
func weekGap(prev, next string) bool {
	a, errA := time.Parse(time.DateOnly, prev)
	b, errB := time.Parse(time.DateOnly, next)
	return errA == nil && errB == nil && b.Sub(a) > 8*24*time.Hour
}

// improveChart draws the benchmark's best total after each round of lore
// improve, which never falls, against its maximum.
func improveChart(ps []ImprovePoints) dashChart {
	c, f := newDashChart("improve", "Benchmark points (lore improve)", "The best benchmark total after each round of lore improve", 300, 56, 20, 36, 44)
	first, last := ps[0], ps[len(ps)-1]
	kept := 0
	for _, p := range ps {
		if p.Outcome == "kept" {
			kept++
		}
	}
	c.Summary = fmt.Sprintf("%s of %s points after %s rounds (%s kept), from %s.", chartCount(last.Total), chartCount(last.Max),
		dashInt(int64(len(ps))), dashInt(int64(kept)), chartCount(first.Total))
	most := 0.0
	rounds := make([]string, len(ps))
	for i, p := range ps {
		most = max(most, p.Max, p.Total)
		rounds[i] = strconv.Itoa(p.Round)
	}
	top, ticks := svgchart.Scale(most, false)
	f.YAxis(top, ticks, chartCount, "points")
	slots := f.TimeAxis(rounds, 1, "round")
	total, maxima := make([]svgchart.Sample, len(ps)), make([]svgchart.Sample, len(ps))
	for i, p := range ps {
		total[i] = svgchart.Sample{X: slots.X[i], Y: f.Y(p.Total, top), Title: fmt.Sprintf("round %d (%s): %s of %s points", p.Round, p.Outcome, chartCount(p.Total), chartCount(p.Max))}
		maxima[i] = svgchart.Sample{X: slots.X[i], Y: f.Y(p.Max, top), Title: fmt.Sprintf("round %d: the maximum, %s", p.Round, chartCount(p.Max))}
	}
	f.Legend(18, svgchart.Swatch{Class: "s1", Name: "best total"}, svgchart.Swatch{Class: "s2", Name: "maximum"})
	f.Series("s2", maxima)
	f.Series("s1", total)
	return c
}
