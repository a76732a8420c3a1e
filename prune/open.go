package prune

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"

	"github.com/lorehq/lore/internal/sqlitex"
)

// BusyTimeout is how long a read waits for a writer's lock.
var BusyTimeout = 5 * time.Second

// OpenReadOnly opens the database at path for reading only, the way
// sqlitex.ReadOnlyURI says: nothing it does changes the file or creates
// one beside it, since the agent may be running.
//
// A missing file, a folder or a file that is not SQLite is an error that
// says so; whether the tables are a state.db's is for Inspect and Check.
func OpenReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	abs, hdr, err := databaseFile(path)
	if err != nil {
		return nil, err
	}
	uri, _ := sqlitex.ReadOnlyURI(abs, hdr, BusyTimeout)
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}

// databaseFile checks that path is an SQLite file and returns its
// absolute path and header. A missing file, a folder or a file that is
// not SQLite is an error that says so.
func databaseFile(path string) (abs string, hdr []byte, err error) {
	if abs, err = filepath.Abs(path); err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("no database at %s: %w", path, fs.ErrNotExist)
	case err != nil:
		return "", nil, err
	case fi.IsDir():
		return "", nil, fmt.Errorf("%s is a folder, not a database file", path)
	}
	hdr, err = sqlitex.Header(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
		err = fmt.Errorf("%w: %v", ErrNotStateDB, err)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return abs, hdr, nil
}
