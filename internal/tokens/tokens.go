// Package tokens counts tokens the way models do, offline: the o200k and
// cl100k encodings are built into the binary, and each is loaded the
// first time it is needed.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Names are the encodings Get knows, the default first.
var Names = []string{"o200k", "cl100k"}

var codecs = map[string]func() (tokenizer.Codec, error){
	"o200k":  sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) }),
	"cl100k": sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.Cl100kBase) }),
}

// Get returns the encoding of this name ("o200k" or "cl100k", with or
// without "_base"; "" is o200k).
func Get(name string) (tokenizer.Codec, error) {
	load, err := Loader(name)
	if err != nil {
		return nil, err
	}
	return load()
}

// Loader returns a function that loads the encoding of this name once,
// for callers that check the name early and load late.
func Loader(name string) (func() (tokenizer.Codec, error), error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), "_base")
	if n == "" {
		n = Names[0]
	}
	load, ok := codecs[n]
	if !ok {
		return nil, fmt.Errorf("unknown tokenizer %q: want %s", name, strings.Join(Names, " or "))
	}
	return load, nil
}

// Count is the number of tokens in s. Counting fails only when the
// tokenizer's regexp gives up; then the bytes, which no token is shorter
// than, are a safe upper bound.
func Count(c tokenizer.Codec, s string) int {
	n, err := c.Count(s)
	if err != nil {
		return len(s)
	}
	return n
}
