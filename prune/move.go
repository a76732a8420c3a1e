package prune

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore/internal/sqlitex"
	"github.com/lorehq/lore/prune/archive"
)

// ftsWork is what prune does itself to keep the FTS tables in step when
// no trigger on messages does: statements taking a JSON array of session
// ids, run
// before a session's messages are deleted (remove) and after they are
// restored (add).
type ftsWork struct {
	remove []string
	add    []string
	// notes say which tables restore cannot fill.
	notes []string
}

// ftsUpkeep reads from the schema which FTS tables prune must keep in
// step itself. Hermes' own triggers do it in every known version; a table
// no trigger empties and prune cannot (contentless, without
// contentless_delete) stops the prune before anything changes.
func ftsUpkeep(s Schema) (ftsWork, error) {
	var w ftsWork
	msgs, sid := quote(s.Messages.Name), quote(s.SessionColumn)
	for _, f := range s.FTS {
		var removes, adds bool
		for _, t := range f.Triggers {
			removes = removes || (t.Event == "DELETE" && t.Removes)
			adds = adds || (t.Event == "INSERT" && t.Adds)
		}
		rowid := "id"
		if f.Kind == FTSExternal {
			rowid = f.ContentRowID
		} else if r, ok := strings.CutPrefix(strings.ToLower(f.RowID), "new."); ok {
			rowid = r
		}
		cols := make([]string, len(f.Columns))
		for i, c := range f.Columns {
			cols[i] = quote(c)
		}
		name := quote(f.Name)
		if !removes {
			switch {
			case f.Kind == FTSExternal:
				w.remove = append(w.remove, fmt.Sprintf("INSERT INTO %[1]s(%[1]s, rowid, %[2]s) SELECT 'delete', %[3]s, %[2]s FROM %[4]s WHERE %[5]s IN (SELECT value FROM json_each(?))",
					name, strings.Join(cols, ", "), quote(rowid), msgs, sid))
			case f.Kind == FTSOwn || f.Options["contentless_delete"] == "1":
				w.remove = append(w.remove, fmt.Sprintf("DELETE FROM %s WHERE rowid IN (SELECT %s FROM %s WHERE %s IN (SELECT value FROM json_each(?)))", name, quote(rowid), msgs, sid))
			default:
				return w, fmt.Errorf("prune: FTS table %s keeps no text and no trigger removes deleted messages from it, so deleting messages would leave it inconsistent; nothing was changed", f.Name)
			}
		}
		if !adds {
			if f.Kind == FTSExternal {
				w.add = append(w.add, fmt.Sprintf("INSERT INTO %[1]s(rowid, %[2]s) SELECT %[3]s, %[2]s FROM %[4]s WHERE %[5]s IN (SELECT value FROM json_each(?))",
					name, strings.Join(cols, ", "), quote(rowid), msgs, sid))
			} else {
				w.notes = append(w.notes, fmt.Sprintf("no trigger indexes new messages in %s: restored messages are not in it until Hermes rebuilds it", f.Name))
			}
		}
	}
	return w, nil
}

// mover moves planned sessions into the archive and out of the database.
type mover struct {
	db       *sql.DB
	w        *sqlitex.Writer
	arc      *archive.Archive
	s        Schema
	fts      ftsWork
	progress func(done, total int)

	changed         []*node
	rawBytes, bytes int64
	// merge is each FTS table's automerge setting as found: its value,
	// or "" when the table has none and takes the default.
	merge map[string]string
}

// readAutomerge reads each FTS table's automerge setting from its config
// shadow table.
func (m *mover) readAutomerge(ctx context.Context) error {
	m.merge = map[string]string{}
	for _, f := range m.s.FTS {
		var v sql.NullString
		err := m.db.QueryRowContext(ctx, fmt.Sprintf("SELECT v FROM %s WHERE k = 'automerge'", quote(f.Name+"_config"))).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read %s's settings: %w", f.Name, err)
		}
		m.merge[f.Name] = v.String
	}
	return nil
}

