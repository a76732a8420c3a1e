package postgres

import (
	"context"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lorehq/lore"
)

//go:embed admin/*.sql
var adminMigrations embed.FS

// AdminSchema is the schema of what a server keeps beside the teams'
// stores: its tokens.
const AdminSchema = "lore_admin"

// Teams is a lore.Teams in one PostgreSQL database: each team's store in
// its own schema (Schema), the tokens in AdminSchema.
type Teams struct {
	url    string
	admin  *pgxpool.Pool
	schema func(team string) string // Schema; tests give every team a schema of their own

	mu     sync.Mutex
	stores map[string]*Store
}

var _ lore.Teams = (*Teams)(nil)

// OpenTeams connects to the database at url, making AdminSchema and
// bringing it up to date. Teams' stores are opened as they are asked for.
func OpenTeams(ctx context.Context, url string) (*Teams, error) {
	return openTeams(ctx, url, AdminSchema, Schema)
}

func openTeams(ctx context.Context, url, admin string, schema func(string) string) (*Teams, error) {
	pool, err := newPool(ctx, url, admin)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, pool, admin, adminMigrations, "admin"); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", Redact(url), err)
	}
	return &Teams{url: url, admin: pool, schema: schema, stores: map[string]*Store{}}, nil
}

// Team returns the store of a team, opening it (and making its schema)
// on first use.
func (ts *Teams) Team(ctx context.Context, name string) (lore.Store, error) {
	if err := checkTeam(name); err != nil {
		return nil, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if s, ok := ts.stores[name]; ok {
		return s, nil
	}
	if ts.stores == nil {
		return nil, errors.New("the teams' store is closed")
	}
	s, err := open(ctx, ts.url, ts.schema(name), nil)
	if err != nil {
		return nil, err
	}
	ts.stores[name] = s
	return s, nil
}

// Close closes every team's store and the tokens' connections.
func (ts *Teams) Close() error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, s := range ts.stores {
		s.Close()
	}
	ts.stores = nil
	ts.admin.Close()
	return nil
}

// AddToken stores a token by the hash of its secret.
func (ts *Teams) AddToken(ctx context.Context, t lore.Token, hash [32]byte) (lore.Token, error) {
	if err := checkTeam(t.Team); err != nil {
		return lore.Token{}, err
	}
	if t.Scope != lore.ScopeRead && t.Scope != lore.ScopeWrite {
		return lore.Token{}, lore.Errorf(lore.EINVALID, "scope %q is neither %s nor %s", t.Scope, lore.ScopeRead, lore.ScopeWrite)
	}
	if t.ID == "" {
		t.ID = hex.EncodeToString(hash[:])[:12]
	}
	if t.Created.IsZero() {
		t.Created = time.Now()
	}
	t.Created, t.Revoked = lore.StoreTime(t.Created), lore.StoreTime(t.Revoked)
	_, err := ts.admin.Exec(ctx, `INSERT INTO tokens (id, hash, team, scope, name, created, revoked) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		t.ID, hash[:], t.Team, string(t.Scope), t.Name, t.Created, optionalTime(t.Revoked))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return lore.Token{}, lore.Errorf(lore.ECONFLICT, "a token with this id or secret is stored already")
	}
	if err != nil {
		return lore.Token{}, fmt.Errorf("add token: %w", err)
	}
	return t, nil
}

const tokenColumns = `id, team, scope, name, created, revoked`

func scanToken(r pgx.CollectableRow) (lore.Token, error) {
	var t lore.Token
	var revoked *time.Time
	err := r.Scan(&t.ID, &t.Team, &t.Scope, &t.Name, &t.Created, &revoked)
	t.Created = t.Created.UTC()
	if revoked != nil {
		t.Revoked = revoked.UTC()
	}
	return t, err
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// TokenByHash returns the token whose secret has this hash, revoked or
// not.
func (ts *Teams) TokenByHash(ctx context.Context, hash [32]byte) (lore.Token, error) {
	rows, err := ts.admin.Query(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE hash = $1`, hash[:])
	if err != nil {
		return lore.Token{}, err
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanToken)
	if errNoRows(err) {
		return lore.Token{}, lore.Errorf(lore.ENOTFOUND, "no such token")
	}
	return t, err
}

// ListTokens returns the tokens of a team ("" for every team), oldest
// first.
func (ts *Teams) ListTokens(ctx context.Context, team string) ([]lore.Token, error) {
	rows, err := ts.admin.Query(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE $1 = '' OR team = $1 ORDER BY created, id`, team)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanToken)
}

// RevokeToken revokes the token with this id or unique id prefix; one
// revoked already keeps its time.
func (ts *Teams) RevokeToken(ctx context.Context, id string, at time.Time) (lore.Token, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if !lore.IsHex(id) {
		return lore.Token{}, lore.Errorf(lore.EINVALID, "%q is not a token id (hex digits, as lore serve token list shows)", id)
	}
	var out lore.Token
	err := inTx(ctx, ts.admin, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE id >= $1 AND id < $2 ORDER BY id LIMIT 2`, id, id+"~")
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, scanToken)
		switch {
		case err != nil:
			return err
		case len(found) == 0:
			return lore.Errorf(lore.ENOTFOUND, "no token %s", id)
		case len(found) > 1 && found[0].ID != id:
			return lore.Errorf(lore.EINVALID, "%s is the start of several tokens' ids (%s, %s): give more of it", id, found[0].ID, found[1].ID)
		}
		out = found[0]
		if out.Revoked.IsZero() {
			out.Revoked = lore.StoreTime(at)
		}
		_, err = tx.Exec(ctx, `UPDATE tokens SET revoked = $2 WHERE id = $1`, out.ID, out.Revoked)
		return err
	})
	return out, err
}
