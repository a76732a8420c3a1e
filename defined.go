package lore

import (
	"regexp"
	"strings"
)

// DefinitionPattern matches a line that defines sym: func sym, func
// (r *T) sym, type sym, class sym, def sym, interface sym, const sym …,
// after modifiers (export, pub, async, public static …). Harvest places a
// symbol by it; boot checks the place against the working tree by it.
func DefinitionPattern(sym string) *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:(?:export|public|private|protected|internal|static|abstract|final|async|default|declare|open|sealed|data|pub(?:\([^)]*\))?|unsafe|extern)\s+)*` +
		`(?:func(?:\s*\([^)]*\))?|type|class|def|interface|struct|enum|trait|fn|function\*?|const|var|let|val|fun|object|record|protocol|typedef|mixin)\s+` +
		regexp.QuoteMeta(sym) + `\b`)
}

var (
	definedText = regexp.MustCompile("^`([^`]+)` is defined in `([^`]+)`\\.$")
	movedText   = regexp.MustCompile("^`([^`]+)` is in `([^`]+)`, not in `[^`]+`\\.$")
)

// Place is what a location fact says: where a symbol is defined (Symbol
// set), or where a file is (Symbol empty). File is relative to the
// repository's folder as the session saw it.
type Place struct {
	Symbol string
	File   string
}

// PlaceOf reads the place a location fact tells in harvest's words ("`X`
// is defined in `p`.", "`f` is in `p`, not in `q`."), whoever wrote it;
// ok is false for any other item.
func PlaceOf(it Item) (Place, bool) {
	if it.Category != CategoryFact {
		return Place{}, false
	}
	text := strings.TrimSpace(it.Text)
	if m := definedText.FindStringSubmatch(text); m != nil {
		return Place{Symbol: m[1], File: m[2]}, true
	}
	if m := movedText.FindStringSubmatch(text); m != nil {
		return Place{File: m[2]}, true
	}
	return Place{}, false
}
