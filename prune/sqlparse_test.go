package prune

import (
	"slices"
	"strings"
	"testing"
)

func TestParseVirtualTable(t *testing.T) {
	for _, tt := range []struct {
		sql    string
		name   string
		module string
		cols   []string
		opts   map[string]string
	}{
		{"CREATE VIRTUAL TABLE messages_fts USING fts5(\n    content,\n    content=messages,\n    content_rowid=id\n)",
			"messages_fts", "fts5", []string{"content"}, map[string]string{"content": "messages", "content_rowid": "id"}},
		{`CREATE VIRTUAL TABLE IF NOT EXISTS main."odd ""name""" USING FTS5(a UNINDEXED, [b c], tokenize = 'porter unicode61', content='')`,
			`odd "name"`, "FTS5", []string{"a", "b c"}, map[string]string{"tokenize": "porter unicode61", "content": ""}},
		{`CREATE VIRTUAL TABLE t USING fts5(x, tokenize="unicode61 tokenchars '-_'", prefix = 2)`,
			"t", "fts5", []string{"x"}, map[string]string{"tokenize": "unicode61 tokenchars '-_'", "prefix": "2"}},
		{`CREATE VIRTUAL TABLE t USING rtree(id, minx, maxx)`, "t", "rtree", []string{"id", "minx", "maxx"}, map[string]string{}},
	} {
		vt, ok := parseVirtualTable(tt.sql)
		if !ok || vt.name != tt.name || vt.module != tt.module {
			t.Errorf("%s: %+v %t", tt.sql, vt, ok)
			continue
		}
		cols, opts := fts5Args(vt.args)
		if !slices.Equal(cols, tt.cols) || len(opts) != len(tt.opts) {
			t.Errorf("%s: columns %q, options %q", tt.sql, cols, opts)
		}
		for k, v := range tt.opts {
			if opts[k] != v {
				t.Errorf("%s: option %s = %q, want %q", tt.sql, k, opts[k], v)
			}
		}
	}
	for _, bad := range []string{"", "CREATE TABLE t (a)", "CREATE VIRTUAL TABLE", "CREATE VIRTUAL TABLE t USING"} {
		if _, ok := parseVirtualTable(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseTrigger(t *testing.T) {
	src := `CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF content, role ON main.messages
FOR EACH ROW WHEN new.role <> 'tool' BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    /* a comment; END */
    INSERT OR REPLACE INTO messages_fts(rowid, content) VALUES (
        new.id,
        COALESCE(CASE WHEN new.role = 'tool' THEN substr(new.content, 1, 8192) ELSE new.content END, '')   ||  ' ;; '
    );
    UPDATE state_meta SET value = 'x' WHERE key = 'k';
END`
	tr, ok := parseTrigger(src)
	if !ok {
		t.Fatal("not parsed")
	}
	if tr.name != "messages_fts_update" || tr.table != "messages" || tr.timing != "AFTER" || tr.event != "UPDATE" || tr.when != "new.role <> 'tool'" {
		t.Errorf("%+v", tr)
	}
	if len(tr.stmts) != 3 {
		t.Fatalf("%d statements: %+v", len(tr.stmts), tr.stmts)
	}
	del, ins, up := tr.stmts[0], tr.stmts[1], tr.stmts[2]
	if del.verb != "DELETE" || del.table != "messages_fts" || del.where != "rowid = old.id" {
		t.Errorf("delete %+v", del)
	}
	want := "COALESCE(CASE WHEN new.role = 'tool' THEN substr(new.content, 1, 8192) ELSE new.content END, '') || ' ;; '"
	if ins.verb != "INSERT" || ins.table != "messages_fts" || !slices.Equal(ins.cols, []string{"rowid", "content"}) ||
		len(ins.values) != 2 || ins.values[0] != "new.id" || ins.values[1] != want {
		t.Errorf("insert %+v\nwant value %s", ins, want)
	}
	if up.verb != "UPDATE" || up.table != "state_meta" || up.where != "key = 'k'" {
		t.Errorf("update %+v", up)
	}

	for _, tt := range []struct{ sql, timing, event string }{
		{"CREATE TRIGGER t INSERT ON m BEGIN SELECT 1; END", "BEFORE", "INSERT"},
		{"create temp trigger t instead of delete on v begin select 1; end", "INSTEAD OF", "DELETE"},
		{"CREATE TRIGGER t BEFORE DELETE ON m BEGIN SELECT 1; END", "BEFORE", "DELETE"},
	} {
		tr, ok := parseTrigger(tt.sql)
		if !ok || tr.timing != tt.timing || tr.event != tt.event {
			t.Errorf("%s: %+v", tt.sql, tr)
		}
	}
	for _, bad := range []string{"", "CREATE TABLE t (a)", "CREATE TRIGGER t AFTER INSERT ON m", "CREATE TRIGGER"} {
		if _, ok := parseTrigger(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestLexKeepsLiterals(t *testing.T) {
	src := "a  ||  'two  spaces' || \"q\"\"x\" -- gone\n|| x'00' || 1.5e3"
	toks := lex(src)
	if got := text(src, toks); got != `a || 'two  spaces' || "q""x" || x'00' || 1.5e3` {
		t.Errorf("text %q", got)
	}
	if toks[4].name() != `q"x` {
		t.Errorf("quoted identifier %q", toks[4].name())
	}
}

// FuzzSchemaSQL feeds the readers of sqlite_master text with anything: they
// must not panic, and tokens must lie within the source in order.
func FuzzSchemaSQL(f *testing.F) {
	for _, s := range []string{
		"CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id)",
		"CREATE TRIGGER x AFTER INSERT ON messages BEGIN INSERT INTO f(rowid, content) VALUES (new.id, new.content); END",
		"CREATE TRIGGER x AFTER DELETE ON messages BEGIN INSERT INTO f(f, rowid, content) VALUES('delete', old.id, old.content); END",
		`CREATE VIRTUAL TABLE "a USING fts5('`, "CREATE TRIGGER [x AFTER", "/* open", "((((", "'''", "INSERT INTO (",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks := lex(src)
		end := 0
		for _, tk := range toks {
			if tk.start < end || tk.end <= tk.start || tk.end > len(src) || src[tk.start:tk.end] != tk.text {
				t.Fatalf("token %+v out of place in %q", tk, src)
			}
			end = tk.end
			_ = tk.name()
		}
		if vt, ok := parseVirtualTable(src); ok {
			fts5Args(vt.args)
		}
		if tr, ok := parseTrigger(src); ok {
			f := FTS{Name: "f", Columns: []string{"content"}}
			for _, st := range tr.stmts {
				ftsInsert(f, st)
			}
		}
		_ = strings.ToUpper(text(src, toks))
	})
}
