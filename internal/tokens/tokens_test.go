package tokens

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
)

// Lore's counter must count as tiktoken-go v0.10.0 does, which lore
// linked before; these tests compare the two, piece by piece where they
// can. tiktoken-go registers code generated for its patterns with
// regexp2, so compiling the same pattern here gives its exact splitter.
var reference = []struct {
	name    string
	enc     tokenizer.Encoding
	pattern string
}{
	{"o200k", tokenizer.O200kBase, `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
	{"cl100k", tokenizer.Cl100kBase, `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`},
}

type pair struct {
	name  string
	ours  *Encoding
	codec tokenizer.Codec
	split *regexp2.Regexp
}

func pairs(t testing.TB) []pair {
	t.Helper()
	var ps []pair
	for _, r := range reference {
		ours, err := Get(r.name)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := tokenizer.Get(r.enc)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, pair{r.name, ours, codec, regexp2.MustCompile(r.pattern, regexp2.None)})
	}
	return ps
}

// pieces is how e splits s, the way Count walks it.
func pieces(e *Encoding, s string) []string {
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	var out []string
	for i := 0; i < len(s); {
		j := e.split(s, i)
		if j <= i {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			continue
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// compare fails t when lore and tiktoken-go split or count s differently.
func (p pair) compare(t *testing.T, s string) {
	t.Helper()
	var want []string
	m, err := p.split.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = p.split.FindNextMatch(m) {
		want = append(want, m.String())
	}
	if err != nil {
		t.Fatalf("%s: regexp2: %v", p.name, err)
	}
	if got := pieces(p.ours, s); !slices.Equal(got, want) {
		t.Errorf("%s: %.200q\nsplits into %.500q\n      want %.500q", p.name, s, got, want)
	}
	n, err := p.codec.Count(s)
	if err != nil {
		t.Fatalf("%s: tiktoken-go: %v", p.name, err)
	}
	if got := Count(p.ours, s); got != n {
		t.Errorf("%s: %.200q is %d tokens, want %d", p.name, s, got, n)
	}
}

// tricky are texts where a hand-written splitter could go wrong.
var tricky = []string{
	"",
	"hello world",
	"Hello, World! HELLO WORLD. hELLO wORLD.",
	// Contractions, in any case, and the long s that folds to s.
	"it's I'M we'RE you'Ve they'LL he'd she'D it'S don't DON'T y'all",
	"'s 'S 'T 're 'RE 'Ve 'm 'll 'LL 'lL 'd 'x ' 's's'ss ''s",
	"He'ſ SHE'ſ 'ſ",
	"WORD's word'S CamelCase's ÉCOLE'll école'D",
	"rock'n'roll o'clock ma'am 'twas '90s",
	// Upper and lower classes that overlap: Lm, Lo and marks are in both.
	"McDonald's iPhone XMLHttpRequest ABCdef ABC def aBC",
	"ǅemal ǈ ǋ ᾈ ᾯ Ǆ", // titlecase
	"ʰʲʷ ˢ ꜰ ᵃᵇ ⁱⁿ",   // modifier letters
	"ꓐꓑꓒ ᐁᐃ",
	"e\u0301 E\u0301 \u0301e \u0301E \u0301 \u0301\u0302 A\u0301B\u0302c a\u0308'S",
	"\u0301's x\u0301's X\u0301'LL !\u0301 !\u0301a .\u0301A",
	"ÅÄÖ åäö ÅäÖ Straße STRASSE ǅ",
	// Scripts.
	"日本語のテキストです。中文文本，한국어 텍스트",
	"Привет, мир! ПРИВЕТ мир. Ελληνικά ΕΛΛΗΝΙΚΆ",
	"مرحبا بالعالم עברית हिन्दी ภาษาไทย ქართული",
	"हिन्दी में लिखा\u094d गया",
	// Emoji, ZWJ sequences, flags, skin tones, variation selectors.
	"👍 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇯🇵🇺🇸 ❤️ ☺︎ 1️⃣ #️⃣",
	"x👍y 👍a A👍 '👍",
	// Numbers.
	"1 12 123 1234 12345 123456 1234567 a1 1a 3.14159 -42 1,000,000",
	"٣٤٥ ١٢٣٤ ½¼ ²³ Ⅻ ⅷ 一二三 ０１２３４",
	"v1.2.3 0x1F 1e10 2024-01-02T03:04:05Z",
	// Line breaks and whitespace.
	"a\r\nb\rc\nd\n\ne\r\n\r\nf",
	"a\n  \n  b",
	"\n \n\t\n",
	"  \r\n  x",
	"x  \n\n  ",
	"line\n\n\n\n\nend",
	"\t\tindented\n\t\tmore\n",
	"tabs\tin\t\tthe\t\t\tmiddle",
	"trailing   ",
	"   leading",
	"  ",
	" ",
	"\n",
	"a \n",
	"a  b   c    d",
	"a\u00a0b\u00a0\u00a0c \u00a0d",
	"a\u2028b\u2029c\u0085d\u3000e\u1680f\u2003g\u202fh\u205fi\u200bj\u180ek",
	"\u3000\u3000日本\u3000",
	"\v\f\v x\f",
	"\x00\x01\x1f\x7f\x7f!a\x7fb \x7f \x7f\n",
	// Invalid UTF-8 and U+FFFD.
	"\xff",
	"a\xffb\xfe\xfd",
	"\xc3\x28 \xe2\x82 \xf0\x9f\x98 \xed\xa0\x80 \xf4\x90\x80\x80",
	"\ufffd\ufffd \xff\xff",
	"word\x80s 's\xbf",
	// Special tokens are plain text to tiktoken-go's Count.
	"<|endoftext|>",
	"text<|endoftext|>more <|endofprompt|> <|fim_prefix|><|fim_middle|><|fim_suffix|>",
	// Long words and runs, past the quadratic merger.
	strings.Repeat("a", 200),
	strings.Repeat("ab", 97),
	strings.Repeat("=", 300),
	strings.Repeat("Ж", 150),
	"pneumonoultramicroscopicsilicovolcanoconiosis Supercalifragilisticexpialidocious",
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	// Code, JSON, paths, URLs, markdown.
	"func (e *Encoding) Count(s string) int {\n\tif s == \"\" {\n\t\treturn 0\n\t}\n\n\treturn len(s)\n}\n",
	"def f(x):\n    return x**2  # square\n\n\nclass A:\n    pass\n",
	`{"key": "value", "n": 12345, "list": [1, 2, 3], "nested": {"a": null, "b": true}}`,
	"/usr/local/bin/lore ~/.config/lore/config.toml C:\\Users\\dev\\file.txt ./a/../b//c///",
	"https://github.com/lorehq/lore/issues/42?tab=comments#issuecomment-123 mailto:a@b.co",
	"# Title\n\n- item **bold** _it_ `code`\n\n```go\nx := 1\n```\n\n| a | b |\n|---|---|\n",
	"!!! ??? ... --- *** /// \\\\\\ ''' \"\"\" ``` ~~~ ^^^ <<< >>> ;;",
	"end.\n/path\n/\n//\r\n/x",
	"a.\r\n\r\n/b",
}

func TestCountMatchesTiktoken(t *testing.T) {
	for _, p := range pairs(t) {
		for _, s := range tricky {
			p.compare(t, s)
		}
		// Each ASCII character alone and between letters, spaces and
		// line breaks.
		for c := range 128 {
			ch := string(rune(c))
			for _, s := range []string{ch, "a" + ch + "b", " " + ch + " ", "\n" + ch + "\n", ch + ch + ch, "'" + ch, "A" + ch} {
				p.compare(t, s)
			}
		}
	}
}

// TestCountRunes compares a sample of runes from every part of Unicode
// (LORE_TEST_ALL_RUNES=1: every rune, a minute or so), alone and next to
// the characters the patterns treat specially.
func TestCountRunes(t *testing.T) {
	step := rune(97)
	if os.Getenv("LORE_TEST_ALL_RUNES") != "" {
		step = 1
	}
	for _, p := range pairs(t) {
		var b strings.Builder
		for r := rune(0x80); r <= 0x10ffff; r += step {
			if r >= 0xd800 && r < 0xe000 {
				continue
			}
			for _, s := range []string{string(r), "a" + string(r) + "B", " " + string(r), "'" + string(r), string(r) + "'s", string(r) + string(r) + "x"} {
				b.WriteString(s)
				b.WriteByte('|')
			}
			if b.Len() > 1<<16 {
				p.compare(t, b.String())
				b.Reset()
			}
		}
		p.compare(t, b.String())
	}
}

// TestCountCorpus compares counts over the start of every file in the
// shared corpus of real transcripts (LORE_TEST_CORPUS: another folder).
func TestCountCorpus(t *testing.T) {
	dir := os.Getenv("LORE_TEST_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no shared corpus at %s (only the project's own machines have it)", dir)
	}
	ps := pairs(t)
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, 200<<10) // files can be large: their start is enough
		n, _ := f.Read(buf)
		files++
		for _, p := range ps {
			p.compare(t, string(buf[:n]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no files in %s", dir)
	}
}

// alphabet has a rune or two of each class the patterns tell apart, and
// the letters of the contractions, for FuzzCount to build texts of: byte
// mutations of a string seldom make the neighbours that matter, such as a
// mark after a capital or a titlecase letter before an apostrophe.
var alphabet = []rune("abstlmdervSTLMDERVAZ'ſ" + // contractions
	"ÉßǅʰᵃꜰЖ日א" + // Lu Ll Lt Lm Lo
	"\u0301\u0903\u20dd\ufe0f" + // Mn Mc Me, and a variation selector
	"019٣Ⅻ½²" + // Nd Nl No
	" \t\n\r\v\f\u0085\u00a0\u1680\u2028\u3000" + // \s
	"\u200d\u200b\x00\x7f\ufffd" + // controls, format, DEL
	"!.,/-_(\"<|>€^👍")

func FuzzCount(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	ps := pairs(f)
	f.Fuzz(func(t *testing.T, s string) {
		spelled := make([]rune, len(s))
		for i := range len(s) {
			spelled[i] = alphabet[int(s[i])%len(alphabet)]
		}
		for _, p := range ps {
			p.compare(t, s)
			p.compare(t, string(spelled))
		}
	})
}

func TestGet(t *testing.T) {
	for _, tc := range []struct {
		name, want, err string
	}{
		{name: "", want: "o200k_base"},
		{name: "o200k", want: "o200k_base"},
		{name: "O200K", want: "o200k_base"},
		{name: " o200k_base ", want: "o200k_base"},
		{name: "cl100k_base", want: "cl100k_base"},
		{name: "cl100k", want: "cl100k_base"},
		{name: "p50k", err: `unknown tokenizer "p50k": want o200k or cl100k`},
		{name: "gpt2", err: `unknown tokenizer "gpt2": want o200k or cl100k`},
	} {
		e, err := Get(tc.name)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("Get(%q): error %v, want %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("Get(%q): %v", tc.name, err)
		case e.Name() != tc.want:
			t.Errorf("Get(%q) is %s, want %s", tc.name, e.Name(), tc.want)
		}
	}
	a, _ := Get("o200k")
	b, _ := Get("o200k_base")
	if a != b {
		t.Error("an encoding was loaded twice")
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		enc, text string
		want      int
	}{
		{"o200k", "", 0},
		{"cl100k", "", 0},
		{"o200k", "hello world", 2},
		{"cl100k", "hello world", 2},
		{"o200k", "\x7f", 0}, // see split.go
		{"o200k", "<|endoftext|>", 7},
	} {
		e, err := Get(tc.enc)
		if err != nil {
			t.Fatal(err)
		}
		if n := Count(e, tc.text); n != tc.want {
			t.Errorf("%s: %q is %d tokens, want %d", tc.enc, tc.text, n, tc.want)
		}
	}
}

// TestVocabCorrupt checks that a damaged vocabulary is refused, not read
// past its end.
func TestVocabCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name, data string
	}{
		{"empty", ""},
		{"truncated count", "\x80"},
		{"missing token", "\x02\x01a"},
		{"token past the end", "\x01\x05ab"},
		{"too long", "\x01\x80\x02" + strings.Repeat("a", 256)},
		{"trailing bytes", "\x01\x01ab"},
	} {
		if _, err := newVocab(tc.data); err == nil {
			t.Errorf("%s: %q was accepted", tc.name, tc.data)
		}
	}
	v, err := newVocab("\x03\x01a\x00\x02ab")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tok  string
		rank uint32
		ok   bool
	}{{"a", 0, true}, {"ab", 2, true}, {"b", 0, false}, {"", 0, false}, {"abc", 0, false}} {
		if r, ok := v.rank(tc.tok); r != tc.rank || ok != tc.ok {
			t.Errorf("rank(%q) = %d, %v; want %d, %v", tc.tok, r, ok, tc.rank, tc.ok)
		}
	}
}

// TestConcurrent counts with both encodings from several goroutines at
// once, as the harvest workers do; run it with -race.
func TestConcurrent(t *testing.T) {
	want := map[string]int{}
	for _, name := range Names {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = Count(e, tricky[2])
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := Names[i%len(Names)]
			e, err := Get(name)
			if err != nil {
				t.Error(err)
				return
			}
			if n := Count(e, tricky[2]); n != want[name] {
				t.Errorf("%s: %d tokens, want %d", name, n, want[name])
			}
		})
	}
	wg.Wait()
}
