package errsig

import (
	"strings"
	"testing"
)

const fakeToken = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d" // fake, in GitHub's format

// TestParseRedactsBeforeCutting: an error line is redacted before it is
// cut to Error.Line's size and before it is normalised into a signature,
// so that neither keeps the start of a token the cut made unrecognisable,
// wherever the cut falls.
func TestParseRedactsBeforeCutting(t *testing.T) {
	for pad := 150; pad <= maxLine+5; pad += 3 {
		line := "Error: " + strings.Repeat("a", pad-7) + " token " + fakeToken + " was rejected"
		for _, out := range []string{line, "fatal: " + strings.Repeat("b ", pad/2) + fakeToken} {
			exit := 1
			e := Parse("Bash", `{"command":"./deploy"}`, out, &exit)
			for _, got := range []string{e.Line, e.Signature, Normalize(out)} {
				if strings.Contains(strings.ToLower(got), strings.ToLower(fakeToken[:10])) {
					t.Fatalf("pad %d: %q keeps part of the token", pad, got)
				}
			}
		}
	}
}
