package sqlite

import (
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
)

// TestJournalHistory measures the journal's retrieval on real git
// histories (storetest.RunJournalHistory).
func TestJournalHistory(t *testing.T) {
	storetest.RunJournalHistory(t, func(t *testing.T) lore.Journal { return open(t, nil) })
}
