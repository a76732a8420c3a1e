package prune

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotStateDB says a database is not a Hermes state.db: it lacks the
// tables or columns prune works on.
var ErrNotStateDB = errors.New("not a Hermes state.db")

// Querier runs queries: a *sql.DB, *sql.Tx or *sql.Conn, so that a schema
// can be read inside the transaction that goes on to use it.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Schema is the shape of a state.db as the database itself reports it
// (sqlite_master, PRAGMA table_info, index_list, foreign_key_list) and as
// its FTS and trigger statements say. Nothing in it is assumed from a
// schema version: Hermes' forks and releases differ.
type Schema struct {
	// Version is schema_version's highest version; HasVersion is false
	// (and Version 0) when the table or its row is missing.
	Version    int  `json:"version"`
	HasVersion bool `json:"has_version"`
	// StateMeta reports whether the state_meta table (version 11) exists.
	StateMeta bool `json:"state_meta"`

	// Sessions and Messages are the two tables prune works on; Name is
	// empty when the table is missing.
	Sessions Table `json:"sessions"`
	Messages Table `json:"messages"`
	// ParentColumn is the sessions column naming a session's parent (a
	// self-referencing foreign key, else a column called
	// parent_session_id); ParentDeclared says a foreign key declares it.
	ParentColumn   string `json:"parent_column,omitempty"`
	ParentDeclared bool   `json:"parent_declared"`
	// SessionColumn is the messages column naming its session (a foreign
	// key to sessions, else a column called session_id).
	SessionColumn string `json:"session_column,omitempty"`

	// FTS lists the FTS5 tables over messages: external-content ones
	// (content=messages) and those fed by triggers on messages.
	FTS []FTS `json:"fts,omitempty"`
	// Indexes are the indexes of every ordinary table, automatic ones
	// included.
	Indexes []Index `json:"indexes,omitempty"`
	// Triggers are all triggers, those feeding FTS tables included.
	Triggers []Trigger `json:"triggers,omitempty"`
	Views    []View    `json:"views,omitempty"`
	// Extra are the tables that are none of the above (nor SQLite's own,
	// nor the shadow tables of virtual tables): another release's or a
	// plugin's, kept so that whatever copies rows copies them too.
	Extra []Table `json:"extra,omitempty"`
}

