package redact

import (
	"strings"
	"unicode/utf8"
)

// Cut returns how many bytes of s to keep so that at most n remain and
// what remains holds no part of a secret: the cut falls on a rune
// boundary, never inside a marker, and before a run of token characters
// that it would split when the run looks like a token, whose first part
// would still tell a reader most of it (26 of a ghp_ token's 36
// characters) and a detector nothing. Redact first, then cut.
func Cut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	lo := max(0, n-maxMarker)
	if k := strings.LastIndexByte(s[lo:n], '['); k >= 0 {
		k += lo
		if strings.HasPrefix(s[k:], markerPrefix) {
			if e := strings.IndexByte(s[k:], ']'); e < 0 || k+e >= n {
				n = k // inside "[REDACTED:kind]"
			}
		}
	}
	if n > 0 && cutRun[s[n-1]] && cutRun[s[n]] {
		b := n
		for b > 0 && n-b < maxToken && cutRun[s[b-1]] {
			b--
		}
		if e := runMax(s, n, cutRun, maxToken); tokenLike(s[b:e]) {
			n = b
		}
	}
	return n
}

// maxMarker is the longest marker's length, with room to spare.
const maxMarker = 40

// cutRun holds the bytes of a token's run; a path's slashes and a name's
// dots divide it, so that a cut path or host keeps its words.
var cutRun = set(alnum + "_+=~-")

// tokenLike reports a run that may be a secret: it has a part, between
// dashes and underscores, of 12 bytes or more with digits and letters, or
// of 20 or more letters of both cases as random as a token's. A slug of
// words (av-raf-5-review-e2e) or a name (EncryptedClientHelloKeys) is
// none.
func tokenLike(v string) bool {
	for len(v) > 0 {
		e := strings.IndexAny(v, "-_")
		if e < 0 {
			e = len(v)
		}
		part := v[:e]
		switch c := classes(part); {
		case len(part) >= 12 && c&classDigit != 0 && c&(classUpper|classLower) != 0:
			return true
		case len(part) >= 20 && c == classUpper|classLower && entropy(part) >= 4:
			return true
		}
		v = v[min(len(v), e+1):]
	}
	return false
}

// headMargin is how far past a cut Head reads, so that a secret crossing
// the cut is whole when it is found: more than a token or a value.
const headMargin = 4 << 10

// Head returns s redacted, or, when s is much longer than n bytes, its
// first n bytes and a margin, redacted: what a caller about to keep n
// bytes (and Cut them) needs, without the cost of the rest. A secret
// that starts before byte n is found whole.
func (r *Redactor) Head(s string, n int) string {
	if w := max(n, 0) + headMargin; len(s) > w {
		for w > 0 && !utf8.RuneStart(s[w]) {
			w--
		}
		s = s[:w]
	}
	return r.String(s)
}
