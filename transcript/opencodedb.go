package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/valyala/fastjson"
)

// OpenCode's SQLite database (1.2 and later; the Kilo CLI's kilo.db is
// the same): tables session (id, parent_id, directory, time_created,
// time_updated …), message (id, session_id, time_created, data) and part
// (id, message_id, session_id, data), where data is the message's or
// part's JSON without its ids (packages/opencode/src/session/session.sql.ts).
// The counting rules are opencode.go's. Each session whose parent is not
// in the database is one lore session, its sub-agent sessions folded in.
// A message or part whose data is damaged is a warning on its session, a
// damaged page of a session's messages or parts too; a damaged page of the
// session table is read around (sqlitedbReadAround), the sessions on it
// lost.

func ocDBHint(head []byte) bool {
	return bytes.Contains(head, []byte("`parent_id`")) && bytes.Contains(head, []byte("`message_id`")) &&
		bytes.Contains(head, []byte("`session_id`"))
}

func ocDBMatch(s sqlitedbSchema) bool {
	return s.has("session", "id", "parent_id", "directory") &&
		s.has("message", "id", "session_id", "data") &&
		s.has("part", "id", "message_id", "session_id", "data")
}

type ocDBSession struct {
	id, parent, dir string
	created, update int64
}

func ocReadDB(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	col := func(c string) string { return d.schema.col("session", c) }
	cols := fmt.Sprintf(`id, parent_id, directory, %s, %s`, col("time_created"), col("time_updated"))
	var sessions []ocDBSession
	scan := func(rows *sql.Rows, rowid *int64) {
		var id, parent, dir, created, updated any
		dest := []any{&id, &parent, &dir, &created, &updated}
		if rowid != nil {
			dest = append([]any{rowid}, dest...)
		}
		if rows.Scan(dest...) != nil {
			return
		}
		sessions = append(sessions, ocDBSession{
			id: sqlitedbText(id), parent: sqlitedbText(parent), dir: sqlitedbText(dir),
			created: sqlitedbInt(created), update: sqlitedbInt(updated),
		})
	}
	rows, err := d.query(ctx, `SELECT `+cols+` FROM session ORDER BY `+col("time_created")+`, id`)
	if err == nil {
		for rows.Next() {
			scan(rows, nil)
		}
		err = rows.Err()
		rows.Close()
	}
	lost := 0
	if sqlitedbDamaged(err) {
		// A damaged page: read the table row by row around it.
		sessions = sessions[:0]
		lost, err = d.eachRowAround(ctx, "session", cols, func(rs *sql.Rows) (int64, error) {
			var rowid int64
			scan(rs, &rowid)
			return rowid, nil
		})
	}
	if err != nil {
		return sqlitedbError(err)
	}
	ids := make(map[string]bool, len(sessions))
	children := map[string][]int{}
	for i, s := range sessions {
		ids[s.id] = true
		if s.parent != "" {
			children[s.parent] = append(children[s.parent], i)
		}
	}
	agent := ocAgent(in.path)
	n := 0
	for _, s := range sessions {
		if s.parent != "" && ids[s.parent] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b := in.builder(agent)
		b.s.Size = 0
		r := newOCReader(b)
		b.setNative(s.id)
		b.s.Cwd = s.dir
		var read func(s ocDBSession, side bool, seen map[string]bool) error
		read = func(s ocDBSession, side bool, seen map[string]bool) error {
			seen[s.id] = true
			b.at(epoch(float64(s.created)))
			b.at(epoch(float64(s.update)))
			if err := ocReadDBMessages(ctx, d, in.parser(), r, s.id, side); err != nil {
				return err
			}
			for _, c := range children[s.id] {
				if !seen[sessions[c].id] {
					if err := read(sessions[c], true, seen); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if err := read(s, false, map[string]bool{}); err != nil {
			if sqlitedbDamaged(err) {
				b.warn(0, err)
			} else {
				return err
			}
		}
		if err := r.finish(emit, s.id); err == nil {
			n++
		}
	}
	if n == 0 && lost == 0 {
		return emptySession("an OpenCode database with no messages")
	}
	return sqlitedbReadAround(n, lost, 0)
}

// ocReadDBMessages reads one session's messages and parts into r.
func ocReadDBMessages(ctx context.Context, d *sqlitedbDB, p *fastjson.Parser, r *ocReader, sid string, side bool) error {
	// The parts first, as bytes by message: a session's parts fit in
	// memory; its messages are read one at a time.
	prows, err := d.query(ctx, `SELECT message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`, sid)
	if err != nil {
		return err
	}
	parts := map[string][][]byte{}
	for prows.Next() {
		var mid, data any
		if err := prows.Scan(&mid, &data); err != nil {
			continue
		}
		k := sqlitedbText(mid)
		parts[k] = append(parts[k], []byte(sqlitedbText(data)))
	}
	err = prows.Err()
	prows.Close()
	if err != nil {
		return sqlitedbError(err)
	}
	mrows, err := d.query(ctx, `SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id`, sid)
	if err != nil {
		return err
	}
	defer mrows.Close()
	var pp fastjson.Parser
	for mrows.Next() {
		var id, data any
		if err := mrows.Scan(&id, &data); err != nil {
			continue
		}
		info, err := p.Parse(sqlitedbText(data))
		if err != nil || info.Type() != fastjson.TypeObject {
			r.b.warn(0, errors.New("a message whose data is not a JSON object; skipped"))
			continue
		}
		r.begin(info, side)
		for _, pd := range parts[sqlitedbText(id)] {
			pv, err := pp.ParseBytes(pd)
			if err != nil {
				r.b.warn(0, errors.New("a part whose data is not JSON; skipped"))
				continue
			}
			r.part(pv)
		}
		r.end()
	}
	return sqlitedbError(mrows.Err())
}
