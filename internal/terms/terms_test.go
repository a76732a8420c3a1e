package terms

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Why does pushing to main fail with HTTP 405?", []string{"pushing", "main", "fail", "http", "405"}},
		{`"quoted" text:colon (parens) NEAR(a b) x* -y +z ^w`, []string{"quoted", "text", "colon", "parens", "near", "b", "x", "y", "z", "w"}},
		{"how to", []string{"how", "to"}},
		{"the the THE", []string{"the"}},
		{"", nil},
		{"!!! ??? ***", nil},
		{"Ünïcödé straße", []string{"ünïcödé", "straße"}},
		{"parse_config go1.26 ~/.config/gh", []string{"parse", "config", "go1", "26", "gh"}},
	}
	for _, tt := range tests {
		if got := Of(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Of(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := ""
	for i := range 100 {
		long += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := len(Of(long)); n != maxTerms {
		t.Errorf("%d terms from a long text, want %d", n, maxTerms)
	}
}
