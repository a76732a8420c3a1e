package hermesdb

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Text is filler drawn from a vocabulary with a natural-language frequency
// fall-off (Zipf), so that it tokenizes, indexes and compresses roughly
// like what agents write rather than like random bytes or a handful of
// repeated words. A few words are not ASCII, so that characters and bytes
// differ as they do in real transcripts.

var baseWords = strings.Fields(`
the of and to a in is it you that he was for on are with as I his they be at one have this from
or had by hot word but what some we can out other were all there when up use your how said an
each she which do their time if will way about many then them write would like so these her long
make thing see him two has look more day could go come did number sound no most people my over
know water than call first who may down side been now find any new work part take get place made
live where after back little only round man year came show every good me give our under name very
through just form sentence great think say help low line differ turn cause much mean before move
right boy old too same tell does set three want air well also play small end put home read hand
port large spell add even land here must big high such follow act why ask men change went light
file path error test build config session message tool call output result value string int bool
package import module run go python sqlite database index table column row query select insert
update delete commit branch git diff patch code open close return func class def self return none
true false null server client request response http json yaml token model prompt agent memory
skill task todo user assistant system function argument parameter option flag command terminal
shell script deploy docker container image volume network port host timeout retry cache queue
worker job schedule cron log debug info warn trace stack frame panic exception failed passed
check lint format vet coverage benchmark latency throughput memory disk cpu thread process
`)

// oddWords are not ASCII.
var oddWords = []string{"über", "café", "naïve", "façade", "日本語", "データ", "résumé", "→", "✓", "Zürich", "señal", "проверка"}

var (
	vocabOnce sync.Once
	vocab     []string
)

// words returns the vocabulary: the base words first (the Zipf draw
// favours the start), then identifiers made of two of them, numbered
// names and the words that are not ASCII.
func words() []string {
	vocabOnce.Do(func() {
		r := rand.New(rand.NewPCG(7, 7))
		seen := map[string]bool{}
		add := func(w string) {
			if !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
		for _, w := range baseWords {
			add(w)
		}
		for _, w := range oddWords {
			add(w)
		}
		for len(vocab) < 5000 {
			a, b := baseWords[r.IntN(len(baseWords))], baseWords[r.IntN(len(baseWords))]
			switch r.IntN(4) {
			case 0:
				add(a + "_" + b)
			case 1:
				add(a + strings.ToUpper(b[:1]) + b[1:])
			case 2:
				add(a + strconv.Itoa(r.IntN(100)))
			default:
				add(a + b)
			}
		}
	})
	return vocab
}

// text appends filler of one kind to a byte slice.
type text struct {
	r *rand.Rand
	z *rand.Zipf
	v []string
	b []byte
}

func newText(seed uint64) *text {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	v := words()
	return &text{r: r, z: rand.NewZipf(r, 1.1, 3, uint64(len(v)-1)), v: v}
}

func (t *text) reset(seed uint64) {
	t.r = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	t.z = rand.NewZipf(t.r, 1.1, 3, uint64(len(t.v)-1))
	t.b = t.b[:0]
}

func (t *text) word() string { return t.v[t.z.Uint64()] }

func (t *text) str(s string) { t.b = append(t.b, s...) }

func (t *text) num(n int) { t.b = strconv.AppendInt(t.b, int64(n), 10) }

// sentence appends one sentence of 4 to 20 words.
func (t *text) sentence() {
	n := 4 + t.r.IntN(17)
	for i := 0; i < n; i++ {
		w := t.word()
		if i == 0 {
			if c, size := utf8.DecodeRuneInString(w); c >= 'a' && c <= 'z' {
				t.b = append(t.b, byte(c-'a'+'A'))
				w = w[size:]
			}
		} else {
			t.b = append(t.b, ' ')
		}
		t.str(w)
		if i < n-1 && t.r.IntN(12) == 0 {
			t.b = append(t.b, ',')
		}
	}
	t.b = append(t.b, '.')
}

// prose appends paragraphs until about n bytes were written.
func (t *text) prose(n int) {
	end := len(t.b) + n
	for len(t.b) < end {
		t.sentence()
		switch {
		case t.r.IntN(6) == 0:
			t.str("\n\n")
		default:
			t.b = append(t.b, ' ')
		}
	}
}

func (t *text) ident() string {
	w := t.word()
	for _, c := range []byte(w) {
		if c >= 0x80 || c == ' ' {
			return "value"
		}
	}
	return w
}

var codeLines = []string{
	"func {I}({i} {T}) ({T}, error) {",
	"\tif err := {i}.{I}({i}); err != nil {",
	"\t\treturn nil, fmt.Errorf(\"{w} {w}: %w\", err)",
	"\t}",
	"\t{i} := {i}[{n}]",
	"\t// {p}",
	"}",
	"def {i}(self, {i}, {i}={n}):",
	"    \"\"\"{p}\"\"\"",
	"    return self.{i}({i}, {i})",
	"    for {i} in {i}:",
	"        {i}.append({i}[{n}])",
	"const {i} = \"{w}\"",
	"import { {i} } from './{i}';",
	"  {i}: {n},",
	"",
}

var types = []string{"string", "int", "bool", "error", "[]byte", "*Config", "map[string]any", "context.Context", "time.Duration"}

// code appends source lines until about n bytes were written, numbered
// as Hermes' read_file shows them when numbered is set.
func (t *text) code(n int, numbered bool) {
	end := len(t.b) + n
	line := 1 + t.r.IntN(200)
	for len(t.b) < end {
		if numbered {
			if line < 100000 {
				t.b = append(t.b, "     "[:5-len(strconv.Itoa(line))]...)
			}
			t.num(line)
			t.b = append(t.b, '|')
		}
		tmpl := codeLines[t.r.IntN(len(codeLines))]
		for i := 0; i < len(tmpl); i++ {
			if tmpl[i] != '{' || i+2 >= len(tmpl) || tmpl[i+2] != '}' {
				t.b = append(t.b, tmpl[i])
				continue
			}
			switch tmpl[i+1] {
			case 'I':
				id := t.ident()
				t.b = append(t.b, strings.ToUpper(id[:1])...)
				t.str(id[1:])
			case 'i':
				t.str(t.ident())
			case 'T':
				t.str(types[t.r.IntN(len(types))])
			case 'n':
				t.num(t.r.IntN(1000))
			case 'w':
				t.str(t.word())
			case 'p':
				t.sentence()
			default:
				t.b = append(t.b, tmpl[i:i+3]...)
			}
			i += 2
		}
		t.b = append(t.b, '\n')
		line++
	}
}

var levels = []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}

