package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Goose (block/goose), FORMATS.md section 9, in two forms:
//   - sessions.db (SQLite, goose ≥ 1.10; crates/goose/src/session/
//     session_manager.rs): one session per sessions row, its messages from
//     the messages table (content_json: the message's content items);
//     columns are read from PRAGMA table_info, never assumed;
//   - legacy <name>.jsonl (crates/goose/src/session/legacy.rs): a
//     metadata line {"working_dir", "description", token counters…}, then
//     one Message a line {"role", "created" (epoch seconds), "content":
//     [items], "metadata"?}.
//
// Goose imports a legacy file into the database under the file's name, so
// both name a session goose:<name> and it is listed once.
//
// Counting rules:
//   - user turns are user messages with text or images; assistant turns
//     are assistant messages with text, thinking or tool requests; messages
//     whose metadata says userVisible:false (goose's own summaries and
//     instructions) are not turns; a user message holding only tool
//     responses is not a turn;
//   - tool calls are the ids of toolRequest (and frontendToolRequest)
//     items, each once;
//   - a tool error is a toolRequest whose toolCall has status "error" (the
//     call could not be made) or a toolResponse whose toolResult has status
//     "error" or a value with isError true, each call once;
//   - tokens are the session's accumulated input and output counters (the
//     last turn's counters when the accumulated ones are null); goose
//     records no cache tokens;
//   - sessions of type sub_agent or hidden are read as sub-agent work: their
//     messages add tool calls, errors and tokens but no turns.
//
// Outcome: an assistant answer with no tool request pending is success; a
// failed tool response nobody answered, or a context-length-exceeded
// message, is failure; anything else is unknown (goose records no end).

// gooseRoots: goose's data folder holds sessions/ (sessions.db and legacy
// .jsonl files). crates/goose/src/config/paths.rs: an absolute
// $GOOSE_PATH_ROOT replaces everything with <root>/data; otherwise the
// etcetera crate's choose_app_strategy, which is the XDG strategy on Linux
// and macOS alike ($XDG_DATA_HOME or ~/.local/share, then "goose"). The
// same file keeps "Block" in the strategy so that "existing installations"
// under ~/Library/Application Support/Block/goose are not orphaned, so
// that folder is listed on macOS too.
func gooseRoots(e Env) []Root {
	if r := e.get("GOOSE_PATH_ROOT"); r != "" && filepath.IsAbs(r) {
		return []Root{{Agent: lore.AgentGoose, Path: filepath.Join(r, "data", "sessions"), Source: "GOOSE_PATH_ROOT"}}
	}
	src := "default"
	if e.get("XDG_DATA_HOME") != "" {
		src = "XDG_DATA_HOME"
	}
	roots := []Root{{Agent: lore.AgentGoose, Path: filepath.Join(e.xdg("XDG_DATA_HOME", ".local", "share"), "goose", "sessions"), Source: src}}
	if e.GOOS == "darwin" {
		roots = append(roots, Root{Agent: lore.AgentGoose, Path: e.macAppSupport("Block", "goose", "sessions"), Source: "default"})
	}
	return roots
}

// gooseSniffLine claims a legacy session file from its first line: the
// metadata line (working_dir with goose's counters) or, when that is
// missing, a message with "created" epoch seconds and a content list.
func gooseSniffLine(_ string, v *fastjson.Value) bool {
	if !has(v, "role") {
		return has(v, "working_dir") && (has(v, "description") || has(v, "message_count") ||
			has(v, "total_tokens") || has(v, "schedule_id") || has(v, "accumulated_total_tokens"))
	}
	switch string(v.GetStringBytes("role")) {
	case "user", "assistant":
	default:
		return false
	}
	c, ts := v.Get("content"), v.Get("created")
	return c != nil && c.Type() == fastjson.TypeArray && ts != nil && ts.Type() == fastjson.TypeNumber
}

type gooseEnd int

const (
	gooseEndNone gooseEnd = iota
	gooseEndPending
	gooseEndAnswer
	gooseEndFailed
)

type gooseSession struct {
	b   *builder
	end gooseEnd
	// side marks a sub-agent or hidden session: no turns.
	side bool
}

