package measure

import (
	"context"

	"github.com/lorehq/lore/improve"
)

// ImproveRounds are the points after every round of lore improve on the
// repository of dir; none outside a repository or where it never ran.
func ImproveRounds(ctx context.Context, dir string) []ImprovePoints {
	if dir == "" {
		return nil
	}
	s, _, err := improve.ReadStatus(ctx, dir)
	if err != nil {
		return nil
	}
	var ps []ImprovePoints
	for _, p := range s.OverTime {
		ps = append(ps, ImprovePoints{Round: p.Round, At: p.At, Total: p.Total, Max: p.Max, Outcome: p.Outcome})
	}
	return ps
}
