package journal

import (
	"context"
	"fmt"
	"sync"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
)

// Importer is the harvest.Extractor of lore journal import: it logs the
// attempts of each session it is given (Attempts) in Journal, a retry
// with the attempt it retries as its parent, and returns their lessons
// (lore.LessonOf) as the session's items. Run by harvest.Run, a session is
// imported once until its transcript changes (its records are
// lore.JournalImported's), and imported again it replaces its attempts.
type Importer struct {
	Journal lore.Journal

	mu sync.Mutex
	// Logged and Failed count the attempts logged and, of them, the
	// failures.
	Logged, Failed int
}

// Name is lore.JournalImported.
func (*Importer) Name() string { return lore.JournalImported }

// Extract logs the session's attempts. The store is written one session
// at a time.
func (im *Importer) Extract(ctx context.Context, s *lore.Session) (harvest.Found, error) {
	as := Attempts(s)
	if len(as) == 0 {
		return harvest.Found{}, nil
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	stored, err := im.Journal.LogAttempts(ctx, as)
	if err != nil {
		return harvest.Found{}, fmt.Errorf("log attempts: %w", err)
	}
	// A retry's parent is known once the attempt it retries has its id.
	var retries []lore.Attempt
	for i := 1; i < len(stored) && i < len(as); i++ {
		if as[i].Retries > 0 && stored[i].Parent != stored[i-1].ID {
			r := stored[i]
			r.Parent = stored[i-1].ID
			retries = append(retries, r)
		}
	}
	if len(retries) > 0 {
		if _, err := im.Journal.LogAttempts(ctx, retries); err != nil {
			return harvest.Found{}, fmt.Errorf("log retries: %w", err)
		}
	}
	var found harvest.Found
	for _, a := range stored {
		im.Logged++
		if a.Outcome == lore.AttemptFailure {
			im.Failed++
		}
		if it, ok := lore.LessonOf(a); ok {
			found.Items = append(found.Items, it)
		}
	}
	return found, nil
}
