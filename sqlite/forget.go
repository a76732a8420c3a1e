package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
)

// Supersede marks old superseded and lists it in new's Related.
func (s *Store) Supersede(ctx context.Context, oldID, newID string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		oldRow, oldFull, err := resolve(ctx, tx, oldID)
		if err != nil {
			return err
		}
		newRow, _, err := resolve(ctx, tx, newID)
		if err != nil {
			return err
		}
		if oldRow == newRow {
			return lore.Errorf(lore.EINVALID, "an item cannot supersede itself")
		}
		var related string
		if err := tx.QueryRowContext(ctx, `SELECT related FROM items WHERE rowid = ?`, newRow).Scan(&related); err != nil {
			return err
		}
		var list []string
		if err := json.Unmarshal([]byte(related), &list); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE items SET related = ? WHERE rowid = ?`,
			jsonList(appendNew(list, oldFull)), newRow); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE items SET status = 'superseded' WHERE rowid = ?`, oldRow)
		return err
	})
}

// Retire marks an item retired.
func (s *Store) Retire(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		rowid, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE items SET status = 'retired' WHERE rowid = ?`, rowid)
		return err
	})
}

// Delete removes an item, its evidence and its band keys.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		rowid, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		return deleteRow(ctx, tx, rowid)
	})
}

func deleteRow(ctx context.Context, tx *sql.Tx, rowid int64) error {
	var norm, category, repo, agent string
	if err := tx.QueryRowContext(ctx, `SELECT norm, category, repo, agent FROM items WHERE rowid = ?`, rowid).
		Scan(&norm, &category, &repo, &agent); err != nil {
		return err
	}
	keys := dedup.Of(norm).BandKeys(scope(lore.Item{Category: lore.Category(category), Repo: repo, Agent: agent}))
	args := []any{rowid}
	for _, k := range keys {
		args = append(args, k)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM bands WHERE item = ? AND key IN (`+placeholders(len(keys))+`)`, args...); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM evidence WHERE item = ?`, rowid); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM items WHERE rowid = ?`, rowid)
	return err
}

// ForgetSession removes a session's evidence everywhere, recomputes the
// confidence of the items that keep other support and deletes the rest.
func (s *Store) ForgetSession(ctx context.Context, session string) (lore.ForgetResult, error) {
	session = strings.TrimSpace(session)
	if session == "" {
		return lore.ForgetResult{}, lore.Errorf(lore.EINVALID, "empty session id")
	}
	var res lore.ForgetResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		res = lore.ForgetResult{}
		rows, err := tx.QueryContext(ctx, `SELECT item FROM evidence WHERE session = ?`, session)
		if err != nil {
			return err
		}
		var items []int64
		for rows.Next() {
			var r int64
			if err := rows.Scan(&r); err != nil {
				rows.Close()
				return err
			}
			items = append(items, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		w, err := newWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		for _, r := range items {
			if _, err := tx.ExecContext(ctx, `DELETE FROM evidence WHERE item = ? AND session = ?`, r, session); err != nil {
				return err
			}
			res.Evidence++
			cs, err := w.evidenceConfidences(ctx, r)
			if err != nil {
				return err
			}
			var manual float64
			if err := tx.QueryRowContext(ctx, `SELECT manual_confidence FROM items WHERE rowid = ?`, r).Scan(&manual); err != nil {
				return err
			}
			if len(cs) == 0 && manual == 0 {
				if err := deleteRow(ctx, tx, r); err != nil {
					return err
				}
				res.Deleted++
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE items SET confidence = ?, source_count = ? WHERE rowid = ?`,
				lore.CombineConfidence(append(cs, manual)...), len(cs), r); err != nil {
				return err
			}
			res.Updated++
		}
		return nil
	})
	return res, err
}
