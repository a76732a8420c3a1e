package harvest

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// TestPrefilterWords checks that every match of an expression run only on
// a text holding one of its words holds one: a word missing from the list
// would pass over a text the expression matches.
func TestPrefilterWords(t *testing.T) {
	for _, c := range []struct {
		name  string
		re    string
		words []string
	}{
		{"destructive", destructivePattern().String(), destructiveWords},
		{"writes", writesPattern().String(), writesWords},
		{"url", urlPattern().String(), []string{"://"}},
		{"setting", settingPattern().String(), []string{"="}},
	} {
		re, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if !needsWord(re, c.words) {
			t.Errorf("%s: a match may hold none of %q", c.name, c.words)
		}
	}
	// The check itself fails a word short.
	re, _ := syntax.Parse(destructivePattern().String(), syntax.Perl)
	if needsWord(re, destructiveWords[1:]) {
		t.Error("needsWord missed that rm -rf holds none of the words but rm")
	}
}

// TestVersionCommandWords: versionCommand passes over a command holding
// none of versionWords, yet answers as its expression on the command's
// normal form, quotes taken out, does.
func TestVersionCommandWords(t *testing.T) {
	for _, cmd := range []string{"go version", "node --version", "python3 -V", "rustc -v", "java -version",
		`go "version"`, "node -'v'", `cd web && npm '-'-version`, "git log -1 | head", "go test ./...", "npm -V x"} {
		if got, want := versionCommand(cmd), versionCommandPattern().MatchString(normCommand(cmd)); got != want {
			t.Errorf("versionCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// needsWord reports whether every match of re holds one of words: each
// of its alternatives has a part that every match of it holds, and that
// holds a word.
func needsWord(re *syntax.Regexp, words []string) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Flags&syntax.FoldCase == 0 && holdsAny(string(re.Rune), words)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !needsWord(sub, words) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		// Literals next to each other read as one: "-" then "-write".
		var lit strings.Builder
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
				lit.WriteString(string(sub.Rune))
				if holdsAny(lit.String(), words) {
					return true
				}
				continue
			}
			lit.Reset()
			if needsWord(sub, words) {
				return true
			}
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return needsWord(re.Sub[0], words)
	case syntax.OpRepeat:
		return re.Min > 0 && needsWord(re.Sub[0], words)
	}
	return false
}
