package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

var _ lore.Tokens = (*Store)(nil)

// AddToken stores a token by the hash of its secret.
func (s *Store) AddToken(ctx context.Context, t lore.Token, hash [32]byte) (lore.Token, error) {
	if err := checkTeam(t.Team); err != nil {
		return lore.Token{}, err
	}
	if t.Scope != lore.ScopeRead && t.Scope != lore.ScopeWrite {
		return lore.Token{}, lore.Errorf(lore.EINVALID, "scope %q: want read or write", t.Scope)
	}
	if t.ID == "" {
		t.ID = hex.EncodeToString(hash[:6])
	}
	if t.Created.IsZero() {
		t.Created = s.now()
	}
	t.Created, t.Revoked = lore.StoreTime(t.Created), time.Time{}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tokens WHERE id = ? OR hash = ?`, t.ID, hash[:]).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return lore.Errorf(lore.ECONFLICT, "a token with id %s or the same secret is stored already", t.ID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO tokens (id, hash, team, scope, name, created) VALUES (?, ?, ?, ?, ?, ?)`,
			t.ID, hash[:], t.Team, string(t.Scope), t.Name, micros(t.Created))
		return err
	})
	if err != nil {
		return lore.Token{}, err
	}
	return t, nil
}

// TokenByHash returns the token whose secret has this hash.
func (s *Store) TokenByHash(ctx context.Context, hash [32]byte) (lore.Token, error) {
	ts, err := s.tokens(ctx, s.db, `WHERE hash = ?`, hash[:])
	if err != nil {
		return lore.Token{}, err
	}
	if len(ts) == 0 {
		return lore.Token{}, lore.Errorf(lore.ENOTFOUND, "no such token")
	}
	return ts[0], nil
}

// ListTokens returns the tokens of a team, or of every team for "",
// oldest first.
func (s *Store) ListTokens(ctx context.Context, team string) ([]lore.Token, error) {
	if team == "" {
		return s.tokens(ctx, s.db, `ORDER BY created, id`)
	}
	return s.tokens(ctx, s.db, `WHERE team = ? ORDER BY created, id`, team)
}

// RevokeToken revokes the token with this id or unique id prefix. A
// token revoked already keeps the time it was first revoked at.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) (lore.Token, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if !lore.IsHex(id) {
		return lore.Token{}, lore.Errorf(lore.EINVALID, "%q is not a token id (hex digits, as lore serve token list shows)", id)
	}
	var out lore.Token
	err := s.write(ctx, func(tx *sql.Tx) error {
		ts, err := s.tokens(ctx, tx, `WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, id, id+"~")
		if err != nil {
			return err
		}
		switch {
		case len(ts) == 0:
			return lore.Errorf(lore.ENOTFOUND, "no token with id %s: lore serve token list shows them", id)
		case len(ts) > 1:
			return lore.Errorf(lore.EINVALID, "%s is the start of several tokens' ids: give more of it", id)
		}
		out = ts[0]
		if !out.Revoked.IsZero() {
			return nil
		}
		out.Revoked = lore.StoreTime(at)
		_, err = tx.ExecContext(ctx, `UPDATE tokens SET revoked = ? WHERE id = ?`, micros(out.Revoked), out.ID)
		return err
	})
	return out, err
}

func (s *Store) tokens(ctx context.Context, q querier, where string, args ...any) ([]lore.Token, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, team, scope, name, created, revoked FROM tokens `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lore.Token
	for rows.Next() {
		var t lore.Token
		var scope string
		var created, revoked int64
		if err := rows.Scan(&t.ID, &t.Team, &scope, &t.Name, &created, &revoked); err != nil {
			return nil, err
		}
		t.Scope, t.Created = lore.TokenScope(scope), fromMicros(created)
		if revoked != 0 {
			t.Revoked = fromMicros(revoked)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// checkTeam refuses a name that cannot name a team (lore.ValidTeam).
func checkTeam(name string) error {
	if !lore.ValidTeam(name) {
		return lore.Errorf(lore.EINVALID, "team %q: want 1 to 40 lower-case letters, digits, '-' and '_'", name)
	}
	return nil
}
