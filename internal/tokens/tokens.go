package tokens

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:generate go run gen/main.go

var (
	//go:embed o200k_base.tokens
	o200kTokens string
	//go:embed cl100k_base.tokens
	cl100kTokens string
)

// Names are the encodings Get knows, the default first.
var Names = []string{"o200k", "cl100k"}

// An Encoding counts tokens as one of OpenAI's encodings does. It is safe
// for concurrent use.
type Encoding struct {
	name  string
	split func(s string, i int) int
	vocab *vocab
}

var encodings = map[string]func() (*Encoding, error){
	"o200k":  sync.OnceValues(func() (*Encoding, error) { return load("o200k_base", o200kTokens, splitO200k) }),
	"cl100k": sync.OnceValues(func() (*Encoding, error) { return load("cl100k_base", cl100kTokens, splitCl100k) }),
}

func load(name, data string, split func(string, int) int) (*Encoding, error) {
	v, err := newVocab(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return &Encoding{name: name, split: split, vocab: v}, nil
}

// Get returns the encoding of this name ("o200k" or "cl100k", with or
// without "_base"; "" is o200k).
func Get(name string) (*Encoding, error) {
	load, err := Loader(name)
	if err != nil {
		return nil, err
	}
	return load()
}

// Loader returns a function that loads the encoding of this name once,
// for callers that check the name early and load late.
func Loader(name string) (func() (*Encoding, error), error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), "_base")
	if n == "" {
		n = Names[0]
	}
	load, ok := encodings[n]
	if !ok {
		return nil, fmt.Errorf("unknown tokenizer %q: want %s", name, strings.Join(Names, " or "))
	}
	return load, nil
}

// Name is the encoding's name in tiktoken, such as "o200k_base".
func (e *Encoding) Name() string { return e.name }

// Count is the number of tokens in s.
//
// It is the count tiktoken-go v0.10.0 gives, which lore used before it
// had its own: special tokens such as <|endoftext|> are counted as the
// plain text they are, and each byte of invalid UTF-8 as U+FFFD, since
// tiktoken-go's regexp engine reads the text as runes.
func Count(e *Encoding, s string) int {
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	n := 0
	for i := 0; i < len(s); {
		j := e.split(s, i)
		if j <= i {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			continue
		}
		n += e.vocab.countPiece(s[i:j])
		i = j
	}
	return n
}

// replaceInvalid turns each byte that is not part of a valid UTF-8
// sequence into U+FFFD, as converting s to []rune does.
func replaceInvalid(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}