// automerge turns each FTS table's automatic merging off for the rest of
// a delete transaction (restore false), or flushes what the transaction
// removed and puts the setting back as it was (restore true), all inside
// that transaction, so no other connection ever sees it off. Merging the
// segments of each delete into the old ones is work the final 'optimize'
// does once; measured on the issue-size database it was a fifth of the
// prune.
func (m *mover) automerge(ctx context.Context, tx *sql.Tx, restore bool) error {
	for _, f := range m.s.FTS {
		name := quote(f.Name)
		var stmts []string
		switch v := m.merge[f.Name]; {
		case !restore:
			stmts = []string{fmt.Sprintf("INSERT INTO %[1]s(%[1]s, rank) VALUES('automerge', 0)", name)}
		case v != "":
			stmts = []string{
				fmt.Sprintf("INSERT INTO %[1]s(%[1]s) VALUES('flush')", name),
				fmt.Sprintf("INSERT INTO %[1]s(%[1]s, rank) VALUES('automerge', %[2]s)", name, sqlNumber(v)),
			}
		default:
			// No setting of its own: set the default, so that the table
			// reloads it, then take the row out again.
			stmts = []string{
				fmt.Sprintf("INSERT INTO %[1]s(%[1]s) VALUES('flush')", name),
				fmt.Sprintf("INSERT INTO %[1]s(%[1]s, rank) VALUES('automerge', %[2]d)", name, defaultAutomerge),
				fmt.Sprintf("DELETE FROM %s WHERE k = 'automerge'", quote(f.Name+"_config")),
			}
		}
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return nil
}

// defaultAutomerge is FTS5's automerge when a table sets none.
const defaultAutomerge = 4

// sqlNumber returns v when it is a whole number, else FTS5's default.
func sqlNumber(v string) string {
	if _, err := strconv.Atoi(v); err != nil {
		return strconv.Itoa(defaultAutomerge)
	}
	return v
}

// Batches: read and archive up to batchBytes of content or batchSessions
// sessions at a time; delete them in transactions sized to take about
// deleteTarget, so that the agent's writes never wait long.
const (
	batchBytes    = 24 << 20
	batchSessions = 256
	deleteTarget  = 150 * time.Millisecond
	trainSessions = 200
)

// train gives the archive its dictionary, when it has none, from sessions
// drawn evenly from all those about to move.
func (m *mover) train(ctx context.Context, nodes []*node) error {
	if len(nodes) == 0 {
		return nil
	}
	has, err := m.arc.HasDictionary(ctx)
	if err != nil || has {
		return err
	}
	step := max(len(nodes)/trainSessions, 1)
	var sample []*node
	for i := 0; i < len(nodes); i += step {
		sample = append(sample, nodes[i])
	}
	sessions, err := m.read(ctx, sample)
	if err != nil {
		return err
	}
	// Rows that share nothing make no dictionary: they are compressed
	// without one, and a failure to store one shows again at Put.
	_ = m.arc.Train(ctx, sessions)
	return nil
}

// move archives nodes in order, batch by batch: read, put, read back and
// compare, then delete.
func (m *mover) move(ctx context.Context, nodes []*node) error {
	done := 0
	deleteBytes := int64(4 << 20)
	for i := 0; i < len(nodes); {
		j, size := i, int64(0)
		for j < len(nodes) && j-i < batchSessions && (j == i || size+nodes[j].bytes <= batchBytes) {
			size += nodes[j].bytes
			j++
		}
		batch := nodes[i:j]
		sessions, err := m.read(ctx, batch)
		if err != nil {
			return err
		}
		if err := m.arc.Put(ctx, sessions); err != nil {
			return err
		}
		if err := m.arc.Verify(ctx, sessions); err != nil {
			return fmt.Errorf("%w; nothing of it was deleted from the database", err)
		}
		for k := 0; k < len(batch); {
			l, size := k, int64(0)
			for l < len(batch) && (l == k || size+batch[l].bytes <= deleteBytes) {
				size += batch[l].bytes
				l++
			}
			t := time.Now()
			changed, err := m.remove(ctx, batch[k:l], sessions[k:l])
			if err != nil {
				return err
			}
			switch d := time.Since(t); {
			case d > 2*deleteTarget:
				deleteBytes = max(deleteBytes/2, 64<<10)
			case d < deleteTarget/2:
				deleteBytes = min(deleteBytes*2, 256<<20)
			}
			if len(changed) > 0 {
				ids := make([]string, len(changed))
				for x, n := range changed {
					ids[x] = n.id
				}
				if err := m.arc.Delete(ctx, ids); err != nil {
					return err
				}
				m.changed = append(m.changed, changed...)
			}
			done += l - k
			if m.progress != nil {
				m.progress(done, len(nodes))
			}
			k = l
		}
		i = j
	}
	if len(nodes) > 0 {
		sizes, err := m.sizes(ctx, nodes)
		if err != nil {
			return err
		}
		m.rawBytes, m.bytes = sizes[0], sizes[1]
	}
	return nil
}

// sizes sums the archived sizes of the sessions moved.
func (m *mover) sizes(ctx context.Context, nodes []*node) ([2]int64, error) {
	entries, err := m.arc.List(ctx)
	if err != nil {
		return [2]int64{}, err
	}
	moved := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		moved[n.id] = true
	}
	for _, n := range m.changed {
		delete(moved, n.id)
	}
	var s [2]int64
	for _, e := range entries {
		if moved[e.ID] {
			s[0] += e.RawSize
			s[1] += e.Size
		}
	}
	return s, nil
}

