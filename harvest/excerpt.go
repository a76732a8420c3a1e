package harvest

import (
	"context"
	"os"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/transcript"
)

// MaxExcerptFile is the largest transcript an excerpt is read from:
// showing an item must not read a long agent's whole history.
const MaxExcerptFile = 32 << 20

// harvestRecords is the part of a store Excerpt reads.
type harvestRecords interface {
	Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error)
}

// Excerpt returns, redacted, what the message evidence e cites says
// (MessageText), read from the transcript file the rules harvested its
// session from; "" when the session was not harvested so (added by hand,
// by a model), its transcript is gone, changed, a folder or larger than
// MaxExcerptFile. lore show and the web view's item page quote it.
func Excerpt(ctx context.Context, s harvestRecords, e lore.Evidence) string {
	rec, ok, err := s.Harvested(ctx, e.Session, Rules{}.Name())
	if err != nil || !ok || rec.Path == "" {
		return ""
	}
	if fi, err := os.Stat(rec.Path); err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxExcerptFile {
		return ""
	}
	sessions, err := transcript.Read(ctx, rec.Path, transcript.Options{Messages: true})
	if err != nil {
		return ""
	}
	for _, ss := range sessions {
		if ss.ID != e.Session {
			continue
		}
		for _, m := range ss.Messages {
			if m.Index == e.Position {
				return redact.New().String(MessageText(m))
			}
		}
	}
	return ""
}

// MessageText is what a message says: its text and its tool calls, else
// its tool results.
func MessageText(m lore.Message) string {
	var parts []string
	if strings.TrimSpace(m.Text) != "" {
		parts = append(parts, m.Text)
	}
	for _, c := range m.ToolCalls {
		parts = append(parts, c.Name+" "+c.Input)
	}
	if len(parts) > 0 {
		return strings.Join(parts, " · ")
	}
	for _, r := range m.ToolResults {
		parts = append(parts, r.Output)
	}
	return strings.Join(parts, " · ")
}
