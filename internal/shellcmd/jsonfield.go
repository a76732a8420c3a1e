package shellcmd

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonField returns the raw JSON value of key in the top-level object
// doc, without decoding anything else; ok is false when doc is not an
// object or has no such key. Tool arguments are small, but a Write's can
// be large, and this costs one pass with no allocation.
func jsonField(doc, key string) (raw string, ok bool) {
	i := skipWS(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipWS(doc, i)
		if i >= len(doc) || doc[i] != '"' {
			return "", false
		}
		kEnd := skipString(doc, i)
		if kEnd < 0 {
			return "", false
		}
		k := doc[i+1 : kEnd-1]
		i = skipWS(doc, kEnd)
		if i >= len(doc) || doc[i] != ':' {
			return "", false
		}
		i = skipWS(doc, i+1)
		vEnd := skipValue(doc, i)
		if vEnd < 0 {
			return "", false
		}
		if k == key {
			return doc[i:vEnd], true
		}
		i = skipWS(doc, vEnd)
		if i >= len(doc) || doc[i] != ',' {
			return "", false
		}
		i++
	}
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at s[i],
// or -1.
func skipString(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value that starts at s[i], or
// -1.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				if j = skipString(s, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// jsonString decodes a raw JSON string; ok is false when raw is not one.
// A string without escapes is returned without copying.
func jsonString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body, true
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			b.WriteByte(body[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(body, i+3); ok && i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
			}
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return b.String(), true
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// jsonStrings decodes a raw JSON array of strings, up to max of them.
func jsonStrings(raw string, max int) ([]string, bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	var out []string
	i++
	for {
		i = skipWS(raw, i)
		if i < len(raw) && raw[i] == ']' {
			return out, true
		}
		end := skipValue(raw, i)
		if end < 0 {
			return nil, false
		}
		s, ok := jsonString(raw[i:end])
		if !ok {
			return nil, false
		}
		if len(out) < max {
			out = append(out, s)
		}
		i = skipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}
