package measure

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// Split is the main figures of the sessions of one agent or one
// repository, where the measured sessions mix several: a share over all of
// them can hide that lore pays for one and not another.
type Split struct {
	Name               string  `json:"name"` // the agent, or the repository ("" for sessions with none)
	Sessions           int     `json:"sessions"`
	ToolSessions       int     `json:"sessions_with_tool_calls"`
	FirstTryRate       float64 `json:"first_try_rate"` // of the sessions with tool calls
	SessionsWithErrors int     `json:"sessions_with_errors"`
	SessionsHitKnown   int     `json:"sessions_hit_known"` // met an error lore knew when they started
	RecurrenceRate     float64 `json:"recurrence_rate"`
	Injected           int     `json:"injected"` // notes boot handed these sessions
	Used               int     `json:"used"`     // of those, cited or acted on
	HitRate            float64 `json:"hit_rate"`
}

// splits computes a Split for each value key gives the sessions, when
// there are two or more; the most sessions first.
func splits(ctx context.Context, st store, all []facts, items []lore.Item, knownSince map[string]time.Time,
	since time.Time, key func(*lore.Session) string) ([]Split, error) {
	groups := map[string][]facts{}
	for _, f := range all {
		k := key(f.s)
		groups[k] = append(groups[k], f)
	}
	out := []Split{}
	if len(groups) < 2 {
		return out, nil
	}
	for name, fs := range groups {
		sessions := make([]*lore.Session, len(fs))
		for i, f := range fs {
			sessions[i] = f.s
		}
		ft := firstTry(sessions)
		rec := recurrence(fs, knownSince)
		hr, _, err := hitRate(ctx, st, fs, items, since)
		if err != nil {
			return nil, err
		}
		out = append(out, Split{Name: name, Sessions: len(fs), ToolSessions: ft.Sessions, FirstTryRate: ft.Rate,
			SessionsWithErrors: rec.SessionsWithErrors, SessionsHitKnown: rec.SessionsHitKnown, RecurrenceRate: rec.Rate,
			Injected: hr.Injected, Used: hr.Cited + hr.ActedOn, HitRate: hr.Rate})
	}
	slices.SortFunc(out, func(a, b Split) int { return cmp.Or(cmp.Compare(b.Sessions, a.Sessions), cmp.Compare(a.Name, b.Name)) })
	return out, nil
}

// minToTell is how many sessions each side of a comparison needs before
// the verdict says which way it goes.
const minToTell = 20

// verdict is the one line at the top of lore measure and the dashboard:
// whether the notes were used, whether they changed anything that can be
// told, and what the replay says lore knew.
func verdict(m Metrics) string {
	var parts []string
	h := m.HitRate
	switch {
	case h.Injected > 0:
		parts = append(parts, fmt.Sprintf("%d of the %d notes lore handed %s were used (cited or acted on)",
			h.Cited+h.ActedOn, h.Injected, dashN(h.Boots, "session")))
	default:
		parts = append(parts, "lore handed these sessions no notes")
	}
	parts = append(parts, holdoutVerdict(m.Holdout))
	if k := m.WouldHaveKnown; k.Errors > 0 {
		parts = append(parts, fmt.Sprintf("replayed, earlier sessions had taught %s of the errors met and boot would have handed over %s",
			Percent(k.KnownRate), Percent(k.DeliveredRate)))
	}
	return strings.Join(parts, "; ") + "."
}
