package prune_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/hermesdb"
)

// generate writes a small state.db and returns its path.
func generate(t testing.TB, o hermesdb.Options) (string, hermesdb.Summary) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	sum, err := hermesdb.Write(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	return path, sum
}

func open(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := prune.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// exec runs statements on a read-write connection.
func exec(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func inspect(t testing.TB, path string) prune.Schema {
	t.Helper()
	s, err := prune.Inspect(context.Background(), open(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const v11Expr = `COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')`

func TestInspectVersions(t *testing.T) {
	v2Sessions := strings.Fields(`id source user_id model model_config system_prompt parent_session_id started_at ended_at
		end_reason message_count tool_call_count input_tokens output_tokens`)
	v6Sessions := append(slices.Clone(v2Sessions), strings.Fields(`cache_read_tokens cache_write_tokens reasoning_tokens
		billing_provider billing_base_url billing_mode estimated_cost_usd actual_cost_usd cost_status cost_source pricing_version title`)...)
	v2Messages := strings.Fields(`id session_id role content tool_call_id tool_calls tool_name timestamp token_count finish_reason`)
	v6Messages := append(slices.Clone(v2Messages), "reasoning", "reasoning_details", "codex_reasoning_items")
	v11Messages := append(slices.Clone(v2Messages), "reasoning", "reasoning_content", "reasoning_details", "codex_reasoning_items", "codex_message_items")
	migrated11Sessions := append(slices.Clone(v2Sessions), "title")
	migrated11Sessions = append(migrated11Sessions, v6Sessions[14:25]...)
	migrated11Sessions = append(migrated11Sessions, "api_call_count")

	for _, tt := range []struct {
		name      string
		o         hermesdb.Options
		sessions  []string
		messages  []string
		stateMeta bool
		titleIdx  bool
		fts       []prune.FTS // Name, Kind, Tokenizer, ContentTable, Indexed
	}{
		{"v2", hermesdb.Options{Version: 2}, v2Sessions, v2Messages, false, false,
			[]prune.FTS{{Name: "messages_fts", Kind: prune.FTSExternal, Tokenizer: "unicode61", ContentTable: "messages", ContentRowID: "id", Indexed: []string{"new.content"}}}},
		{"v6", hermesdb.Options{Version: 6}, v6Sessions, v6Messages, false, true,
			[]prune.FTS{{Name: "messages_fts", Kind: prune.FTSExternal, Tokenizer: "unicode61", ContentTable: "messages", ContentRowID: "id", Indexed: []string{"new.content"}}}},
		{"v11", hermesdb.Options{Version: 11}, append(slices.Clone(v6Sessions), "api_call_count"), v11Messages, true, true,
			[]prune.FTS{
				{Name: "messages_fts", Kind: prune.FTSOwn, Tokenizer: "unicode61", Indexed: []string{v11Expr}},
				{Name: "messages_fts_trigram", Kind: prune.FTSOwn, Tokenizer: "trigram", Indexed: []string{v11Expr}},
			}},
		{"v11 migrated", hermesdb.Options{Version: 11, Migrated: true}, migrated11Sessions,
			append(slices.Clone(v6Messages), "reasoning_content", "codex_message_items"), true, true,
			[]prune.FTS{
				{Name: "messages_fts", Kind: prune.FTSOwn, Tokenizer: "unicode61", Indexed: []string{v11Expr}},
				{Name: "messages_fts_trigram", Kind: prune.FTSOwn, Tokenizer: "trigram", Indexed: []string{v11Expr}},
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.Sessions = 5
			path, _ := generate(t, o)
			s := inspect(t, path)
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			if !s.HasVersion || s.Version != o.Version {
				t.Errorf("version %d (%t), want %d", s.Version, s.HasVersion, o.Version)
			}
			if s.StateMeta != tt.stateMeta {
				t.Errorf("state_meta %t, want %t", s.StateMeta, tt.stateMeta)
			}
			if got := s.Sessions.ColumnNames(); !slices.Equal(got, tt.sessions) {
				t.Errorf("sessions columns\n got %v\nwant %v", got, tt.sessions)
			}
			if got := s.Messages.ColumnNames(); !slices.Equal(got, tt.messages) {
				t.Errorf("messages columns\n got %v\nwant %v", got, tt.messages)
			}
			if c, _ := s.Sessions.Column("id"); c.PK != 1 || c.Type != "TEXT" {
				t.Errorf("sessions.id %+v", c)
			}
			if c, _ := s.Sessions.Column("started_at"); !c.NotNull || c.Type != "REAL" || c.HasDefault {
				t.Errorf("sessions.started_at %+v", c)
			}
			if c, _ := s.Sessions.Column("message_count"); c.NotNull || !c.HasDefault || c.Default != "0" {
				t.Errorf("sessions.message_count %+v", c)
			}
			if c, _ := s.Messages.Column("id"); c.PK != 1 || c.Type != "INTEGER" {
				t.Errorf("messages.id %+v", c)
			}
			if s.ParentColumn != "parent_session_id" || !s.ParentDeclared || s.SessionColumn != "session_id" {
				t.Errorf("links: parent %q (declared %t), session %q", s.ParentColumn, s.ParentDeclared, s.SessionColumn)
			}
			if fk := s.Messages.ForeignKeys; len(fk) != 1 || fk[0].Table != "sessions" || fk[0].From != "session_id" || fk[0].To != "id" {
				t.Errorf("messages foreign keys %+v", fk)
			}
			if len(s.Extra) != 0 || len(s.Views) != 0 {
				t.Errorf("extra tables %v, views %v: want none (shadow and sqlite_ tables are not extra)", s.Extra, s.Views)
			}

			var idx []string
			for _, ix := range s.Indexes {
				idx = append(idx, ix.Name)
				if ix.Name == "idx_sessions_title_unique" && (!ix.Unique || !ix.Partial) {
					t.Errorf("title index %+v: want unique and partial", ix)
				}
				if ix.Name == "idx_messages_session" && !slices.Equal(ix.Columns, []string{"session_id", "timestamp"}) {
					t.Errorf("messages index columns %v", ix.Columns)
				}
			}
			for _, want := range []string{"sqlite_autoindex_sessions_1", "idx_sessions_source", "idx_sessions_parent", "idx_sessions_started", "idx_messages_session"} {
				if !slices.Contains(idx, want) {
					t.Errorf("no index %s in %v", want, idx)
				}
			}
			if slices.Contains(idx, "idx_sessions_title_unique") != tt.titleIdx {
				t.Errorf("indexes %v: title index expected %t", idx, tt.titleIdx)
			}

			if len(s.FTS) != len(tt.fts) {
				t.Fatalf("FTS tables %+v, want %d", s.FTS, len(tt.fts))
			}
			for i, want := range tt.fts {
				got := s.FTS[i]
				if got.Name != want.Name || got.Kind != want.Kind || got.Tokenizer != want.Tokenizer ||
					got.ContentTable != want.ContentTable || got.ContentRowID != want.ContentRowID ||
					!slices.Equal(got.Indexed, want.Indexed) || got.RowID != "new.id" || !slices.Equal(got.Columns, []string{"content"}) {
					t.Errorf("FTS %d:\n got %+v\nwant %+v", i, got, want)
				}
				events := map[string]prune.FTSTrigger{}
				for _, tr := range got.Triggers {
					events[tr.Event] = tr
				}
				if ins := events["INSERT"]; !ins.Adds || ins.Removes {
					t.Errorf("%s insert trigger %+v", got.Name, ins)
				}
				if del := events["DELETE"]; !del.Removes || del.Adds {
					t.Errorf("%s delete trigger %+v", got.Name, del)
				}
				if up := events["UPDATE"]; !up.Removes || !up.Adds || !slices.Equal(up.Indexed, want.Indexed) {
					t.Errorf("%s update trigger %+v", got.Name, up)
				}
			}
			if len(s.Triggers) != 3*len(tt.fts) {
				t.Errorf("%d triggers, want %d", len(s.Triggers), 3*len(tt.fts))
			}
		})
	}
}

func TestInspectKeepsWhatItDoesNotKnow(t *testing.T) {
	path, _ := generate(t, hermesdb.Options{Version: 11, Sessions: 3})
	exec(t, path,
		`ALTER TABLE messages ADD COLUMN platform_message_id TEXT`,
		`ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0`,
		`CREATE TABLE session_events (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id), kind TEXT)`,
		`CREATE INDEX idx_session_events ON session_events(session_id, kind)`,
		`CREATE VIRTUAL TABLE notes_fts USING fts5(title, body)`,
		`CREATE VIEW recent AS SELECT id FROM sessions ORDER BY started_at DESC LIMIT 10`,
		`CREATE TRIGGER sessions_touch AFTER UPDATE OF title ON sessions BEGIN UPDATE sessions SET archived = 0 WHERE id = new.id; END`,
	)
	s := inspect(t, path)
	if c, ok := s.Messages.Column("platform_message_id"); !ok || s.Messages.Columns[len(s.Messages.Columns)-1] != c {
		t.Errorf("messages columns %v: want platform_message_id last", s.Messages.ColumnNames())
	}
	if c, ok := s.Sessions.Column("archived"); !ok || !c.NotNull || c.Default != "0" {
		t.Errorf("sessions.archived %+v", c)
	}
	var extra []string
	for _, e := range s.Extra {
		extra = append(extra, e.Name+"/"+e.Module)
	}
	if !slices.Equal(extra, []string{"session_events/", "notes_fts/fts5"}) {
		t.Errorf("extra tables %v", extra)
	}
	if fk := s.Extra[0].ForeignKeys; len(fk) != 1 || fk[0].Table != "sessions" {
		t.Errorf("session_events foreign keys %+v", fk)
	}
	if len(s.FTS) != 2 {
		t.Errorf("notes_fts counted as an FTS table over messages: %+v", s.FTS)
	}
	if len(s.Views) != 1 || s.Views[0].Name != "recent" {
		t.Errorf("views %+v", s.Views)
	}
	if k := slices.IndexFunc(s.Triggers, func(tr prune.Trigger) bool { return tr.Name == "sessions_touch" }); k < 0 ||
		s.Triggers[k].Event != "UPDATE" || s.Triggers[k].Table != "sessions" || s.Triggers[k].Timing != "AFTER" {
		t.Errorf("triggers %+v", s.Triggers)
	}
	if !slices.ContainsFunc(s.Indexes, func(ix prune.Index) bool { return ix.Name == "idx_session_events" && ix.Table == "session_events" }) {
		t.Errorf("indexes %+v", s.Indexes)
	}
	if !strings.Contains(s.Summary(), "other tables: session_events, notes_fts") {
		t.Errorf("summary %q", s.Summary())
	}
}

// Shapes no Hermes release has written but a fork or a hand might:
// contentless tables, quoted options, other tokenizers, no schema_version,
// no declared parent key.
func TestInspectOtherShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	exec(t, path,
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL NOT NULL, ended_at REAL, parent_session_id TEXT)`,
		`CREATE TABLE "messages" (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, tool_name TEXT, timestamp REAL)`,
		`CREATE VIRTUAL TABLE m_cl USING fts5(content, content='', contentless_delete=1, tokenize = "porter unicode61 remove_diacritics 2")`,
		`CREATE VIRTUAL TABLE [m_ext] USING fts5(content, tool_name, content = 'messages', content_rowid = 'id', prefix='2 3')`,
		`CREATE TRIGGER m_ai AFTER INSERT ON messages BEGIN
			INSERT INTO m_cl(rowid, content) VALUES (new.id, lower(new.content)); -- a comment; with a semicolon
			INSERT INTO "m_ext" VALUES (new.content, new.tool_name);
		END`,
		`CREATE TRIGGER m_ad AFTER DELETE ON messages WHEN old.content IS NOT NULL BEGIN
			DELETE FROM m_cl WHERE rowid = old.id;
			INSERT INTO m_ext(m_ext, rowid, content, tool_name) VALUES ('delete', old.id, old.content, old.tool_name);
		END`,
	)
	s := inspect(t, path)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if s.HasVersion || s.ParentColumn != "parent_session_id" || s.ParentDeclared || s.SessionColumn != "session_id" {
		t.Errorf("version %t, parent %q declared %t, session %q", s.HasVersion, s.ParentColumn, s.ParentDeclared, s.SessionColumn)
	}
	cl, ok := s.FTSTable("m_cl")
	if !ok || cl.Kind != prune.FTSContentless || cl.Tokenizer != "porter unicode61 remove_diacritics 2" || cl.Options["contentless_delete"] != "1" ||
		!slices.Equal(cl.Indexed, []string{"lower(new.content)"}) || len(cl.Triggers) != 2 || !cl.Triggers[1].Removes {
		t.Errorf("m_cl %+v", cl)
	}
	ext, ok := s.FTSTable("m_ext")
	if !ok || ext.Kind != prune.FTSExternal || ext.ContentTable != "messages" || ext.ContentRowID != "id" || ext.Options["prefix"] != "2 3" ||
		!slices.Equal(ext.Columns, []string{"content", "tool_name"}) || !slices.Equal(ext.Indexed, []string{"new.content", "new.tool_name"}) ||
		len(ext.Triggers) != 2 || !ext.Triggers[1].Removes || ext.Triggers[1].Adds {
		t.Errorf("m_ext %+v", ext)
	}
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name  string
		stmts []string
		want  string
	}{
		{"empty", nil, "no sessions table"},
		{"no messages", []string{`CREATE TABLE sessions (id TEXT, started_at REAL, ended_at REAL)`}, "no messages table"},
		{"no ended_at", []string{`CREATE TABLE sessions (id TEXT, started_at REAL)`, `CREATE TABLE messages (id INTEGER)`}, "sessions has no ended_at column"},
		{"no session link", []string{`CREATE TABLE sessions (id TEXT, started_at REAL, ended_at REAL)`, `CREATE TABLE messages (id INTEGER, role TEXT)`}, "messages has no session_id column"},
		{"no timestamp", []string{`CREATE TABLE sessions (id TEXT, started_at REAL, ended_at REAL)`, `CREATE TABLE messages (id INTEGER, session_id TEXT, role TEXT, content TEXT)`}, "messages has no timestamp column"},
		{"goose", []string{`CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT)`, `CREATE TABLE messages (id INTEGER, session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER)`}, "sessions has no started_at column"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			exec(t, path, append([]string{`PRAGMA user_version = 1`}, tt.stmts...)...)
			err := inspect(t, path).Check()
			if !errors.Is(err, prune.ErrNotStateDB) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check: %v, want %q", err, tt.want)
			}
		})
	}
}
