package archive

import (
	"bytes"
	"database/sql"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// edgeValues holds one value of every storage class at its edges.
func edgeValues() []Value {
	nan := math.Float64frombits(0x7ff8000000000001) // a NaN with a payload
	return []Value{
		nullValue("null"),
		intValue("zero", 0),
		intValue("minus_one", -1),
		intValue("min", math.MinInt64),
		intValue("max", math.MaxInt64),
		realValue("nan", nan),
		realValue("neg_nan", math.Float64frombits(0xfff0000000000001)),
		realValue("inf", math.Inf(1)),
		realValue("neg_inf", math.Inf(-1)),
		realValue("neg_zero", math.Copysign(0, -1)),
		realValue("pos_zero", 0),
		realValue("denormal", math.SmallestNonzeroFloat64),
		realValue("max_float", math.MaxFloat64),
		realValue("timestamp", 1747178334.587351),
		textValue("empty_text", ""),
		textValue("invalid_utf8", "a\xffb\xc3\x28\x00c"),
		textValue("unicode", "naïve — 日本語 🚀"),
		textValue("long_text", strings.Repeat("system prompt ", 5000)),
		{Column: "empty_blob", Kind: Blob, Blob: []byte{}},
		{Column: "blob", Kind: Blob, Blob: []byte{0, 1, 2, 0xff, 0}},
		textValue("", "a column named by the empty string"),
		textValue("Mixed Case \"quoted\"", "x"),
	}
}

func TestRowRoundTripEdges(t *testing.T) {
	row := Row(edgeValues())
	b, err := row.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != row.size() {
		t.Errorf("size() = %d, encoding has %d bytes", row.size(), len(b))
	}
	var got Row
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if d := row.diff(got); d != "" {
		t.Fatal(d)
	}
	for _, v := range got {
		if v.Kind == Blob && v.Blob == nil {
			t.Errorf("column %q: decoded BLOB is nil, which binds as NULL", v.Column)
		}
	}
	// One value at a time, so that a failure names it.
	for _, v := range edgeValues() {
		b, err := Row{v}.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got Row
		if err := got.UnmarshalBinary(b); err != nil || !(Row{v}).Equal(got) {
			t.Errorf("%s: got %v, %v", v, got, err)
		}
	}
}

func TestValueEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b Value
		want bool
	}{
		{realValue("x", math.NaN()), realValue("x", math.NaN()), true},
		{realValue("x", 0), realValue("x", math.Copysign(0, -1)), false},
		{nullValue("x"), textValue("x", ""), false},
		{textValue("x", ""), Value{Column: "x", Kind: Blob}, false},
		{Value{Column: "x", Kind: Blob}, Value{Column: "x", Kind: Blob, Blob: []byte{}}, true},
		{intValue("x", 1), realValue("x", 1), false},
		{intValue("x", 1), intValue("X", 1), false},
	} {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("%v Equal %v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// randomRow makes a row of random columns of every storage class.
func randomRow(rnd *rand.Rand) Row {
	n := rnd.IntN(20)
	row := make(Row, 0, n)
	for i := range n {
		v := Value{Column: randomString(rnd, 12) + "_" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Kind: Kind(rnd.IntN(5))}
		switch v.Kind {
		case Integer:
			switch rnd.IntN(3) {
			case 0:
				v.Int = int64(rnd.Uint64())
			case 1:
				v.Int = rnd.Int64N(256) - 128
			default:
				v.Int = []int64{math.MinInt64, math.MaxInt64, 0}[rnd.IntN(3)]
			}
		case Real:
			v.Float = math.Float64frombits(rnd.Uint64())
		case Text:
			v.Text = randomString(rnd, 300)
		case Blob:
			v.Blob = []byte(randomString(rnd, 300))
		}
		row = append(row, v)
	}
	return row
}

// randomString returns up to n arbitrary bytes, often valid text.
func randomString(rnd *rand.Rand, n int) string {
	b := make([]byte, rnd.IntN(n+1))
	for i := range b {
		if rnd.IntN(4) == 0 {
			b[i] = byte(rnd.UintN(256))
		} else {
			b[i] = byte('a' + rnd.IntN(26))
		}
	}
	return string(b)
}

func TestRowRoundTripRandom(t *testing.T) {
	rnd := rand.New(rand.NewPCG(42, 42))
	for i := range 5000 {
		row := randomRow(rnd)
		b, err := row.AppendBinary([]byte("prefix"))
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		b = b[len("prefix"):]
		var got Row
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if d := row.diff(got); d != "" {
			t.Fatalf("row %d: %s", i, d)
		}
		again, _ := got.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Fatalf("row %d: encoding is not deterministic", i)
		}
	}
}

func TestRowEncodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  Row
		want string
	}{
		{"duplicate", Row{intValue("id", 1), intValue("id", 2)}, `"id" appears twice`},
		{"duplicate ignoring case", Row{intValue("id", 1), intValue("ID", 2)}, `"ID" appears twice`},
		{"unknown class", Row{{Column: "x", Kind: 9}}, "unknown storage class"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.row.MarshalBinary()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestRowDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"other version", []byte{2, 0}},
		{"no count", []byte{1}},
		{"count beyond the bytes", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"truncated name", []byte{1, 1, 5, 'a'}},
		{"no class", []byte{1, 1, 1, 'a'}},
		{"unknown class", []byte{1, 1, 1, 'a', 5}},
		{"truncated real", []byte{1, 1, 1, 'a', 2, 0, 0}},
		{"truncated text", []byte{1, 1, 1, 'a', 3, 4, 'x'}},
		{"long varint", []byte{1, 1, 1, 'a', 1, 0x80, 0x00}},
		{"trailing bytes", []byte{1, 1, 1, 'a', 0, 0}},
		{"duplicate column", []byte{1, 2, 1, 'a', 0, 1, 'A', 0}},
		{"varint overflow", []byte{1, 1, 1, 'a', 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Row
			err := r.UnmarshalBinary(tc.b)
			if !errors.Is(err, errRow) {
				t.Fatalf("got %v, %v; want an errRow", r, err)
			}
		})
	}
}

