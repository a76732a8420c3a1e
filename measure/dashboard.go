package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

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
	if err := RenderDashboard(&page, m); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
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
	// The metrics name the user's repositories and sessions: for the
	// user alone, as the store is.
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), f.data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

// RenderDashboard writes m as the dashboard's HTML page (index.html):
// one self-contained page with SVG charts, no script.
func RenderDashboard(w io.Writer, m Metrics) error {
	if err := dashboardPage.Execute(w, newDashPage(m)); err != nil {
		return fmt.Errorf("render dashboard page: %w", err)
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

// dashLatestPeriod is the last dated week that had sessions whose cost
// is known (tokens or minutes), else the sessions without a date.
func dashLatestPeriod(ps []Period) (Period, bool) {
	var undated *Period
	for i := len(ps) - 1; i >= 0; i-- {
		switch {
		case ps[i].SessionsWithTokens == 0 && ps[i].SessionsWithMinutes == 0:
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
