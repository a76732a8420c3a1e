// Package sqlite is the embedded lore.Store: one SQLite file, pure Go,
// full-text search with FTS5 and bm25, safe for several processes at once.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/sqlitex"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DefaultBusyTimeout is how long a read waits for another process's lock
// before it fails. Readers of a WAL store are never locked out by a
// writer, so a read that waits longer than this meets something unusual
// (a store in rollback mode, an exclusive lock held by hand), and an agent
// waiting on boot is better told at once. Writers wait longer: sqlitex
// retries their transactions while another process holds the store.
const DefaultBusyTimeout = 500 * time.Millisecond

// Store is a lore.Store in one SQLite file.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time

	w        *sqlitex.Writer
	readOnly bool

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared statements: multi-row inserts by shape, queries by text
}

var _ lore.Store = (*Store)(nil)

// Options change how a store is opened.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// BusyTimeout is how long one statement waits for another process's
	// lock; 0 means DefaultBusyTimeout. Write transactions are retried
	// beyond it, for up to sqlitex.BusyDeadline.
	BusyTimeout time.Duration
	// ReadOnly opens an existing store for reading only: nothing is
	// created, migrated or written, so a store in a read-only file or
	// folder can be searched, and writes fail with ErrReadOnly.
	ReadOnly bool
}

// ErrReadOnly is the error of a write to a store opened read-only.
var ErrReadOnly = errors.New("the store is open for reading only")

// Open opens the store at path, creating it (and its folder, 0700) when it
// does not exist, and brings its schema up to date. The file and SQLite's
// journal files are readable by their owner only. A file that is an SQLite
// database of something else is refused, untouched. A store that cannot be
// written is opened as with ReadOnly when its schema is up to date.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.ReadOnly {
		s, err := openReadOnly(ctx, path, opts)
		if !errors.Is(err, errMigrate) {
			return s, err
		}
		// A store of an older lore is brought up to date first, as any
		// command would, so that reading it finds the columns it expects;
		// a new or broken one is made or reported on as by any command.
	}
	if err := create(path); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// What looks foreign without locks is decided by the migration's
	// claim, under the write lock.
	checked := checkOnce(ctx, path, opts.BusyTimeout)
	if checked != nil && !errors.Is(checked, errMigrate) && !unsure(checked) {
		return nil, checked
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.Itoa(int(opts.BusyTimeout/time.Millisecond)))
	q.Set("_txlock", "immediate")
	q.Set("_foreign_keys", "1")
	q.Set("_synchronous", "NORMAL")
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", "cache_size(-65536)")
	q.Add("_pragma", "wal_autocheckpoint(16384)")
	db, err := sql.Open("sqlite", sqlitex.URI(path, q))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := newStore(db, path, opts)
	if unsure(checked) {
		// Decided under the write lock, before anything is migrated.
		beforeClaim()
		checked = s.w.Claim(ctx, func(tx *sql.Tx, version int) error { return s.claim(ctx, tx, version) })
		if checked != nil {
			db.Close()
			if errors.Is(checked, errForeign) {
				return nil, checked
			}
			return nil, fmt.Errorf("open store %s: %w", path, sqlitex.Explain(checked, "store", "restore it from a backup or an export"))
		}
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		if checked == nil && sqlitex.ReadOnly(err) {
			// An up-to-date store in a folder that cannot be written (where
			// SQLite would put its WAL) is still read.
			opts.ReadOnly = true
			return openReadOnly(ctx, path, opts)
		}
		if errors.Is(err, errForeign) {
			return nil, err
		}
		return nil, fmt.Errorf("open store %s: %w", path, sqlitex.Explain(err, "store", "restore it from a backup or an export"))
	}
	return s, nil
}

