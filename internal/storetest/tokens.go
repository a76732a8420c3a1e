package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// RunTokens is the conformance suite of lore.Tokens: tokens are kept by
// the hash of their secret, listed per team and oldest first, and
// revoked by id or unique id prefix. open returns a keeper of no tokens.
func RunTokens(t *testing.T, open func(t *testing.T) lore.Tokens) {
	ctx := context.Background()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	add := func(t *testing.T, s lore.Tokens, team string, scope lore.TokenScope, created time.Time) (lore.Token, [32]byte) {
		t.Helper()
		_, hash := lore.NewToken()
		tk, err := s.AddToken(ctx, lore.Token{Team: team, Scope: scope, Name: team + " ci", Created: created}, hash)
		if err != nil {
			t.Fatalf("AddToken: %v", err)
		}
		return tk, hash
	}

	t.Run("AddAndFind", func(t *testing.T) {
		s := open(t)
		tk, hash := add(t, s, "acme", lore.ScopeWrite, at)
		if len(tk.ID) != 12 || tk.Team != "acme" || tk.Scope != lore.ScopeWrite || !tk.Created.Equal(at) {
			t.Errorf("AddToken returned %+v", tk)
		}
		got, err := s.TokenByHash(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != tk.ID || got.Team != "acme" || got.Scope != lore.ScopeWrite || got.Name != "acme ci" ||
			!got.Created.Equal(at) || !got.Revoked.IsZero() {
			t.Errorf("TokenByHash = %+v, want %+v", got, tk)
		}
		if _, err := s.TokenByHash(ctx, lore.HashToken("lore_unknown")); lore.ErrorCode(err) != lore.ENOTFOUND {
			t.Errorf("TokenByHash(unknown) = %v, want ENOTFOUND", err)
		}
		if _, err := s.AddToken(ctx, lore.Token{Team: "acme", Scope: lore.ScopeRead}, hash); err == nil {
			t.Error("AddToken of the same secret twice: no error")
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		s := open(t)
		_, hash := lore.NewToken()
		for _, tk := range []lore.Token{
			{Team: "", Scope: lore.ScopeRead},
			{Team: "Acme", Scope: lore.ScopeRead},
			{Team: "../x", Scope: lore.ScopeRead},
			{Team: "acme", Scope: "admin"},
			{Team: "acme", Scope: ""},
		} {
			if _, err := s.AddToken(ctx, tk, hash); lore.ErrorCode(err) != lore.EINVALID {
				t.Errorf("AddToken(%+v) = %v, want EINVALID", tk, err)
			}
		}
		if ts, err := s.ListTokens(ctx, ""); err != nil || len(ts) != 0 {
			t.Errorf("after invalid adds, ListTokens = %v, %v; want none", ts, err)
		}
	})
	t.Run("List", func(t *testing.T) {
		s := open(t)
		b1, _ := add(t, s, "beta", lore.ScopeRead, at.Add(2*time.Hour))
		a1, _ := add(t, s, "acme", lore.ScopeRead, at.Add(time.Hour))
		a2, _ := add(t, s, "acme", lore.ScopeWrite, at.Add(3*time.Hour))
		a0, _ := add(t, s, "acme", lore.ScopeWrite, at)
		ids := func(ts []lore.Token) []string {
			var out []string
			for _, t := range ts {
				out = append(out, t.ID)
			}
			return out
		}
		got, err := s.ListTokens(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{a0.ID, a1.ID, a2.ID}; !slices.Equal(ids(got), want) {
			t.Errorf("ListTokens(acme) = %v, want %v (oldest first)", ids(got), want)
		}
		all, err := s.ListTokens(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{a0.ID, a1.ID, b1.ID, a2.ID}; !slices.Equal(ids(all), want) {
			t.Errorf("ListTokens(\"\") = %v, want %v", ids(all), want)
		}
		if none, err := s.ListTokens(ctx, "gamma"); err != nil || len(none) != 0 {
			t.Errorf("ListTokens(gamma) = %v, %v; want none", none, err)
		}
	})
	t.Run("Revoke", func(t *testing.T) {
		s := open(t)
		tk, hash := add(t, s, "acme", lore.ScopeWrite, at)
		other, otherHash := add(t, s, "acme", lore.ScopeRead, at)
		revokedAt := at.Add(time.Hour)
		got, err := s.RevokeToken(ctx, tk.ID[:8], revokedAt)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != tk.ID || !got.Revoked.Equal(revokedAt) {
			t.Errorf("RevokeToken = %+v, want %s revoked at %v", got, tk.ID, revokedAt)
		}
		if got, err := s.TokenByHash(ctx, hash); err != nil || !got.Revoked.Equal(revokedAt) {
			t.Errorf("TokenByHash of a revoked token = %+v, %v; want it, revoked", got, err)
		}
		if got, err := s.TokenByHash(ctx, otherHash); err != nil || !got.Revoked.IsZero() {
			t.Errorf("revoking one token touched another: %+v, %v", got, err)
		}
		if got, err := s.RevokeToken(ctx, strings.ToUpper(other.ID), revokedAt); err != nil || got.ID != other.ID {
			t.Errorf("RevokeToken(full id, upper case) = %+v, %v", got, err)
		}
		if _, err := s.RevokeToken(ctx, "ffffffffffff", at); lore.ErrorCode(err) != lore.ENOTFOUND {
			t.Errorf("RevokeToken(unknown) = %v, want ENOTFOUND", err)
		}
		for _, bad := range []string{"", "not-hex"} {
			if _, err := s.RevokeToken(ctx, bad, at); err == nil {
				t.Errorf("RevokeToken(%q): no error", bad)
			}
		}
	})
	t.Run("AmbiguousPrefix", func(t *testing.T) {
		s := open(t)
		// Tokens whose ids share a first hex digit: at most 17 adds.
		byFirst := map[byte]lore.Token{}
		var a, b lore.Token
		for range 17 {
			tk, _ := add(t, s, "acme", lore.ScopeRead, at)
			if prev, ok := byFirst[tk.ID[0]]; ok {
				a, b = prev, tk
				break
			}
			byFirst[tk.ID[0]] = tk
		}
		if _, err := s.RevokeToken(ctx, a.ID[:1], at); lore.ErrorCode(err) != lore.EINVALID {
			t.Errorf("RevokeToken(%q), the start of %s and %s = %v, want EINVALID", a.ID[:1], a.ID, b.ID, err)
		}
		for _, tk := range []lore.Token{a, b} {
			ts, _ := s.ListTokens(ctx, "acme")
			for _, x := range ts {
				if x.ID == tk.ID && !x.Revoked.IsZero() {
					t.Errorf("an ambiguous prefix revoked %s", tk.ID)
				}
			}
		}
	})
}
