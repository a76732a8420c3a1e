package prune

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// BusyTimeout is how long a read waits for a writer's lock.
var BusyTimeout = 5 * time.Second

var sqliteMagic = []byte("SQLite format 3\x00")

// OpenReadOnly opens the database at path for reading only; nothing it
// does changes the file or creates one beside it, since the agent may be
// running:
//   - a WAL database whose -wal and -shm files are present is in use: it
//     is opened with mode=ro, which reads the WAL through the existing
//     -shm, and a busy timeout;
//   - a WAL database without them was checkpointed and closed by every
//     writer: it is opened immutable, because mode=ro would create -wal
//     and -shm files next to it;
//   - a rollback-journal database is opened with mode=ro and a busy
//     timeout.
//
// A missing file, a folder or a file that is not SQLite is an error that
// says so; whether the tables are a state.db's is for Inspect and Check.
func OpenReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no database at %s: %w", path, fs.ErrNotExist)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder, not a database file", path)
	}
	hdr, err := header(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Bytes 18 and 19 are the read and write format versions: 2 is WAL.
	wal := hdr[18] == 2 || hdr[19] == 2
	immutable := wal && !(exists(abs+"-wal") && exists(abs+"-shm"))
	params := fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)", BusyTimeout.Milliseconds())
	if immutable {
		params = "mode=ro&immutable=1&_pragma=query_only(1)"
	}
	db, err := sql.Open("sqlite", "file:"+escapeURIPath(abs)+"?"+params)
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

// header reads the 100-byte database header and checks the magic string.
func header(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hdr := make([]byte, 100)
	if _, err := io.ReadFull(f, hdr); err != nil || !bytes.HasPrefix(hdr, sqliteMagic) {
		return nil, fmt.Errorf("%w: not an SQLite database", ErrNotStateDB)
	}
	return hdr, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// escapeURIPath makes a path safe inside a file: URI, where ?, # and %
// have meanings.
func escapeURIPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}