func newStore(db *sql.DB, path string, opts Options) *Store {
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	s := &Store{db: db, path: path, now: opts.Now, readOnly: opts.ReadOnly,
		w: &sqlitex.Writer{DB: db, Path: path, What: "store", Stuck: "a lore or sqlite3 process",
			After: map[string]func(context.Context, *sql.Tx) error{"0005_bands.sql": rebuildBands}}}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// openReadOnly opens the store at path for reading only. It fails with
// errMigrate when the store needs migrating first. Where SQLite may keep
// its WAL index beside the store, the store is read as any reader reads
// it, seeing a harvest that writes meanwhile; only in a folder it cannot
// write is the store read as sqlitex.ReadOnlyURI does, as a file no one
// changes.
func openReadOnly(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := check(ctx, path, opts.BusyTimeout); err != nil {
		return nil, err
	}
	if db, err := sharedReadOnlyDB(ctx, path, opts.BusyTimeout); err == nil {
		return newStore(db, path, opts), nil
	}
	db, err := readOnlyDB(path, opts.BusyTimeout)
	if err != nil {
		return nil, err
	}
	return newStore(db, path, opts), nil
}

// sharedReadOnlyDB opens the store at path with mode=ro, which takes the
// readers' locks and reads the WAL, creating its -shm and -wal files as
// lore's writers do; it fails where they cannot be created.
func sharedReadOnlyDB(ctx context.Context, path string, busy time.Duration) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", sqlitex.SharedReadOnlyURI(abs, busy))
	if err != nil {
		return nil, err
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// readOnlyDB opens the SQLite database at path for reading only.
func readOnlyDB(path string, busy time.Duration) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	hdr, err := sqlitex.Header(abs)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	uri, _ := sqlitex.ReadOnlyURI(abs, hdr, busy)
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return db, nil
}

// errMigrate says the file needs what only a writable open does: making
// the store, bringing its schema up to date, or finding out what is wrong
// with it (as before check was added, so that the message stays).
var errMigrate = errors.New("the store needs a writable open")

// loreTables are tables every version of lore's schema has: a database
// with a schema version and these is a lore store.
var loreTables = []string{"items", "items_fts"}

// errForeign says the file is a database of another application.
var errForeign = errors.New("a SQLite database of another application, not a lore store")

// errDamaged is matched by check's error when SQLite found the file
// damaged without taking locks: another process may be writing it, so
// only a look under the write lock tells.
var errDamaged = errors.New("damaged without locks")

type damaged struct{ error }

func (d damaged) Unwrap() error        { return d.error }
func (d damaged) Is(target error) bool { return target == errDamaged }

// unsure reports whether check's look without locks may have caught a
// store another process was making: a foreign or damaged look.
func unsure(err error) bool { return errors.Is(err, errForeign) || errors.Is(err, errDamaged) }

// checkSettle is how long check looks again before it takes a database
// for another application's: another lore process may be making the store
// at that moment, and a reader that takes no locks (see
// sqlitex.ReadOnlyURI) can catch its first pages half written.
var checkSettle = []time.Duration{20 * time.Millisecond, 80 * time.Millisecond, 300 * time.Millisecond}

// check tells a lore store (nil, or errMigrate) from a file that is
// not one, reading it without changing anything: an empty file or an
// empty database is a store yet to be made; a database with tables of its
// own belongs to another application, and migrating it would add lore's
// tables to that application's data. A database that looks foreign is
// looked at again a few times first, as one being made looks foreign.
func check(ctx context.Context, path string, busy time.Duration) error {
	err := checkOnce(ctx, path, busy)
	for _, wait := range checkSettle {
		if !unsure(err) {
			break
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		err = checkOnce(ctx, path, busy)
	}
	return err
}

func checkOnce(ctx context.Context, path string, busy time.Duration) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	if fi.Size() == 0 {
		return errMigrate // nothing yet: migrating makes the store
	}
	if _, err := sqlitex.Header(path); err != nil {
		return errMigrate // not SQLite at all: Migrate says so, changing nothing
	}
	db, err := readOnlyDB(path, busy)
	if err != nil {
		return err
	}
	defer db.Close()
	explain := func(err error) error {
		if sqlitex.Busy(err) {
			// Only a writer waits longer (see DefaultBusyTimeout).
			return fmt.Errorf("open store %s: the store is locked by another process (%w); try again when it is done", path, err)
		}
		e := fmt.Errorf("open store %s: %w", path, sqlitex.Explain(err, "store", "restore it from a backup or an export"))
		if sqlitex.Corrupt(err) {
			return damaged{e}
		}
		return e
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return explain(err)
	}
	names, err := schemaNames(ctx, db)
	if err != nil {
		return explain(err)
	}
	if err := foreign(path, version, names); err != nil {
		return err
	}
	if len(names) == 0 {
		return errMigrate // an empty database: migrating makes the store
	}
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	switch {
	case version > len(files):
		return fmt.Errorf("open store %s: the store has schema version %d, newer than this lore knows (%d): upgrade lore", path, version, len(files))
	case version < len(files):
		return errMigrate
	}
	return nil
}

// beforeClaim runs between check's look and the claim; tests make a
// store there, as another process can.
var beforeClaim = func() {}

// foreign returns errForeign for a database at path, of schema version
// version, holding the tables and indexes names, that is not a lore store
// and not empty either.
func foreign(path string, version int, names map[string]bool) error {
	if len(names) == 0 && version == 0 {
		return nil
	}
	ours := version > 0
	for _, t := range loreTables {
		ours = ours && names[t]
	}
	if !ours {
		return fmt.Errorf("%s is %w; give another --store", path, errForeign)
	}
	return nil
}

// claim refuses, in the write transaction that is to migrate it, a
// database that is not a lore store: what check saw without locks, while
// another lore process may have been making the store, is decided here
// for good.
func (s *Store) claim(ctx context.Context, tx *sql.Tx, version int) error {
	names, err := schemaNames(ctx, tx)
	if err != nil {
		return err
	}
	return foreign(s.path, version, names)
}

// schemaNames lists the names in a database's schema: its tables,
// indexes, views and triggers.
func schemaNames(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM sqlite_master")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names[name] = true
	}
	return names, rows.Err()
}

