package storetest

import (
	"context"
	"encoding/hex"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// RunTokens is the conformance suite of lore.Tokens: tokens are kept by
// the hash of their secret, listed by team, revoked by id or unique id
// prefix, and refused with a team or scope that cannot be.
func RunTokens(t *testing.T, open func(t *testing.T) lore.Tokens) {
	ctx := context.Background()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	add := func(t *testing.T, s lore.Tokens, tok lore.Token) (lore.Token, [32]byte) {
		t.Helper()
		_, hash := lore.NewToken()
		got, err := s.AddToken(ctx, tok, hash)
		if err != nil {
			t.Fatalf("AddToken(%+v): %v", tok, err)
		}
		return got, hash
	}

	t.Run("AddAndLookUp", func(t *testing.T) {
		s := open(t)
		secret, hash := lore.NewToken()
		tok, err := s.AddToken(ctx, lore.Token{Team: "acme", Scope: lore.ScopeWrite, Name: "ci", Created: at}, hash)
		if err != nil {
			t.Fatal(err)
		}
		want := lore.Token{ID: hex.EncodeToString(hash[:])[:12], Team: "acme", Scope: lore.ScopeWrite, Name: "ci", Created: at}
		if tok != want {
			t.Errorf("AddToken = %+v, want %+v", tok, want)
		}
		got, err := s.TokenByHash(ctx, lore.HashToken(secret))
		if err != nil || got != want {
			t.Errorf("TokenByHash = %+v, %v; want %+v", got, err, want)
		}
		_, other := lore.NewToken()
		if _, err := s.TokenByHash(ctx, other); lore.ErrorCode(err) != lore.ENOTFOUND {
			t.Errorf("TokenByHash of an unknown secret: %v, want %s", err, lore.ENOTFOUND)
		}
		if _, err := s.AddToken(ctx, lore.Token{Team: "acme", Scope: lore.ScopeRead}, hash); err == nil {
			t.Errorf("AddToken of a secret stored already: no error")
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		s := open(t)
		for _, tok := range []lore.Token{
			{Team: "Acme Corp", Scope: lore.ScopeRead}, {Team: "", Scope: lore.ScopeRead},
			{Team: "acme", Scope: "admin"}, {Team: "acme"},
		} {
			_, hash := lore.NewToken()
			if _, err := s.AddToken(ctx, tok, hash); lore.ErrorCode(err) != lore.EINVALID {
				t.Errorf("AddToken(%+v): %v, want %s", tok, err, lore.EINVALID)
			}
		}
		if ts, err := s.ListTokens(ctx, ""); err != nil || len(ts) != 0 {
			t.Errorf("tokens after refusals: %+v, %v", ts, err)
		}
	})

	t.Run("List", func(t *testing.T) {
		s := open(t)
		a2, _ := add(t, s, lore.Token{Team: "a", Scope: lore.ScopeRead, Created: at.Add(time.Hour)})
		a1, _ := add(t, s, lore.Token{Team: "a", Scope: lore.ScopeWrite, Created: at})
		b1, _ := add(t, s, lore.Token{Team: "b", Scope: lore.ScopeRead, Created: at.Add(time.Minute)})
		for _, tt := range []struct {
			team string
			want []lore.Token
		}{{"a", []lore.Token{a1, a2}}, {"b", []lore.Token{b1}}, {"c", nil}, {"", []lore.Token{a1, b1, a2}}} {
			got, err := s.ListTokens(ctx, tt.team)
			if err != nil || len(got) != len(tt.want) {
				t.Errorf("ListTokens(%q) = %+v, %v; want %+v", tt.team, got, err, tt.want)
				continue
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("ListTokens(%q)[%d] = %+v, want %+v", tt.team, i, got[i], tt.want[i])
				}
			}
		}
	})

	t.Run("Revoke", func(t *testing.T) {
		s := open(t)
		one, hash := add(t, s, lore.Token{ID: "abcd01234567", Team: "a", Scope: lore.ScopeRead, Created: at})
		add(t, s, lore.Token{ID: "abcd09876543", Team: "a", Scope: lore.ScopeRead, Created: at})
		for _, tt := range []struct {
			id   string
			code string
		}{{"abcd", lore.EINVALID}, {"abcd0", lore.EINVALID}, {"0000", lore.ENOTFOUND}, {"xyz!", lore.EINVALID}} {
			if _, err := s.RevokeToken(ctx, tt.id, at); lore.ErrorCode(err) != tt.code {
				t.Errorf("RevokeToken(%s): %v, want %s", tt.id, err, tt.code)
			}
		}
		got, err := s.RevokeToken(ctx, "abcd012", at.Add(time.Hour))
		one.Revoked = at.Add(time.Hour)
		if err != nil || got != one {
			t.Errorf("RevokeToken = %+v, %v; want %+v", got, err, one)
		}
		if got, err := s.TokenByHash(ctx, hash); err != nil || got != one {
			t.Errorf("TokenByHash of a revoked token = %+v, %v; want %+v", got, err, one)
		}
		ts, err := s.ListTokens(ctx, "a")
		if err != nil || len(ts) != 2 {
			t.Fatalf("ListTokens = %+v, %v", ts, err)
		}
		for _, tok := range ts {
			if tok.ID == "abcd09876543" && !tok.Revoked.IsZero() {
				t.Errorf("revoking one token revoked another: %+v", tok)
			}
		}
	})
}
