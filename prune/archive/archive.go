package archive

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/lorehq/lore/internal/sqlitex"
)

//go:embed migrations/*.sql
var migrations embed.FS

// busyTimeout is how long SQLite waits for another connection's lock,
// before sqlitex retries.
const busyTimeout = 5 * time.Second

// Archive is an archive file of pruned sessions. Its methods are safe for
// concurrent use.
type Archive struct {
	db   *sql.DB
	path string
	now  func() time.Time

	w *sqlitex.Writer
	// training lets one Put train the first dictionary.
	training sync.Mutex

	mu      sync.Mutex
	codecs  map[int64]*codec // by dictionary id, 0 for none
	current *codec           // what new rows are compressed with; nil until there is a dictionary
}

// Create opens the archive at path, creating it (0600, its folder 0700)
// when it does not exist. It refuses an existing SQLite file that is not
// an archive, such as the session database itself.
func Create(ctx context.Context, path string) (*Archive, error) {
	if err := create(path); err != nil {
		return nil, fmt.Errorf("create archive %s: %w", path, err)
	}
	a, err := open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("create archive %s: %w", path, err)
	}
	return a, nil
}

// Open opens an existing archive.
func Open(ctx context.Context, path string) (*Archive, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open archive: %w", err)
	}
	a, err := open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open archive %s: %w", path, err)
	}
	return a, nil
}

// create makes the folder (0700) and an empty file (0600) when they do not
// exist, so that SQLite, which gives its -wal and -shm files the database
// file's mode, never creates anything readable by others.
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

func open(ctx context.Context, path string) (*Archive, error) {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.Itoa(int(busyTimeout/time.Millisecond)))
	q.Set("_txlock", "immediate")
	q.Set("_foreign_keys", "1")
	// The caller deletes sessions from their database once they are
	// here, so a commit must survive a power cut: FULL syncs the WAL on
	// every commit.
	q.Set("_synchronous", "FULL")
	db, err := sql.Open("sqlite", sqlitex.URI(path, q))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	a := &Archive{db: db, path: path, now: time.Now, codecs: map[int64]*codec{},
		w: &sqlitex.Writer{DB: db, Path: path, What: "archive", Stuck: "another prune"}}
	if err := a.migrate(ctx); err != nil {
		db.Close()
		return nil, sqlitex.Explain(err, "archive", "restore it from a backup")
	}
	if err := a.loadCurrent(ctx); err != nil {
		a.Close()
		return nil, sqlitex.Explain(err, "archive", "restore it from a backup")
	}
	return a, nil
}

// Close closes the archive.
func (a *Archive) Close() error {
	a.mu.Lock()
	for _, c := range a.codecs {
		c.close()
	}
	a.codecs = nil
	a.current = nil
	a.mu.Unlock()
	return a.db.Close()
}

// Path returns the archive's file.
func (a *Archive) Path() string { return a.path }

// migrate brings the schema up to date (see sqlitex.Writer.Migrate),
// refusing an SQLite file that holds something else, such as the session
// database itself.
func (a *Archive) migrate(ctx context.Context) error {
	files, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return a.w.Migrate(ctx, files, func(tx *sql.Tx, version int) error {
		if version > 0 {
			return nil
		}
		var tables int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
			return err
		}
		if tables > 0 {
			return errors.New("the file is an SQLite database but not a lore archive; choose another archive file")
		}
		return nil
	})
}

// write runs fn in a write transaction, retrying while another process
// holds the archive.
func (a *Archive) write(ctx context.Context, fn func(*sql.Tx) error) error { return a.w.Write(ctx, fn) }

// Source describes the database sessions were archived from.
type Source struct {
	Path          string
	SchemaVersion int
	// Tables holds the columns of the archived tables, by table name.
	Tables map[string][]Column
}