// Table is one table.
type Table struct {
	Name string `json:"name"`
	// Virtual tables have a Module ("fts5", …) and no Columns from
	// table_info that matter for copying.
	Module      string       `json:"module,omitempty"`
	SQL         string       `json:"sql"`
	Columns     []Column     `json:"columns"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
}

// Column is one column as PRAGMA table_info reports it.
type Column struct {
	Name    string `json:"name"`
	Type    string `json:"type"` // as declared, e.g. "TEXT", "INTEGER"; may be empty
	NotNull bool   `json:"not_null"`
	// Default is the default's SQL text (e.g. "0", "'x'"); HasDefault is
	// false when there is none.
	Default    string `json:"default,omitempty"`
	HasDefault bool   `json:"has_default"`
	// PK is the column's position in the primary key, from 1; 0 when it
	// is not part of it.
	PK int `json:"pk"`
}

// ForeignKey is one column of a foreign key (PRAGMA foreign_key_list).
type ForeignKey struct {
	ID    int    `json:"id"`
	Seq   int    `json:"seq"`
	Table string `json:"table"` // the parent table
	From  string `json:"from"`
	// To is the parent's column; empty when the key names only the
	// table and so refers to its primary key.
	To       string `json:"to,omitempty"`
	OnUpdate string `json:"on_update"`
	OnDelete string `json:"on_delete"`
}

// Index is one index.
type Index struct {
	Name    string   `json:"name"`
	Table   string   `json:"table"`
	Unique  bool     `json:"unique"`
	Partial bool     `json:"partial"`
	Origin  string   `json:"origin"` // c: CREATE INDEX, u: UNIQUE constraint, pk: PRIMARY KEY
	Columns []string `json:"columns"`
	SQL     string   `json:"sql,omitempty"` // empty for automatic indexes
}

// Trigger is one trigger.
type Trigger struct {
	Name   string `json:"name"`
	Table  string `json:"table"`
	Timing string `json:"timing"` // BEFORE, AFTER or INSTEAD OF
	Event  string `json:"event"`  // INSERT, UPDATE or DELETE
	SQL    string `json:"sql"`
}

// View is one view.
type View struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// FTSKind is how an FTS5 table holds the text it indexes.
type FTSKind string

const (
	// FTSExternal reads the text from another table (content=messages):
	// deleting a row needs the old text, given by the 'delete' command.
	FTSExternal FTSKind = "external"
	// FTSContentless keeps no text (content=''): rows can be deleted only
	// with contentless_delete=1 or the old text.
	FTSContentless FTSKind = "contentless"
	// FTSOwn keeps its own copy of the text in its _content table (no
	// content option); Hermes 11's messages_fts(content) is one, though it
	// is often called contentless.
	FTSOwn FTSKind = "own"
)

// FTS is one FTS5 table over messages.
type FTS struct {
	Name string  `json:"name"`
	SQL  string  `json:"sql"`
	Kind FTSKind `json:"kind"`
	// ContentTable and ContentRowID are the content= and content_rowid=
	// options of an external-content table.
	ContentTable string `json:"content_table,omitempty"`
	ContentRowID string `json:"content_rowid,omitempty"`
	// Tokenizer is the tokenize= option, "unicode61" when unset.
	Tokenizer string `json:"tokenizer"`
	// Columns are the FTS table's columns; Options all its key=value
	// arguments, as written but unquoted.
	Columns []string          `json:"columns"`
	Options map[string]string `json:"options,omitempty"`
	// Triggers are the triggers on messages that write to this table.
	Triggers []FTSTrigger `json:"triggers,omitempty"`
	// Indexed holds, for each column, the expression of the new row that
	// the AFTER INSERT trigger indexes (e.g. "new.content"); RowID the
	// expression it gives as rowid. Empty when no trigger says.
	Indexed []string `json:"indexed,omitempty"`
	RowID   string   `json:"rowid,omitempty"`
}

// FTSTrigger is a trigger's part in keeping an FTS table in step.
type FTSTrigger struct {
	Name  string `json:"name"`
	Event string `json:"event"` // INSERT, UPDATE or DELETE on messages
	// Removes reports whether it takes the old row out of the index (the
	// 'delete' command or a DELETE), Adds whether it indexes the new row.
	Removes bool `json:"removes"`
	Adds    bool `json:"adds"`
	// Indexed is what it indexes for each FTS column, when it Adds.
	Indexed []string `json:"indexed,omitempty"`
}

// Column returns the column called name.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// Has reports whether the table has every one of the columns.
func (t Table) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := t.Column(n); !ok {
			return false
		}
	}
	return true
}

// ColumnNames lists the columns in table order.
func (t Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// FTSTable returns the FTS table called name.
func (s Schema) FTSTable(name string) (FTS, bool) {
	for _, f := range s.FTS {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return FTS{}, false
}

// Check reports, wrapping ErrNotStateDB, why the database is not a
// state.db prune can work on: the tables and columns it reads.
func (s Schema) Check() error {
	switch {
	case s.Sessions.Name == "":
		return fmt.Errorf("%w: no sessions table", ErrNotStateDB)
	case s.Messages.Name == "":
		return fmt.Errorf("%w: no messages table", ErrNotStateDB)
	}
	for _, c := range []string{"id", "started_at", "ended_at"} {
		if !s.Sessions.Has(c) {
			return fmt.Errorf("%w: sessions has no %s column", ErrNotStateDB, c)
		}
	}
	if s.SessionColumn == "" {
		return fmt.Errorf("%w: messages has no session_id column", ErrNotStateDB)
	}
	for _, c := range []string{"id", "role", "content", "timestamp"} {
		if !s.Messages.Has(c) {
			return fmt.Errorf("%w: messages has no %s column", ErrNotStateDB, c)
		}
	}
	return nil
}

// Summary says the schema in one line: version, columns, FTS tables.
func (s Schema) Summary() string {
	var b strings.Builder
	if s.HasVersion {
		fmt.Fprintf(&b, "v%d", s.Version)
	} else {
		b.WriteString("no schema_version")
	}
	fmt.Fprintf(&b, "; sessions %d columns, messages %d", len(s.Sessions.Columns), len(s.Messages.Columns))
	for i, f := range s.FTS {
		if i == 0 {
			b.WriteString("; FTS ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s, %s)", f.Name, f.Kind, f.Tokenizer)
	}
	if s.StateMeta {
		b.WriteString("; state_meta")
	}
	if len(s.Extra) > 0 {
		names := make([]string, len(s.Extra))
		for i, t := range s.Extra {
			names[i] = t.Name
		}
		fmt.Fprintf(&b, "; other tables: %s", strings.Join(names, ", "))
	}
	return b.String()
}

// Inspect reads the schema of the database q reads. It describes any
// SQLite database; Check says whether it is a state.db.
func Inspect(ctx context.Context, q Querier) (Schema, error) {
	objs, err := masterObjects(ctx, q)
	if err != nil {
		return Schema{}, fmt.Errorf("read schema: %w", err)
	}
	shadow, err := shadowTables(ctx, q)
	if err != nil {
		return Schema{}, fmt.Errorf("read schema: %w", err)
	}
	var s Schema
	var virtual []Table
	for _, o := range objs {
		switch o.typ {
		case "table":
			if shadow[strings.ToLower(o.name)] || strings.HasPrefix(strings.ToLower(o.name), "sqlite_") {
				continue
			}
			t := Table{Name: o.name, SQL: o.sql}
			if vt, ok := parseVirtualTable(o.sql); ok {
				t.Module = strings.ToLower(vt.module)
			}
			if t.Columns, err = tableColumns(ctx, q, o.name); err != nil {
				return Schema{}, fmt.Errorf("read schema of %s: %w", o.name, err)
			}
			if t.Module == "" {
				if t.ForeignKeys, err = foreignKeys(ctx, q, o.name); err != nil {
					return Schema{}, fmt.Errorf("read schema of %s: %w", o.name, err)
				}
			}
			switch lower := strings.ToLower(o.name); {
			case t.Module != "":
				virtual = append(virtual, t)
			case lower == "sessions":
				s.Sessions = t
			case lower == "messages":
				s.Messages = t
			case lower == "schema_version":
				s.HasVersion, s.Version, err = schemaVersion(ctx, q, t)
				if err != nil {
					return Schema{}, fmt.Errorf("read schema version: %w", err)
				}
			case lower == "state_meta":
				s.StateMeta = true
			default:
				s.Extra = append(s.Extra, t)
			}
		case "view":
			s.Views = append(s.Views, View{Name: o.name, SQL: o.sql})
		case "trigger":
			tr := Trigger{Name: o.name, Table: o.table, SQL: o.sql}
			if p, ok := parseTrigger(o.sql); ok {
				tr.Timing, tr.Event = p.timing, p.event
			}
			s.Triggers = append(s.Triggers, tr)
		}
	}
	for _, o := range objs {
		if o.typ == "table" && !shadow[strings.ToLower(o.name)] && !strings.HasPrefix(strings.ToLower(o.name), "sqlite_") {
			if s.Indexes, err = appendIndexes(ctx, q, s.Indexes, o.name, objs); err != nil {
				return Schema{}, fmt.Errorf("read indexes of %s: %w", o.name, err)
			}
		}
	}
	s.links()
	for _, t := range virtual {
		if f, ok := s.fts(t, objs); ok {
			s.FTS = append(s.FTS, f)
		} else {
			s.Extra = append(s.Extra, t)
		}
	}
	return s, nil
}

// links finds the parent link of sessions and the session link of
// messages: declared foreign keys first, then Hermes' column names.
func (s *Schema) links() {
	for _, fk := range s.Sessions.ForeignKeys {
		if strings.EqualFold(fk.Table, s.Sessions.Name) {
			s.ParentColumn, s.ParentDeclared = fk.From, true
			break
		}
	}
	if s.ParentColumn == "" && s.Sessions.Has("parent_session_id") {
		s.ParentColumn = "parent_session_id"
	}
	for _, fk := range s.Messages.ForeignKeys {
		if s.Sessions.Name != "" && strings.EqualFold(fk.Table, s.Sessions.Name) {
			s.SessionColumn = fk.From
			break
		}
	}
	if s.SessionColumn == "" && s.Messages.Has("session_id") {
		s.SessionColumn = "session_id"
	}
}

// fts describes t when it is an FTS5 table over messages.
func (s *Schema) fts(t Table, objs []masterObject) (FTS, bool) {
	if t.Module != "fts5" || s.Messages.Name == "" {
		return FTS{}, false
	}
	vt, _ := parseVirtualTable(t.SQL)
	cols, opts := fts5Args(vt.args)
	f := FTS{Name: t.Name, SQL: t.SQL, Columns: cols, Options: opts, Tokenizer: "unicode61"}
	if tok, ok := opts["tokenize"]; ok && tok != "" {
		f.Tokenizer = tok
	}
	content, hasContent := opts["content"]
	switch {
	case !hasContent:
		f.Kind = FTSOwn
	case content == "":
		f.Kind = FTSContentless
	default:
		f.Kind = FTSExternal
		f.ContentTable = content
		f.ContentRowID = opts["content_rowid"]
		if f.ContentRowID == "" {
			f.ContentRowID = "rowid"
		}
	}
	for _, o := range objs {
		if o.typ != "trigger" || !strings.EqualFold(o.table, s.Messages.Name) {
			continue
		}
		p, ok := parseTrigger(o.sql)
		if !ok {
			continue
		}
		ft := FTSTrigger{Name: o.name, Event: p.event}
		for _, st := range p.stmts {
			if !strings.EqualFold(st.table, t.Name) {
				continue
			}
			switch st.verb {
			case "DELETE":
				ft.Removes = true
			case "INSERT":
				rowid, indexed, command := ftsInsert(f, st)
				if strings.EqualFold(command, "delete") {
					ft.Removes = true
					continue
				}
				ft.Adds = true
				ft.Indexed = indexed
				if p.event == "INSERT" && f.Indexed == nil {
					f.Indexed, f.RowID = indexed, rowid
				}
			}
		}
		if ft.Removes || ft.Adds {
			f.Triggers = append(f.Triggers, ft)
		}
	}
	over := f.Kind == FTSExternal && strings.EqualFold(f.ContentTable, s.Messages.Name)
	return f, over || len(f.Triggers) > 0
}

// ftsInsert reads INSERT INTO fts(…) VALUES (…): the rowid expression,
// the expression for each FTS column, and the command when the first
// column is the table's own name ('delete', 'rebuild', …).
func ftsInsert(f FTS, st triggerStmt) (rowid string, indexed []string, command string) {
	cols := st.cols
	if cols == nil { // INSERT INTO fts VALUES (…): the columns in order
		cols = f.Columns
	}
	byCol := map[string]string{}
	for i, c := range cols {
		if i < len(st.values) {
			byCol[strings.ToLower(c)] = st.values[i]
		}
	}
	if v, ok := byCol[strings.ToLower(f.Name)]; ok {
		if toks := lex(v); len(toks) == 1 && toks[0].kind == tString {
			command = toks[0].name()
		}
	}
	rowid = byCol["rowid"]
	for _, c := range f.Columns {
		indexed = append(indexed, byCol[strings.ToLower(c)])
	}
	return rowid, indexed, command
}

type masterObject struct {
	typ, name, table, sql string
}

func masterObjects(ctx context.Context, q Querier) ([]masterObject, error) {
	rows, err := q.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []masterObject
	for rows.Next() {
		var o masterObject
		if err := rows.Scan(&o.typ, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// shadowTables names (lower case) the tables virtual tables keep their
// data in, as PRAGMA table_list reports them.
func shadowTables(ctx context.Context, q Querier) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[strings.ToLower(n)] = true
	}
	return out, rows.Err()
}

func tableColumns(ctx context.Context, q Querier, table string) ([]Column, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Column
	for rows.Next() {
		var c Column
		var def sql.NullString
		if err := rows.Scan(&c.Name, &c.Type, &c.NotNull, &def, &c.PK); err != nil {
			return nil, err
		}
		c.Default, c.HasDefault = def.String, def.Valid
		out = append(out, c)
	}
	return out, rows.Err()
}

func foreignKeys(ctx context.Context, q Querier, table string) ([]ForeignKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, seq, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ForeignKey
	for rows.Next() {
		var fk ForeignKey
		var to sql.NullString
		if err := rows.Scan(&fk.ID, &fk.Seq, &fk.Table, &fk.From, &to, &fk.OnUpdate, &fk.OnDelete); err != nil {
			return nil, err
		}
		fk.To = to.String
		out = append(out, fk)
	}
	return out, rows.Err()
}

func appendIndexes(ctx context.Context, q Querier, out []Index, table string, objs []masterObject) ([]Index, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`, table)
	if err != nil {
		return nil, err
	}
	var list []Index
	for rows.Next() {
		ix := Index{Table: table}
		if err := rows.Scan(&ix.Name, &ix.Unique, &ix.Origin, &ix.Partial); err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// In the order they were created, as sqlite_master lists them.
	pos := func(name string) int {
		return slices.IndexFunc(objs, func(o masterObject) bool { return o.typ == "index" && o.name == name })
	}
	slices.SortStableFunc(list, func(a, b Index) int { return pos(a.Name) - pos(b.Name) })
	for i := range list {
		ix := &list[i]
		if k := pos(ix.Name); k >= 0 {
			ix.SQL = objs[k].sql
		}
		crows, err := q.QueryContext(ctx, `SELECT coalesce(name, '<expression>') FROM pragma_index_info(?) ORDER BY seqno`, ix.Name)
		if err != nil {
			return nil, err
		}
		for crows.Next() {
			var c string
			if err := crows.Scan(&c); err != nil {
				crows.Close()
				return nil, err
			}
			ix.Columns = append(ix.Columns, c)
		}
		crows.Close()
		if err := crows.Err(); err != nil {
			return nil, err
		}
	}
	return append(out, list...), nil
}

// schemaVersion reads the highest version of schema_version, when the
// table has the column and a row.
func schemaVersion(ctx context.Context, q Querier, t Table) (bool, int, error) {
	if !t.Has("version") {
		return false, 0, nil
	}
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(CAST(version AS INTEGER)) FROM schema_version`).Scan(&v); err != nil {
		return false, 0, err
	}
	return v.Valid, int(v.Int64), nil
}
