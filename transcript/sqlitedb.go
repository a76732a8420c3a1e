package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/sqlitex"
)

// SQLite session databases (Goose sessions.db, Hermes state.db) share one
// raw format: it is recognised from the 16-byte SQLite header and a hint of
// the tables in the first pages, opened read-only, and handed to the agent
// reader whose tables it has (the db formats of format.go's table, Goose's
// and Hermes's). Only those readers look at rows.
//
// The agent may be running while lore reads, so a database is never
// changed and nothing is created beside it:
//   - a database in WAL mode whose -wal and -shm files are present is in
//     use: it is opened with mode=ro, which reads the WAL through the
//     existing -shm, and a busy timeout;
//   - a database in WAL mode without them has been checkpointed and
//     closed by every writer: it is opened immutable, because mode=ro
//     would create -wal and -shm files next to it (tested on SQLite 3.53);
//   - a rollback-journal database is opened with mode=ro and a busy
//     timeout; if that fails (a read-only folder that needs a lock file),
//     immutable is tried once.
//
// All reads of one database run in one read transaction, so the sessions
// and messages tables are seen at the same moment.

// sqlitedbMagic starts every SQLite 3 database file.
var sqlitedbMagic = []byte("SQLite format 3\x00")

// sqlitedbBusy is how long a read waits for a writer's lock (a variable
// so that tests can wait less).
var sqlitedbBusy = 5 * time.Second

// sqlitedbReader reads the sessions of one agent's database.
type sqlitedbReader struct {
	// hint reports whether the first bytes of a database look like this
	// agent's schema (the CREATE statements live in the first pages).
	hint func(head []byte) bool
	// fileNames are the agent's own names for its database, claimed even
	// when the schema is not in the first bytes (a migrated database
	// keeps newer CREATE statements further in).
	fileNames []string
	// match reports whether the tables are this agent's.
	match func(s sqlitedbSchema) bool
	read  sqlitedbReadFunc
}

func sqlitedbSniff(name string, head []byte) bool {
	if !bytes.HasPrefix(head, sqlitedbMagic) {
		return false
	}
	for _, r := range sqlitedbReaders {
		for _, n := range r.fileNames {
			if name == n {
				return true
			}
		}
		if r.hint != nil && r.hint(head) {
			return true
		}
	}
	return false
}

func sqlitedbRead(ctx context.Context, in *input, emit emitFunc) error {
	d, err := sqlitedbOpen(ctx, in.path)
	if err != nil {
		return err
	}
	defer d.close()
	for _, r := range sqlitedbReaders {
		if r.match(d.schema) {
			return r.read(ctx, in, d, emit)
		}
	}
	return notTranscript("SQLite database of no known agent (tables %s)", d.schema.describe())
}

// sqlitedbSchema maps each table of a database to its columns.
type sqlitedbSchema map[string]map[string]bool

// has reports whether table exists with all of cols.
func (s sqlitedbSchema) has(table string, cols ...string) bool {
	c, ok := s[table]
	if !ok {
		return false
	}
	for _, col := range cols {
		if !c[col] {
			return false
		}
	}
	return true
}

// col returns the column name quoted for SQL when table has it, else
// NULL, so one query fits every schema version.
func (s sqlitedbSchema) col(table, col string) string {
	if s[table][col] {
		return `"` + col + `"`
	}
	return "NULL"
}

func (s sqlitedbSchema) describe() string {
	names := make([]string, 0, len(s))
	for t := range s {
		names = append(names, t)
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// sqlitedbDB is one database opened for reading.
type sqlitedbDB struct {
	db     *sql.DB
	tx     *sql.Tx
	schema sqlitedbSchema
}

func (d *sqlitedbDB) close() {
	if d.tx != nil {
		d.tx.Rollback()
	}
	d.db.Close()
}

// query runs a query in the database's read transaction.
func (d *sqlitedbDB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := d.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, sqlitedbError(err)
	}
	return rows, nil
}

// sqlitedbOpen opens path read-only as described at the top of this file
// and reads its tables and columns.
func sqlitedbOpen(ctx context.Context, path string) (*sqlitedbDB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	hdr, err := sqlitex.Header(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, err
		}
		return nil, notTranscript("%v", err)
	}
	uri, immutable := sqlitex.ReadOnlyURI(abs, hdr, sqlitedbBusy)
	d, err := sqlitedbTry(ctx, uri)
	if err != nil && !immutable && sqlitedbCantOpen(err) {
		// A folder lore may not create a lock or -shm file in: read the
		// database file as it is. Never done for a lock held by a writer,
		// which immutable would read through.
		if d2, err2 := sqlitedbTry(ctx, sqlitex.ImmutableURI(abs)); err2 == nil {
			return d2, nil
		}
	}
	return d, err
}