// SetSource records the database the archive's sessions come from.
func (a *Archive) SetSource(ctx context.Context, s Source) error {
	cols, err := json.Marshal(s.Tables)
	if err != nil {
		return fmt.Errorf("set archive source: %w", err)
	}
	err = a.write(ctx, func(tx *sql.Tx) error {
		for _, kv := range [][2]string{
			{"source_path", s.Path},
			{"source_schema_version", strconv.Itoa(s.SchemaVersion)},
			{"source_columns", string(cols)},
		} {
			if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set archive source: %w", err)
	}
	return nil
}

// Source returns what SetSource recorded; the zero Source when nothing was.
func (a *Archive) Source(ctx context.Context) (Source, error) {
	rows, err := a.db.QueryContext(ctx, "SELECT key, value FROM meta WHERE key LIKE 'source_%'")
	if err != nil {
		return Source{}, fmt.Errorf("archive source: %w", err)
	}
	defer rows.Close()
	var s Source
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Source{}, fmt.Errorf("archive source: %w", err)
		}
		switch k {
		case "source_path":
			s.Path = v
		case "source_schema_version":
			s.SchemaVersion, err = strconv.Atoi(v)
		case "source_columns":
			err = json.Unmarshal([]byte(v), &s.Tables)
		}
		if err != nil {
			return Source{}, fmt.Errorf("archive source: %s: %w", k, err)
		}
	}
	if err := rows.Err(); err != nil {
		return Source{}, fmt.Errorf("archive source: %w", err)
	}
	return s, nil
}

// AddDictionary stores a dictionary made by TrainDictionary; rows put from
// now on are compressed with it. It returns the dictionary's id.
func (a *Archive) AddDictionary(ctx context.Context, dictionary []byte) (int64, error) {
	c, err := a.addDictionary(ctx, dictionary)
	if err != nil {
		return 0, err
	}
	return c.id, nil
}

func (a *Archive) addDictionary(ctx context.Context, dictionary []byte) (*codec, error) {
	// Check the dictionary before storing it.
	c, err := newCodec(0, dictionary)
	if err != nil {
		return nil, fmt.Errorf("add dictionary: %w", err)
	}
	err = a.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, "INSERT INTO dictionaries(trained_at, bytes) VALUES (?, ?)", a.now().UnixMicro(), dictionary)
		if err != nil {
			return err
		}
		c.id, err = r.LastInsertId()
		return err
	})
	if err != nil {
		c.close()
		return nil, fmt.Errorf("add dictionary: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.codecs == nil {
		c.close()
		return nil, errors.New("add dictionary: the archive is closed")
	}
	a.codecs[c.id] = c
	a.current = c
	return c, nil
}

// HasDictionary reports whether the archive has a dictionary, so that a
// caller trains one from a sample of everything it archives only once.
func (a *Archive) HasDictionary(ctx context.Context) (bool, error) {
	if err := a.loadCurrent(ctx); err != nil {
		return false, fmt.Errorf("archive dictionary: %w", err)
	}
	return a.currentCodec() != nil, nil
}

// loadCurrent makes the newest stored dictionary the one new rows use.
func (a *Archive) loadCurrent(ctx context.Context) error {
	var id int64
	err := a.db.QueryRowContext(ctx, "SELECT id FROM dictionaries ORDER BY id DESC LIMIT 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	c, err := a.codec(ctx, id)
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.current = c
	a.mu.Unlock()
	return nil
}

// codec returns the codec of dictionary id (0: none), loading it from the
// archive the first time.
func (a *Archive) codec(ctx context.Context, id int64) (*codec, error) {
	a.mu.Lock()
	c := a.codecs[id]
	a.mu.Unlock()
	if c != nil {
		return c, nil
	}
	var dictionary []byte
	if id != 0 {
		err := a.db.QueryRowContext(ctx, "SELECT bytes FROM dictionaries WHERE id = ?", id).Scan(&dictionary)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("dictionary %d is missing from the archive", id)
		}
		if err != nil {
			return nil, fmt.Errorf("dictionary %d: %w", id, err)
		}
	}
	c, err := newCodec(id, dictionary)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.codecs == nil {
		c.close()
		return nil, errors.New("the archive is closed")
	}
	if old := a.codecs[id]; old != nil {
		c.close()
		return old, nil
	}
	a.codecs[id] = c
	return c, nil
}
