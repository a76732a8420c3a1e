package errsig

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/shellcmd"
)

// FuzzParse feeds Parse arbitrary outputs and calls: it must not panic,
// must stay within its bounds, must give the same answer twice, and its
// signatures must be normal forms.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.tool, c.input, c.output, 1)
	}
	f.Add("Bash", `{"command":"x"}`, "\x1b[31merror\x1b]0;t\x07: \r\rfoo\r", 127)
	f.Add("shell", `{"command":["bash","-lc"`, `{"output":"x","metadata":{"exit_code":`, -1)
	f.Add("", "", "'\"`‘“", 0)
	f.Fuzz(func(t *testing.T, tool, input, output string, exit int) {
		e := Parse(tool, input, output, &exit)
		if len(e.Line) > maxLine || !utf8.ValidString(e.Line) {
			t.Fatalf("line %q", e.Line)
		}
		if len(e.Signature) > maxSignature || !utf8.ValidString(e.Signature) {
			t.Fatalf("signature %q", e.Signature)
		}
		if e.Kind == None && (e.Line != "" || e.Signature != "" || e.Class != "") {
			t.Fatalf("none with %+v", e)
		}
		if e.Kind != None && e.Line == "" {
			t.Fatalf("%s with no line: %+v", e.Kind, e)
		}
		if (e.Kind == Environment || e.Kind == Protocol) && e.Signature == "" {
			t.Fatalf("%s with no signature: %+v", e.Kind, e)
		}
		if again := Parse(tool, input, output, &exit); again != e {
			t.Fatalf("not deterministic: %+v then %+v", e, again)
		}
		if e.Kind == Environment && strings.TrimSpace(e.Line) != e.Line {
			t.Fatalf("line not trimmed: %q", e.Line)
		}
		Parse(tool, input, output, nil)
		shellcmd.FromCall(tool, input)
	})
}

// FuzzNormalize checks that a normal form stays one.
func FuzzNormalize(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.line)
		f.Add(c.sig)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, cut := normalizeCut(s, false)
		if len(n) > maxSignature || !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q", s, n)
		}
		if cut {
			return // a cut can split a word into another
		}
		if n2 := Normalize(n); n2 != n {
			t.Fatalf("not idempotent on %q:\n once %q\ntwice %q", s, n, n2)
		}
	})
}
