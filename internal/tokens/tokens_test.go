package tokens

import "testing"

func TestCount(t *testing.T) {
	for _, name := range []string{"", "o200k", "cl100k_base", "O200K"} {
		c, err := Get(name)
		if err != nil {
			t.Fatalf("Get(%q): %v", name, err)
		}
		// tiktoken gives "hello world" two tokens in both encodings.
		if n := Count(c, "hello world"); n != 2 {
			t.Errorf("%q: hello world is %d tokens, want 2", name, n)
		}
		if n := Count(c, ""); n != 0 {
			t.Errorf("%q: empty text is %d tokens", name, n)
		}
	}
	if _, err := Get("p50k"); err == nil {
		t.Error("Get(p50k) succeeded")
	}
}