func FuzzRowDecode(f *testing.F) {
	for _, r := range []Row{edgeValues(), {}, {intValue("id", 7), textValue("role", "user")}} {
		b, _ := r.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{1, 1, 1, 'a', 1, 0x80, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Row
		if err := r.UnmarshalBinary(b); err != nil {
			return
		}
		// What decodes is canonical: it encodes to the same bytes and
		// decodes to the same row.
		again, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded row does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", b, again)
		}
		var r2 Row
		if err := r2.UnmarshalBinary(again); err != nil || !r.Equal(r2) {
			t.Fatalf("decode(encode(r)) = %v, %v; want %v", r2, err, r)
		}
	})
}

// TestRowThroughSQLite checks that what SQLite stores comes back as the
// same storage class and value, through ScanRow, SelectColumns and SQL.
func TestRowThroughSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/t.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var values []Value
	for _, v := range edgeValues() {
		// SQLite stores NaN as NULL: a database never holds one.
		if v.Kind == Real && math.IsNaN(v.Float) {
			continue
		}
		values = append(values, v)
	}
	values = append(values, textValue("created", "2026-01-02 03:04:05"))
	var cols, names []string
	for _, v := range values {
		typ := "" // no affinity: the value is stored as bound
		if v.Column == "created" {
			typ = " DATETIME"
		}
		cols = append(cols, quote(v.Column)+typ)
		names = append(names, v.Column)
	}
	if _, err := db.Exec("CREATE TABLE t (" + strings.Join(cols, ", ") + ")"); err != nil {
		t.Fatal(err)
	}
	in := Row(values)
	columns, _, err := in.Bind([]Column{})
	if err == nil {
		t.Fatalf("Bind into a table without the columns: %v", columns)
	}
	target := make([]Column, len(names))
	for i, n := range names {
		target[i] = Column{Name: n}
	}
	columns, args, err := in.Bind(target)
	if err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = quote(c)
	}
	if _, err := db.Exec("INSERT INTO t ("+strings.Join(quoted, ", ")+") VALUES (?"+strings.Repeat(", ?", len(args)-1)+")", args...); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT " + SelectColumns(names) + " FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no row")
	}
	got, err := ScanRow(rows)
	if err != nil {
		t.Fatal(err)
	}
	if d := in.diff(got); d != "" {
		t.Fatal(d)
	}
	rows.Close()

	// Selected bare, the DATETIME column comes back as a time, which a
	// row refuses rather than change the value.
	rows, err = db.Query("SELECT * FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	if _, err := ScanRow(rows); err == nil || !strings.Contains(err.Error(), `"created"`) {
		t.Fatalf("ScanRow of a bare DATETIME column: %v", err)
	}
}

func TestBind(t *testing.T) {
	def := "0"
	v11 := []Column{
		{Name: "id", Type: "INTEGER", PK: 1},
		{Name: "session_id", Type: "TEXT", NotNull: true},
		{Name: "role", Type: "TEXT", NotNull: true},
		{Name: "content", Type: "TEXT"},
		{Name: "timestamp", Type: "REAL", NotNull: true},
		{Name: "token_count", Type: "INTEGER", NotNull: true, Default: def, HasDefault: true},
		{Name: "reasoning", Type: "TEXT"},
	}
	v2row := Row{intValue("ID", 3), textValue("session_id", "s"), textValue("role", "user"), textValue("content", "hi"), realValue("timestamp", 1.5)}
	cols, args, err := v2row.Bind(v11)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cols, ",") != "id,session_id,role,content,timestamp" || len(args) != 5 || args[0] != int64(3) {
		t.Errorf("got %v %v", cols, args)
	}

	for _, tc := range []struct {
		name   string
		row    Row
		target []Column
		want   string
	}{
		{"archived column the table lacks", append(v2row[:len(v2row):len(v2row)], textValue("codex_message_items", "[]"), nullValue("title")), v11, "no column codex_message_items, title"},
		{"required column the row lacks", Row{intValue("id", 1), textValue("role", "user")}, v11, "no value for column session_id, timestamp"},
		{"rowid may be left out", Row{textValue("session_id", "s"), textValue("role", "user"), realValue("timestamp", 1)}, v11, ""},
		{"a key that is not the rowid may not", Row{}, []Column{{Name: "id", Type: "TEXT", NotNull: true, PK: 1}}, "no value for column id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.row.Bind(tc.target)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func BenchmarkRowEncode(b *testing.B) {
	s := newGen(1).session(0)
	b.SetBytes(int64(s.Messages[1].size()))
	buf := make([]byte, 0, 1<<16)
	for b.Loop() {
		buf, _ = s.Messages[1].AppendBinary(buf[:0])
	}
}

func BenchmarkRowDecode(b *testing.B) {
	s := newGen(1).session(0)
	raw, _ := s.Messages[1].MarshalBinary()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var r Row
		if err := r.UnmarshalBinary(raw); err != nil {
			b.Fatal(err)
		}
	}
}
