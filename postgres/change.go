package postgres

// What a person does to stored items: supersede, review, delete, and
// forget a session.

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/neardup"
)

// Supersede marks old as superseded by new and lists old in new's
// Related.
func (s *Store) Supersede(ctx context.Context, oldID, newID string) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		oldRow, oldFull, err := resolve(ctx, tx, "items", "item", oldID)
		if err != nil {
			return err
		}
		newRow, _, err := resolve(ctx, tx, "items", "item", newID)
		if err != nil {
			return err
		}
		if oldRow == newRow {
			return lore.Errorf(lore.EINVALID, "an item cannot supersede itself")
		}
		if _, err := tx.Exec(ctx, `UPDATE items SET related = related || $1::text
			WHERE rowid = $2 AND NOT $1 = ANY(related)`, oldFull, newRow); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE items SET status = 'superseded' WHERE rowid = $1`, oldRow)
		return err
	})
}

// Review applies a person's decision (lore.Decide) to the item with this
// id or unique id prefix, and returns the item as it now is. An edited
// text keeps the band keys of the old one: a session that teaches the
// text it was edited from still finds it.
func (s *Store) Review(ctx context.Context, id string, d lore.Decision) (lore.Item, error) {
	var out lore.Item
	err := s.write(ctx, func(tx pgx.Tx) error {
		r, err := itemRow(ctx, tx, id)
		if err != nil {
			return err
		}
		rowid, old := r.rowid, r.item
		if err := lore.Decide(&r.item, r.conf, d, s.now()); err != nil {
			return err
		}
		it := r.item
		if _, err := tx.Exec(ctx, `UPDATE items SET text = $2, status = $3, confidence = $4, manual_confidence = $5, tags = $6,
			reviews = $7, words = $8, tag_words = $9 WHERE rowid = $1`,
			rowid, it.Text, string(it.Status), it.Confidence, it.Manual, nonNil(it.Tags), reviewsJSON(it.Reviews),
			words(it.Text), words(strings.Join(it.Tags, " "))); err != nil {
			return err
		}
		if it.Text != old.Text {
			fp := neardup.Of(it)
			rowids := slices.Repeat([]int64{rowid}, len(fp.Keys))
			if err := insertBands(ctx, tx, fp.Keys[:], rowids); err != nil {
				return err
			}
		}
		out = it
		return nil
	})
	return out, err
}

// Delete removes an item, its evidence and its band keys.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		rowid, _, err := resolve(ctx, tx, "items", "item", id)
		if err != nil {
			return err
		}
		return deleteItem(ctx, tx, rowid)
	})
}

// deleteItem deletes an item and its band keys.
func deleteItem(ctx context.Context, tx pgx.Tx, rowid int64) error {
	if _, err := tx.Exec(ctx, `DELETE FROM bands WHERE item = $1`, rowid); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM items WHERE rowid = $1`, rowid)
	return err
}

// ForgetSession removes a session's evidence from every item, recomputes
// their confidence, deletes the items nothing else supports, and removes
// the session's episodes.
func (s *Store) ForgetSession(ctx context.Context, session string) (lore.ForgetResult, error) {
	session = lore.SessionID(session)
	if session == "" {
		return lore.ForgetResult{}, lore.Errorf(lore.EINVALID, "empty session id")
	}
	var res lore.ForgetResult
	err := s.write(ctx, func(tx pgx.Tx) error {
		res = lore.ForgetResult{}
		rows, err := loadRows(ctx, tx, `SELECT `+itemColumns+` FROM items i WHERE i.ev_sessions @> ARRAY[$1]`, session)
		if err != nil {
			return err
		}
		for _, r := range rows {
			cs, found := lore.Forget(&r.item, r.conf, session)
			if !found {
				continue
			}
			res.Evidence++
			if r.item.Orphaned() {
				if err := deleteItem(ctx, tx, r.rowid); err != nil {
					return err
				}
				res.Deleted++
				continue
			}
			sessions, positions, conf := evidenceColumns(r.item.Evidence, cs)
			if _, err := tx.Exec(ctx, `UPDATE items SET confidence = $2, source_count = $3, ev_sessions = $4, ev_positions = $5,
				ev_confidences = $6 WHERE rowid = $1`, r.rowid, r.item.Confidence, r.item.SourceCount, sessions, positions, conf); err != nil {
				return err
			}
			res.Updated++
		}
		_, err = tx.Exec(ctx, `DELETE FROM episodes WHERE session = $1`, session)
		return err
	})
	return res, err
}

// insertBands stores band keys of items.
func insertBands(ctx context.Context, tx pgx.Tx, keys, rowids []int64) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO bands (key, item) SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT DO NOTHING`,
		keys, rowids)
	return err
}
