package lore

import (
	"reflect"
	"testing"
)

func TestCite(t *testing.T) {
	for id, want := range map[string]string{
		"a338f311c0ffee42": "lore:a338f311",
		"a338f311":         "lore:a338f311",
		"abc":              "lore:abc",
	} {
		if got := Cite(id); got != want {
			t.Errorf("Cite(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestCitations(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Per [lore:a338f311], the API needs a token.", []string{"a338f311"}},
		{"lore:abcd and lore:0123456789abcdef0123456789", []string{"abcd", "0123456789abcdef01234567"}},
		{"[lore:abc] is too short, lore:begin is a marker, LORE:abcdef is not lower case", nil},
		{"cites " + Cite("deadbeefcafe") + " twice: " + Cite("deadbeefcafe"), []string{"deadbeef", "deadbeef"}},
	} {
		if got := Citations(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Citations(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestCites(t *testing.T) {
	for _, c := range []struct {
		prefix, id string
		want       bool
	}{
		{"a338f311", "a338f311c0ffee42", true},
		{"a338f3", "a338f311c0ffee42", true},
		{"a338f", "a338f311c0ffee42", false}, // too short to name one item
		{"a338f312", "a338f311c0ffee42", false},
		{"a338f311c0ffee42ff", "a338f311c0ffee42", false},
	} {
		if got := Cites(c.prefix, c.id); got != c.want {
			t.Errorf("Cites(%q, %q) = %v", c.prefix, c.id, got)
		}
	}
}
