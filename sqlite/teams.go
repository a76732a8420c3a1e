package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/lorehq/lore"
)

// Teams is a lore.Teams in SQLite files: the team DefaultTeam's store,
// and the tokens, are the file it was opened on; every other team's
// store is a file of its own beside it, <path>.teams/<team>.db, so no
// query of one team can read another's.
type Teams struct {
	main *Store
	path string
	opts Options

	mu     sync.Mutex
	stores map[string]*Store // the other teams' stores, opened on first use
	closed bool
}

var _ lore.Teams = (*Teams)(nil)

// OpenTeams opens the store at path (as Open does) as the store of the
// team DefaultTeam and the keeper of the tokens.
func OpenTeams(ctx context.Context, path string, opts Options) (*Teams, error) {
	s, err := Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return &Teams{main: s, path: path, opts: opts, stores: map[string]*Store{}}, nil
}

// TeamPath is the file of a team's store, for the teams of the store at
// path.
func TeamPath(path, team string) string {
	if team == lore.DefaultTeam {
		return path
	}
	return filepath.Join(path+".teams", team+".db")
}

// Team returns the store of a team, opening (and creating) it on first
// use.
func (t *Teams) Team(ctx context.Context, name string) (lore.Store, error) {
	if err := checkTeam(name); err != nil {
		return nil, err
	}
	if name == lore.DefaultTeam {
		return t.main, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("the teams' stores are closed")
	}
	if s, ok := t.stores[name]; ok {
		return s, nil
	}
	s, err := Open(ctx, TeamPath(t.path, name), t.opts)
	if err != nil {
		return nil, err
	}
	t.stores[name] = s
	return s, nil
}

// Close closes every team's store.
func (t *Teams) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	var errs []error
	for _, s := range t.stores {
		errs = append(errs, s.Close())
	}
	t.stores = nil
	errs = append(errs, t.main.Close())
	return errors.Join(errs...)
}

// AddToken stores a token (lore.Tokens), in the main store.
func (t *Teams) AddToken(ctx context.Context, tk lore.Token, hash [32]byte) (lore.Token, error) {
	return t.main.AddToken(ctx, tk, hash)
}

// TokenByHash returns the token whose secret has this hash.
func (t *Teams) TokenByHash(ctx context.Context, hash [32]byte) (lore.Token, error) {
	return t.main.TokenByHash(ctx, hash)
}

// ListTokens returns a team's tokens, or every team's for "".
func (t *Teams) ListTokens(ctx context.Context, team string) ([]lore.Token, error) {
	return t.main.ListTokens(ctx, team)
}

// RevokeToken revokes the token with this id or unique id prefix.
func (t *Teams) RevokeToken(ctx context.Context, id string, at time.Time) (lore.Token, error) {
	return t.main.RevokeToken(ctx, id, at)
}
