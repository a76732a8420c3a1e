package improve

import (
	"fmt"
	"strings"
	"time"
)

// Report is the markdown a person reads the morning after: where the
// points started and stand, each round, what was kept, what waits for
// approval, where the loop got stuck.
func Report(s Status, st *State) string {
	var b strings.Builder
	b.WriteString("# lore improve\n\n")
	if st == nil {
		b.WriteString("lore improve has not run on this repository.\n")
		return b.String()
	}
	state := "not running"
	if s.Running {
		state = fmt.Sprintf("running (pid %d, round %d on %s)", s.PID, s.Round, s.Area)
	}
	fmt.Fprintf(&b, "Branch `%s` at `%s`; the loop is %s.\n\n", st.Branch, short(st.Best), state)
	counts := map[string]int{}
	for _, r := range st.History {
		counts[r.Outcome]++
	}
	if len(s.OverTime) > 0 {
		first := s.OverTime[0]
		start := first.Total
		if r := st.History[0]; r.Before != nil {
			start = *r.Before
		}
		fmt.Fprintf(&b, "Points: %s/%s at the start, %s/%s now, after %d rounds: %d kept, %d rolled back, %d tampered, %d held, %d failed to run or changed nothing.\n\n",
			num(start), num(first.Max), num(s.Total), num(s.Max), len(st.History), counts[Kept], counts[RolledBack], counts[Tampered], counts[Held],
			counts[AgentFailed]+counts[TimedOut]+counts[NoChange]+counts[BenchFailed])
	}
	if len(s.Points) > 0 {
		b.WriteString("## Now\n\n| area | points | max |\n|---|---|---|\n")
		for _, n := range s.Points.Names() {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(n), num(s.Points[n].Points), num(s.Points[n].Max))
		}
		b.WriteString("\n")
	}
	if len(st.History) > 0 {
		b.WriteString("## Rounds\n\n| round | when (UTC) | area | approach/try | outcome | points | why |\n|---|---|---|---|---|---|---|\n")
		for _, r := range st.History {
			pts := ""
			if r.Before != nil {
				pts = num(*r.Before)
				if r.After != nil {
					pts += "→" + num(*r.After)
				}
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %d/%d | %s | %s | %s |\n", r.Round, r.At.Format(time.DateTime), mdCell(r.Area), r.Approach, r.Try, r.Outcome, pts, mdCell(r.Reason))
		}
		b.WriteString("\n")
	}
	if len(s.Pending) > 0 {
		b.WriteString("## Waiting for approval\n\n")
		for _, p := range s.Pending {
			bt, _ := p.Before.Total()
			at, _ := p.After.Total()
			fmt.Fprintf(&b, "- %d: %s, %s→%s, touches protected %s (`lore improve approve %d`, `lore improve reject %d`; the patch: %s)\n",
				p.N, p.Area, num(bt), num(at), strings.Join(p.Protected, ", "), p.N, p.N, p.Patch)
		}
		b.WriteString("\n")
	}
	if len(st.Escalated) > 0 {
		b.WriteString("## Stuck\n\n")
		for _, e := range st.Escalated {
			fmt.Fprintf(&b, "- %s, since %s: %s\n", e.Area, e.At.Format(time.DateTime), e.Report)
		}
		b.WriteString("\n")
	}
	return b.String()
}
