// Package guard reads a text against many regular expressions cheaply:
// each rule runs only when the text holds one of its trigger words, which
// keeps checking an item against dozens of them to a few microseconds.
// lore.Instruction and harvest's hold are built on it.
package guard

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Rule is one shape of text, read only when the text holds one of its
// triggers: a word, or for scripts without spaces between words a
// substring.
type Rule struct {
	Triggers []string
	// re is compiled when first used: compiling the guards' expressions
	// took 4.6 ms at the start of every lore process, harvest or not.
	re func() *regexp.Regexp
}

// NewRule returns a rule for re, matched whatever the case, with the
// triggers listed in triggers, separated by spaces.
func NewRule(triggers, re string) Rule {
	return Rule{Triggers: strings.Fields(triggers), re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)` + re) })}
}

// Regexp returns the rule's expression, compiling it the first time.
func (r Rule) Regexp() *regexp.Regexp { return r.re() }

// Text is a text as the rules read it.
type Text struct {
	Text  string
	Lower string          // Text in lower case
	words map[string]bool // runs of letters, digits, '_' and apostrophes
}

// Read reads text for the rules.
func Read(text string) *Text {
	t := &Text{Text: text, Lower: strings.ToLower(text), words: make(map[string]bool, len(text)/6)}
	for w := range strings.FieldsFuncSeq(t.Lower, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '\''
	}) {
		t.words[strings.Trim(w, "'")] = true
	}
	return t
}

// Has reports whether the text holds one of triggers: a trigger of
// ASCII letters is a word of it, one of other letters a substring.
func (t *Text) Has(triggers []string) bool {
	for _, w := range triggers {
		if t.words[w] || w[0] >= utf8.RuneSelf && strings.Contains(t.Lower, w) {
			return true
		}
	}
	return false
}

// First returns where the first of rules that matches matches.
func (t *Text) First(rules []Rule) ([]int, bool) {
	for _, r := range rules {
		if t.Has(r.Triggers) {
			if loc := r.re().FindStringIndex(t.Text); loc != nil {
				return loc, true
			}
		}
	}
	return nil, false
}
