// Package guard reads a text against many regular expressions cheaply:
// each rule runs only when the text holds one of its trigger words, which
// keeps checking an item against dozens of them to a few microseconds.
// It reads a text as it looks, not as it is spelled (see Fold), so that
// look-alike letters do not slip past the rules. lore.Instruction and
// lore.Hold are built on it.
package guard

import (
	"fmt"
	"regexp"
	"regexp/syntax"
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
	// Needs, when set, are strings in lower case one of which every
	// match holds: a text of ASCII holding none is not read with the
	// expression. A long expression ("curl … ~/.ssh") is slow to read,
	// and most texts that hold its trigger hold none of them.
	Needs []string
	// re is compiled when first used: compiling the guards' expressions
	// took 4.6 ms at the start of every lore process, harvest or not.
	re func() *regexp.Regexp
}

// NewRule returns a rule for re, matched whatever the case, with the
// triggers listed in triggers, separated by spaces.
func NewRule(triggers, re string) Rule {
	return Rule{Triggers: strings.Fields(triggers), re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)` + re) })}
}

// NewRuleNeeding is NewRule with Needs, listed in needs separated by
// spaces (none: NewRule). Compiling the expression panics, as regexp.MustCompile does,
// when a match may hold none of them (EveryMatchHolds).
func NewRuleNeeding(triggers, needs, re string) Rule {
	n := strings.Fields(needs)
	if len(n) == 0 {
		return NewRule(triggers, re)
	}
	return Rule{Triggers: strings.Fields(triggers), Needs: n, re: sync.OnceValue(func() *regexp.Regexp {
		if !EveryMatchHolds(`(?i)`+re, n) {
			panic(fmt.Sprintf("guard: a match of %q may hold none of %q", re, n))
		}
		return regexp.MustCompile(`(?i)` + re)
	})}
}

// EveryMatchHolds reports whether every match of the expression holds
// one of words, as far as its literals tell: each of its alternatives
// holds a literal that holds a word, a literal matched whatever the case
// being read in lower case. A text that holds none of the words can
// then be passed over without reading it with the expression.
func EveryMatchHolds(expr string, words []string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	return err == nil && holds(re, words)
}

func holds(re *syntax.Regexp, words []string) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return containsAny(literal(re), words)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !holds(sub, words) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		// Literals next to each other read as one: "-" then "-write".
		var run strings.Builder
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run.WriteString(literal(sub))
				if containsAny(run.String(), words) {
					return true
				}
				continue
			}
			run.Reset()
			if holds(sub, words) {
				return true
			}
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return holds(re.Sub[0], words)
	case syntax.OpRepeat:
		return re.Min > 0 && holds(re.Sub[0], words)
	}
	return false
}

// literal is what a literal matches, in lower case when it is matched
// whatever the case.
func literal(re *syntax.Regexp) string {
	if re.Flags&syntax.FoldCase != 0 {
		return strings.ToLower(string(re.Rune))
	}
	return string(re.Rune)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Regexp returns the rule's expression, compiling it the first time.
func (r Rule) Regexp() *regexp.Regexp { return r.re() }

// Text is a text as the rules read it.
type Text struct {
	Text  string          // the text folded (see Fold), not as written
	Lower string          // Text in lower case
	ascii bool            // Text is all ASCII: Lower tells what an expression matches whatever the case
	words map[string]bool // runs of letters, digits, '_' and apostrophes
	// leet is the text again with the digits of words read as the
	// letters they stand for ("1gnore prev1ous"); nil when it has none.
	// It is a second reading rather than the only one, so that "k8s",
	// "python3" and "v1.2" are still read as written.
	leet *Text
}

// Read reads text for the rules, folded.
func Read(text string) *Text {
	t := read(Fold(text))
	if l := foldDigits(t.Text); l != t.Text {
		t.leet = read(l)
	}
	return t
}

func read(text string) *Text {
	t := &Text{Text: text, Lower: strings.ToLower(text), ascii: !needsFold(text), words: make(map[string]bool, len(text)/6)}
	for w := range strings.FieldsFuncSeq(t.Lower, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '\''
	}) {
		t.words[strings.Trim(w, "'")] = true
	}
	return t
}

// Leet returns the text with the digits of its words read as letters
// ("1gnore prev1ous"), or nil when it has none to read so. First reads
// it too; a reader of its own (Has, a rule's Regexp) must ask for it.
func (t *Text) Leet() *Text { return t.leet }

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

// First returns where the first of rules that matches matches, in Text;
// failing that, whether one matches the text with the digits of its
// words read as letters (then the place is nil).
func (t *Text) First(rules []Rule) ([]int, bool) {
	if loc, ok := t.first(rules); ok {
		return loc, true
	}
	if t.leet != nil {
		if _, ok := t.leet.first(rules); ok {
			return nil, true
		}
	}
	return nil, false
}

// Reads reports whether a rule is to be read on the text: it holds one
// of the rule's triggers, and one of its needs when it has them.
func (t *Text) Reads(r Rule) bool {
	return t.Has(r.Triggers) && (len(r.Needs) == 0 || !t.ascii || containsAny(t.Lower, r.Needs))
}

func (t *Text) first(rules []Rule) ([]int, bool) {
	for _, r := range rules {
		if t.Reads(r) {
			if loc := r.re().FindStringIndex(t.Text); loc != nil {
				return loc, true
			}
		}
	}
	return nil, false
}