// sqlitedbCantOpen reports whether err says SQLite could not open or
// lock a file for reading (as opposed to a writer holding a lock).
func sqlitedbCantOpen(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "unable to open") || strings.Contains(msg, "readonly") ||
		strings.Contains(msg, "read-only") || strings.Contains(msg, "CANTOPEN")
}

func sqlitedbTry(ctx context.Context, uri string) (*sqlitedbDB, error) {
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("open SQLite database: %w", err)
	}
	// Two connections at most: the transaction holds one; a failed
	// statement never leaves a pool of open files behind.
	db.SetMaxOpenConns(2)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, sqlitedbError(err)
	}
	d := &sqlitedbDB{db: db, tx: tx}
	if d.schema, err = d.readSchema(ctx); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// readSchema lists the tables and, for each, the columns PRAGMA
// table_info reports.
func (d *sqlitedbDB) readSchema(ctx context.Context) (sqlitedbSchema, error) {
	rows, err := d.query(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, sqlitedbError(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, sqlitedbError(err)
	}
	s := make(sqlitedbSchema, len(tables))
	for _, t := range tables {
		cols := map[string]bool{}
		crows, err := d.query(ctx, `SELECT name FROM pragma_table_info(?)`, t)
		if err != nil {
			return nil, err
		}
		for crows.Next() {
			var c string
			if crows.Scan(&c) == nil {
				cols[c] = true
			}
		}
		crows.Close()
		s[t] = cols
	}
	return s, nil
}

// sqlitedbError turns driver errors into one line that says what to do.
// SQLite's messages name no data, so they are safe to show.
func sqlitedbError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "locked") || strings.Contains(msg, "busy"):
		return fmt.Errorf("SQLite database is locked by a writer for more than %v; try again when the agent is idle: %w", sqlitedbBusy, err)
	case strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "corrupt"):
		return fmt.Errorf("SQLite database is damaged: %w", err)
	}
	return fmt.Errorf("read SQLite database: %w", err)
}

// sqlitedbDamaged reports whether err says the database file is damaged,
// as opposed to locked or gone.
func sqlitedbDamaged(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "corrupt")
}

// eachRowAround calls fn for each row of SELECT rowid, cols FROM table,
// in rowid order; fn scans the row and returns its rowid. A damaged page
// fails a scan at the page; the scan then starts again past the damage
// (sqlitedbPast), so a bad page costs the rows on it and not the rest of
// the table. It returns how many stretches of rows were passed over.
func (d *sqlitedbDB) eachRowAround(ctx context.Context, table, cols string, fn func(*sql.Rows) (int64, error)) (lost int, err error) {
	q := fmt.Sprintf(`SELECT rowid, %s FROM %q WHERE rowid >= ? ORDER BY rowid`, cols, table)
	from := int64(math.MinInt64)
	for {
		read, last, err := d.rowsFrom(ctx, q, from, fn)
		if err == nil || !sqlitedbDamaged(err) {
			return lost, err
		}
		lost++
		bad := from
		if read {
			bad = last + 1
		}
		// A row whose rowid reads but whose columns do not (a damaged
		// overflow page) is passed over alone; stepping past it one
		// rowid at a time would not end when rowids are sparse.
		if r, ok := d.rowidFrom(ctx, table, bad); ok && r < math.MaxInt64 {
			from = r + 1
			continue
		}
		next, ok, err := d.sqlitedbPast(ctx, table, bad)
		if err != nil || !ok {
			return lost, err
		}
		from = next
	}
}

