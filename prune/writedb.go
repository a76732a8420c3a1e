package prune

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore/internal/sqlitex"
)

// WriteBusyTimeout is how long one of prune's statements waits for the
// agent's lock before sqlitex retries it. Hermes itself waits 1 s and
// retries fifteen times, so prune's transactions are kept far shorter.
var WriteBusyTimeout = time.Second

// openWrite opens the database for a prune: one connection, so that
// PRAGMA data_version on it tells the agent's commits from prune's own;
// BEGIN IMMEDIATE, so that a write transaction takes the lock when it
// starts rather than failing half way.
func openWrite(ctx context.Context, path string) (*sql.DB, *sqlitex.Writer, error) {
	abs, _, err := databaseFile(path)
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.Itoa(int(WriteBusyTimeout/time.Millisecond)))
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", sqlitex.URI(abs, q))
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, sqlitex.Explain(err, "session database", ""))
	}
	w := &sqlitex.Writer{DB: db, Path: abs, What: "session database",
		Stuck: "the agent (Hermes) holds it; lore prune waits for its writes to finish"}
	return db, w, nil
}

// besidePath names a file beside the database: state.db gives
// state-archive.db for the suffix "archive".
func besidePath(db, suffix string) string {
	ext := filepath.Ext(db)
	return strings.TrimSuffix(db, ext) + "-" + suffix + ext
}

// DefaultArchivePath is where the archive of the database at db lives
// unless told otherwise: beside it, state.db giving state-archive.db.
func DefaultArchivePath(db string) string { return besidePath(db, "archive") }

// DefaultBackupPath is where prune keeps its backup of the database:
// state.db gives state-backup.db.
func DefaultBackupPath(db string) string { return besidePath(db, "backup") }

// backup copies the database with VACUUM INTO, a read transaction that
// lets the agent go on writing, into a file made 0600 first and renamed
// over the last backup once complete and synced; a backup cut off half
// way is left under a name the next run removes.
func backup(ctx context.Context, db *sql.DB, dst string) error {
	partial := dst + ".partial"
	if err := os.Remove(partial); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(partial, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", partial); err != nil {
		os.Remove(partial)
		return err
	}
	f, err = os.OpenFile(partial, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(partial, dst); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// dataVersion is PRAGMA data_version on prune's connection: it changes
// when another connection commits.
func dataVersion(ctx context.Context, db *sql.DB) (int64, error) {
	var v int64
	err := db.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}

// compact gives back the space prune freed: it merges each FTS index
// ('optimize'; deleting from FTS5 leaves the old entries in place,
// marked deleted, until their segments merge), VACUUMs, and checkpoints
// the WAL so that the file shrinks. Each step holds the database for a
// few seconds at most, so it waits for no one: when the agent wrote
// during the prune or holds the database now, it returns a note saying
// why it did not run.
func compact(ctx context.Context, db *sql.DB, s Schema, startVersion int64) (note string, err error) {
	v, err := dataVersion(ctx, db)
	if err != nil {
		return "", err
	}
	const busyNote = "skipped: another process (the agent) is using the database; run lore prune again while it is idle to reclaim the space"
	if v != startVersion {
		return "skipped: another process (the agent) wrote to the database during the prune; run lore prune again while it is idle to reclaim the space", nil
	}
	restore, err := impatient(ctx, db)
	if err != nil {
		return "", err
	}
	defer restore()
	for _, f := range s.FTS {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %[1]s(%[1]s) VALUES('optimize')", quote(f.Name))); err != nil {
			if sqlitex.Busy(err) {
				return busyNote, nil
			}
			return "", fmt.Errorf("optimize %s: %w", f.Name, err)
		}
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		if sqlitex.Busy(err) {
			return busyNote, nil
		}
		return "", err
	}
	var busy, logFrames, done int
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return "", err
	}
	if busy != 0 {
		return "done; the file shrinks once the agent's open read ends (the WAL could not be checkpointed yet)", nil
	}
	return "done", nil
}

