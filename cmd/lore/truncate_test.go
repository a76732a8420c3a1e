package main

import (
	"strings"
	"testing"
)

// TestTruncateKeepsNoPart: sessions show cuts long lines after redacting
// them; the cut leaves neither a marker's part nor a token's start.
func TestTruncateKeepsNoPart(t *testing.T) {
	const token = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d" // fake, in GitHub's format
	for _, tt := range []struct{ in, whole string }{
		{"export GITHUB_TOKEN=[REDACTED:github-token] && gh pr list", "[REDACTED:github-token]"},
		{"gh api -H token:" + token + " /user", token},
	} {
		for n := 2; n < len(tt.in); n++ {
			got := truncate(tt.in, n)
			if strings.Contains(got, tt.whole[:4]) && !strings.Contains(got, tt.whole) {
				t.Fatalf("truncate(%q, %d) = %q keeps part of %q", tt.in, n, got, tt.whole)
			}
		}
	}
}
