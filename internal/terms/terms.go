// Package terms turns a question in people's words into the terms a
// full-text search looks for, so that no store ever hands user text to its
// query language.
package terms

import (
	"slices"
	"strings"
	"unicode"

	"github.com/lorehq/lore/internal/dedup"
)

// maxTerms bounds a query: a pasted stack trace must not become a
// thousand-term search.
const maxTerms = 32

// Of returns the distinct lower-case words and numbers of text, in order,
// without stop words. Every character that is not a letter or a digit
// separates terms, so quotes, colons, parentheses, asterisks and operators
// such as NEAR or OR are never more than words. When text holds nothing
// but stop words, they are the terms.
func Of(text string) []string {
	var all, content []string
	for _, w := range Words(text) {
		if slices.Contains(all, w) {
			continue
		}
		all = append(all, w)
		if !dedup.StopWord(w) && len(content) < maxTerms {
			content = append(content, w)
		}
	}
	if len(content) == 0 && len(all) > maxTerms {
		all = all[:maxTerms]
	}
	if len(content) == 0 {
		return all
	}
	return content
}

// Words returns the lower-case words and numbers of text, in order,
// repeats and stop words kept: text split as Of splits a question, for a
// store to index what a question's terms are looked up in.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
