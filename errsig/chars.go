package errsig

import (
	"strings"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/redact"
)

// lineOf is s as Error.Line holds it: redacted, valid UTF-8, trimmed, at
// most maxLine bytes. It redacts before it cuts, so that a cut token is
// not left for the redactor to miss.
func lineOf(s string) string {
	return strings.TrimSpace(clip(redactor.Head(s, maxLine), maxLine))
}

var redactor = redact.New()

// clip cuts s to at most n bytes, where no part of a secret or of a
// redaction marker stays (redact.Cut), and makes it valid UTF-8.
func clip(s string, n int) string {
	if len(s) > n {
		s = s[:redact.Cut(s, n)]
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return s
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool    { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool    { return isDigit(c) || isAlpha(c) }
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }
func isHex(c byte) bool      { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isWordish is isWordByte for boundaries in a line being normalised: a
// placeholder stands where a word stood, and must bound what follows it
// the same way the next time.
func isWordish(c byte) bool { return isWordByte(c) || c == '<' || c == '>' }

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return s != ""
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

func hasAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlpha(s[i]) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with prefix, ASCII case folded.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		a, b := s[i], prefix[i]
		if a >= 'A' && a <= 'Z' {
			a += 'a' - 'A'
		}
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if isUpperASCII(s[i]) {
			return true
		}
	}
	return false
}

// lowerASCII lower-cases ASCII letters only: it never grows a string, and
// returns s itself when there is nothing to change.
func lowerASCII(s string) string {
	if !hasUpper(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}
