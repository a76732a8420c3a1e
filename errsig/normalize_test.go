package errsig

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cannot use x (variable of type int) as string value in argument to f",
			"cannot use <v> (variable of type int) as string value in argument to <v>"},
		{"x.Foo undefined (type *Server has no field or method Foo)", "<v> undefined (type *<v> has no field or method <v>)"},
		{"declared and not used: count", "declared and not used: <v>"},
		{"count declared and not used", "<v> declared and not used"},
		{"assignment mismatch: 2 variables but strconv.Atoi returns 1 value", "assignment mismatch: <n> variables but <v> returns <n> value"},
		{"ls: cannot access 'types/': No such file or directory", "ls: cannot access <q>: no such file or directory"},
		{"can't cd to /workspace/app/build", "can't cd to <path>"},
		{"open C:\\Users\\me\\app\\x.json: The system cannot find the file", "open <path>: the system cannot find the file"},
		{"see https://github.com/acme/api/pull/17#issuecomment-123 and git@github.com:acme/api.git", "see <url> and <url>"},
		{"request 1af7fc5e-8455-4414-9ccd-011d40f70b2a at 2026-01-31T07:20:10.164Z", "request <id> at <time>"},
		{"commit 8b466a2 and 0xc000123abc", "commit <id> and <id>"},
		{"took 0.42s (420ms), 3 retries, version 1.2.3", "took <n>s (<n>ms), <n> retries, version <n>"},
		{"Not Found (HTTP 404)", "not found (http 404)"},
		{"HTTP/1.1 503 Service Unavailable", "http/<n> 503 service unavailable"},
		{"expected 404 to be 200", "expected <n> to be <n>"},
		{"error[E0308]: mismatched types", "error[e0308]: mismatched types"},
		{"error TS2339: Property 'x' does not exist on type 'Y'.", "error ts2339: property <q> does not exist on type <q>."},
		{"remote: error: GH006: Protected branch update failed for refs/heads/main.", "remote: error: gh006: protected branch update failed for <path>."},
		{"ModuleNotFoundError: No module named 'foo'", "modulenotfounderror: no module named <q>"},
		{"requests.exceptions.ConnectionError: Max retries exceeded", "requests.exceptions.connectionerror: max retries exceeded"},
		{"Could not find a package configuration file provided by \"LLVM\"", "could not find a package configuration file provided by <q>"},
		{"Set LLVM_DIR or CMAKE_PREFIX_PATH", "set llvm_dir or cmake_prefix_path"},
		{"checkRemoteMetadata() returned error: remote_not_found in useTodos", "<v>() returned error: remote_not_found in <v>"},
		{"int64 utf8 py3 sha256", "int64 utf8 py3 sha256"},
		{"JavaScript heap out of memory in TypeScript on GitHub", "javascript heap out of memory in typescript on github"},
		{"the user's files aren't there", "the user's files aren't there"},
		{"old_str `case TK_MATCH_CAPTURE:", "old_str <q>"},
		{"  spaced\tout  ", "spaced out"},
		{"cannot open “x y”", "cannot open <q>"},
		{"cannot open ‘x y’", "cannot open <q>"},
		// A path with spaces is one path where the message shows its end:
		// the line's end or a ':', or a known extension.
		{"Failed to find expected lines in /Users/me/Auto Run Docs/Initiation/2026-04-30-plan/PLAN-01.md:",
			"failed to find expected lines in <path>:"},
		{"open C:\\Program Files\\App Data\\x.json: The system cannot find the file", "open <path>: the system cannot find the file"},
		{"ls: /tmp/My File.txt: No such file or directory", "ls: <path>: no such file or directory"},
		{"can't cd to /workspace/My App/build", "can't cd to <path>"},
		// Where it does not, the words after a space stay words.
		{"failed to open /etc/app for reading config.json", "failed to open <path> for reading <path>"},
		{"error in /srv/app line 3: bad", "error in <path> line <n>: bad"},
		{"cd: /home/u/My Project: no such file", "cd: <path> project: no such file"},
		{"cp /a/b /c/d failed", "cp <path> <path> failed"},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// Curly and straight quotes hold the same value: one signature.
func TestNormalizeCurlyQuotes(t *testing.T) {
	if a, b := Normalize("cannot open “x y”"), Normalize(`cannot open "x y"`); a != b {
		t.Errorf("curly %q, straight %q", a, b)
	}
}

func TestNormalizeIdempotent(t *testing.T) {
	for _, c := range parseCases {
		for _, s := range []string{c.line, c.output} {
			once := Normalize(s)
			if twice := Normalize(once); twice != once {
				t.Errorf("Normalize not idempotent on %q:\n once %q\ntwice %q", s, once, twice)
			}
		}
	}
}

func TestValues(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`npm error Missing script: "lint"`, []string{"lint"}},
		{`apply_patch verification failed: error: failed to find expected lines in /src/app.ts:`, nil},
		{`go: undefined: parseConfig`, []string{"parseconfig"}},
		{`File has not been read yet. Read it first before writing to it.`, nil},
		{`EISDIR: illegal operation on a directory, read '/src/components'`, nil}, // where, not what
		{`error at line 12: cannot find module 'left-pad' in 3.2s`, []string{"left-pad"}},
		// A missing file's error is about that file, wherever it was looked for.
		{`ls: crates/orpheus-tauri/: No such file or directory`, []string{"orpheus-tauri"}},
		{`ls: /Users/dd/orpheus/docs/plans/: No such file or directory`, []string{"plans"}},
		{`File not found: /home/a/web/src/page-registry.tsx`, []string{"page-registry.tsx"}},
		{`ENOENT: no such file or directory, open 'C:\src\App.vue'`, []string{"app.vue"}},
		{`String to replace not found in file.`, nil},
	} {
		got := Values(tt.line)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Values(%q) = %q, want %q (signature %q)", tt.line, got, tt.want, Normalize(tt.line))
		}
	}
}
