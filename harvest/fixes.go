package harvest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lorehq/lore"
)

// linkFixes links the pitfalls of this run's committing sessions to the
// fixes lore guard keeps guards of in their repositories
// (lore.LinkFixes), when the store keeps guards.
func (h *harvester) linkFixes(ctx context.Context) error {
	st, ok := h.opts.Store.(interface {
		lore.FixGuards
		lore.Retagger
	})
	if !ok || len(h.committed) == 0 {
		return nil
	}
	slices.Sort(h.committed)
	var gs []lore.FixGuard
	for _, repo := range slices.Compact(h.committed) {
		rgs, err := st.Guards(ctx, repo)
		if err != nil {
			return fmt.Errorf("read the guards of %s: %w", repo, err)
		}
		gs = append(gs, rgs...)
	}
	n, err := lore.LinkFixes(ctx, st, gs)
	if err != nil {
		return fmt.Errorf("link pitfalls to their fixes: %w", err)
	}
	h.sum.FixesLinked = n
	return nil
}

func isCommitTag(t string) bool { return strings.HasPrefix(t, lore.TagCommit) }
