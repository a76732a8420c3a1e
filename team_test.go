package lore

import (
	"strings"
	"testing"
)

func TestNewToken(t *testing.T) {
	a, ha := NewToken()
	b, hb := NewToken()
	if a == b || ha == hb {
		t.Fatal("two tokens alike")
	}
	if !strings.HasPrefix(a, "lore_") || len(a) != len("lore_")+52 {
		t.Errorf("token %q: want lore_ and 52 base32 letters", a)
	}
	if HashToken(a) != ha || HashToken(a) == HashToken(a+"x") {
		t.Error("HashToken does not give the token's hash")
	}
}

func TestValidTeam(t *testing.T) {
	for name, want := range map[string]bool{
		"default": true, "acme-api": true, "a_1": true, "": false, "Acme": false,
		"-x": false, "a b": false, "../x": false, "a;drop": false, strings.Repeat("a", 41): false,
	} {
		if ValidTeam(name) != want {
			t.Errorf("ValidTeam(%q) = %v, want %v", name, !want, want)
		}
	}
	if !ScopeWrite.Allows(ScopeRead) || ScopeRead.Allows(ScopeWrite) || !ScopeRead.Allows(ScopeRead) {
		t.Error("scopes allow the wrong things")
	}
}
