package measure

import (
	"fmt"
	"strings"
)

// journalAttemptsChart draws the journal's attempts per week, as bars.
func journalAttemptsChart(j Journal) dashChart {
	c, f := newDashChart("journal-attempts", "Attempts per week", "Attempts to change code the journal kept, week by week", 300, 56, 20, 36, 44)
	weeks, undated := datedWeeks(j.Weeks)
	c.Summary = "No attempts in the journal yet (lore journal log, lore journal import)."
	if j.Attempts > 0 {
		c.Summary = fmt.Sprintf("%s attempts: %s succeeded, %s failed, %s rolled back, %s pending.", dashInt(int64(j.Attempts)),
			dashInt(int64(j.Succeeded)), dashInt(int64(j.Failed)), dashInt(int64(j.RolledBack)), dashInt(int64(j.Pending)))
	}
	c.Summary += dashUndrawn(undated, "attempts")
	if len(weeks) == 0 {
		f.Empty("week", "attempts")
		return c
	}
	dates, counts := make([]string, len(weeks)), make([]int, len(weeks))
	for i, w := range weeks {
		dates[i], counts[i] = w.Week, w.Attempts
	}
	bars(f, dates, counts, 7, "week (Monday)", "attempts", func(i int) string {
		return fmt.Sprintf("week of %s: %s attempts", dates[i], dashInt(int64(counts[i])))
	})
	return c
}

// journalSuccessChart draws the share of ended attempts that succeeded,
// week by week.
func journalSuccessChart(j Journal) dashChart {
	c, f := newDashChart("journal-success", "Attempt success rate", "Share of ended attempts that succeeded, week by week", 300, 56, 20, 36, 44)
	weeks, _ := datedWeeks(j.Weeks)
	ended := j.Succeeded + j.Failed + j.RolledBack
	c.Summary = "No ended attempts yet."
	if ended > 0 {
		c.Summary = fmt.Sprintf("%s of %s ended attempts succeeded.", Percent(j.SuccessRate), dashInt(int64(ended)))
	}
	if len(weeks) == 0 {
		f.Empty("week", "success rate")
		return c
	}
	rates := make([]weekRate, len(weeks))
	for i, w := range weeks {
		rates[i] = weekRate{w.Week, w.SuccessRate, w.Ended,
			fmt.Sprintf("week of %s: %s of %s ended attempts", w.Week, Percent(w.SuccessRate), dashInt(int64(w.Ended)))}
	}
	rateLine(f, rates, "success rate")
	return c
}

// datedWeeks are the weeks with a date, and how many attempts the others
// hold.
func datedWeeks(ws []JournalWeek) ([]JournalWeek, int) {
	var dated []JournalWeek
	undated := 0
	for _, w := range ws {
		if dashDated(w.Week) {
			dated = append(dated, w)
		} else {
			undated += w.Attempts
		}
	}
	return dated, undated
}

// dashFailing is a row of the page's table of where attempts fail.
type dashFailing struct {
	Kind, Name, Failures, Attempts string
}

func dashFailingRows(j Journal) []dashFailing {
	var rows []dashFailing
	for _, g := range []struct {
		kind string
		fs   []Failing
	}{{"area", j.Areas}, {"file", j.Files}} {
		for _, f := range g.fs {
			rows = append(rows, dashFailing{Kind: g.kind, Name: f.Name, Failures: dashInt(int64(f.Failures)), Attempts: dashInt(int64(f.Attempts))})
		}
	}
	return rows
}

// journalMarkdown is dashboard.md's journal section.
func journalMarkdown(j Journal) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("\n## Journal\n\nAttempts to change code (lore journal), week by week: how many, and the share of those that ended (succeeded, failed or rolled back) that succeeded.\n\n")
	if len(j.Weeks) == 0 {
		p("No data yet.\n")
		return b.String()
	}
	p("| week | attempts | ended | success rate |\n|---|---:|---:|---:|\n")
	for _, w := range j.Weeks {
		p("| %s | %s | %s | %s |\n", dashMD(w.Week), dashInt(int64(w.Attempts)), dashInt(int64(w.Ended)), Percent(w.SuccessRate))
	}
	rows := dashFailingRows(j)
	if len(rows) == 0 {
		return b.String()
	}
	p("\nWhere attempts fail most: areas and files, by failed or rolled-back attempts.\n\n| | name | failures | attempts |\n|---|---|---:|---:|\n")
	for _, r := range rows {
		p("| %s | %s | %s | %s |\n", r.Kind, dashMD(r.Name), r.Failures, r.Attempts)
	}
	return b.String()
}