// read reads the rows of sessions, in one read transaction, every value
// as stored.
func (m *mover) read(ctx context.Context, nodes []*node) ([]archive.Session, error) {
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	defer tx.Rollback()
	out := make([]archive.Session, len(nodes))
	index := make(map[string]int, len(nodes))
	args := make([]any, len(nodes))
	for i, n := range nodes {
		out[i] = archive.Session{ID: n.id, ParentID: n.parent}
		index[n.id] = i
		args[i] = n.id
	}
	in := "(" + strings.TrimSuffix(strings.Repeat("?,", len(nodes)), ",") + ")"
	rows, err := tx.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE id IN %s",
		archive.SelectColumns(m.s.Sessions.ColumnNames()), quote(m.s.Sessions.Name), in), args...)
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	for rows.Next() {
		r, err := archive.ScanRow(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		id, _ := r.Get("id")
		i, ok := index[id.Text]
		if !ok || id.Kind != archive.Text {
			rows.Close()
			return nil, fmt.Errorf("read sessions: unexpected session id %v", id)
		}
		out[i].Row = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	rows, err = tx.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s IN %s ORDER BY rowid",
		archive.SelectColumns(m.s.Messages.ColumnNames()), quote(m.s.Messages.Name), quote(m.s.SessionColumn), in), args...)
	if err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := archive.ScanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("read messages: %w", err)
		}
		sid, _ := r.Get(m.s.SessionColumn)
		i, ok := index[sid.Text]
		if !ok {
			return nil, fmt.Errorf("read messages: unexpected session id %v", sid)
		}
		out[i].Messages = append(out[i].Messages, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	for _, s := range out {
		if s.Row == nil {
			return nil, fmt.Errorf("read sessions: session %s is gone", s.ID)
		}
	}
	return out, nil
}

// remove deletes archived sessions from the database in one write
// transaction. A session is deleted only when the database still holds
// exactly what was archived — its row, its messages' count and last id —
// and every session naming it as parent goes too (the plan puts children
// first); any other is changed, and stays. The messages go in one
// statement: FTS5 writes what a statement removed from its index as one
// segment, and a statement per session would leave thousands to merge.
func (m *mover) remove(ctx context.Context, nodes []*node, archived []archive.Session) (changed []*node, err error) {
	sessCols := archive.SelectColumns(m.s.Sessions.ColumnNames())
	rowQ := fmt.Sprintf("SELECT %s FROM %s WHERE id = ?", sessCols, quote(m.s.Sessions.Name))
	countQ := fmt.Sprintf("SELECT count(*), max(id) FROM %s WHERE %s = ?", quote(m.s.Messages.Name), quote(m.s.SessionColumn))
	childrenQ := ""
	if m.s.ParentColumn != "" {
		childrenQ = fmt.Sprintf("SELECT id FROM %s WHERE %s = ?", quote(m.s.Sessions.Name), quote(m.s.ParentColumn))
	}
	err = m.w.Write(ctx, func(tx *sql.Tx) error {
		changed = changed[:0]
		gone := make(map[string]bool, len(nodes))
		var ids []string
		for i, n := range nodes {
			same, err := m.unchanged(ctx, tx, rowQ, countQ, archived[i])
			if err == nil && same && childrenQ != "" {
				same, err = allIn(ctx, tx, childrenQ, n.id, gone)
			}
			if err != nil {
				return fmt.Errorf("session %s: %w", n.id, err)
			}
			if !same {
				changed = append(changed, n)
				continue
			}
			gone[n.id] = true
			ids = append(ids, n.id)
		}
		if len(ids) == 0 {
			return nil
		}
		list, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		if err := m.automerge(ctx, tx, false); err != nil {
			return err
		}
		for _, q := range m.fts.remove {
			if _, err := tx.ExecContext(ctx, q, string(list)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s IN (SELECT value FROM json_each(?))",
			quote(m.s.Messages.Name), quote(m.s.SessionColumn)), string(list)); err != nil {
			return fmt.Errorf("delete messages: %w", err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE id IN (SELECT value FROM json_each(?))",
			quote(m.s.Sessions.Name)), string(list)); err != nil {
			return fmt.Errorf("delete sessions: %w", err)
		}
		return m.automerge(ctx, tx, true)
	})
	if err != nil {
		return nil, fmt.Errorf("delete archived sessions from the database: %w", err)
	}
	return changed, nil
}

// allIn reports whether every session the query names (the children of
// id) is in set.
func allIn(ctx context.Context, tx *sql.Tx, query, id string, set map[string]bool) (bool, error) {
	rows, err := tx.QueryContext(ctx, query, id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var child sql.NullString
		if err := rows.Scan(&child); err != nil {
			return false, err
		}
		if !set[child.String] {
			return false, nil
		}
	}
	return true, rows.Err()
}

// unchanged reports whether the database holds what was archived of a
// session.
func (m *mover) unchanged(ctx context.Context, tx *sql.Tx, rowQ, countQ string, a archive.Session) (bool, error) {
	rows, err := tx.QueryContext(ctx, rowQ, a.ID)
	if err != nil {
		return false, err
	}
	var row archive.Row
	found := rows.Next()
	if found {
		row, err = archive.ScanRow(rows)
	}
	rows.Close()
	if err != nil || !found {
		return false, err
	}
	if !row.Equal(a.Row) {
		return false, nil
	}
	var count int
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, countQ, a.ID).Scan(&count, &last); err != nil {
		return false, err
	}
	if count != len(a.Messages) {
		return false, nil
	}
	var maxID int64
	for i, msg := range a.Messages {
		if id, ok := msg.Get("id"); ok && id.Kind == archive.Integer && (i == 0 || id.Int > maxID) {
			maxID = id.Int
		}
	}
	return count == 0 || maxID == last.Int64, nil
}
