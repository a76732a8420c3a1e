package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Before byte-pair merging, tiktoken cuts text into pieces with a regular
// expression, and a token never spans two pieces. The splitters here are
// written out by hand, one per encoding, so that lore needs no regexp
// engine; they follow tiktoken-go's patterns as its engine (regexp2's
// generated code, .NET semantics: leftmost alternative first, greedy loops
// that backtrack, \s as unicode.IsSpace) matches them, quirks included,
// because lore's counts must stay what they were:
//
//   - DEL (U+007F) is missing from the ASCII bitmaps regexp2 generated for
//     [^\r\n\p{L}\p{N}] and [^\s\p{L}\p{N}], so no alternative matches it
//     and it is skipped: it costs no token.
//   - \s*[\r\n]+ ends after the run of line breaks that starts at the
//     first line break in the whitespace, not the last as a backtracking
//     \s* should: "\n  \n" is two pieces, "\n" and "  \n".
//
// A splitter returns the end of the piece that starts at i, or i when no
// alternative matches there and the rune is to be skipped.

// The classes a rune can be in, as bits; a rune is in several.
const (
	cUpper  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cLetter             // \p{L}
	cNumber             // \p{N}
	cSpace              // \s
	cBreak              // [\r\n]
	cPrefix             // [^\r\n\p{L}\p{N}]
	cPunct              // [^\s\p{L}\p{N}]
)

// ascii holds the classes of the first 128 runes. DEL is in none: see
// above.
var ascii = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		if r != 0x7f {
			t[r] = classify(r)
		}
	}
	return t
}()

func classify(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		switch {
		case unicode.In(r, unicode.Lu, unicode.Lt):
			return cUpper | cLetter
		case unicode.Is(unicode.Ll, r):
			return cLower | cLetter
		default: // Lm, Lo
			return cUpper | cLower | cLetter
		}
	case unicode.IsMark(r):
		return cUpper | cLower | cPrefix | cPunct
	case unicode.IsNumber(r):
		return cNumber
	case r == '\r' || r == '\n':
		return cSpace | cBreak
	case unicode.IsSpace(r):
		return cSpace | cPrefix
	}
	return cPrefix | cPunct
}

// classAt is the classes and the width of the rune at s[i], or no classes
// and no width at the end of s. s must be valid UTF-8.
func classAt(s string, i int) (uint8, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return ascii[c], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return classify(r), w
}

// run is the end of the run of runes in class from i on.
func run(s string, i int, class uint8) int {
	for {
		c, w := classAt(s, i)
		if c&class == 0 {
			return i
		}
		i += w
	}
}

// splitO200k follows o200k_base's pattern:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitO200k(s string, i int) int {
	c, w := classAt(s, i)
	// The optional prefix backtracks: the words are tried after it, then
	// from i itself, which matters when it is a mark, in both classes.
	starts := [2]int{i + w, i}
	from := starts[:]
	if c&cPrefix == 0 {
		from = starts[1:]
	}
	for _, q := range from {
		if end := upperLower(s, q); end > q {
			return contraction(s, end)
		}
	}
	for _, q := range from {
		if end := run(s, q, cUpper); end > q {
			return contraction(s, run(s, end, cLower))
		}
	}
	if c&cNumber != 0 {
		return numbers(s, i)
	}
	if end := punct(s, i); end > i {
		for end < len(s) && (s[end] == '\r' || s[end] == '\n' || s[end] == '/') {
			end++
		}
		return end
	}
	return space(s, i)
}

// upperLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// at q, or returns q. The classes overlap, so when the greedy first loop
// leaves nothing the second can start with, it gives back runes up to the
// last one the second takes, and the second loop ends right after it.
func upperLower(s string, q int) int {
	i, last := q, -1
	for {
		c, w := classAt(s, i)
		if c&cUpper == 0 {
			if c&cLower != 0 {
				return run(s, i, cLower)
			}
			return last
		}
		i += w
		if c&cLower != 0 {
			last = i
		}
	}
}

// splitCl100k follows cl100k_base's pattern:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitCl100k(s string, i int) int {
	if end := contraction(s, i); end > i {
		return end
	}
	c, w := classAt(s, i)
	if c&cPrefix != 0 {
		if end := run(s, i+w, cLetter); end > i+w {
			return end
		}
	}
	if c&cLetter != 0 {
		return run(s, i, cLetter)
	}
	if c&cNumber != 0 {
		return numbers(s, i)
	}
	if end := punct(s, i); end > i {
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	return space(s, i)
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or returns i.
// Case folding lets the long s (U+017F) stand for s.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	}
	if len(s) >= i+3 && s[i+1:i+3] == "ſ" {
		return i + 3
	}
	return i
}

// numbers matches \p{N}{1,3} at i.
func numbers(s string, i int) int {
	for range 3 {
		c, w := classAt(s, i)
		if c&cNumber == 0 {
			break
		}
		i += w
	}
	return i
}

// punct matches " ?[^\s\p{L}\p{N}]+" at i, or returns i.
func punct(s string, i int) int {
	j := i
	if s[j] == ' ' {
		j++
	}
	if end := run(s, j, cPunct); end > j {
		return end
	}
	return i
}

// space matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, or returns i.
func space(s string, i int) int {
	j, lastW := i, 0
	for {
		c, w := classAt(s, j)
		if c&cBreak != 0 {
			// See the note above: the piece ends after the run of line
			// breaks that starts at the first one, so the rest of the
			// whitespace need not be read, and a long run of blank lines
			// with spaces on them costs linear time, not quadratic.
			for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
				j++
			}
			return j
		}
		if c&cSpace == 0 {
			break
		}
		j, lastW = j+w, w
	}
	if j == len(s) || j-lastW == i {
		return j
	}
	// Leave the last space to prefix the word after it.
	return j - lastW
}
