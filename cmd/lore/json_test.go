package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteJSON(t *testing.T) {
	v := map[string]any{"text": "a < b && c > d", "n": []int{1}}
	for _, tt := range []struct {
		name string
		opts []jsonOption
		want string
	}{
		{"default", nil, `{"n":[1],"text":"a < b && c > d"}` + "\n"},
		{"indented", []jsonOption{jsonIndent}, "{\n  \"n\": [\n    1\n  ],\n  \"text\": \"a < b && c > d\"\n}\n"},
	} {
		var b bytes.Buffer
		if err := writeJSON(&b, v, tt.opts...); err != nil || b.String() != tt.want {
			t.Errorf("%s: %q (%v), want %q", tt.name, b.String(), err, tt.want)
		}
	}
	if err := writeJSON(new(bytes.Buffer), func() {}); err == nil {
		t.Error("a value JSON cannot hold gave no error")
	}
}

// TestJSONNotEscaped: no command's --json writes <, > and & as \u003c,
// \u003e and \u0026: its readers are programs and people.
func TestJSONNotEscaped(t *testing.T) {
	home := t.TempDir()
	text := "`make lint && make test` runs <all> the checks."
	for _, args := range [][]string{
		{"add", text, "--category", "fact", "--repo", "acme/api", "--json"},
		{"list", "--json"},
		{"search", "make lint", "--json"},
		{"version", "--json"},
	} {
		r := runLore(t, home, args...)
		if r.code != 0 || strings.Contains(r.stdout, `\u00`) {
			t.Errorf("lore %v: exit %d, %q", args, r.code, r.stdout)
		}
		if args[0] != "version" && !strings.Contains(r.stdout, "&& make test` runs <all>") {
			t.Errorf("lore %v: %q does not hold the text as it is", args, r.stdout)
		}
	}
}
