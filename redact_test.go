package lore

import (
	"strings"
	"testing"
	"time"
)

// A GitHub token of the classic form: the redactor knows its shape.
const testToken = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"

func TestRedact(t *testing.T) {
	it := Item{Text: "push with " + testToken + " fails", Category: CategoryPitfall, Signature: "auth " + testToken}
	if n := it.Redact(); n != 2 {
		t.Errorf("Redact replaced %d secrets, want 2", n)
	}
	got, err := Prepare(it, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{it.Text, it.Signature, got.Text, got.Signature} {
		if strings.Contains(s, testToken) {
			t.Errorf("secret kept in %q", s)
		}
	}
}

// TestRedactOnce: an item is read for secrets once on its way to a store,
// whether its caller redacted it first (harvest, MCP) or not (lore add,
// import); one changed after it was redacted is read again.
func TestRedactOnce(t *testing.T) {
	calls := 0
	defer func(f func(string) (string, map[string]int)) { scrub = f }(scrub)
	counted := scrub
	scrub = func(s string) (string, map[string]int) {
		calls++
		return counted(s)
	}
	now := time.Now()
	item := func() Item {
		return Item{Text: "token " + testToken + " expired", Category: CategoryFact, Signature: "sig"}
	}
	for _, c := range []struct {
		name string
		do   func(t *testing.T) Item
		want int
	}{
		{"prepared only", func(t *testing.T) Item {
			p, err := Prepare(item(), now)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, 2},
		{"redacted, then prepared", func(t *testing.T) Item {
			it := item()
			it.Redact()
			p, err := Prepare(it, now)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, 2},
		{"redacted, signature changed, prepared", func(t *testing.T) Item {
			it := item()
			it.Redact()
			it.Signature = "auth " + testToken
			p, err := Prepare(it, now)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(p.Signature, testToken) {
				t.Errorf("secret kept in the signature %q", p.Signature)
			}
			return p
		}, 4},
		{"prepared twice (import, then a store's Add)", func(t *testing.T) Item {
			p, err := Prepare(item(), now)
			if err != nil {
				t.Fatal(err)
			}
			if p, err = Prepare(p, now); err != nil {
				t.Fatal(err)
			}
			return p
		}, 2},
		{"redacted, changed, prepared", func(t *testing.T) Item {
			it := item()
			it.Redact()
			it.Text += " with " + testToken
			p, err := Prepare(it, now)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, 4},
	} {
		calls = 0
		got := c.do(t)
		if calls != c.want {
			t.Errorf("%s: %d redactions, want %d", c.name, calls, c.want)
		}
		if strings.Contains(got.Text, testToken) {
			t.Errorf("%s: secret kept in %q", c.name, got.Text)
		}
	}
}

// TestRedactToken: a bearer token of lore serve, pasted into what an
// agent learned, is never stored.
func TestRedactToken(t *testing.T) {
	for range 20 {
		secret, _ := NewToken()
		it := Item{Text: "call the team server with LORE_TOKEN " + secret + " set", Category: CategoryFact}
		if n := it.Redact(); n != 1 || strings.Contains(it.Text, secret[5:]) {
			t.Fatalf("Redact = %d, text %q: want the token replaced", n, it.Text)
		}
	}
}
