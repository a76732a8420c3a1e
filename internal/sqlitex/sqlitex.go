// Package sqlitex is what lore's SQLite files share: one writer at a time
// per process, write transactions retried while another process holds the
// file (so that a user never sees "database is locked" for a wait that
// ends), and SQLite's errors about the file itself in words a user can act
// on.
package sqlitex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyDeadline is how long a write retries after SQLite's own busy
// timeout before it gives up.
const BusyDeadline = 2 * time.Minute

// Writer writes to one SQLite file.
type Writer struct {
	DB   *sql.DB
	Path string
	// What the file is, for messages: "store", "archive".
	What string
	// Stuck says what to suspect when the file stays locked.
	Stuck string
	// After holds the steps that SQL cannot take, such as computing a
	// column again in Go, by the name of the migration they follow;
	// Migrate runs each in that migration's transaction.
	After map[string]func(context.Context, *sql.Tx) error

	// writing serialises this process's writers, which SQLite would do
	// anyway, but with busy waits.
	writing sync.Mutex
}

// Write runs fn in a write transaction (the DSN makes it BEGIN
// IMMEDIATE), retrying while another process holds the file.
func (w *Writer) Write(ctx context.Context, fn func(*sql.Tx) error) error {
	w.writing.Lock()
	defer w.writing.Unlock()
	return w.Retry(ctx, func() error {
		tx, err := w.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// Retry calls fn until it succeeds, fails with something other than a
// busy file, or BusyDeadline passes.
func (w *Writer) Retry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(BusyDeadline)
	wait := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !Busy(err) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the %s %s has been locked by another process for %s; is %s stuck? (%w)", w.What, w.Path, BusyDeadline, w.Stuck, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 200*time.Millisecond)
	}
}

// Corrupt reports whether err is SQLite finding the file damaged, or not
// a database, as a reader that takes no locks can find a file another
// process is writing.
func Corrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// Busy reports whether err is SQLite saying another connection holds a
// lock.
func Busy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// ReadOnly reports whether err is SQLite saying the file cannot be
// written: its mode, its folder's (where the WAL goes) or its file system.
func ReadOnly(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY
}

// Explain turns SQLite's errors about the file itself into what a user
// can act on; what names the file ("store", "archive"), restore says how
// to get it back when damaged.
func Explain(err error, what, restore string) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("the file is not a lore %s (not an SQLite database)", what)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("the %s file is damaged (SQLite reports corruption); %s", what, restore)
		case sqlite3.SQLITE_READONLY:
			return fmt.Errorf("the %s file is read-only", what)
		case sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("cannot open the %s file: check the folder exists and is writable", what)
		}
	}
	return err
}

// Claim runs claim in a write transaction with the file's schema version
// (user_version), so that what claim decides of the file, such as whose
// it is, is decided under the write lock: a file another process is
// writing is seen whole.
func (w *Writer) Claim(ctx context.Context, claim func(tx *sql.Tx, version int) error) error {
	return w.Write(ctx, func(tx *sql.Tx) error {
		var version int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			return err
		}
		return claim(tx, version)
	})
}

// Migrate applies the migrations in files (*.sql, applied in name order)
// that the file has not seen, by its user_version, in one write
// transaction, so that processes opening a new file at once apply them
// once. claim, if set, runs first in every write transaction that is to
// migrate, with the file's version, to refuse a file that is not one of
// ours: it is decided under the write lock, so that a file another of our
// processes is making at that moment is seen whole. It runs once before
// WAL, a property of the file, is set, so that a file it refuses is left
// as it was; w.After runs after the migrations it names.
func (w *Writer) Migrate(ctx context.Context, files fs.FS, claim func(tx *sql.Tx, version int) error) error {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	var version int
	if err := w.DB.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version > len(names) {
		return fmt.Errorf("the %s has schema version %d, newer than this lore knows (%d): upgrade lore", w.What, version, len(names))
	}
	if version == len(names) {
		return nil
	}
	if claim != nil {
		err := w.Claim(ctx, func(tx *sql.Tx, version int) error {
			if version < len(names) {
				return claim(tx, version)
			}
			return nil // another process migrated it meanwhile
		})
		if err != nil {
			return err
		}
	}
	if err := w.Retry(ctx, func() error {
		_, err := w.DB.ExecContext(ctx, "PRAGMA journal_mode=WAL")
		return err
	}); err != nil {
		return err
	}
	return w.Write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			return err
		}
		if claim != nil && version < len(names) {
			if err := claim(tx, version); err != nil {
				return err
			}
		}
		for i := version; i < len(names); i++ {
			b, err := fs.ReadFile(files, names[i])
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(b)); err != nil {
				return fmt.Errorf("migration %s: %w", names[i], err)
			}
			if after := w.After[names[i]]; after != nil {
				if err := after(ctx, tx); err != nil {
					return fmt.Errorf("migration %s: %w", names[i], err)
				}
			}
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(names)))
		return err
	})
}
