package errsig

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/transcript"
)

// corpusDir is the folder of real transcripts beside the repository.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no shared corpus at %s (only the project's own machines have it)", dir)
	}
	return dir
}

// result is a tool result with the call it answers.
type result struct {
	session string
	call    lore.ToolCall
	res     lore.ToolResult
}

// corpusResults reads every tool result of every real transcript.
func corpusResults(t *testing.T) []result {
	res, err := transcript.Scan(context.Background(), []string{corpusDir(t)}, transcript.Options{Messages: true, NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []result
	for _, s := range res.Sessions {
		calls := map[string]lore.ToolCall{}
		for _, m := range s.Messages {
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
		}
		for _, m := range s.Messages {
			for _, r := range m.ToolResults {
				out = append(out, result{session: s.Agent + ":" + filepath.Base(s.Path), call: calls[r.CallID], res: r})
			}
		}
	}
	return out
}

var (
	leakUUID  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	leakHex   = regexp.MustCompile(`\b[0-9a-f]*[0-9][0-9a-f]*\b`)
	leakPath  = regexp.MustCompile(`(^|[\s(:'"=])(/[\w.~@-]+/|~/|[a-z]:\\)`)
	leakDigit = regexp.MustCompile(`\d{3,}`)
	// kept on purpose: error codes, and HTTP statuses after their words
	keptCode = regexp.MustCompile(`\b[a-z]{1,5}\d{1,5}\b|(http\S*|status|code|error:?)\s+[1-5]\d\d\b|\b[1-5]\d\d (not found|forbidden|unauthorized|bad|internal|service|too|method|unprocessable|conflict|gateway)`)
)

// leak says which part of a signature varies between occurrences of one
// error, or "".
func leak(sig string) string {
	switch {
	case leakUUID.MatchString(sig):
		return "a uuid"
	case leakPath.MatchString(sig):
		return "an absolute path"
	}
	for _, h := range leakHex.FindAllString(sig, -1) {
		if len(h) >= 8 && !digits(h) {
			return "a hex id " + h
		}
	}
	if d := leakDigit.FindString(keptCode.ReplaceAllString(sig, "")); d != "" {
		return "a number " + d
	}
	return ""
}

func TestLeak(t *testing.T) {
	for sig, want := range map[string]bool{
		"go: undefined: <v>":                                false,
		"rust: error[e0308]: mismatched types":              false,
		"gh api: not found (http 404)":                      false,
		"curl: (<n>) the requested url returned error: 404": false,
		"x: line 212 failed":                                true,
		"x: open /home/u/a.txt":                             true,
		"x: commit 3f9a2c1d8e":                              true,
		"x: request fe5e1c67-53e7-4862-81ae-d0e013e3270b":   true,
	} {
		if got := leak(sig) != ""; got != want {
			t.Errorf("leak(%q) = %v", sig, got)
		}
	}
}

// TestCorpus runs Parse on every failed tool result of the real
// transcripts: signatures must be set and hold nothing that varies, and
// an agent's wrapper is never the error line. Every other result is
// parsed too, to try the normaliser on more text. The table it logs is
// for reading.
func TestCorpus(t *testing.T) {
	results := corpusResults(t)
	kinds := map[Kind]int{}
	classes := map[string]int{}
	var rows []string
	nfailed := 0
	for _, r := range results {
		e := Parse(r.call.Name, r.call.Input, r.res.Output, r.res.ExitCode)
		where := fmt.Sprintf("%s %s", r.session, r.call.Name)
		if (e.Kind == Environment || e.Kind == Protocol) && e.Signature == "" {
			t.Errorf("%s: empty signature for %q", where, e.Line)
		}
		if l := leak(e.Signature); l != "" {
			t.Errorf("%s: signature %q holds %s", where, e.Signature, l)
		}
		if isExitWrapper(e.Line) || strings.Contains(e.Line, "tool_use_error") {
			t.Errorf("%s: the line is a wrapper: %q", where, e.Line)
		}
		if e.Kind != None && e.Line == "" {
			t.Errorf("%s: %s with no line", where, e.Kind)
		}
		if again := Parse(r.call.Name, r.call.Input, r.res.Output, r.res.ExitCode); again != e {
			t.Errorf("%s: Parse is not deterministic", where)
		}
		if !r.res.Failed() {
			continue
		}
		nfailed++
		kinds[e.Kind]++
		classes[e.Class]++
		rows = append(rows, fmt.Sprintf("%-11s %-26s %-34.34s %q", e.Kind, e.Class, where, e.Signature))
	}
	if nfailed == 0 {
		t.Fatal("no failed tool result in the corpus")
	}
	sort.Strings(rows)
	t.Logf("%d tool results, %d failed", len(results), nfailed)
	t.Logf("by kind: none %d, refused %d, protocol %d, environment %d", kinds[None], kinds[Refused], kinds[Protocol], kinds[Environment])
	var cs []string
	for c, n := range classes {
		cs = append(cs, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(cs)
	t.Logf("by class: %s", strings.Join(cs, " "))
	for _, r := range rows {
		t.Log(r)
	}
}