// rowidFrom returns the first rowid of table at or above from, when it
// can be read.
func (d *sqlitedbDB) rowidFrom(ctx context.Context, table string, from int64) (int64, bool) {
	var r int64
	err := d.tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT rowid FROM %q WHERE rowid >= ? ORDER BY rowid LIMIT 1`, table), from).Scan(&r)
	return r, err == nil
}

// rowsFrom runs q from the rowid from, reporting whether it read a row
// and the last rowid read.
func (d *sqlitedbDB) rowsFrom(ctx context.Context, q string, from int64, fn func(*sql.Rows) (int64, error)) (read bool, last int64, err error) {
	rows, err := d.tx.QueryContext(ctx, q, from)
	if err != nil {
		return false, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		if last, err = fn(rows); err != nil {
			return read, last, err
		}
		read = true
	}
	return read, last, rows.Err()
}

// sqlitedbPast finds the least rowid above bad from which table can be
// read again: it steps over the damage in doubling strides, then narrows
// back to the damage's end. ok is false when nothing past it can be read.
func (d *sqlitedbDB) sqlitedbPast(ctx context.Context, table string, bad int64) (next int64, ok bool, err error) {
	q := fmt.Sprintf(`SELECT rowid FROM %q WHERE rowid >= ? ORDER BY rowid LIMIT 1`, table)
	readable := func(at int64) (bool, error) {
		var id int64
		err := d.tx.QueryRowContext(ctx, q, at).Scan(&id)
		switch {
		case err == nil || errors.Is(err, sql.ErrNoRows):
			return true, nil
		case sqlitedbDamaged(err):
			return false, nil
		}
		return false, err
	}
	lo, hi := bad, bad
	for step := int64(1); ; step *= 2 {
		if hi > math.MaxInt64-step || step <= 0 {
			return 0, false, nil
		}
		hi = bad + step
		ok, err := readable(hi)
		if err != nil {
			return 0, false, err
		}
		if ok {
			break
		}
		lo = hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := readable(mid)
		if err != nil {
			return 0, false, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true, nil
}

// sqlitedbReadAround is the error of a read around damage: nil when no
// row was lost (the ordered scans failed on an index, the tables were
// whole), else how much was read and lost.
func sqlitedbReadAround(listed, lostSessions, lostMessages int) error {
	if lostSessions+lostMessages == 0 {
		return nil
	}
	return fmt.Errorf("SQLite database is damaged: %d sessions read, rows lost in %d places of the sessions table and %d of the messages table",
		listed, lostSessions, lostMessages)
}

// sqlitedbCompare orders two scanned values as SQLite's ORDER BY does:
// NULL, then numbers, then text, then blobs.
func sqlitedbCompare(a, b any) int {
	ca, cb := sqlitedbClass(a), sqlitedbClass(b)
	if ca != cb {
		return ca - cb
	}
	switch ca {
	case 1:
		x, y := sqlitedbFloat(a), sqlitedbFloat(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case 2, 3:
		return strings.Compare(sqlitedbText(a), sqlitedbText(b))
	}
	return 0
}

func sqlitedbClass(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64, float64:
		return 1
	case []byte:
		return 3
	}
	return 2
}

func sqlitedbFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// sqlitedbText returns a scanned value as text.
func sqlitedbText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return fmt.Sprint(x)
	case float64:
		return fmt.Sprint(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return ""
}

// sqlitedbInt returns a scanned value as an integer.
func sqlitedbInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string, []byte:
		var n int64
		fmt.Sscan(sqlitedbText(x), &n)
		return n
	}
	return 0
}

// sqlitedbEpoch reads epoch seconds written as a float (Python's
// time.time(), as Hermes stores them) to the microsecond the float holds,
// without the float's noise in the nanoseconds.
func sqlitedbEpoch(f float64) time.Time {
	if f > 0 && f < 1e11 {
		return time.UnixMicro(int64(math.Round(f * 1e6)))
	}
	return epoch(f)
}

// sqlitedbTime reads a scanned timestamp: epoch seconds or milliseconds as
// numbers, time values the driver parsed, and text in the layouts SQLite
// and the agents write. Text without a zone is read in naive: UTC for
// SQLite's CURRENT_TIMESTAMP, local time for agents that write local
// times.
func sqlitedbTime(v any, naive *time.Location) time.Time {
	switch x := v.(type) {
	case time.Time:
		return x
	case int64:
		return epoch(float64(x))
	case float64:
		return sqlitedbEpoch(x)
	case string, []byte:
		s := strings.TrimSpace(sqlitedbText(x))
		if s == "" {
			return time.Time{}
		}
		if c := s[0]; c >= '0' && c <= '9' && !strings.ContainsAny(s, "-:") {
			return parseTime(s)
		}
		if tt, err := time.Parse(time.RFC3339Nano, strings.Replace(s, " ", "T", 1)); err == nil {
			return tt
		}
		for _, layout := range naiveLayouts {
			if tt, err := time.ParseInLocation(layout, s, naive); err == nil {
				return tt
			}
		}
	}
	return time.Time{}
}

// sqlitedbReadFunc reads the sessions of a database one way.
type sqlitedbReadFunc func(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error

// sqlitedbReadOrAround reads a database with inOrder, its ordered scans;
// when they meet a damaged page it reads it again with around, row by row
// past the damage, and what inOrder found before is not emitted twice.
func sqlitedbReadOrAround(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc, inOrder, around sqlitedbReadFunc) error {
	var found []*lore.Session
	err := inOrder(ctx, in, d, func(s *lore.Session) { found = append(found, s) })
	if err != nil && sqlitedbDamaged(err) {
		return around(ctx, in, d, emit)
	}
	for _, s := range found {
		emit(s)
	}
	return err
}
