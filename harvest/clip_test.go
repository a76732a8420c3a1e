package harvest

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/redact"
)

const (
	clipToken = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d" // fake, in GitHub's format
	clipBasic = "dXNlcjpodW50ZXIyaHVudGVyMg=="
	clipPEM   = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+Eh8uVY0wQ1L7u5+PqkyPg0ex\nwDyCNZQtSjE/b9tYgE2EJ0n1FqKxFj5wVdoWqL1dXkBXh4R1Gq9DxqK7dFf2hTtM\n-----END RSA PRIVATE KEY-----"
)

// TestClipLeavesNoSecret: what clip keeps, redacted once more as an item
// is, holds no part of a secret, wherever the cut falls and however the
// text was laid out before clip joined it.
func TestClipLeavesNoSecret(t *testing.T) {
	red := redact.New()
	for _, tt := range []struct {
		name, in, secret string
		n                int
	}{
		{"token across the cut", strings.Repeat("x ", 37) + "use " + clipToken + " now", clipToken[:12], 100},
		{"token at the cut", "gh api -H token:" + clipToken + " /user", clipToken[:12], 30},
		{"pem lines joined", "cat <<EOF > k.pem\n" + clipPEM + "\nEOF", "wDyCNZQtSjE", 300},
		{"header unquoted after", "curl -H 'Authorization: Basic " + clipBasic + "' https://ci.acme.dev", clipBasic[:10], 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for n := 1; n <= tt.n; n++ {
				got := red.String(clip(tt.in, n))
				if strings.Contains(got, tt.secret) {
					t.Fatalf("clip(%q, %d) keeps %q: %q", tt.in, n, tt.secret, got)
				}
				if i := strings.LastIndex(got, "[REDACTED"); i >= 0 && !strings.Contains(got[i:], "]") {
					t.Fatalf("clip(%q, %d) cuts a marker: %q", tt.in, n, got)
				}
			}
		})
	}
}

// TestRulesRedactBeforeNormalising: an item built from commands whose
// quotes normCommand strips holds none of their credentials.
func TestRulesRedactBeforeNormalising(t *testing.T) {
	s := testSession(
		msgBash("a1", "curl -fsS -H 'Authorization: Basic "+clipBasic+"' https://ci.acme.dev/api/jobs"),
		msgResult("a1", "curl: (22) The requested URL returned error: 403", true),
		msgBash("a2", "curl -fsS -H 'Authorization: Bearer "+clipToken+"' https://ci.acme.dev/api/jobs"),
		msgResult("a2", `{"jobs":[]}`, false),
	)
	found, err := Rules{}.Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Items) == 0 {
		t.Fatal("no item: the test no longer reaches the pitfall rule")
	}
	for _, it := range found.Items {
		it.Redact()
		for _, secret := range []string{clipBasic[:10], clipToken[:12]} {
			if strings.Contains(it.Text, secret) {
				t.Errorf("item keeps %q: %s", secret, it.Text)
			}
		}
	}
}

// TestOneLineKeepsCharacters: a problem's message cut to 300 bytes is not
// cut inside a character.
func TestOneLineKeepsCharacters(t *testing.T) {
	got := oneLine(strings.Repeat("é", 200))
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "é…") || len(got) > 300+len("…") {
		t.Errorf("oneLine cut to %q", got)
	}
}
