package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/lorehq/lore"
)

// Harvested returns the record of a session's last harvest by extractor.
func (s *Store) Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error) {
	h := lore.Harvest{Session: session, Extractor: extractor}
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT path, size, hash, at, items FROM harvests WHERE session = ? AND extractor = ?`,
		session, extractor).Scan(&h.Path, &h.Size, &h.Hash, &at, &h.Items)
	if errors.Is(err, sql.ErrNoRows) {
		return lore.Harvest{}, false, nil
	}
	if err != nil {
		return lore.Harvest{}, false, err
	}
	h.At = fromMicros(at)
	return h, true, nil
}

// RecordHarvest stores records, each replacing the record of its session
// and extractor, in one transaction.
func (s *Store) RecordHarvest(ctx context.Context, hs ...lore.Harvest) error {
	for _, h := range hs {
		if h.Session == "" || h.Extractor == "" {
			return lore.Errorf(lore.EINVALID, "a harvest record needs a session and an extractor")
		}
	}
	if len(hs) == 0 {
		return nil
	}
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO harvests (session, extractor, path, size, hash, at, items)
			VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, h := range hs {
			at := h.At
			if at.IsZero() {
				at = now
			}
			if _, err := st.ExecContext(ctx, h.Session, h.Extractor, h.Path, h.Size, h.Hash, micros(at), h.Items); err != nil {
				return err
			}
		}
		return nil
	})
}
