package archive

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is an SQLite storage class.
type Kind uint8

// The storage classes, numbered as they are in the row encoding.
const (
	Null Kind = iota
	Integer
	Real
	Text
	Blob
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "NULL"
	case Integer:
		return "INTEGER"
	case Real:
		return "REAL"
	case Text:
		return "TEXT"
	case Blob:
		return "BLOB"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one column of a row: its name, its storage class and its value.
// Only the field that belongs to Kind is meaningful.
type Value struct {
	Column string
	Kind   Kind
	Int    int64
	Float  float64
	// Text is kept byte for byte: SQLite does not check that TEXT is UTF-8.
	Text string
	// Blob is never nil once decoded, so that an empty BLOB stays a BLOB
	// (the driver binds a nil []byte as NULL).
	Blob []byte
}

// Row is one table row, its columns in table order.
type Row []Value

// FromSQL makes a Value from what database/sql scans into an *any from the
// SQLite driver. It refuses anything that is not one of SQLite's five
// storage classes, such as the time.Time the driver makes of TEXT in a
// column declared DATETIME: select such columns with SelectColumns.
func FromSQL(column string, v any) (Value, error) {
	switch x := v.(type) {
	case nil:
		return Value{Column: column, Kind: Null}, nil
	case int64:
		return Value{Column: column, Kind: Integer, Int: x}, nil
	case float64:
		return Value{Column: column, Kind: Real, Float: x}, nil
	case string:
		return Value{Column: column, Kind: Text, Text: x}, nil
	case []byte:
		if x == nil {
			x = []byte{} // the driver returns an empty BLOB as a nil []byte
		}
		return Value{Column: column, Kind: Blob, Blob: x}, nil
	case time.Time:
		return Value{}, fmt.Errorf("column %q: the driver turned its value into a time; select it as +%s to keep the stored value", column, quote(column))
	}
	return Value{}, fmt.Errorf("column %q: %T is not an SQLite storage class", column, v)
}

// SQL returns the value to bind so that SQLite stores this storage class.
func (v Value) SQL() any {
	switch v.Kind {
	case Integer:
		return v.Int
	case Real:
		return v.Float
	case Text:
		return v.Text
	case Blob:
		if v.Blob == nil {
			return []byte{}
		}
		return v.Blob
	}
	return nil
}

// Equal reports whether v and w have the same column name, storage class
// and value; REALs compare by their bits, so NaN equals the same NaN and
// -0.0 differs from 0.0.
func (v Value) Equal(w Value) bool {
	if v.Column != w.Column || v.Kind != w.Kind {
		return false
	}
	switch v.Kind {
	case Integer:
		return v.Int == w.Int
	case Real:
		return math.Float64bits(v.Float) == math.Float64bits(w.Float)
	case Text:
		return v.Text == w.Text
	case Blob:
		return bytes.Equal(v.Blob, w.Blob)
	}
	return true
}

func (v Value) String() string {
	const most = 40
	switch v.Kind {
	case Integer:
		return "INTEGER " + strconv.FormatInt(v.Int, 10)
	case Real:
		return fmt.Sprintf("REAL %v (%#016x)", v.Float, math.Float64bits(v.Float))
	case Text:
		if len(v.Text) > most {
			return fmt.Sprintf("TEXT %q… (%d bytes)", v.Text[:most], len(v.Text))
		}
		return fmt.Sprintf("TEXT %q", v.Text)
	case Blob:
		if len(v.Blob) > most {
			return fmt.Sprintf("BLOB %x… (%d bytes)", v.Blob[:most], len(v.Blob))
		}
		return fmt.Sprintf("BLOB %x", v.Blob)
	}
	return v.Kind.String()
}

// Equal reports whether r and s hold equal values in the same order.
func (r Row) Equal(s Row) bool {
	return r.diff(s) == ""
}

// diff says how s differs from r, or returns "" when they are equal.
func (r Row) diff(s Row) string {
	for i := range min(len(r), len(s)) {
		if !r[i].Equal(s[i]) {
			if r[i].Column != s[i].Column {
				return fmt.Sprintf("column %d is %q, want %q", i, s[i].Column, r[i].Column)
			}
			return fmt.Sprintf("column %q is %s, want %s", r[i].Column, s[i], r[i])
		}
	}
	if len(r) != len(s) {
		return fmt.Sprintf("%d columns, want %d", len(s), len(r))
	}
	return ""
}

// Get returns the value of the named column; SQLite's column names ignore
// ASCII case.
func (r Row) Get(column string) (Value, bool) {
	for _, v := range r {
		if strings.EqualFold(v.Column, column) {
			return v, true
		}
	}
	return Value{}, false
}

// ScanRow reads the current row of rows, naming its values by the result
// columns.
func ScanRow(rows *sql.Rows) (Row, error) {
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	r := make(Row, len(names))
	for i, name := range names {
		if r[i], err = FromSQL(name, vals[i]); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// SelectColumns returns a select list for the named columns that gives
// each value as stored: `+"c" AS "c"` is an expression, so the driver,
// which looks at a column's declared type, does not turn TEXT in a DATE
// or DATETIME column into a time.
func SelectColumns(columns []string) string {
	var b strings.Builder
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		q := quote(c)
		b.WriteString("+" + q + " AS " + q)
	}
	return b.String()
}

// quote quotes an SQL identifier.
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Column is one column of a table, as PRAGMA table_info reports it. Its
// fields are those of prune.Column, so that one converts to the other.
type Column struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	NotNull bool   `json:"not_null"`
	// Default is the default's SQL text; HasDefault is false when there
	// is none.
	Default    string `json:"default,omitempty"`
	HasDefault bool   `json:"has_default"`
	// PK is the column's position in the primary key, from 1; 0 when it
	// is not part of it.
	PK int `json:"pk"`
}

// Bind maps an archived row onto the columns of the table it is restored
// into, by name, ignoring ASCII case as SQLite does. It returns the
// target's names of the row's columns and the values to bind to them. A
// table that lacks a column the row has is an error naming the columns,
// since dropping a value would lose it; so is a table column the row lacks
// that can be neither NULL nor defaulted.
func (r Row) Bind(target []Column) (columns []string, args []any, err error) {
	byName := make(map[string]int, len(target))
	for i, c := range target {
		byName[strings.ToLower(c.Name)] = i
	}
	used := make([]bool, len(target))
	var absent []string
	columns = make([]string, 0, len(r))
	args = make([]any, 0, len(r))
	for _, v := range r {
		i, ok := byName[strings.ToLower(v.Column)]
		if !ok {
			absent = append(absent, v.Column)
			continue
		}
		used[i] = true
		columns = append(columns, target[i].Name)
		args = append(args, v.SQL())
	}
	if len(absent) > 0 {
		return nil, nil, fmt.Errorf("the table has no column %s for archived values; restore into a database of the schema the rows came from", strings.Join(absent, ", "))
	}
	keys := 0
	for _, c := range target {
		if c.PK > 0 {
			keys++
		}
	}
	var required []string
	for i, c := range target {
		// SQLite assigns an INTEGER PRIMARY KEY (the rowid) itself.
		rowid := keys == 1 && c.PK == 1 && strings.EqualFold(c.Type, "INTEGER")
		if !used[i] && c.NotNull && !c.HasDefault && !rowid {
			required = append(required, c.Name)
		}
	}
	if len(required) > 0 {
		return nil, nil, fmt.Errorf("the archived row has no value for column %s, which is NOT NULL without a default", strings.Join(required, ", "))
	}
	return columns, args, nil
}

// The row encoding, version 1, all integers unsigned LEB128 varints in
// their shortest form:
//
//	byte    1 (the version)
//	varint  number of columns
//	then per column:
//	varint  length of the name, the name's bytes
//	byte    storage class: 0 NULL, 1 INTEGER, 2 REAL, 3 TEXT, 4 BLOB
//	        INTEGER: the zigzag-encoded value as a varint
//	        REAL: the IEEE 754 bits, 8 bytes big-endian
//	        TEXT, BLOB: varint length, the bytes
//
// Column names are in every row so that a row restores by name into a
// later schema; the dictionary makes them cost next to nothing.
const rowVersion = 1

var errRow = errors.New("not an archived row")

// AppendBinary appends the encoding of r to b.
func (r Row) AppendBinary(b []byte) ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	b = append(b, rowVersion)
	b = binary.AppendUvarint(b, uint64(len(r)))
	for _, v := range r {
		b = binary.AppendUvarint(b, uint64(len(v.Column)))
		b = append(b, v.Column...)
		b = append(b, byte(v.Kind))
		switch v.Kind {
		case Integer:
			b = binary.AppendUvarint(b, uint64(v.Int<<1)^uint64(v.Int>>63))
		case Real:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float))
		case Text:
			b = binary.AppendUvarint(b, uint64(len(v.Text)))
			b = append(b, v.Text...)
		case Blob:
			b = binary.AppendUvarint(b, uint64(len(v.Blob)))
			b = append(b, v.Blob...)
		}
	}
	return b, nil
}

