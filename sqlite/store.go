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

// busyTimeout is how long SQLite itself waits for another connection's
// lock, before sqlitex retries.
const busyTimeout = 5 * time.Second

// Store is a lore.Store in one SQLite file.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time

	w *sqlitex.Writer

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared statements: multi-row inserts by shape, queries by text
}

var _ lore.Store = (*Store)(nil)

// Options change how a store is opened.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Open opens the store at path, creating it (and its folder, 0700) when it
// does not exist, and brings its schema up to date. The file and SQLite's
// journal files are readable by their owner only.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := create(path); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.Itoa(int(busyTimeout/time.Millisecond)))
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
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	s := &Store{db: db, path: path, now: opts.Now,
		w: &sqlitex.Writer{DB: db, Path: path, What: "store", Stuck: "a lore or sqlite3 process",
			After: map[string]func(context.Context, *sql.Tx) error{"0005_bands.sql": rebuildBands}}}
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, sqlitex.Explain(err, "store", "restore it from a backup or an export"))
	}
	return s, nil
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
	return s.w.Migrate(ctx, files, nil)
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
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error { return s.w.Write(ctx, fn) }

// micros and fromMicros convert times to and from the stored form.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// placeholders returns "?, ?, …" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
