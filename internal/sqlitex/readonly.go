package sqlitex

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var magic = []byte("SQLite format 3\x00")

// Header reads the 100-byte header of the database file at path. A file
// too short for one, or without SQLite's magic string, is an error that
// says which.
func Header(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hdr := make([]byte, 100)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return nil, fmt.Errorf("a SQLite header cut short (%d bytes needed)", len(hdr))
	}
	if !bytes.HasPrefix(hdr, magic) {
		return nil, fmt.Errorf("not an SQLite database")
	}
	return hdr, nil
}

// ReadOnlyURI returns the URI that opens the database at the absolute
// path abs, whose header is hdr, for reading only, creating nothing
// beside it, since its owner may be running:
//   - a WAL database whose -wal and -shm files are present is in use: it
//     is opened with mode=ro, which reads the WAL through the existing
//     -shm, and the busy timeout;
//   - a WAL database without them was checkpointed and closed by every
//     writer: it is opened immutable, because mode=ro would create -wal
//     and -shm files next to it;
//   - a rollback-journal database is opened with mode=ro and the busy
//     timeout.
//
// immutable reports which; ImmutableURI gives the other.
func ReadOnlyURI(abs string, hdr []byte, busy time.Duration) (uri string, immutable bool) {
	// Bytes 18 and 19 are the read and write format versions: 2 is WAL.
	wal := hdr[18] == 2 || hdr[19] == 2
	if wal && !(exists(abs+"-wal") && exists(abs+"-shm")) {
		return ImmutableURI(abs), true
	}
	return SharedReadOnlyURI(abs, busy), false
}

// SharedReadOnlyURI opens the database at abs for reading only as any
// reader does: with readers' locks, reading the WAL through its -shm
// file, which SQLite creates beside a WAL database when it can, and
// waiting busy for a writer's lock.
func SharedReadOnlyURI(abs string, busy time.Duration) string {
	return fmt.Sprintf("file:%s?mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)", EscapePath(abs), busy.Milliseconds())
}

// ImmutableURI opens the database at abs as a file no one changes: no
// locks, no WAL.
func ImmutableURI(abs string) string {
	return "file:" + EscapePath(abs) + "?mode=ro&immutable=1&_pragma=query_only(1)"
}

// URI opens the database at path with the driver's parameters q.
func URI(path string, q url.Values) string {
	return "file:" + EscapePath(path) + "?" + q.Encode()
}

// EscapePath makes a path safe inside a file: URI, where ?, # and % have
// meanings.
func EscapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
