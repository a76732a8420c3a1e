package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lorehq/lore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a lore.Store in one team's schema of a PostgreSQL database.
type Store struct {
	pool   *pgxpool.Pool
	schema string
	now    func() time.Time
}

var (
	_ lore.Store     = (*Store)(nil)
	_ lore.Journal   = (*Store)(nil)
	_ lore.FixGuards = (*Store)(nil)
)

// Options change how a store is opened.
type Options struct {
	// Team is the team whose schema the store reads and writes; ""
	// means lore.DefaultTeam.
	Team string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Schema is the schema a team's store lives in.
func Schema(team string) string { return "team_" + team }

// Open connects to the database at url (postgres://…) and returns the
// store of o.Team, creating its schema and bringing it up to date.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	team := o.Team
	if team == "" {
		team = lore.DefaultTeam
	}
	if err := checkTeam(team); err != nil {
		return nil, err
	}
	return open(ctx, url, Schema(team), o.Now)
}

// checkTeam returns an EINVALID error when name cannot name a team.
func checkTeam(name string) error {
	if !lore.ValidTeam(name) {
		return lore.Errorf(lore.EINVALID, "%q is not a team name (1 to 40 lower-case letters, digits, - and _)", name)
	}
	return nil
}

// open returns the store in schema, made and brought up to date.
func open(ctx context.Context, url, schema string, now func() time.Time) (*Store, error) {
	pool, err := newPool(ctx, url, schema)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool, schema: schema, now: now}
	if s.now == nil {
		s.now = time.Now
	}
	if err := migrate(ctx, pool, schema, migrations, "migrations"); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open store %s: %w", Redact(url), err)
	}
	return s, nil
}

// newPool connects a pool whose connections have schema as their
// search_path, so that no query reaches another schema's tables.
func newPool(ctx context.Context, url, schema string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password and all.
		return nil, lore.Errorf(lore.EINVALID, "open store %s: not a PostgreSQL URL", Redact(url))
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	// A server keeps a pool per team: connections a team leaves idle go
	// back to the database soon (pool_max_conns in the URL caps each pool).
	cfg.MaxConnIdleTime = time.Minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", Redact(url), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open store %s: %w", Redact(url), err)
	}
	return pool, nil
}

// Redact returns a database URL without its password, to name a store
// in messages.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "postgres://(a URL that does not parse)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// migrate creates schema when it does not exist and applies the
// migrations under dir of files it has not applied yet, each in its own
// transaction, recording them in the schema's table lore_migrations. An
// advisory lock on the schema's name makes processes that start at once
// apply each migration once.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string, files fs.FS, dir string) error {
	names, err := fs.Glob(files, dir+"/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	// A schema up to date, as nearly always, is read without the lock and
	// without DDL (which a role that may not create schemas could not run).
	var version int
	err = pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+pgx.Identifier{schema, "lore_migrations"}.Sanitize()).Scan(&version)
	if err == nil && version == len(names) {
		return nil
	}
	return inTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('lore migrate ' || $1, 0))`, schema); err != nil {
			return err
		}
		id := pgx.Identifier{schema}.Sanitize()
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+id+`.lore_migrations (
			version integer PRIMARY KEY, name text NOT NULL, at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var version int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+id+`.lore_migrations`).Scan(&version); err != nil {
			return err
		}
		if version > len(names) {
			return fmt.Errorf("schema %s has version %d, newer than this lore knows (%d): upgrade lore", schema, version, len(names))
		}
		if _, err := tx.Exec(ctx, `SET LOCAL search_path TO `+id); err != nil {
			return err
		}
		for i, name := range names[version:] {
			sql, err := fs.ReadFile(files, name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO lore_migrations (version, name) VALUES ($1, $2)`,
				version+i+1, strings.TrimPrefix(name, dir+"/")); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close closes the store's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// maxAttempts is how many times a transaction that lost a serialisation
// conflict or a deadlock is tried.
const maxAttempts = 5

// inTx runs fn in a transaction, again when PostgreSQL aborted it for a
// serialisation failure or a deadlock, after a short random wait.
func inTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := pgx.BeginFunc(ctx, pool, fn)
		if err == nil || attempt == maxAttempts || !retryable(err) {
			return err
		}
		wait := time.Duration(rand.N(10<<attempt)) * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// retryable reports whether err is a serialisation failure or a deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// write runs fn in a transaction that holds the schema's write lock:
// writers of one team take turns, as SQLite's writers do, so that what an
// Add reads to merge with is what it writes over.
func (s *Store) write(ctx context.Context, fn func(pgx.Tx) error) error {
	return inTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('lore write ' || $1, 0))`, s.schema); err != nil {
			return err
		}
		return fn(tx)
	})
}

// querier is what a pool and a transaction share.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// args collects the arguments of a query and names their placeholders.
type args []any

// add appends v and returns its placeholder.
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}