// impatientTimeout is how long the steps that hold the database for
// seconds (compaction, the FTS checks) wait for the agent before they
// give way to it.
const impatientTimeout = 250 * time.Millisecond

// impatient lowers prune's busy timeout to impatientTimeout; restore
// puts WriteBusyTimeout back.
func impatient(ctx context.Context, db *sql.DB) (restore func(), err error) {
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", impatientTimeout.Milliseconds())); err != nil {
		return nil, err
	}
	return func() {
		db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", WriteBusyTimeout.Milliseconds()))
	}, nil
}

// Checks are the database's health after a prune.
type Checks struct {
	// Integrity is PRAGMA integrity_check's answer: "ok" when sound.
	Integrity string `json:"integrity"`
	// FTS holds each FTS table's 'integrity-check' answer: "ok", the
	// error, or why it was not run.
	FTS map[string]string `json:"fts"`
	// ForeignKeyViolations counts PRAGMA foreign_key_check's rows for
	// sessions and messages.
	ForeignKeyViolations int `json:"foreign_key_violations"`
}

// OK reports whether every check passed.
func (c Checks) OK() bool {
	if c.Integrity != "ok" {
		return false
	}
	for _, v := range c.FTS {
		if v != "ok" && !strings.HasPrefix(v, "not run") {
			return false
		}
	}
	return true
}

// integrity runs PRAGMA integrity_check. FTS5 keeps each index's
// structure in memory between statements and reads it again when another
// connection has committed, but only when a query opens the table, which
// the integrity check does not: after the agent's commits it checked
// prune's stale copy and reported a checksum mismatch or a missing blob
// that was not there (one run of TestPruneWhileAgentWrites in eight; the
// same database was clean when checked again). So the check runs in a
// read transaction that first reads a row of every FTS table.
func integrity(ctx context.Context, db *sql.DB, s Schema) (string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	// BEGIN, not BeginTx: the connection's transactions are IMMEDIATE,
	// and a check must not take the agent's write lock.
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	for _, f := range s.FTS {
		rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT rowid FROM %s LIMIT 1", quote(f.Name)))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", f.Name, err)
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", fmt.Errorf("read %s: %w", f.Name, err)
		}
	}
	var problems []string
	rows, err := conn.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return strings.Join(problems, "; "), nil
}

// checkDB runs the checks. The FTS check of an external-content table
// compares the index with the messages it indexes, and so writes (FTS5
// runs it through INSERT): with a short busy timeout, not run when the
// agent holds the database.
func checkDB(ctx context.Context, db *sql.DB, s Schema) (Checks, error) {
	c := Checks{FTS: map[string]string{}}
	var err error
	if c.Integrity, err = integrity(ctx, db, s); err != nil {
		return c, fmt.Errorf("integrity check: %w", err)
	}
	for _, t := range []string{s.Sessions.Name, s.Messages.Name} {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check(?)", t).Scan(&n); err != nil {
			return c, fmt.Errorf("foreign key check: %w", err)
		}
		c.ForeignKeyViolations += n
	}
	restore, err := impatient(ctx, db)
	if err != nil {
		return c, err
	}
	defer restore()
	for _, f := range s.FTS {
		stmt := fmt.Sprintf("INSERT INTO %[1]s(%[1]s) VALUES('integrity-check')", quote(f.Name))
		if f.Kind == FTSExternal {
			stmt = fmt.Sprintf("INSERT INTO %[1]s(%[1]s, rank) VALUES('integrity-check', 1)", quote(f.Name))
		}
		_, err := db.ExecContext(ctx, stmt)
		switch {
		case err == nil:
			c.FTS[f.Name] = "ok"
		case sqlitex.Busy(err):
			c.FTS[f.Name] = "not run: the agent holds the database"
		default:
			c.FTS[f.Name] = err.Error()
		}
	}
	return c, nil
}