// MarshalBinary returns the encoding of r.
func (r Row) MarshalBinary() ([]byte, error) {
	return r.AppendBinary(nil)
}

// size returns the length of r's encoding.
func (r Row) size() int {
	n := 1 + uvarintLen(uint64(len(r)))
	for _, v := range r {
		n += uvarintLen(uint64(len(v.Column))) + len(v.Column) + 1
		switch v.Kind {
		case Integer:
			n += uvarintLen(uint64(v.Int<<1) ^ uint64(v.Int>>63))
		case Real:
			n += 8
		case Text:
			n += uvarintLen(uint64(len(v.Text))) + len(v.Text)
		case Blob:
			n += uvarintLen(uint64(len(v.Blob))) + len(v.Blob)
		}
	}
	return n
}

// check refuses what the decoder would refuse, so that every encoding
// decodes to the row it came from.
func (r Row) check() error {
	for i, v := range r {
		if v.Kind > Blob {
			return fmt.Errorf("column %q: unknown storage class %d", v.Column, v.Kind)
		}
		// Rows have tens of columns: comparing pairs costs less than a
		// map.
		for _, w := range r[:i] {
			if len(w.Column) == len(v.Column) && strings.EqualFold(w.Column, v.Column) {
				return fmt.Errorf("column %q appears twice", v.Column)
			}
		}
	}
	return nil
}

