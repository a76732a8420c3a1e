package journal

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEdits reads edit tools' arguments, which are outside input: no
// panic, every edit names a file, every diff is one.
func FuzzEdits(f *testing.F) {
	f.Add("Edit", `{"file_path":"/r/a.go","old_string":"x\ny","new_string":"y"}`)
	f.Add("MultiEdit", `{"file_path":"a","edits":[{"old_string":"","new_string":""}]}`)
	f.Add("apply_patch", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch")
	f.Add("apply_patch", `{"patchText":"*** Begin Patch\n*** Add File: \n*** Move to: \n"}`)
	f.Add("str_replace_editor", `{"command":"insert","path":"p","new_str":"z"}`)
	f.Fuzz(func(t *testing.T, name, input string) {
		es, _ := callEdits(name, input)
		for _, e := range es {
			if e.file == "" {
				t.Fatalf("an edit of no file from %q", input)
			}
			d := e.diff()
			if !strings.HasPrefix(d, "--- a/"+e.file+"\n+++ b/"+e.file+"\n") {
				t.Fatalf("diff %q", d)
			}
			if utf8.ValidString(input) && !utf8.ValidString(d) {
				t.Fatalf("diff of valid text is not: %q", d)
			}
		}
	})
}
