package harvest

import (
	"testing"

	"github.com/lorehq/lore/internal/guard"
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
		{"quoted", quotedPattern().String(), []string{"`", "'", `"`}},
	} {
		if !guard.EveryMatchHolds(c.re, c.words) {
			t.Errorf("%s: a match may hold none of %q", c.name, c.words)
		}
	}
	// The check itself fails a word short.
	if guard.EveryMatchHolds(destructivePattern().String(), destructiveWords[1:]) {
		t.Error("EveryMatchHolds missed that rm -rf holds none of the words but rm")
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
