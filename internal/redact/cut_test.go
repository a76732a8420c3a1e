package redact

import (
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "go build ./...", 100, "go build ./..."},
		{"plain words", "go test -run TestParse ./transcript", 20, "go test -run TestPar"},
		{"rune boundary", "héllo", 2, "h"},
		{"inside a token", "curl -H x " + ghClassic + " https://api", 20, "curl -H x "},
		{"inside a token's end", "key " + ghClassic + " x", 38, "key "},
		{"inside a marker", "GITHUB_TOKEN=[REDACTED:github-token] x", 20, "GITHUB_TOKEN="},
		{"inside a marker's prefix", "GITHUB_TOKEN=[REDACTED:github-token] x", 16, "GITHUB_TOKEN="},
		{"after a marker", "GITHUB_TOKEN=[REDACTED:github-token] xy", 37, "GITHUB_TOKEN=[REDACTED:github-token] "},
		{"a path keeps its words", "cat /home/user/project/transcript/builder.go", 30, "cat /home/user/project/transcr"},
		{"a hash is cut before", "commit 3f786850e387550fdab836ed7e6dc881de23001b", 20, "commit "},
		{"a long word", "internationalization-considerations", 10, "internatio"},
		{"a slug of words", "workmux add --name av-raf-5-review-e2e", 30, "workmux add --name av-raf-5-re"},
		{"a name", "echKeys := c.EncryptedClientHelloKeys", 20, "echKeys := c.Encrypt"},
		{"random letters", "key abcdefghijklmnopqrstuvwxyzABCDEFGH", 10, "key "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in[:Cut(tt.in, tt.n)]; got != tt.want {
				t.Errorf("Cut(%q, %d) keeps %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

// TestCutKeepsNoPart cuts texts with planted tokens at every length:
// no cut keeps a token's start without all of it, and once the text is
// redacted, no cut keeps part of a marker.
func TestCutKeepsNoPart(t *testing.T) {
	red := New()
	for _, c := range planted {
		raw := "run " + c.text + " now"
		token := tokenLike(c.secret) && run(c.secret, 0, cutRun) == len(c.secret)
		redacted := red.String(raw)
		for n := range len(raw) + 1 {
			kept := raw[:Cut(raw, n)]
			if token && strings.Contains(kept, c.secret[:8]) && !strings.Contains(kept, c.secret) {
				t.Fatalf("Cut(%q, %d) keeps %q", raw, n, kept)
			}
			kept = redacted[:Cut(redacted, n)]
			if i := strings.LastIndexByte(kept, '['); i >= 0 && strings.HasPrefix(redacted[i:], markerPrefix) && !strings.Contains(kept[i:], "]") {
				t.Fatalf("Cut(%q, %d) keeps part of a marker: %q", redacted, n, kept)
			}
		}
	}
}
