package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/lorehq/lore"
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
		rows, err := loadRows(ctx, tx, `items i WHERE rowid = ?`, newRow)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE items SET related = ? WHERE rowid = ?`,
			jsonArray(appendNew(rows[0].item.Related, oldFull)), newRow); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE items SET status = 'superseded' WHERE rowid = ?`, oldRow)
		return err
	})
}

// Delete removes an item, its evidence and its band keys, from the
// store's files as well as from its tables (see shred).
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.shred(ctx, func(tx *sql.Tx) (int, error) {
		rowid, _, err := resolve(ctx, tx, id)
		if err != nil {
			return 0, err
		}
		return 1, deleteRow(ctx, tx, rowid)
	})
}

// shred runs fn, which deletes n items or episodes, so that what it deletes can be
// found in none of the store's files: an item deleted because it held a
// secret must not stay readable to a grep of lore.db. SQLite leaves a
// deleted row's bytes in its page, its freed pages and the write-ahead
// log, and FTS5 keeps a deleted row's terms in its index segments until
// they are merged. So the deleting connection zeroes what it frees
// (secure_delete, for this transaction only), the full-text index is
// merged into fresh segments (optimize), whose old pages are zeroed in
// turn, and the write-ahead log is checkpointed into the database and
// truncated. A reader in another process can keep the log from being
// truncated; the next checkpoint overwrites it.
func (s *Store) shred(ctx context.Context, fn func(*sql.Tx) (int, error)) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `PRAGMA secure_delete = ON`); err != nil {
			return err
		}
		// Off again for the writes that follow on this connection, which
		// need not pay for zeroing.
		defer tx.ExecContext(context.WithoutCancel(ctx), `PRAGMA secure_delete = OFF`)
		n, err := fn(tx)
		if err != nil || n == 0 {
			return err
		}
		if _, err = tx.ExecContext(ctx, `INSERT INTO items_fts (items_fts) VALUES ('optimize')`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')`)
		return err
	})
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint after delete: %w", err)
	}
	return nil
}

// deleteRow deletes an item and its band keys (of its text and of the
// texts it was edited from); a trigger removes it from the full-text
// index.
func deleteRow(ctx context.Context, tx *sql.Tx, rowid int64) error {
	rows, err := loadRows(ctx, tx, `items i WHERE rowid = ?`, rowid)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return sql.ErrNoRows
	}
	var keys []int64
	rows[0].bandKeys(func(k int64) { keys = append(keys, k|rowid) })
	if _, err := tx.ExecContext(ctx, `DELETE FROM bands WHERE band IN (SELECT value FROM json_each(?))`, jsonArray(keys)); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM items WHERE rowid = ?`, rowid)
	return err
}

// ForgetSession removes a session's evidence everywhere, recomputes the
// confidence of the items that keep other support or a person's decision
// and deletes the rest, from the store's files as well (see shred).
func (s *Store) ForgetSession(ctx context.Context, session string) (lore.ForgetResult, error) {
	session = lore.SessionID(session)
	if session == "" {
		return lore.ForgetResult{}, lore.Errorf(lore.EINVALID, "empty session id")
	}
	var res lore.ForgetResult
	err := s.shred(ctx, func(tx *sql.Tx) (int, error) {
		res = lore.ForgetResult{}
		rows, err := loadRows(ctx, tx, `items i WHERE instr(i.evidence, ?) > 0`, evidenceNeedle(session))
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			cs, found := lore.Forget(&r.item, r.conf, session)
			if !found {
				continue // the session's name is in another one's
			}
			res.Evidence++
			if r.item.Orphaned() {
				if err := deleteRow(ctx, tx, r.rowid); err != nil {
					return 0, err
				}
				res.Deleted++
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE items SET confidence = ?, source_count = ?, evidence = ? WHERE rowid = ?`,
				r.item.Confidence, r.item.SourceCount, evidenceJSON(r.item.Evidence, cs), r.rowid); err != nil {
				return 0, err
			}
			res.Updated++
		}
		gone, err := tx.ExecContext(ctx, `DELETE FROM episodes WHERE session = ?`, session)
		if err != nil {
			return 0, err
		}
		episodes, err := gone.RowsAffected()
		return res.Deleted + int(episodes), err
	})
	return res, err
}

// evidenceNeedle is what the stored evidence of a session's items holds:
// its name as a JSON string, when every JSON writer writes it alike (as
// the migration's SQLite and lore's Go do for printable ASCII without
// quotes or <, > and &), and otherwise nothing, which every row holds.
func evidenceNeedle(session string) string {
	for _, c := range []byte(session) {
		if c < 0x20 || c >= 0x7f || strings.IndexByte(`"\<>&`, c) >= 0 {
			return ""
		}
	}
	return `"` + session + `"`
}

// appendNew appends to xs those of ys it does not hold yet.
func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		if !slices.Contains(xs, y) {
			xs = append(xs, y)
		}
	}
	return xs
}
