package lore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"regexp"
	"strings"
	"time"
)

// A team is the unit a shared store is kept for: a server answers each
// request from the store of the team its bearer token names, and from
// no other. On one machine everything is the team DefaultTeam.
const DefaultTeam = "default"

// validTeam is what a team's name may be: it names a schema or a file.
var validTeam = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// ValidTeam reports whether name can name a team: 1 to 40 lower-case
// letters, digits, '-' and '_', starting with a letter or digit.
func ValidTeam(name string) bool { return validTeam.MatchString(name) }

// TokenScope is what a bearer token allows.
type TokenScope string

const (
	// ScopeRead: search, boot, the hooks' notes, items, measure.
	ScopeRead TokenScope = "read"
	// ScopeWrite: all of read, and adding, reviewing and uploading.
	ScopeWrite TokenScope = "write"
)

// Allows reports whether a token of scope s may do what needs scope need.
func (s TokenScope) Allows(need TokenScope) bool {
	return s == ScopeWrite || s == need
}

// Token is a bearer token as a store keeps it: never its secret, only
// the secret's hash (HashToken).
type Token struct {
	ID      string     `json:"id"` // the hash's first 12 hex digits: names the token in lists and revocation
	Team    string     `json:"team"`
	Scope   TokenScope `json:"scope"`
	Name    string     `json:"name,omitempty"` // what the person who made it called it
	Created time.Time  `json:"created"`
	Revoked time.Time  `json:"revoked,omitzero"` // zero while it is valid
}

// tokenPrefix opens every token lore makes, so that the redactor and a
// person reading a leaked file know it for one.
const tokenPrefix = "lore_"

// NewToken makes a bearer token: its secret, to hand to the person once,
// and its hash, to store.
func NewToken() (secret string, hash [32]byte) {
	var b [32]byte
	rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	secret = tokenPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	return secret, HashToken(secret)
}

// HashToken is what a store keeps of a token's secret, and looks it up by.
func HashToken(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

// Tokens keeps a server's bearer tokens.
type Tokens interface {
	// AddToken stores a token by the hash of its secret. t.ID is set
	// from the hash when empty; a team that is not ValidTeam or a scope
	// that is neither read nor write is EINVALID.
	AddToken(ctx context.Context, t Token, hash [32]byte) (Token, error)
	// TokenByHash returns the token whose secret has this hash, revoked
	// or not (the caller refuses a revoked one); ENOTFOUND when none.
	TokenByHash(ctx context.Context, hash [32]byte) (Token, error)
	// ListTokens returns the tokens of a team ("" for every team),
	// oldest first.
	ListTokens(ctx context.Context, team string) ([]Token, error)
	// RevokeToken revokes the token with this id or unique id prefix,
	// and returns it; ENOTFOUND when none.
	RevokeToken(ctx context.Context, id string, at time.Time) (Token, error)
}

// Teams is a shared store: each team's knowledge in a Store of its own,
// so that no query of one team can reach another's, and the tokens
// that say which team a request is for.
type Teams interface {
	Tokens
	// Team returns the store of a team, created on first use; a name
	// that is not ValidTeam is EINVALID. The store is the Teams' to
	// close: a caller does not close it.
	Team(ctx context.Context, name string) (Store, error)
	Close() error
}