// UnmarshalBinary decodes an encoding made by AppendBinary into *r. It
// accepts only the canonical encoding of a row, so that encoding the
// result gives b back.
func (r *Row) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	if v := d.byte(); v != rowVersion {
		if d.err != nil {
			return d.err
		}
		return fmt.Errorf("%w: version %d", errRow, v)
	}
	n := d.uvarint()
	if d.err != nil {
		return d.err
	}
	// Each column takes at least two bytes, which bounds what a damaged
	// count can make us allocate.
	if n > uint64(len(d.b))/2 {
		return fmt.Errorf("%w: %d columns in %d bytes", errRow, n, len(d.b))
	}
	row := make(Row, n)
	for i := range row {
		v := &row[i]
		v.Column = string(d.bytes())
		v.Kind = Kind(d.byte())
		switch v.Kind {
		case Null:
		case Integer:
			u := d.uvarint()
			v.Int = int64(u>>1) ^ -int64(u&1)
		case Real:
			v.Float = math.Float64frombits(binary.BigEndian.Uint64(d.take(8)))
		case Text:
			v.Text = string(d.bytes())
		case Blob:
			v.Blob = bytes.Clone(d.bytes())
			if v.Blob == nil {
				v.Blob = []byte{}
			}
		default:
			d.fail(fmt.Errorf("%w: column %d has unknown storage class %d", errRow, i, v.Kind))
		}
		if d.err != nil {
			return d.err
		}
	}
	if len(d.b) > 0 {
		return fmt.Errorf("%w: %d bytes after the last column", errRow, len(d.b))
	}
	if err := row.check(); err != nil {
		return fmt.Errorf("%w: %v", errRow, err)
	}
	*r = row
	return nil
}

// decoder reads a row encoding, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return make([]byte, n)
	}
	if n > len(d.b) {
		d.fail(fmt.Errorf("%w: truncated", errRow))
		return make([]byte, n)
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) byte() byte {
	return d.take(1)[0]
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	u, n := binary.Uvarint(d.b)
	if n <= 0 || n != uvarintLen(u) {
		d.fail(fmt.Errorf("%w: bad varint", errRow))
		return 0
	}
	d.b = d.b[n:]
	return u
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.fail(fmt.Errorf("%w: truncated", errRow))
	}
	if d.err != nil {
		return nil
	}
	return d.take(int(n))
}

func uvarintLen(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
