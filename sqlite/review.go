package sqlite

import (
	"context"
	"database/sql"
	"slices"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/neardup"
)

// Review applies a person's decision to an item (lore.Decide) and records
// it in the item's row. An edit's new text replaces the old one in the
// full-text index; the old text's band keys stay, so that a
// near-duplicate of what sessions taught still finds the item.
func (s *Store) Review(ctx context.Context, id string, d lore.Decision) (lore.Item, error) {
	var out lore.Item
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := itemRow(ctx, tx, id)
		if err != nil {
			return err
		}
		rowid, old := r.rowid, r.item
		if err := lore.Decide(&r.item, r.conf, d, s.now()); err != nil {
			return err
		}
		it := r.item
		if _, err := tx.ExecContext(ctx, `UPDATE items SET text = ?, status = ?, confidence = ?, manual_confidence = ?,
			tags = ?, reviews = ? WHERE rowid = ?`, it.Text, string(it.Status), it.Confidence, it.Manual,
			jsonArray(it.Tags), jsonArray(it.Reviews), rowid); err != nil {
			return err
		}
		if it.Text != old.Text || !slices.Equal(it.Tags, old.Tags) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO items_fts (items_fts, rowid, text, tags) VALUES ('delete', ?, ?, ?)`,
				rowid, old.Text, jsonArray(old.Tags)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO items_fts (rowid, text, tags) VALUES (?, ?, ?)`,
				rowid, it.Text, jsonArray(it.Tags)); err != nil {
				return err
			}
		}
		if it.Text != old.Text {
			var keys []int64
			for _, k := range neardup.Of(it).Keys {
				keys = append(keys, k|rowid)
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO bands (band) SELECT value FROM json_each(?)`, jsonArray(keys)); err != nil {
				return err
			}
		}
		out = it
		return nil
	})
	return out, err
}
