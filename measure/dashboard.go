package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/atomicfile"
)

// The files WriteDashboard writes into its folder.
const (
	DashboardMarkdown = "dashboard.md"
	DashboardJSON     = "metrics.json"
	DashboardHTML     = "index.html"
)

// WriteDashboard writes m into dir as a Markdown report (dashboard.md),
// as JSON (metrics.json) and as one self-contained HTML page with SVG
// charts (index.html). Each file is replaced through a temporary file, so
// a reader never sees half of one; dir is created when missing.
func WriteDashboard(dir string, m Metrics) error {
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode metrics: %w", err)
	}
	js = append(js, '\n')
	var page bytes.Buffer
	if err := dashboardPage.Execute(&page, newDashPage(m)); err != nil {
		return fmt.Errorf("render dashboard page: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create dashboard folder: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{DashboardMarkdown, []byte(dashboardMarkdown(m))},
		{DashboardJSON, js},
		{DashboardHTML, page.Bytes()},
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

// dashHeadline is one headline number, shared by the Markdown summary
// table and the cards of the page.
type dashHeadline struct {
	Name   string
	Value  string // "no data" when there is nothing to count
	Unit   string // after the value: "items/day"
	Detail string
	NoData bool
}

// Text is the value with its unit.
func (h dashHeadline) Text() string {
	if h.Unit == "" {
		return h.Value
	}
	return h.Value + " " + h.Unit
}

const dashNoData = "no data"

func dashHeadlines(m Metrics) []dashHeadline {
	var hs []dashHeadline
	add := func(name string, noData bool, value, unit, detail string) {
		if noData {
			value, unit = dashNoData, ""
		}
		hs = append(hs, dashHeadline{Name: name, Value: value, Unit: unit, Detail: detail, NoData: noData})
	}

	v := m.Velocity
	detail := "no items in the store yet"
	if v.Items > 0 || len(v.Days) > 0 {
		detail = fmt.Sprintf("%s items in the store", dashInt(int64(v.Items)))
		if v.HarvestedTokens > 0 {
			detail += fmt.Sprintf("; %s per million tokens harvested (%s tokens)",
				Decimal(v.ItemsPerMillionTokens), ShortTokens(v.HarvestedTokens))
		}
	}
	add("Knowledge velocity", v.Items == 0 && len(v.Days) == 0, Decimal(v.ItemsPerDay), "items/day", detail)

	c := m.Coverage
	detail = "no sessions found"
	if c.Sessions > 0 {
		detail = fmt.Sprintf("%s of %s sessions harvested; %d of %d repositories",
			dashInt(int64(c.SessionsHarvested)), dashInt(int64(c.Sessions)), c.ReposHarvested, c.Repos)
	}
	add("Coverage", c.Sessions == 0, Percent(c.Share), "", detail)

	h := m.HitRate
	detail = "no boot records for the measured sessions"
	if h.Boots > 0 {
		detail = fmt.Sprintf("%s handed out no items", dashN(h.Boots, "boot"))
	}
	if h.Injected > 0 {
		detail = fmt.Sprintf("of %s items injected in %s: %s cited, %s acted on, %s unused",
			dashInt(int64(h.Injected)), dashN(h.Boots, "boot"), dashInt(int64(h.Cited)),
			dashInt(int64(h.ActedOn)), dashInt(int64(dashUnused(h))))
	}
	add("Hit rate", h.Injected == 0, Percent(h.Rate), "", detail)

	r := m.Recurrence
	detail = "no sessions with errors"
	if r.SessionsWithErrors > 0 {
		detail = fmt.Sprintf("%s of %s sessions with errors met one lore already knew (lower is better)",
			dashInt(int64(r.SessionsHitKnown)), dashInt(int64(r.SessionsWithErrors)))
	}
	add("Error recurrence", r.SessionsWithErrors == 0, Percent(r.Rate), "", detail)

	f := m.FirstTry
	detail = "no sessions with tool calls"
	if f.Sessions > 0 {
		detail = fmt.Sprintf("%s of %s sessions with tool calls had no failed call",
			dashInt(int64(f.Succeeded)), dashInt(int64(f.Sessions)))
	}
	add("First-try success", f.Sessions == 0, Percent(f.Rate), "", detail)

	outcomes := dashOutcomes(m.Outcomes)
	total := 0
	var parts []string
	for _, o := range outcomes {
		total += o.N
		parts = append(parts, fmt.Sprintf("%s %s", o.Name, dashInt(int64(o.N))))
	}
	detail = "no sessions"
	success := 0.0
	if total > 0 {
		detail = strings.Join(parts, " · ")
		success = float64(m.Outcomes["success"]) / float64(total)
	}
	add("Outcomes", total == 0, Percent(success), "success", detail)

	w := m.WouldHaveKnown
	detail = "no errors met in the replayed sessions"
	if w.Errors > 0 {
		detail = fmt.Sprintf("%s of %s errors in %s had been taught by an earlier session",
			dashInt(int64(w.Known)), dashInt(int64(w.Errors)), dashN(w.Sessions, "replayed session"))
	}
	add("Would have known", w.Errors == 0, Percent(w.KnownRate), "", detail)
	if w.Errors > 0 {
		detail = fmt.Sprintf("%s of %s errors: the item was in the session's boot context",
			dashInt(int64(w.Delivered)), dashInt(int64(w.Errors)))
	}
	add("Would have delivered", w.Errors == 0, Percent(w.DeliveredRate), "", detail)

	value, detail := "", "no sessions"
	if p, ok := dashLatestPeriod(m.PerSession); ok {
		if p.SessionsWithTokens > 0 {
			value = ShortTokens(p.MedianTokens)
		}
		detail = fmt.Sprintf("median session of %s: %s, %s (%s)",
			dashPeriodName(p), dashMedianTokens(p), dashMedianMinutes(p), dashN(p.Sessions, "session"))
	}
	add("Cost per session", value == "", value, "tokens", detail)

	k := m.Knowledge
	detail = "the store is empty"
	if k.Active+k.Candidates > 0 {
		detail = fmt.Sprintf("%s candidates; median age %s days; %s not confirmed in 90 days",
			dashInt(int64(k.Candidates)), Decimal(k.MedianAgeDays), Percent(k.StaleShare))
	}
	add("Knowledge", k.Active+k.Candidates == 0, dashInt(int64(k.Active)), "active", detail)
	return hs
}

// dashMedianTokens is a week's median tokens, or "no token data" when
// none of its sessions recorded usage.
func dashMedianTokens(p Period) string {
	if p.SessionsWithTokens == 0 {
		return "no token data"
	}
	return dashInt(p.MedianTokens) + " tokens"
}

// dashMedianMinutes is a week's median minutes, or "no time data" when
// none of its sessions has a start and a later end.
func dashMedianMinutes(p Period) string {
	if p.SessionsWithMinutes == 0 {
		return "no time data"
	}
	return Decimal(p.MedianMinutes) + " minutes"
}

// dashN is a count and its noun, singular for one.
func dashN(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return dashInt(int64(n)) + " " + noun + "s"
}

// dashKnownSessions is the n latest replayed sessions that met an error
// an earlier session had taught, newest first.
func dashKnownSessions(w WouldHaveKnown, n int) []ReplayedSession {
	var out []ReplayedSession
	for i := len(w.BySession) - 1; i >= 0 && len(out) < n; i-- {
		if slices.ContainsFunc(w.BySession[i].Errors, func(e ReplayedError) bool { return e.Known }) {
			out = append(out, w.BySession[i])
		}
	}
	return out
}

// dashUnused is the injected items neither cited nor acted on.
func dashUnused(h HitRate) int {
	return max(h.Injected-h.Cited-h.ActedOn, 0)
}

// dashLatestPeriod is the last dated week that had sessions, else the
// sessions without a date.
func dashLatestPeriod(ps []Period) (Period, bool) {
	var undated *Period
	for i := len(ps) - 1; i >= 0; i-- {
		switch {
		case ps[i].Sessions == 0:
		case dashDated(ps[i].Week):
			return ps[i], true
		case undated == nil:
			undated = &ps[i]
		}
	}
	if undated != nil {
		return *undated, true
	}
	return Period{}, false
}

// dashDated reports whether s is a YYYY-MM-DD date; the weeks of
// sessions with no time are not.
func dashDated(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// dashPeriodName names the week of p in a sentence.
func dashPeriodName(p Period) string {
	if dashDated(p.Week) {
		return "the week of " + p.Week
	}
	return "the sessions without a date"
}

// dashUndrawn is said under a chart whose undated points cannot be
// placed in time.
func dashUndrawn(n int, what string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" %s %s without a date not drawn.", dashInt(int64(n)), what)
}

type dashCount struct {
	Name  string
	N     int
	Share string
}

// dashOutcomes lists the outcomes in their natural order, then any other
// in alphabetical order, leaving out those no session had.
func dashOutcomes(outcomes map[string]int) []dashCount {
	known := []string{"success", "failure", "aborted", "unknown"}
	var others []string
	for name := range outcomes {
		if !slices.Contains(known, name) {
			others = append(others, name)
		}
	}
	slices.Sort(others)
	return dashCounts(outcomes, append(known, others...))
}

// dashCategories lists the categories, most items first.
func dashCategories(byCategory map[string]int) []dashCount {
	var names []string
	for name := range byCategory {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if byCategory[a] != byCategory[b] {
			return byCategory[b] - byCategory[a]
		}
		return strings.Compare(a, b)
	})
	return dashCounts(byCategory, names)
}

func dashCounts(counts map[string]int, order []string) []dashCount {
	total := 0
	for _, n := range counts {
		total += n
	}
	var cs []dashCount
	for _, name := range order {
		if n := counts[name]; n > 0 {
			cs = append(cs, dashCount{Name: name, N: n, Share: Percent(float64(n) / float64(total))})
		}
	}
	return cs
}

// dashTopSignatures is the signatures met in most sessions, at most n.
func dashTopSignatures(sigs []SignatureRecurrence, n int) []SignatureRecurrence {
	top := slices.Clone(sigs)
	slices.SortStableFunc(top, func(a, b SignatureRecurrence) int {
		return (b.Before + b.After) - (a.Before + a.After)
	})
	return top[:min(n, len(top))]
}

// dashScope says which sessions were measured.
func dashScope(m Metrics) string {
	repo := "all repositories"
	if m.Repo != "" {
		repo = "repo " + m.Repo
	}
	since := "all time"
	if m.Since != "" {
		since = "since " + m.Since
	}
	return repo + " · " + since
}

func dashGenerated(t time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// Percent writes a share in whole percent, never rounding a small
// share down to 0% or a large one up to 100%.
func Percent(r float64) string {
	p := r * 100
	switch {
	case p > 0 && p < 1:
		return "<1%"
	case p > 99 && p < 100:
		return ">99%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// Decimal writes a measured quantity with one decimal below 100, and
// with two significant digits below 0.1, so that a small rate does not
// read as 0.
func Decimal(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return dashInt(int64(math.Round(v)))
	case a > 0 && a < 0.1:
		decimals := 1 - int(math.Floor(math.Log10(a)))
		s := strconv.FormatFloat(v, 'f', decimals, 64)
		return strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// dashInt writes n with thousands separators.
func dashInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ShortTokens writes a token count short: 950, 12.3k, 4.5M, 1.2B.
func ShortTokens(n int64) string {
	v := float64(n)
	short := func(v float64, unit string) string {
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + unit
	}
	switch {
	case v >= 1e9:
		return short(v/1e9, "B")
	case v >= 1e6:
		return short(v/1e6, "M")
	case v >= 1e3:
		return short(v/1e3, "k")
	}
	return strconv.FormatInt(n, 10)
}

func dashDate(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02")
}

// dashWeekOf is the Monday of the week of a YYYY-MM-DD date, or the date
// itself when it does not parse.
func dashWeekOf(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7)).Format(time.DateOnly)
}

// Markdown.

func dashboardMarkdown(m Metrics) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# lore measure\n\n")
	p("Generated %s · %s · %s measured.\n\n", dashGenerated(m.GeneratedAt), dashMD(dashScope(m)), dashN(m.Sessions, "session"))

	p("## Summary\n\n| measure | value | what it counts |\n|---|---:|---|\n")
	for _, h := range dashHeadlines(m) {
		p("| %s | %s | %s |\n", h.Name, dashMD(h.Text()), dashMD(h.Detail))
	}

	p("\n## Knowledge velocity\n\nNew items per week (Monday), from the daily counts.\n\n")
	if len(m.Velocity.Days) == 0 {
		p("No data yet.\n")
	} else {
		var weeks []string
		items := map[string]int{}
		for _, d := range m.Velocity.Days {
			w := dashWeekOf(d.Date)
			if _, ok := items[w]; !ok {
				weeks = append(weeks, w)
			}
			items[w] += d.Items
		}
		p("| week | new items |\n|---|---:|\n")
		for _, w := range weeks {
			p("| %s | %s |\n", dashMD(w), dashInt(int64(items[w])))
		}
	}

	p("\n## Error recurrence\n\nSessions that met each known error before and after lore knew it, in all and per week of sessions.\n\n")
	if len(m.Recurrence.Signatures) == 0 {
		p("No data yet.\n")
	} else {
		p("| signature | known since | before | after | before/week | after/week |\n|---|---|---:|---:|---:|---:|\n")
		for _, s := range m.Recurrence.Signatures {
			p("| %s | %s | %s | %s | %s | %s |\n", dashMD(s.Signature), dashDate(s.KnownSince),
				dashInt(int64(s.Before)), dashInt(int64(s.After)), Decimal(s.BeforePerWeek), Decimal(s.AfterPerWeek))
		}
	}

	p("\n## First-try success\n\nSessions with tool calls and none failed, week by week.\n\n")
	if len(m.FirstTry.Weeks) == 0 {
		p("No data yet.\n")
	} else {
		p("| week | sessions | first-try success |\n|---|---:|---:|\n")
		for _, w := range m.FirstTry.Weeks {
			p("| %s | %s | %s |\n", dashMD(w.Week), dashInt(int64(w.N)), dashRateOf(w.N, w.Rate))
		}
	}

	p("\n## Would have known\n\nSessions replayed in time order: the errors each met that earlier sessions had taught (known), and of those, the ones boot would have handed it (delivered).\n\n")
	if len(m.WouldHaveKnown.Weeks) == 0 {
		p("No data yet.\n")
	} else {
		p("| week | errors | known | delivered |\n|---|---:|---:|---:|\n")
		for _, w := range m.WouldHaveKnown.Weeks {
			p("| %s | %s | %s | %s |\n", dashMD(w.Week), dashInt(int64(w.Errors)),
				dashRateOf(w.Errors, w.KnownRate), dashRateOf(w.Errors, w.DeliveredRate))
		}
		if known := dashKnownSessions(m.WouldHaveKnown, 10); len(known) > 0 {
			p("\nThe latest sessions that met an error an earlier session had taught (metrics.json lists every session that met an error):\n\n")
			p("| started | session | repo | agent | errors | known | delivered |\n|---|---|---|---|---:|---:|---:|\n")
			for _, s := range known {
				started := "—"
				if s.StartedAt != nil {
					started = dashDate(*s.StartedAt)
				}
				var k, d int
				for _, e := range s.Errors {
					if e.Known {
						k++
					}
					if e.Delivered {
						d++
					}
				}
				p("| %s | %s | %s | %s | %d | %d | %d |\n", started, dashMD(s.Session), dashMD(s.Repo), dashMD(s.Agent), len(s.Errors), k, d)
			}
		}
	}

	p("\n## Cost per session\n\nThe median session of each week; sessions that recorded no token usage (or no start and end) are left out of the median tokens (or minutes).\n\n")
	if len(m.PerSession) == 0 {
		p("No data yet.\n")
	} else {
		p("| week | sessions | median tokens | median minutes |\n|---|---:|---:|---:|\n")
		for _, s := range m.PerSession {
			if s.Sessions == 0 {
				p("| %s | 0 | no data | no data |\n", dashMD(s.Week))
				continue
			}
			tokens, minutes := dashNoData, dashNoData
			if s.SessionsWithTokens > 0 {
				tokens = dashInt(s.MedianTokens)
			}
			if s.SessionsWithMinutes > 0 {
				minutes = Decimal(s.MedianMinutes)
			}
			p("| %s | %s | %s | %s |\n", dashMD(s.Week), dashInt(int64(s.Sessions)), tokens, minutes)
		}
	}

	p("\n## Outcomes\n\n")
	if outcomes := dashOutcomes(m.Outcomes); len(outcomes) == 0 {
		p("No data yet.\n")
	} else {
		p("| outcome | sessions | share |\n|---|---:|---:|\n")
		for _, o := range outcomes {
			p("| %s | %s | %s |\n", dashMD(o.Name), dashInt(int64(o.N)), o.Share)
		}
	}

	k := m.Knowledge
	p("\n## Knowledge\n\n")
	if k.Active+k.Candidates == 0 {
		p("No data yet.\n")
	} else {
		p("%s active items and %s candidates; the median active item was first seen %s days ago; %s of active items were not confirmed in 90 days.\n",
			dashInt(int64(k.Active)), dashInt(int64(k.Candidates)), Decimal(k.MedianAgeDays), Percent(k.StaleShare))
		if cats := dashCategories(k.ByCategory); len(cats) > 0 {
			p("\n| category | active items | share |\n|---|---:|---:|\n")
			for _, c := range cats {
				p("| %s | %s | %s |\n", dashMD(c.Name), dashInt(int64(c.N)), c.Share)
			}
		}
	}
	return b.String()
}

// dashRateOf is a rate over n, or "no data" when n is 0.
func dashRateOf(n int, rate float64) string {
	if n == 0 {
		return dashNoData
	}
	return Percent(rate)
}

// dashMD makes s safe in a Markdown table cell: one line, with the
// characters that would start markup or end the cell escaped.
func dashMD(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#!~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// The page.

type dashPage struct {
	Generated    string
	GeneratedISO string
	Scope        string
	Sessions     string
	Headlines    []dashHeadline
	Charts       []*chart
	Signatures   []dashSignatureRow
	Outcomes     []dashCount
	Categories   []dashCount
}

type dashSignatureRow struct {
	Signature, KnownSince, Before, After, BeforePerWeek, AfterPerWeek string
}

func newDashPage(m Metrics) dashPage {
	p := dashPage{
		Generated: dashGenerated(m.GeneratedAt),
		Scope:     dashScope(m),
		Sessions:  dashN(m.Sessions, "session"),
		Headlines: dashHeadlines(m),
		Charts: []*chart{
			// In pairs of about the same height, for the two-column grid.
			velocityChart(m.Velocity),
			firstTryChart(m.FirstTry),
			wouldHaveKnownChart(m.WouldHaveKnown),
			hitRateChart(m.HitRate),
			recurrenceChart(m.Recurrence),
			costChart(m.PerSession),
		},
		Outcomes:   dashOutcomes(m.Outcomes),
		Categories: dashCategories(m.Knowledge.ByCategory),
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

// Charts: each is computed here as shapes in a 640-wide viewBox, and the
// template only writes them out.

const chartWidth = 640

type chart struct {
	ID      string // data-chart
	Heading string
	Summary string
	Title   string // the svg's title
	W, H    float64
	Empty   bool
	EmptyX  float64
	EmptyY  float64
	Lines   []chartLine
	Rects   []chartRect
	Polys   []chartPoly
	Dots    []chartDot
	Texts   []chartText
}

type chartLine struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

type chartRect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type chartPoly struct {
	Points string
	Class  string
}

type chartDot struct {
	X, Y  float64
	Class string
	Title string
}

type chartText struct {
	X, Y      float64
	Anchor    string
	Class     string
	Transform string
	Text      string
}

// chartFrame is a plot area of a chart.
type chartFrame struct {
	c              *chart
	x0, y0, x1, y1 float64
}

func newChart(id, heading, title string, h, left, top, right, bottom float64) *chartFrame {
	c := &chart{ID: id, Heading: heading, Title: title, W: chartWidth, H: h}
	return &chartFrame{c: c, x0: left, y0: top, x1: chartWidth - right, y1: h - bottom}
}

func (f *chartFrame) line(x1, y1, x2, y2 float64, class string) {
	f.c.Lines = append(f.c.Lines, chartLine{x1, y1, x2, y2, class})
}

func (f *chartFrame) text(x, y float64, anchor, class, s string) {
	f.c.Texts = append(f.c.Texts, chartText{X: x, Y: y, Anchor: anchor, Class: class, Text: s})
}

// empty marks the chart as having no data: axes and their labels, and
// "no data yet" in the middle of the plot area.
func (f *chartFrame) empty(xLabel, yLabel string) {
	f.c.Empty = true
	f.c.EmptyX, f.c.EmptyY = (f.x0+f.x1)/2, (f.y0+f.y1)/2
	f.line(f.x0, f.y1, f.x1, f.y1, "axis")
	if yLabel != "" {
		f.line(f.x0, f.y0, f.x0, f.y1, "axis")
		f.yLabel(yLabel)
	}
	f.xLabel(xLabel)
}

func (f *chartFrame) xLabel(s string) {
	f.text((f.x0+f.x1)/2, f.c.H-8, "middle", "label", s)
}

func (f *chartFrame) yLabel(s string) {
	x, y := 14.0, (f.y0+f.y1)/2
	f.c.Texts = append(f.c.Texts, chartText{X: x, Y: y, Anchor: "middle", Class: "label",
		Transform: fmt.Sprintf("rotate(-90 %.1f %.1f)", x, y), Text: s})
}

// y maps v on a scale from 0 to top onto the plot area.
func (f *chartFrame) y(v, top float64) float64 {
	if top <= 0 {
		return f.y1
	}
	return f.y1 - v/top*(f.y1-f.y0)
}

// yAxis draws horizontal grid lines at ticks, labelled with format.
func (f *chartFrame) yAxis(top float64, ticks []float64, format func(float64) string, label string) {
	for _, t := range ticks {
		y := f.y(t, top)
		f.line(f.x0, y, f.x1, y, "grid")
		f.text(f.x0-6, y+4, "end", "tick", format(t))
	}
	f.line(f.x0, f.y1, f.x1, f.y1, "axis")
	f.yLabel(label)
}

// legend writes coloured swatches with their names above the plot area.
func (f *chartFrame) legend(y float64, entries ...[2]string) {
	x := f.x0
	for _, e := range entries {
		f.c.Rects = append(f.c.Rects, chartRect{X: x, Y: y - 9, W: 10, H: 10, Class: e[0]})
		f.text(x+14, y, "start", "legend", e[1])
		x += 14 + 6.5*float64(utf8.RuneCountInString(e[1])) + 18
	}
}

// chartScale is a round top for values up to v, and the ticks under it.
func chartScale(v float64, whole bool) (top float64, ticks []float64) {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		v = 1
	}
	raw := v / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if whole && m*mag != math.Trunc(m*mag) {
			continue // no 2.5 items
		}
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if whole && step < 1 {
		step = 1
	}
	top = math.Ceil(v/step-1e-9) * step
	for i := 0; float64(i)*step <= top+step/2; i++ {
		ticks = append(ticks, math.Round(float64(i)*step*1e6)/1e6)
	}
	return top, ticks
}

func chartPercentTicks() []float64 { return []float64{0, 0.25, 0.5, 0.75, 1} }

func chartCount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func chartTokens(v float64) string { return ShortTokens(int64(math.Round(v))) }

// chartTime places dated points along the x axis, by date when every
// date parses and they ascend, in slots of unitDays; by position
// otherwise.
type chartTime struct {
	xs    []float64
	slotW float64
}

func (f *chartFrame) timeAxis(dates []string, unitDays int, label string) chartTime {
	n := len(dates)
	offsets := make([]int, n)
	var first time.Time
	byDate := true
	for i, d := range dates {
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			byDate = false
			break
		}
		if i == 0 {
			first = t
		}
		offsets[i] = int(math.Round(t.Sub(first).Hours()/24)) / unitDays
		if i > 0 && offsets[i] <= offsets[i-1] {
			byDate = false
			break
		}
	}
	if !byDate {
		for i := range offsets {
			offsets[i] = i
		}
	}
	slots := 1
	if n > 0 {
		slots = offsets[n-1] + 1
	}
	ct := chartTime{slotW: (f.x1 - f.x0) / float64(slots)}
	for _, o := range offsets {
		ct.xs = append(ct.xs, f.x0+(float64(o)+0.5)*ct.slotW)
	}
	// At most six labels, spread evenly over the span.
	const maxTicks = 6
	k := min(slots, maxTicks)
	seen := map[int]bool{}
	for j := range k {
		o := 0
		if k > 1 {
			o = int(math.Round(float64(j) * float64(slots-1) / float64(k-1)))
		}
		if seen[o] {
			continue
		}
		seen[o] = true
		var s string
		if byDate {
			s = first.AddDate(0, 0, o*unitDays).Format(time.DateOnly)
		} else {
			s = dates[o]
		}
		x := f.x0 + (float64(o)+0.5)*ct.slotW
		f.line(x, f.y1, x, f.y1+4, "axis")
		f.text(x, f.y1+17, "middle", "tick", s)
	}
	f.xLabel(label)
	return ct
}

// series draws a line through the points that have a value, broken where
// one has none, with a dot and a hover title on each point.
func (f *chartFrame) series(xs, ys []float64, ok []bool, titles []string, class string) {
	var run []string
	flush := func() {
		if len(run) > 1 {
			f.c.Polys = append(f.c.Polys, chartPoly{Points: strings.Join(run, " "), Class: "line " + class})
		}
		run = nil
	}
	for i := range xs {
		if !ok[i] {
			flush()
			continue
		}
		run = append(run, fmt.Sprintf("%.1f,%.1f", xs[i], ys[i]))
		f.c.Dots = append(f.c.Dots, chartDot{X: xs[i], Y: ys[i], Class: "dot " + class, Title: titles[i]})
	}
	flush()
}

func velocityChart(v Velocity) *chart {
	f := newChart("velocity", "Knowledge velocity", "New knowledge items per day", 300, 56, 20, 36, 44)
	var days []Day
	undated := 0
	for _, d := range v.Days {
		if dashDated(d.Date) {
			days = append(days, d)
		} else {
			undated += d.Items
		}
	}
	f.c.Summary = "No items yet."
	if len(v.Days) > 0 {
		f.c.Summary = fmt.Sprintf("%s items per day on average; %s items in the store.", Decimal(v.ItemsPerDay), dashInt(int64(v.Items)))
	}
	f.c.Summary += dashUndrawn(undated, "items")
	if len(days) == 0 {
		f.empty("day", "new items")
		return f.c
	}
	most := 0
	dates := make([]string, len(days))
	for i, d := range days {
		most = max(most, d.Items)
		dates[i] = d.Date
	}
	top, ticks := chartScale(float64(most), true)
	f.yAxis(top, ticks, chartCount, "new items")
	ct := f.timeAxis(dates, 1, "day")
	w := ct.slotW
	if w >= 3 {
		w *= 0.8
	}
	w = max(w, 2) // a day on a span of years is still seen
	for i, d := range days {
		y := f.y(float64(d.Items), top)
		f.c.Rects = append(f.c.Rects, chartRect{X: ct.xs[i] - w/2, Y: y, W: w, H: f.y1 - y, Class: "bar",
			Title: fmt.Sprintf("%s: %s new items", d.Date, dashInt(int64(d.Items)))})
	}
	return f.c
}

func recurrenceChart(r Recurrence) *chart {
	const rowH, top, bottom = 40.0, 40.0, 44.0
	top10 := dashTopSignatures(r.Signatures, 10)
	h := top + rowH*float64(len(top10)) + bottom
	if len(top10) == 0 {
		h = 300
	}
	f := newChart("recurrence", "Known errors, before and after",
		"Sessions per week that met each known error, before and after lore knew it", h, 16, top, 64, bottom)
	xLabel := "sessions per week that met the error"
	if len(top10) == 0 {
		f.c.Summary = "No known error has been met yet."
		f.empty(xLabel, "")
		return f.c
	}
	f.c.Summary = fmt.Sprintf("The %d known errors met in most sessions; the after bar should be shorter.", len(top10))
	f.legend(18, [2]string{"before", "before lore knew it"}, [2]string{"after", "after"})
	most := 0.0
	for _, s := range top10 {
		most = max(most, s.BeforePerWeek, s.AfterPerWeek)
	}
	scaleTop, ticks := chartScale(most, false)
	x := func(v float64) float64 { return f.x0 + v/scaleTop*(f.x1-f.x0) }
	for _, t := range ticks {
		f.line(x(t), f.y0-4, x(t), f.y1, "grid")
		f.text(x(t), f.y1+17, "middle", "tick", chartCount(t))
	}
	f.line(f.x0, f.y1, f.x1, f.y1, "axis")
	f.xLabel(xLabel)
	for i, s := range top10 {
		ry := f.y0 + rowH*float64(i)
		label := s.Signature
		if utf8.RuneCountInString(label) > 80 {
			label = string([]rune(label)[:79]) + "…"
		}
		f.text(f.x0, ry+10, "start", "siglabel", label)
		for j, bar := range []struct {
			class  string
			perWk  float64
			n      int
			period string
		}{{"before", s.BeforePerWeek, s.Before, "before"}, {"after", s.AfterPerWeek, s.After, "after"}} {
			by := ry + 14 + float64(j)*12
			w := x(bar.perWk) - f.x0
			f.c.Rects = append(f.c.Rects, chartRect{X: f.x0, Y: by, W: w, H: 10, Class: bar.class,
				Title: fmt.Sprintf("%s — %s lore knew it (%s): %s sessions, %s per week",
					s.Signature, bar.period, dashDate(s.KnownSince), dashInt(int64(bar.n)), Decimal(bar.perWk))})
			f.text(f.x0+w+4, by+9, "start", "tick", Decimal(bar.perWk)+"/wk")
		}
	}
	return f.c
}

func hitRateChart(h HitRate) *chart {
	f := newChart("hit-rate", "Hit rate", "What became of the items boot injected", 300, 24, 100, 24, 140)
	xLabel := "share of the items boot injected"
	if h.Injected == 0 {
		f.c.Summary = "No items injected into the measured sessions yet."
		f.empty(xLabel, "")
		return f.c
	}
	unused := dashUnused(h)
	total := float64(max(h.Injected, h.Cited+h.ActedOn))
	f.c.Summary = fmt.Sprintf("%s of %s items injected into %s boots were used.", Percent(h.Rate), dashInt(int64(h.Injected)), dashInt(int64(h.Boots)))
	f.legend(66,
		[2]string{"cited", fmt.Sprintf("cited %s", dashInt(int64(h.Cited)))},
		[2]string{"acted", fmt.Sprintf("acted on %s", dashInt(int64(h.ActedOn)))},
		[2]string{"unused", fmt.Sprintf("unused %s", dashInt(int64(unused)))})
	barTop, barH := f.y0, 52.0
	x := f.x0
	for _, seg := range []struct {
		class, name string
		n           int
	}{{"cited", "cited", h.Cited}, {"acted", "acted on", h.ActedOn}, {"unused", "unused", unused}} {
		w := float64(seg.n) / total * (f.x1 - f.x0)
		share := Percent(float64(seg.n) / total)
		f.c.Rects = append(f.c.Rects, chartRect{X: x, Y: barTop, W: w, H: barH, Class: seg.class,
			Title: fmt.Sprintf("%s: %s items (%s)", seg.name, dashInt(int64(seg.n)), share)})
		if w >= 44 {
			class := "seglabel"
			if seg.class == "unused" {
				class += " muted" // dark text on the pale segment
			}
			f.text(x+w/2, barTop+barH/2+5, "middle", class, share)
		}
		x += w
	}
	axisY := barTop + barH + 8
	f.line(f.x0, axisY, f.x1, axisY, "axis")
	for _, t := range chartPercentTicks() {
		tx := f.x0 + t*(f.x1-f.x0)
		f.line(tx, axisY, tx, axisY+4, "axis")
		f.text(tx, axisY+18, "middle", "tick", Percent(t))
	}
	f.text((f.x0+f.x1)/2, axisY+40, "middle", "label",
		fmt.Sprintf("share of the %s items injected into %s boots", dashInt(int64(h.Injected)), dashInt(int64(h.Boots))))
	return f.c
}

func firstTryChart(ft FirstTry) *chart {
	f := newChart("first-try", "First-try success", "Share of sessions with no failed tool call, week by week", 300, 56, 20, 36, 44)
	var weeks []Rate
	undated := 0
	for _, w := range ft.Weeks {
		if dashDated(w.Week) {
			weeks = append(weeks, w)
		} else {
			undated += w.N
		}
	}
	f.c.Summary = "No sessions with tool calls yet."
	if ft.Sessions > 0 {
		f.c.Summary = fmt.Sprintf("%s of %s sessions with tool calls had no failed call.", Percent(ft.Rate), dashInt(int64(ft.Sessions)))
	}
	f.c.Summary += dashUndrawn(undated, "sessions")
	if len(weeks) == 0 {
		f.empty("week", "first-try success")
		return f.c
	}
	f.yAxis(1, chartPercentTicks(), Percent, "first-try success")
	dates := make([]string, len(weeks))
	ys := make([]float64, len(weeks))
	ok := make([]bool, len(weeks))
	titles := make([]string, len(weeks))
	for i, w := range weeks {
		dates[i], ys[i], ok[i] = w.Week, f.y(w.Rate, 1), w.N > 0
		titles[i] = fmt.Sprintf("week of %s: %s of %s sessions", w.Week, Percent(w.Rate), dashInt(int64(w.N)))
	}
	ct := f.timeAxis(dates, 7, "week (Monday)")
	f.series(ct.xs, ys, ok, titles, "s1")
	return f.c
}

func wouldHaveKnownChart(w WouldHaveKnown) *chart {
	f := newChart("would-have-known", "Would have known",
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
	f.c.Summary = "No errors met in the replayed sessions yet."
	if w.Errors > 0 {
		f.c.Summary = fmt.Sprintf("Overall %s of %s errors were known from an earlier session; %s were in the boot context.",
			Percent(w.KnownRate), dashInt(int64(w.Errors)), Percent(w.DeliveredRate))
	}
	f.c.Summary += dashUndrawn(undated, "errors of sessions")
	if len(weeks) == 0 {
		f.empty("week", "share of errors")
		return f.c
	}
	f.legend(18, [2]string{"s1", "known"}, [2]string{"s2", "delivered by boot"})
	f.yAxis(1, chartPercentTicks(), Percent, "share of errors")
	n := len(weeks)
	dates := make([]string, n)
	known, delivered := make([]float64, n), make([]float64, n)
	ok := make([]bool, n)
	knownTitles, deliveredTitles := make([]string, n), make([]string, n)
	for i, k := range weeks {
		dates[i], ok[i] = k.Week, k.Errors > 0
		known[i], delivered[i] = f.y(k.KnownRate, 1), f.y(k.DeliveredRate, 1)
		knownTitles[i] = fmt.Sprintf("week of %s: %s of %s errors known", k.Week, Percent(k.KnownRate), dashInt(int64(k.Errors)))
		deliveredTitles[i] = fmt.Sprintf("week of %s: %s of %s errors delivered", k.Week, Percent(k.DeliveredRate), dashInt(int64(k.Errors)))
	}
	ct := f.timeAxis(dates, 7, "week (Monday)")
	f.series(ct.xs, known, ok, knownTitles, "s1")
	f.series(ct.xs, delivered, ok, deliveredTitles, "s2")
	return f.c
}

// costChart has two panels over the same weeks: median tokens above,
// median minutes below.
func costChart(all []Period) *chart {
	tokens := newChart("cost", "Cost per session", "Median tokens and minutes per session, week by week", 480, 64, 20, 36, 44)
	tokens.y1 = 210
	var ps []Period
	undated := 0
	for _, p := range all {
		if dashDated(p.Week) {
			ps = append(ps, p)
		} else {
			undated += p.Sessions
		}
	}
	tokens.c.Summary = "No sessions yet."
	if p, ok := dashLatestPeriod(all); ok {
		tokens.c.Summary = fmt.Sprintf("The median session of %s: %s, %s.",
			dashPeriodName(p), dashMedianTokens(p), dashMedianMinutes(p))
	}
	tokens.c.Summary += dashUndrawn(undated, "sessions")
	if len(ps) == 0 {
		tokens.y1 = tokens.c.H - 44
		tokens.empty("week", "tokens and minutes")
		return tokens.c
	}
	minutes := &chartFrame{c: tokens.c, x0: tokens.x0, y0: 246, x1: tokens.x1, y1: tokens.c.H - 44}
	n := len(ps)
	dates := make([]string, n)
	tOK, mOK := make([]bool, n), make([]bool, n)
	var mostTokens, mostMinutes float64
	for i, p := range ps {
		dates[i], tOK[i], mOK[i] = p.Week, p.SessionsWithTokens > 0, p.SessionsWithMinutes > 0
		mostTokens = max(mostTokens, float64(p.MedianTokens))
		mostMinutes = max(mostMinutes, p.MedianMinutes)
	}
	tTop, tTicks := chartScale(mostTokens, true)
	mTop, mTicks := chartScale(mostMinutes, false)
	tokens.yAxis(tTop, tTicks, chartTokens, "median tokens")
	minutes.yAxis(mTop, mTicks, chartCount, "median minutes")
	ct := minutes.timeAxis(dates, 7, "week (Monday)")
	ty, my := make([]float64, n), make([]float64, n)
	tTitles, mTitles := make([]string, n), make([]string, n)
	for i, p := range ps {
		ty[i], my[i] = tokens.y(float64(p.MedianTokens), tTop), minutes.y(p.MedianMinutes, mTop)
		tTitles[i] = fmt.Sprintf("week of %s: median %s tokens over %s", p.Week, dashInt(p.MedianTokens), dashN(p.SessionsWithTokens, "session"))
		mTitles[i] = fmt.Sprintf("week of %s: median %s minutes over %s", p.Week, Decimal(p.MedianMinutes), dashN(p.SessionsWithMinutes, "session"))
	}
	tokens.series(ct.xs, ty, tOK, tTitles, "s1")
	minutes.series(ct.xs, my, mOK, mTitles, "s2")
	return tokens.c
}

var dashboardPage = template.Must(template.New("index").Funcs(template.FuncMap{
	"f": func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"shares": func(what, unit string, rows []dashCount) dashShares {
		return dashShares{What: what, Unit: unit, Rows: rows}
	},
}).Parse(dashboardHTML + sharesHTML))

// dashShares is a table of counts and their shares.
type dashShares struct {
	What, Unit string
	Rows       []dashCount
}

const sharesHTML = `{{define "shares"}}
{{- if .Rows}}
<table>
<thead><tr><th>{{.What}}</th><th class="num">{{.Unit}}</th><th class="num">share</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr><td>{{.Name}}</td><td class="num">{{.N}}</td><td class="num">{{.Share}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p class="empty">No data yet.</p>
{{- end}}
{{- end}}`

// dashboardHTML is the page: no script, nothing loaded from anywhere, and
// a content security policy that says so.
const dashboardHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>lore measure · {{.Scope}}</title>
<style>
:root{--bg:#f6f6f3;--fg:#1d1f21;--muted:#5d6166;--card:#fff;--line:#e4e4df;--axis:#8f9399;
--c1:#2563eb;--c2:#e8590c;--c3:#2b9348;--c4:#c5c7c9;--seg:#fff}
@media (prefers-color-scheme:dark){:root{--bg:#131517;--fg:#e6e6e3;--muted:#a2a6ab;--card:#1d2024;
--line:#2d3137;--axis:#6c7178;--c1:#74a7ff;--c2:#ff9b4a;--c3:#5fd07e;--c4:#4a4f57;--seg:#111}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:1240px;margin:0 auto;padding:0 1.25rem}
header{padding-top:1.4rem}
h1{font-size:1.55rem;margin:0}
.meta{color:var(--muted);margin:.2rem 0 0}
h2{font-size:1.05rem;margin:0}
section{margin:1.1rem 0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.75rem}
.card,.chart,.panel{background:var(--card);border:1px solid var(--line);border-radius:10px}
.card{padding:.7rem .85rem}
.card h2{font-size:.74rem;font-weight:600;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.card .value{font-size:1.55rem;font-weight:650;margin:.15rem 0;font-variant-numeric:tabular-nums}
.card .unit{font-size:.9rem;font-weight:500;color:var(--muted)}
.card.nodata .value{color:var(--muted);font-weight:500}
.card .detail{font-size:.8rem;color:var(--muted);margin:0}
.charts,.tables{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,34rem),1fr));gap:1rem}
.chart{margin:0;padding:.85rem 1rem .6rem}
.chart figcaption p{margin:.15rem 0 .4rem;color:var(--muted);font-size:.85rem}
svg{display:block;width:100%;height:auto;font-size:11px}
svg text{fill:var(--muted)}
svg .label{fill:var(--fg);font-size:12px}
svg .legend{fill:var(--fg);font-size:12px}
svg .siglabel{fill:var(--fg);font-size:11.5px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
svg .seglabel{fill:var(--seg);font-size:13px;font-weight:600}
svg .seglabel.muted{fill:var(--fg)}
svg .nodata{fill:var(--muted);font-size:18px}
svg .grid{stroke:var(--line)}
svg .axis{stroke:var(--axis)}
svg .bar,svg .after,svg .acted,svg .dot.s1{fill:var(--c1)}
svg .before,svg .dot.s2{fill:var(--c2)}
svg .cited{fill:var(--c3)}
svg .unused{fill:var(--c4)}
svg .s1{stroke:var(--c1)}
svg .s2{stroke:var(--c2)}
svg rect.s1{fill:var(--c1)}
svg rect.s2{fill:var(--c2)}
svg .line{fill:none;stroke-width:2.5;stroke-linejoin:round}
svg .dot{stroke:none}
svg rect:hover,svg circle:hover{opacity:.75}
.panel{padding:.85rem 1rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.86rem;margin-top:.5rem}
th,td{padding:.3rem .5rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{color:var(--muted);font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.sig{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem;overflow-wrap:anywhere;min-width:12rem}
.wide{grid-column:1/-1}
.empty{color:var(--muted);margin:.5rem 0 0}
footer{color:var(--muted);font-size:.8rem;padding-bottom:1.5rem}
@media (max-width:600px){body{font-size:14px}header,main,footer{padding:0 .7rem}.card .value{font-size:1.3rem}
.chart{padding:.7rem .5rem .4rem}
svg{font-size:14px}svg .label,svg .legend{font-size:15px}svg .siglabel{font-size:13px}svg .nodata{font-size:24px}}
</style>
</head>
<body>
<header>
<h1>lore measure</h1>
<p class="meta">Generated {{if .GeneratedISO}}<time datetime="{{.GeneratedISO}}">{{.Generated}}</time>{{else}}{{.Generated}}{{end}} · {{.Scope}} · {{.Sessions}} measured</p>
</header>
<main>
<section class="cards" aria-label="headline numbers">
{{- range .Headlines}}
<div class="card{{if .NoData}} nodata{{end}}"><h2>{{.Name}}</h2><p class="value">{{.Value}}{{with .Unit}} <span class="unit">{{.}}</span>{{end}}</p><p class="detail">{{.Detail}}</p></div>
{{- end}}
</section>
<section class="charts" aria-label="charts">
{{- range .Charts}}
<figure class="chart" data-chart="{{.ID}}">
<figcaption><h2>{{.Heading}}</h2><p>{{.Summary}}</p></figcaption>
<svg viewBox="0 0 {{f .W}} {{f .H}}" role="img" aria-labelledby="chart-{{.ID}}-title">
<title id="chart-{{.ID}}-title">{{.Title}}</title>
{{- range .Lines}}
<line class="{{.Class}}" x1="{{f .X1}}" y1="{{f .Y1}}" x2="{{f .X2}}" y2="{{f .Y2}}"/>
{{- end}}
{{- range .Rects}}
<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}">{{with .Title}}<title>{{.}}</title>{{end}}</rect>
{{- end}}
{{- range .Polys}}
<polyline class="{{.Class}}" points="{{.Points}}"/>
{{- end}}
{{- range .Dots}}
<circle class="{{.Class}}" cx="{{f .X}}" cy="{{f .Y}}" r="3.5"><title>{{.Title}}</title></circle>
{{- end}}
{{- range .Texts}}
<text class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}"{{with .Anchor}} text-anchor="{{.}}"{{end}}{{with .Transform}} transform="{{.}}"{{end}}>{{.Text}}</text>
{{- end}}
{{- if .Empty}}
<text class="nodata" x="{{f .EmptyX}}" y="{{f .EmptyY}}" text-anchor="middle">no data yet</text>
{{- end}}
</svg>
</figure>
{{- end}}
</section>
<section class="tables" aria-label="tables">
<div class="panel wide">
<h2>Known errors</h2>
{{- if .Signatures}}
<table>
<thead><tr><th>signature</th><th>known since</th><th class="num">before</th><th class="num">after</th><th class="num">before/wk</th><th class="num">after/wk</th></tr></thead>
<tbody>
{{- range .Signatures}}
<tr><td class="sig">{{.Signature}}</td><td class="num">{{.KnownSince}}</td><td class="num">{{.Before}}</td><td class="num">{{.After}}</td><td class="num">{{.BeforePerWeek}}</td><td class="num">{{.AfterPerWeek}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p class="empty">No data yet.</p>
{{- end}}
</div>
<div class="panel">
<h2>Outcomes</h2>
{{- template "shares" (shares "outcome" "sessions" .Outcomes)}}
</div>
<div class="panel">
<h2>Active knowledge by category</h2>
{{- template "shares" (shares "category" "items" .Categories)}}
</div>
</section>
</main>
<footer>Written by lore measure. The numbers behind this page are in metrics.json, and in words in dashboard.md, next to it.</footer>
</body>
</html>
`
