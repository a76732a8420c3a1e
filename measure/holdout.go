package measure

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lorehq/lore"
)

// Holdout compares the sessions that were handed their notes with those
// held out (lore boot --holdout): which sessions went without was chance,
// so a difference between the two is lore's doing, within the interval.
type Holdout struct {
	Treated  Arm `json:"treated"`  // sessions whose boot handed its notes over
	Withheld Arm `json:"withheld"` // sessions whose boot was held out
}

// Arm is one side of the holdout. Rates come with a 95% interval (Wilson
// score) so that a difference smaller than chance is not read as one.
type Arm struct {
	Sessions     int      `json:"sessions"`
	MetKnown     int      `json:"met_known"` // sessions that met an error lore knew when they started
	KnownRate    Interval `json:"known_rate"`
	ToolSessions int      `json:"sessions_with_tool_calls"`
	FirstTry     int      `json:"first_try"` // of those, sessions with no failed call
	FirstTryRate Interval `json:"first_try_rate"`
	// Medians over the sessions whose transcript says (tokens) and that
	// have a start and a later end (minutes); 0 when none.
	MedianTokens  int64   `json:"median_tokens"`
	MedianMinutes float64 `json:"median_minutes"`
}

// Interval is a share and its 95% interval.
type Interval struct {
	Rate float64 `json:"rate"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Of says the share as k of n with its interval, "3 of 27 (11%, 4%–28%)",
// or "no data" when n is 0.
func (r Interval) Of(k, n int) string {
	if n == 0 {
		return "no data"
	}
	return fmt.Sprintf("%d of %d (%s, %s–%s)", k, n, Percent(r.Rate), Percent(r.Low), Percent(r.High))
}

// holdout sorts the measured sessions by the boot records that name them:
// treated when a boot handed them notes, withheld when a boot was held
// out (a session's every boot decides alike). Sessions no boot names are
// in neither arm.
func holdout(ctx context.Context, st store, all []facts, knownSince map[string]time.Time, since time.Time) (Holdout, error) {
	var h Holdout
	if st == nil {
		return h, nil
	}
	withheld := map[string]bool{}
	err := st.Boots(ctx, since, func(b lore.Boot) error {
		if b.Session == "" {
			return nil
		}
		if _, seen := withheld[b.Session]; !seen || b.Withheld {
			withheld[b.Session] = b.Withheld
		}
		return nil
	})
	if err != nil {
		return h, err
	}
	var treated, held []facts
	for _, f := range all {
		w, booted := withheld[f.s.ID]
		switch {
		case !booted:
		case w:
			held = append(held, f)
		default:
			treated = append(treated, f)
		}
	}
	h.Treated, h.Withheld = arm(treated, knownSince), arm(held, knownSince)
	return h, nil
}

func arm(fs []facts, knownSince map[string]time.Time) Arm {
	a := Arm{Sessions: len(fs)}
	var tokens []int64
	var minutes []float64
	for _, f := range fs {
		if metKnown(f, knownSince) {
			a.MetKnown++
		}
		if f.s.ToolCalls > 0 {
			a.ToolSessions++
			if f.s.ToolErrors == 0 {
				a.FirstTry++
			}
		}
		if n := tokensOf(f.s); n > 0 {
			tokens = append(tokens, n)
		}
		if !f.s.StartedAt.IsZero() && f.s.EndedAt.After(f.s.StartedAt) {
			minutes = append(minutes, f.s.EndedAt.Sub(f.s.StartedAt).Minutes())
		}
	}
	a.KnownRate = wilson(a.MetKnown, a.Sessions)
	a.FirstTryRate = wilson(a.FirstTry, a.ToolSessions)
	if len(tokens) > 0 {
		slices.Sort(tokens)
		a.MedianTokens = tokens[len(tokens)/2]
	}
	if len(minutes) > 0 {
		slices.Sort(minutes)
		a.MedianMinutes = round(minutes[len(minutes)/2])
	}
	return a
}

// metKnown reports whether a session met an error an item knew before
// the session started.
func metKnown(f facts, knownSince map[string]time.Time) bool {
	t := f.s.FirstActive()
	for _, sig := range f.signatures {
		if known, ok := knownSince[sig]; ok && known.Before(t) {
			return true
		}
	}
	return false
}

// wilson is k of n as a share with its 95% Wilson score interval; all 0
// for no n.
func wilson(k, n int) Interval {
	if n == 0 {
		return Interval{}
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / d
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return Interval{Rate: round(p), Low: round(max(0, centre-half)), High: round(min(1, centre+half))}
}

// holdoutVerdict says what the holdout shows of known errors: how much
// less often sessions with notes met them, when the two arms are big
// enough and their intervals apart; else why it cannot tell.
func holdoutVerdict(h Holdout) string {
	t, w := h.Treated, h.Withheld
	switch {
	case w.Sessions == 0:
		return "no session was held out, so whether the notes cut known errors cannot be told (lore boot --holdout 0.1)"
	case t.Sessions < minToTell || w.Sessions < minToTell:
		return fmt.Sprintf("%s with notes and %s held out: too few sessions to tell whether the notes cut known errors",
			dashN(t.Sessions, "session"), dashN(w.Sessions, "session"))
	case t.KnownRate.High < w.KnownRate.Low:
		return fmt.Sprintf("known errors recurred %s less where notes were handed out (%s of %d sessions, against %s of %d held out)",
			Percent(1-t.KnownRate.Rate/w.KnownRate.Rate), Percent(t.KnownRate.Rate), t.Sessions, Percent(w.KnownRate.Rate), w.Sessions)
	case w.KnownRate.High < t.KnownRate.Low:
		return fmt.Sprintf("known errors recurred more where notes were handed out (%s of %d sessions, against %s of %d held out)",
			Percent(t.KnownRate.Rate), t.Sessions, Percent(w.KnownRate.Rate), w.Sessions)
	}
	return fmt.Sprintf("known errors recurred in %s of %d sessions with notes and %s of %d held out: no difference beyond chance yet",
		Percent(t.KnownRate.Rate), t.Sessions, Percent(w.KnownRate.Rate), w.Sessions)
}