// create makes the store's folder (0700) and an empty file (0600) when
// they do not exist, so that SQLite, which gives its journal files the
// database file's mode, never creates anything readable by others.
func create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// Close closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.mu.Unlock()
	return s.db.Close()
}

// migrate brings the schema up to date (see sqlitex.Writer.Migrate).
func (s *Store) migrate(ctx context.Context) error {
	files, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return s.w.Migrate(ctx, files, func(tx *sql.Tx, version int) error { return s.claim(ctx, tx, version) })
}

// maxPrepared is how many query texts a store keeps prepared. Queries
// come in a few shapes (by which filters are set), but a store must not
// grow without bound if some caller's do not.
const maxPrepared = 512

// prepared returns the statement of query, preparing it once per store;
// nil once maxPrepared texts are.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	if len(s.stmts) >= maxPrepared {
		return nil, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// query runs a query outside a transaction with a statement prepared once
// (see prepared): preparing cost a search a tenth of its time.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRow is query for one row, scanned into dest.
func (s *Store) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return err
	}
	if st == nil {
		return s.db.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	return st.QueryRowContext(ctx, args...).Scan(dest...)
}

// write runs fn in a write transaction, retrying while another process
// holds the store.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.readOnly {
		return ErrReadOnly
	}
	return s.w.Write(ctx, fn)
}

// micros and fromMicros convert times to and from the stored form.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// placeholders returns "?, ?, …" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// CopyTo writes a copy of the store to path, a file that must not exist
// yet (VACUUM INTO: one read transaction, consistent whatever writes go
// on), readable by its owner only. harvest --dry-run harvests into such a
// copy, to count what a real run would merge.
func (s *Store) CopyTo(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("copy the store to %s: the file exists", path)
	}
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("copy the store to %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}
