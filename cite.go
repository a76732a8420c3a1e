package lore

import (
	"regexp"
	"strings"
)

// Agents cite the notes a context gives them as lore:ID, the item's id cut
// to CiteDigits hex digits. The context writes the citation, measuring
// reads it back and the tour shows it: all three through these functions.

// CiteDigits is how many hex digits of an item's id a citation shows.
const CiteDigits = 8

// minCited is how many digits a cited prefix needs to name an item: fewer
// match too many ids by chance.
const minCited = 6

var citation = regexp.MustCompile(`lore:([0-9a-f]{4,24})`)

// Cite is how a context names an item for the agent to cite: lore: and
// the id's first CiteDigits digits.
func Cite(id string) string { return "lore:" + id[:min(len(id), CiteDigits)] }

// Citations returns the id prefixes that text cites, in order, each as
// written after lore: (4 to 24 hex digits).
func Citations(text string) []string {
	var ids []string
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// Cites reports whether a cited prefix names the item id: it begins the
// id and holds at least six digits.
func Cites(prefix, id string) bool {
	return len(prefix) >= minCited && strings.HasPrefix(id, prefix)
}
