package sqlite

// SQL batching: the batch's updates and inserts, many rows per statement;
// VALUES lists of keys to look up; and the multi-row statements, prepared
// once per shape.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lorehq/lore"
)

// write stores the batch: updates of merged rows, then every new row, its
// band keys and its full-text entry, many rows per statement.
//
// A statement that may fail half-way (a constraint whose conflict aborts
// the statement) makes SQLite copy every page it changes to a statement
// journal first, so as to undo just that statement (5% of adding). The
// statements here are never undone alone: one that fails rolls the whole
// transaction back (OR ROLLBACK), and band keys already present are
// skipped.
func (b *batch) write(ctx context.Context) error {
	var updates [][]any
	var bands []int64
	for _, r := range b.touched {
		it := r.item
		updates = append(updates, []any{r.rowid, it.Confidence, it.Manual, string(it.Status), len(it.Evidence),
			micros(it.FirstSeen), micros(it.LastConfirmed), expiresValue(it), jsonArray(it.Related), evidenceJSON(it.Evidence, r.conf)})
		if !slices.Equal(it.Tags, r.storedTags) {
			if err := b.retag(ctx, r); err != nil {
				return err
			}
		}
	}
	err := b.insertRows(ctx, `UPDATE OR ROLLBACK items SET confidence = v.column2, manual_confidence = v.column3,
		status = v.column4, source_count = v.column5, first_seen = v.column6, last_confirmed = v.column7,
		expires = v.column8, related = v.column9, evidence = v.column10 FROM (VALUES `, updates, `) AS v WHERE items.rowid = v.column1`)
	if err != nil {
		return err
	}
	// New rows take the rowids after the largest, as SQLite would give
	// them, so that their bands and index entries need no lookup.
	var last int64
	if err := b.tx.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM items`).Scan(&last); err != nil {
		return err
	}
	if last+int64(len(b.news)) > bandItem {
		return fmt.Errorf("the store would hold more than %d items, more than its near-duplicate index can", bandItem)
	}
	rows := make([][]any, len(b.news))
	for i, r := range b.news {
		it := r.item
		r.rowid = last + 1 + int64(i)
		rows[i] = []any{r.rowid, it.ID, it.Text, string(it.Category), it.Repo, it.Agent, it.Confidence, it.Manual,
			string(it.Status), len(it.Evidence), micros(it.FirstSeen), micros(it.LastConfirmed), expiresValue(it),
			it.Signature, jsonArray(it.Tags), jsonArray(it.Related), evidenceJSON(it.Evidence, r.conf), jsonArray(it.Reviews)}
		r.bandKeys(func(k int64) { bands = append(bands, k|r.rowid) })
	}
	err = b.insertRows(ctx, `INSERT OR ROLLBACK INTO items (rowid, id, text, category, repo, agent, confidence,
		manual_confidence, status, source_count, first_seen, last_confirmed, expires, signature, tags, related, evidence, reviews)
		VALUES `, rows, "")
	if err != nil {
		return err
	}
	// Keys in order touch each page of the table once.
	slices.Sort(bands)
	if err := b.insertRows(ctx, `INSERT OR IGNORE INTO bands (band) VALUES `, columnRows(anys(bands)), ""); err != nil {
		return err
	}
	// The new rows are indexed by one statement: FTS5 writes its pending
	// terms as a new index segment at every statement, and fewer, larger
	// segments cost less to write and to merge.
	_, err = b.tx.ExecContext(ctx, `INSERT INTO items_fts (rowid, text, tags)
		SELECT rowid, text, tags FROM items WHERE rowid > ?`, last)
	return err
}

// retag writes a stored row's new tags, in the row and in the full-text
// index.
func (b *batch) retag(ctx context.Context, r *row) error {
	if _, err := b.tx.ExecContext(ctx, `UPDATE items SET tags = ? WHERE rowid = ?`, jsonArray(r.item.Tags), r.rowid); err != nil {
		return err
	}
	if _, err := b.tx.ExecContext(ctx, `INSERT INTO items_fts (items_fts, rowid, text, tags) VALUES ('delete', ?, ?, ?)`,
		r.rowid, r.item.Text, jsonArray(r.storedTags)); err != nil {
		return err
	}
	return b.insertRows(ctx, `INSERT INTO items_fts (rowid, text, tags) VALUES `, [][]any{ftsRow(r)}, "")
}

// ftsRow is a row's entry in the full-text index.
func ftsRow(r *row) []any {
	return []any{r.rowid, r.item.Text, jsonArray(r.item.Tags)}
}

// expiresValue is the stored form of an item's expiry: NULL for never.
func expiresValue(it lore.Item) any {
	if it.Expires.IsZero() {
		return nil
	}
	return micros(it.Expires)
}

// chunkRows is the most rows one multi-row statement writes. Shorter runs
// are split into powers of two, so that every statement text recurs and
// its prepared form is reused: preparing a statement of a thousand values
// costs as much as running it.
const chunkRows = 256

// insertRows runs prefix + "(?, …), (?, …)" + suffix over rows, many at a
// time.
func (b *batch) insertRows(ctx context.Context, prefix string, rows [][]any, suffix string) error {
	if len(rows) == 0 {
		return nil
	}
	cols := len(rows[0])
	for len(rows) > 0 {
		n := chunkRows
		for n > len(rows) {
			n /= 2
		}
		st, err := b.store.statement(ctx, prefix, cols, n, suffix)
		if err != nil {
			return err
		}
		st = b.tx.StmtContext(ctx, st)
		args := make([]any, 0, n*cols)
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// statement returns the prepared multi-row statement for n rows of cols
// values, preparing it once per store.
func (s *Store) statement(ctx context.Context, prefix string, cols, n int, suffix string) (*sql.Stmt, error) {
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", prefix, cols, n, suffix)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stmts[key]; ok {
		return st, nil
	}
	tuple := "(" + placeholders(cols) + ")"
	st, err := s.db.PrepareContext(ctx, prefix+strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")+suffix)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[key] = st
	return st, nil
}

// maxKeys is the most values one byKey query binds.
const maxKeys = 2048

// byKey runs query over keys, calling each for every row it gives. The
// query reads the keys from k (value): a VALUES list of bound parameters,
// which SQLite reads faster than json_each reads a JSON array (looking up
// band keys took a sixth less time). Each list holds at most maxKeys
// keys, padded with NULLs, which match nothing, to a power of two, so
// that statement texts recur and are prepared once (see
// Store.statement).
func (b *batch) byKey(ctx context.Context, query string, keys []any, each func(*sql.Rows) error) error {
	for len(keys) > 0 {
		piece := keys[:min(len(keys), maxKeys)]
		keys = keys[len(piece):]
		n := 1
		for n < len(piece) {
			n *= 2
		}
		st, err := b.store.statement(ctx, `WITH k (value) AS (VALUES `, 1, n, `) `+query)
		if err != nil {
			return err
		}
		args := make([]any, n)
		copy(args, piece)
		rows, err := b.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := each(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// columnRows makes rows of one value each, for insertRows.
func columnRows(vals []any) [][]any {
	rows := make([][]any, len(vals))
	for i := range vals {
		rows[i] = vals[i : i+1 : i+1]
	}
	return rows
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func jsonArray[T any](xs []T) string {
	if len(xs) == 0 {
		return "[]"
	}
	bs, _ := json.Marshal(xs)
	return string(bs)
}