// message applies the counting rules to one goose Message.
func (g *gooseSession) message(role []byte, t time.Time, content, meta *fastjson.Value) {
	keep := g.b.keep
	var (
		text, thinking  []byte
		hasText         bool
		hasThinking     bool
		calls           []lore.ToolCall
		callErrs        []lore.ToolResult
		results         []lore.ToolResult
		contextExceeded bool
	)
	for _, it := range content.GetArray() {
		switch string(it.GetStringBytes("type")) {
		case "text":
			t := it.GetStringBytes("text")
			if len(bytes.TrimSpace(t)) > 0 {
				hasText = true
			}
			if keep {
				text = gooseJoin(text, t)
			}
		case "image":
			hasText = true
			if keep {
				text = gooseJoin(text, []byte("[image]"))
			}
		case "thinking":
			hasThinking = true
			if keep {
				thinking = gooseJoin(thinking, it.GetStringBytes("thinking"))
			}
		case "toolRequest", "frontendToolRequest":
			id := str(it, "id")
			tc := it.Get("toolCall")
			c := lore.ToolCall{ID: id}
			if keep {
				c.Name = str(tc, "value", "name")
				c.Input = raw(tc, "value", "arguments")
			}
			calls = append(calls, c)
			if is(tc, "error", "status") {
				r := lore.ToolResult{CallID: id, IsError: true}
				if keep {
					r.Output = raw(tc, "error")
				}
				callErrs = append(callErrs, r)
			}
		case "toolResponse":
			tr := it.Get("toolResult")
			r := lore.ToolResult{
				CallID:  str(it, "id"),
				IsError: is(tr, "error", "status") || boolean(tr, "value", "isError"),
			}
			if keep {
				if r.IsError && has(tr, "error") {
					r.Output = raw(tr, "error")
				} else if v := tr.Get("value"); v != nil && v.Type() == fastjson.TypeObject {
					r.Output = contentText(v.Get("content"))
				} else {
					r.Output = contentText(v)
				}
			}
			results = append(results, r)
		case "contextLengthExceeded":
			contextExceeded = true
		}
	}
	// Goose's own messages (summaries, instructions) are hidden from the
	// user: no turns, but their calls count.
	visible := !has(meta, "userVisible") || boolean(meta, "userVisible")
	side := g.side
	switch string(role) {
	case "assistant":
		if hasText || hasThinking || len(calls) > 0 {
			m := lore.Message{Role: lore.RoleAssistant, Time: t, Text: string(text), Thinking: string(thinking), ToolCalls: calls, Sidechain: side}
			if !visible {
				m.Role = lore.RoleSystem
			}
			g.b.add(m)
		} else {
			g.b.at(t)
		}
		if len(callErrs) > 0 {
			g.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: callErrs, Sidechain: side})
		}
		if side || !visible {
			break
		}
		switch {
		case contextExceeded || len(callErrs) > 0:
			g.end = gooseEndFailed
		case len(calls) > 0:
			g.end = gooseEndPending
		case hasText:
			g.end = gooseEndAnswer
		}
	default:
		if len(results) > 0 {
			g.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: results, Sidechain: side})
		}
		if hasText {
			role := lore.RoleUser
			if !visible {
				role = lore.RoleSystem
			}
			g.b.add(lore.Message{Role: role, Time: t, Text: string(text), Sidechain: side})
		} else {
			g.b.at(t)
		}
		if side || !visible {
			break
		}
		failed := contextExceeded
		for _, r := range results {
			failed = failed || r.IsError
		}
		switch {
		case failed:
			g.end = gooseEndFailed
		case hasText || len(results) > 0:
			g.end = gooseEndPending
		}
	}
}

func gooseJoin(a, b []byte) []byte {
	if len(a) > 0 && len(b) > 0 {
		a = append(a, '\n')
	}
	return append(a, b...)
}

func (g *gooseSession) finish(native, fallback string) *lore.Session {
	switch g.end {
	case gooseEndAnswer:
		g.b.s.Outcome = lore.OutcomeSuccess
	case gooseEndFailed:
		g.b.s.Outcome = lore.OutcomeFailure
	}
	g.b.setNative(native)
	return g.b.finish(fallback)
}

// gooseUsage reads goose's token counters: the accumulated ones, else the
// last turn's.
func gooseUsage(accIn, accOut, in, out any) lore.Usage {
	u := lore.Usage{InputTokens: sqlitedbInt(accIn), OutputTokens: sqlitedbInt(accOut)}
	if accIn == nil {
		u.InputTokens = sqlitedbInt(in)
	}
	if accOut == nil {
		u.OutputTokens = sqlitedbInt(out)
	}
	return u
}

// gooseJSONNumber returns a JSON number as a scanned value (nil when
// missing or null), for gooseUsage.
func gooseJSONNumber(v *fastjson.Value, key string) any {
	x := v.Get(key)
	if x == nil || x.Type() != fastjson.TypeNumber {
		return nil
	}
	return x.GetFloat64()
}