// log appends command output: log lines, test results and listings.
func (t *text) log(n int) {
	end := len(t.b) + n
	for len(t.b) < end {
		switch t.r.IntN(5) {
		case 0:
			t.str("--- PASS: Test")
			t.str(t.ident())
			t.str(" (0.")
			t.num(10 + t.r.IntN(89))
			t.str("s)\n")
		case 1:
			t.str("-rw-r--r-- 1 hermes hermes ")
			t.num(t.r.IntN(90000))
			t.str(" May ")
			t.num(1 + t.r.IntN(28))
			t.str(" 12:0")
			t.num(t.r.IntN(10))
			t.b = append(t.b, ' ')
			t.str(t.ident())
			t.str(".py\n")
		default:
			t.str("2026-05-")
			t.num(10 + t.r.IntN(18))
			t.str(" 1")
			t.num(t.r.IntN(10))
			t.str(":3")
			t.num(t.r.IntN(10))
			t.str(":0")
			t.num(t.r.IntN(10))
			t.b = append(t.b, ' ')
			t.str(levels[t.r.IntN(len(levels))])
			t.b = append(t.b, ' ')
			t.str(t.ident())
			t.str(": ")
			t.sentence()
			t.str(" (")
			t.num(t.r.IntN(900))
			t.str("ms)\n")
		}
	}
}

// markdown appends a web page as web_extract returns it.
func (t *text) markdown(n int) {
	end := len(t.b) + n
	for len(t.b) < end {
		t.str("## ")
		t.sentence()
		t.str("\n\n")
		t.prose(200 + t.r.IntN(1200))
		t.str("\n\n")
		if t.r.IntN(3) == 0 {
			for i := 0; i < 3+t.r.IntN(5); i++ {
				t.str("- [")
				t.str(t.word())
				t.str("](https://example.org/")
				t.str(t.ident())
				t.str(")\n")
			}
			t.b = append(t.b, '\n')
		}
	}
}

var roles = []string{"button", "link", "textbox", "heading", "listitem", "img", "checkbox"}

// snapshot appends an accessibility tree as browser tools return it.
func (t *text) snapshot(n int) {
	end := len(t.b) + n
	ref := 1
	for len(t.b) < end {
		t.str("    "[:2*t.r.IntN(3)])
		t.str("- ")
		t.str(roles[t.r.IntN(len(roles))])
		t.str(" \"")
		t.str(t.word())
		t.b = append(t.b, ' ')
		t.str(t.word())
		t.str("\" [ref=e")
		t.num(ref)
		t.str("]\n")
		ref++
	}
}

// hex appends n random hex digits.
func (t *text) hex(n int) {
	const digits = "0123456789abcdef"
	for i := 0; i < n; i++ {
		t.b = append(t.b, digits[t.r.IntN(16)])
	}
}

// base64 appends n characters of an encrypted blob (incompressible, as
// codex_reasoning_items' encrypted_content is).
func (t *text) base64(n int) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < n; i++ {
		t.b = append(t.b, digits[t.r.IntN(64)])
	}
}

// appendJSONString appends s as a JSON string the way Python's json.dumps
// with ensure_ascii=False writes it.
func appendJSONString(b []byte, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\t':
			esc = `\t`
		case c == '\r':
			esc = `\r`
		case c < 0x20:
			esc = `\u00` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
