package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold returns text as a reader sees it, which is how an injection means
// to be read: compatibility forms (fullwidth, mathematical, circled and
// squared letters, ligatures, odd spaces) as the plain letters they show,
// format characters (zero-width spaces and joiners, soft hyphens, bidi
// marks) and combining marks on Latin letters dropped, and Cyrillic and
// Greek look-alikes of Latin letters read as Latin inside words that are
// Latin or could be. Words wholly of another script keep their letters,
// so that Russian and Greek text is read as written.
func Fold(text string) string {
	if !needsFold(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	var word []rune // the letters of the word being read, folded but for look-alikes
	flush := func() {
		if len(word) == 0 {
			return
		}
		latin := true // every letter Latin or a look-alike of one
		for _, r := range word {
			if _, ok := confusables[r]; !ok && r >= utf8.RuneSelf && !unicode.Is(unicode.Latin, r) {
				latin = false
				break
			}
		}
		for _, r := range word {
			if l, ok := confusables[r]; ok && latin {
				r = l
			}
			b.WriteRune(r)
		}
		word = word[:0]
	}
	prevLatin := false
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cf, r):
			continue
		case unicode.Is(unicode.Mn, r) && prevLatin:
			continue
		}
		s, ok := compat(r)
		if !ok {
			s = string(r)
		}
		for _, r := range s {
			if unicode.IsLetter(r) {
				word = append(word, r)
				prevLatin = r < utf8.RuneSelf || unicode.Is(unicode.Latin, r)
				continue
			}
			flush()
			prevLatin = false
			b.WriteRune(r)
		}
	}
	flush()
	return b.String()
}

// needsFold reports whether text holds anything Fold changes: most items
// are ASCII, and are read as they are.
func needsFold(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// compat returns the plain letters, digits or space a compatibility form
// stands for.
func compat(r rune) (string, bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII
		return string(r - 0xFF01 + '!'), true
	case r == 0x3000 || r == 0x00A0 || r >= 0x2000 && r <= 0x200A || r == 0x202F || r == 0x205F:
		return " ", true
	case r >= 0x1D400 && r <= 0x1D6A3: // mathematical letters: 13 alphabets of A–Z a–z
		n := (r - 0x1D400) % 52
		if n < 26 {
			return string('A' + n), true
		}
		return string('a' + n - 26), true
	case r >= 0x1D7CE && r <= 0x1D7FF: // mathematical digits: 5 sets of 0–9
		return string('0' + (r-0x1D7CE)%10), true
	case r >= 0x24B6 && r <= 0x24CF: // circled capitals
		return string('A' + r - 0x24B6), true
	case r >= 0x24D0 && r <= 0x24E9: // circled small letters
		return string('a' + r - 0x24D0), true
	case r >= 0x249C && r <= 0x24B5: // parenthesised small letters
		return string('a' + r - 0x249C), true
	case r >= 0x1F130 && r <= 0x1F149, r >= 0x1F150 && r <= 0x1F169, r >= 0x1F170 && r <= 0x1F189: // squared and negative capitals
		return string('A' + (r-0x1F130)%32), true
	case r >= 0x1F1E6 && r <= 0x1F1FF: // regional indicators
		return string('A' + r - 0x1F1E6), true
	}
	s, ok := compatForms[r]
	return s, ok
}

// compatForms are the other compatibility forms that show Latin letters:
// the letter-like symbols that fill the mathematical alphabets' holes,
// ligatures, and small capitals and modifier letters.
var compatForms = map[rune]string{
	'ℂ': "C", 'ℊ': "g", 'ℋ': "H", 'ℌ': "H", 'ℍ': "H", 'ℎ': "h", 'ℐ': "I", 'ℑ': "I", 'ℒ': "L", 'ℓ': "l",
	'ℕ': "N", 'ℙ': "P", 'ℚ': "Q", 'ℛ': "R", 'ℜ': "R", 'ℝ': "R", 'ℤ': "Z", 'ℨ': "Z", 'ℬ': "B", 'ℭ': "C",
	'ℯ': "e", 'ℰ': "E", 'ℱ': "F", 'ℳ': "M", 'ℴ': "o", 'ℹ': "i", 'Ⅰ': "I", 'Ⅴ': "V", 'Ⅹ': "X", 'ⅰ': "i",
	'ⅴ': "v", 'ⅹ': "x", 'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st",
	'ᴀ': "a", 'ʙ': "b", 'ᴄ': "c", 'ᴅ': "d", 'ᴇ': "e", 'ɢ': "g", 'ʜ': "h", 'ɪ': "i", 'ᴊ': "j", 'ᴋ': "k",
	'ʟ': "l", 'ᴍ': "m", 'ɴ': "n", 'ᴏ': "o", 'ᴘ': "p", 'ʀ': "r", 'ꜱ': "s", 'ᴛ': "t", 'ᴜ': "u", 'ᴠ': "v",
	'ᴡ': "w", 'ʏ': "y", 'ᴢ': "z", 'ᵃ': "a", 'ᵇ': "b", 'ᶜ': "c", 'ᵈ': "d", 'ᵉ': "e", 'ᶠ': "f", 'ᵍ': "g",
	'ʰ': "h", 'ⁱ': "i", 'ʲ': "j", 'ᵏ': "k", 'ˡ': "l", 'ᵐ': "m", 'ⁿ': "n", 'ᵒ': "o", 'ᵖ': "p", 'ʳ': "r",
	'ˢ': "s", 'ᵗ': "t", 'ᵘ': "u", 'ᵛ': "v", 'ʷ': "w", 'ˣ': "x", 'ʸ': "y", 'ᶻ': "z",
}

// confusables are Cyrillic and Greek letters drawn like Latin ones.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
	'ү': 'y', 'ɡ': 'g',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Һ': 'H', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ӏ': 'I',
	'Ү': 'Y',
	// Greek
	'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// leetDigits are the digits written for letters inside words.
var leetDigits = [10]byte{0: 'o', 1: 'i', 3: 'e', 4: 'a', 5: 's', 7: 't'}

// foldDigits returns text with the digits of a word read as the letters
// they stand for ("1gnore prev1ous"), in words that hold a letter and
// no digit that stands for none: "k8s" and "sha256" stay as they are.
func foldDigits(text string) string {
	var b []byte
	start := -1 // where the current run of letters and digits starts
	end := func(i int) {
		if start < 0 {
			return
		}
		w := text[start:i]
		letter, digit := false, false
		for _, r := range w {
			switch {
			case r >= '0' && r <= '9':
				if leetDigits[r-'0'] == 0 {
					start = -1
					return
				}
				digit = true
			default:
				letter = true
			}
		}
		if letter && digit {
			if b == nil {
				b = []byte(text)
			}
			for j := start; j < i; j++ {
				if c := text[j]; c >= '0' && c <= '9' {
					b[j] = leetDigits[c-'0']
				}
			}
		}
		start = -1
	}
	for i, r := range text {
		if unicode.IsLetter(r) || r >= '0' && r <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		end(i)
	}
	end(len(text))
	if b == nil {
		return text
	}
	return string(b)
}