func gooseReadLines(ctx context.Context, in *input, emit emitFunc) error {
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	g := &gooseSession{b: in.builder(lore.AgentGoose)}
	var usage lore.Usage
	msgs := 0
	err = eachJSONLine(ctx, rc, in.parser(), g.b.warn, func(_ int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject {
			return nil
		}
		if !has(v, "role") {
			if has(v, "working_dir") {
				g.b.s.Cwd = str(v, "working_dir")
				usage = gooseUsage(gooseJSONNumber(v, "accumulated_input_tokens"), gooseJSONNumber(v, "accumulated_output_tokens"),
					gooseJSONNumber(v, "input_tokens"), gooseJSONNumber(v, "output_tokens"))
			}
			return nil
		}
		msgs++
		g.message(v.GetStringBytes("role"), epoch(num(v, "created")), v.Get("content"), v.Get("metadata"))
		return nil
	})
	if err != nil {
		return err
	}
	if msgs == 0 && g.b.s.Cwd == "" && g.b.s.Warnings == 0 {
		return notTranscript("a Goose session file with neither metadata nor messages")
	}
	g.b.usage(usage)
	emit(g.finish("", baseID(in.path)))
	return nil
}

// sessions.db

func gooseDBHint(head []byte) bool {
	return bytes.Contains(head, []byte("content_json")) && bytes.Contains(head, []byte("working_dir"))
}

func gooseDBMatch(s sqlitedbSchema) bool {
	return s.has("sessions", "id", "working_dir") && s.has("messages", "session_id", "role", "content_json")
}

// gooseDBQuery is what gooseReadDB selects from each table.
type gooseDBQuery struct{ sessionCols, messageCols string }

func gooseQuery(s sqlitedbSchema) gooseDBQuery {
	col := func(c string) string { return s.col("sessions", c) }
	// Timestamps as text: the driver would turn TIMESTAMP columns into
	// times in its own way; sqlitedbTime reads them like any text.
	text := func(c string) string {
		if s["sessions"][c] {
			return `CAST("` + c + `" AS TEXT)`
		}
		return "NULL"
	}
	return gooseDBQuery{
		sessionCols: fmt.Sprintf(`id, working_dir, %s, %s, %s, %s, %s, %s, %s, %s`,
			text("created_at"), text("updated_at"), col("accumulated_input_tokens"), col("accumulated_output_tokens"),
			col("input_tokens"), col("output_tokens"), col("model_config_json"), col("session_type")),
		messageCols: fmt.Sprintf(`session_id, role, content_json, %s, %s, length(CAST(content_json AS BLOB))`,
			s.col("messages", "created_timestamp"), s.col("messages", "metadata_json")),
	}
}

// gooseRow is one sessions row, as gooseQuery selects it.
type gooseRow struct {
	id                                       string
	wd, created, updated, accIn, accOut, tin any
	tout, cfg, typ                           any
}

func (r *gooseRow) scan(rows *sql.Rows, rowid ...any) error {
	var id any
	err := rows.Scan(append(rowid, &id, &r.wd, &r.created, &r.updated, &r.accIn, &r.accOut, &r.tin, &r.tout, &r.cfg, &r.typ)...)
	r.id = sqlitedbText(id)
	return err
}

// gooseDBSession is a session being read from the database, with the
// parsers its rows' JSON needs.
type gooseDBSession struct {
	*gooseSession
	row  *gooseRow
	msgs int
}

// gooseParsers are the parsers of one database read.
type gooseParsers struct{ content, meta, cfg fastjson.Parser }

func (r *gooseRow) session(in *input, p *gooseParsers) *gooseDBSession {
	g := &gooseSession{b: in.builder(lore.AgentGoose)}
	switch sqlitedbText(r.typ) {
	case "sub_agent", "hidden":
		g.side = true
	}
	b := g.b
	b.s.Size = 0
	b.s.Cwd = sqlitedbText(r.wd)
	if c := sqlitedbText(r.cfg); c != "" {
		if v, err := p.cfg.Parse(c); err == nil {
			b.s.Model = str(v, "model_name")
		}
	}
	b.usage(gooseUsage(r.accIn, r.accOut, r.tin, r.tout))
	return &gooseDBSession{gooseSession: g, row: r}
}

// finish ends the session; false for a row without an id, which names no
// session.
func (g *gooseDBSession) finish() (*lore.Session, bool) {
	if g.msgs == 0 {
		// No message times: the row's own, which SQLite wrote in UTC.
		g.b.at(sqlitedbTime(g.row.created, time.UTC))
		g.b.at(sqlitedbTime(g.row.updated, time.UTC))
	}
	if g.row.id == "" {
		return nil, false
	}
	return g.gooseSession.finish(g.row.id, g.row.id), true
}

