package measure

import (
	"fmt"
	"strings"
)

// dashboardMarkdown is dashboard.md: the headline numbers and the tables
// behind the charts, in text that reads well in a terminal and diffs
// well in git.
func dashboardMarkdown(m Metrics) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# lore measure\n\n")
	p("Generated %s · %s · %s measured.\n\n", dashGenerated(m.GeneratedAt), dashMD(dashScope(m)), dashN(m.Sessions, "session"))
	if m.Verdict != "" {
		p("**Verdict:** %s\n\n", dashMD(m.Verdict))
	}

	p("## Summary\n\n| measure | value | what it counts |\n|---|---:|---|\n")
	for _, h := range dashHeadlines(m) {
		p("| %s | %s | %s |\n", h.Name, dashMD(h.Text()), dashMD(h.Detail))
	}

	if n := len(m.Improve); n > 0 {
		last := m.Improve[n-1]
		p("\n## Benchmark points (lore improve)\n\n%s of %s points after %s rounds, from %s.\n\n| round | at | outcome | best total |\n|---:|---|---|---:|\n",
			chartCount(last.Total), chartCount(last.Max), dashInt(int64(n)), chartCount(m.Improve[0].Total))
		for _, r := range m.Improve {
			p("| %d | %s | %s | %s/%s |\n", r.Round, r.At.UTC().Format("2006-01-02 15:04"), dashMD(r.Outcome), chartCount(r.Total), chartCount(r.Max))
		}
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
	b.WriteString(journalMarkdown(m.Journal))
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