// gooseMsgRow is one messages row, as gooseQuery selects it. The byte
// fields are the driver's until the next row unless copied.
type gooseMsgRow struct {
	sid, role, content, meta sql.RawBytes
	created                  any
	size                     sql.NullInt64
}

func (m *gooseMsgRow) scan(rows *sql.Rows, rowid ...any) error {
	return rows.Scan(append(rowid, &m.sid, &m.role, &m.content, &m.created, &m.meta, &m.size)...)
}

// own copies the row's bytes, for a row kept past the next.
func (m *gooseMsgRow) own() {
	for _, b := range []*sql.RawBytes{&m.sid, &m.role, &m.content, &m.meta} {
		if *b != nil {
			*b = append(sql.RawBytes{}, *b...)
		}
	}
}

func (m *gooseMsgRow) addTo(g *gooseDBSession, p *gooseParsers) {
	g.msgs++
	g.b.s.Size += m.size.Int64
	content, err := p.content.ParseBytes(m.content)
	if err != nil {
		g.b.warn(0, fmt.Errorf("message %d: content_json: %v", g.msgs, jsonDamage(m.content)))
		return
	}
	var meta *fastjson.Value
	if len(m.meta) > 0 {
		meta, _ = p.meta.ParseBytes(m.meta)
	}
	g.message(m.role, sqlitedbTime(m.created, time.UTC), content, meta)
}

// gooseReadDB reads sessions.db in two ordered scans, sessions and
// messages side by side; a damaged database is read again row by row
// around the damage, as Hermes's state.db is (hermesReadDB).
func gooseReadDB(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	return sqlitedbReadOrAround(ctx, in, d, emit, gooseReadDBInOrder, gooseReadDBAround)
}

func gooseReadDBInOrder(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	q := gooseQuery(d.schema)
	srows, err := d.query(ctx, `SELECT `+q.sessionCols+` FROM sessions ORDER BY id`)
	if err != nil {
		return err
	}
	defer srows.Close()
	mrows, err := d.query(ctx, `SELECT `+q.messageCols+` FROM messages ORDER BY session_id, id`)
	if err != nil {
		return err
	}
	defer mrows.Close()

	var (
		p gooseParsers
		m gooseMsgRow
	)
	nextMsg := func() bool {
		if !mrows.Next() {
			return false
		}
		if err := m.scan(mrows); err != nil {
			m.sid = nil
		}
		return true
	}
	haveMsg := nextMsg()
	for srows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var r gooseRow
		if err := r.scan(srows); err != nil {
			return sqlitedbError(err)
		}
		g := r.session(in, &p)
		for haveMsg && string(m.sid) < r.id {
			haveMsg = nextMsg()
		}
		for haveMsg && string(m.sid) == r.id {
			m.addTo(g, &p)
			haveMsg = nextMsg()
		}
		if s, ok := g.finish(); ok {
			emit(s)
		}
	}
	if err := srows.Err(); err != nil {
		return sqlitedbError(err)
	}
	return sqlitedbError(mrows.Err())
}

// gooseReadDBAround reads a damaged sessions.db by rowid, passing over the
// rows it cannot read; messages keep their order by id (the rowid).
func gooseReadDBAround(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	q := gooseQuery(d.schema)
	var rows []gooseRow
	lostSessions, err := d.eachRowAround(ctx, "sessions", q.sessionCols, func(rs *sql.Rows) (int64, error) {
		var (
			rowid int64
			r     gooseRow
		)
		if err := r.scan(rs, &rowid); err == nil {
			rows = append(rows, r)
		}
		return rowid, nil
	})
	if err != nil {
		return err
	}
	msgs := map[string][]gooseMsgRow{}
	lostMessages, err := d.eachRowAround(ctx, "messages", q.messageCols, func(rs *sql.Rows) (int64, error) {
		var (
			rowid int64
			m     gooseMsgRow
		)
		if err := m.scan(rs, &rowid); err == nil {
			m.own()
			msgs[string(m.sid)] = append(msgs[string(m.sid)], m)
		}
		return rowid, nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	var p gooseParsers
	listed := 0
	for i := range rows {
		g := rows[i].session(in, &p)
		for _, m := range msgs[rows[i].id] {
			m.addTo(g, &p)
		}
		if s, ok := g.finish(); ok {
			listed++
			emit(s)
		}
	}
	return sqlitedbReadAround(listed, lostSessions, lostMessages)
}
