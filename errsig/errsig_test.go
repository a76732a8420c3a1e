package errsig

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			got := Parse(c.tool, c.input, c.output, c.exit)
			want := Error{Kind: c.kind, Line: c.line, Signature: c.sig, Class: c.class}
			if got != want {
				t.Errorf("Parse(%q, …)\n got: %s %q %q\n      %q\nwant: %s %q %q\n      %q",
					c.tool, got.Kind, got.Class, got.Line, got.Signature, want.Kind, want.Class, want.Line, want.Signature)
			}
		})
	}
}

// sigOf is the signature Parse gives a Bash call of cmd that printed out
// and failed.
func sigOf(cmd, out string) string {
	return Parse("Bash", `{"command":`+quoteJSON(cmd)+`}`, "Exit code 1\n"+out, nil).Signature
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// TestSignaturesMatch lists errors that are the same error in two
// sessions: the signature must not see what differs.
func TestSignaturesMatch(t *testing.T) {
	pairs := []struct{ name, cmd1, out1, cmd2, out2 string }{
		{"go cannot use, other names and places",
			"go build ./...", "./tree.go:42:24: cannot use x (variable of type int) as string value in argument to f",
			"go vet ./cmd/...", "cmd/main.go:7:3: cannot use y (variable of type int) as string value in argument to g"},
		{"go undefined, other identifiers",
			"go build ./...", "cmd/root.go:12:9: undefined: strings",
			"go test ./...", "internal/x/y.go:3:1: undefined: filepath"},
		{"linter rule, other files",
			"golangci-lint run", "a/b.go:42:3: embedded fields should be listed before regular fields (embeddedstructfieldcheck)",
			"mise run lint", "[lint:go] cmd/x/transcript.go:9:2: embedded fields should be listed before regular fields (embeddedstructfieldcheck)"},
		{"gh 404, other repos",
			"gh api repos/acme/api/branches/main/protection", "gh: Not Found (HTTP 404)",
			"gh api repos/other/web/pulls/17", "gh: Not Found (HTTP 404)"},
		{"module missing, other modules and interpreters",
			"python3 a.py", "Traceback (most recent call last):\n  File \"/x/a.py\", line 1, in <module>\nModuleNotFoundError: No module named 'requests'",
			"uv run pytest", "Traceback (most recent call last):\n  File \"/y/b.py\", line 9, in <module>\nModuleNotFoundError: No module named 'numpy'"},
		{"missing file, other paths",
			"cat /tmp/a1b2/config.yaml", "cat: /tmp/a1b2/config.yaml: No such file or directory",
			"cat ./build/out.txt", "cat: ./build/out.txt: No such file or directory"},
		{"zsh glob, other paths",
			"ls /tmp/x*.txt", "(eval):1: no matches found: /tmp/x*.txt",
			"rm build/*.o", "(eval):1: no matches found: build/*.o"},
		{"command not found, bash and zsh",
			"ponyc x.pony", "bash: ponyc: command not found",
			"ponyc y.pony", "(eval):1: command not found: ponyc"},
		{"panic, other indexes",
			"go run .", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:",
			"go run .", "panic: runtime error: index out of range [17] with length 2\n\ngoroutine 7 [running]:"},
		{"tsc, pretty or not",
			"npx tsc --noEmit", "src/app.ts(12,7): error TS2339: Property 'name' does not exist on type 'User'.",
			"pnpm tsc", "src/b.ts:3:1 - error TS2339: Property 'id' does not exist on type 'Order'."},
		{"rust code, other crates",
			"cargo build", "error[E0308]: mismatched types\n --> src/main.rs:4:18",
			"cargo test", "error[E0308]: mismatched types\n --> crates/x/src/lib.rs:90:3"},
		{"timestamps, hashes, uuids, durations",
			"deploy", "error: build 3f9a2c1d8e failed at 2026-01-31T07:20:10.164Z after 12.5s (request 1af7fc5e-8455-4414-9ccd-011d40f70b2a)",
			"deploy", "error: build 77ab01ce42 failed at 2025-12-02T11:02:59Z after 3.1s (request fe5e1c67-53e7-4862-81ae-d0e013e3270b)"},
		{"urls with other paths",
			"curl -f https://api.example.com/v1/items/123", "curl: (22) The requested URL returned error: 404",
			"curl -f https://api.example.com/v2/users/9", "curl: (22) The requested URL returned error: 404"},
		{"memory addresses",
			"go test", "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b3c]",
			"go test", "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x10e8f2]"},
		{"npm code, other packages",
			"npm install", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.3.1",
			"npm install", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE could not resolve\nnpm ERR! While resolving: next@15.5.2"},
		{"a wrapper around the same command",
			"go test ./... 2>&1 | tail -20", "--- FAIL: TestParse (0.00s)",
			"cd /repo && go test ./...", "--- FAIL: TestParse (0.31s)"},
	}
	for _, p := range pairs {
		a, b := sigOf(p.cmd1, p.out1), sigOf(p.cmd2, p.out2)
		if a != b || a == "" {
			t.Errorf("%s: signatures differ\n  %q\n  %q", p.name, a, b)
		}
	}
}

// TestSignaturesDiffer lists errors that are different errors: their
// signatures must differ.
func TestSignaturesDiffer(t *testing.T) {
	pairs := []struct{ name, cmd1, out1, cmd2, out2 string }{
		{"404 from gh and from curl",
			"gh api repos/acme/api", "gh: Not Found (HTTP 404)",
			"curl -s https://api.github.com/repos/acme/api", "gh: Not Found (HTTP 404)"},
		{"404 and 403",
			"gh api repos/acme/api", "gh: Not Found (HTTP 404)",
			"gh api repos/acme/api", "gh: Not Found (HTTP 403)"},
		{"linter rules",
			"golangci-lint run", "a.go:1:2: string `x` has 3 occurrences, make it a constant (goconst)",
			"golangci-lint run", "a.go:1:2: string `x` has 3 occurrences, make it a constant (gocritic)"},
		{"compiler codes",
			"cargo build", "error[E0308]: mismatched types",
			"cargo build", "error[E0277]: mismatched types"},
		{"same message, other languages",
			"make", "a.go:1:2: undefined: x",
			"make", "a.ts:1:2: undefined: x"},
		{"exception types",
			"python a.py", "KeyError: 'id'",
			"python a.py", "IndexError: 'id'"},
		{"missing commands",
			"ponyc x", "bash: ponyc: command not found",
			"pnpm i", "bash: pnpm: command not found"},
		{"missing packages",
			"apt-get install -y llvm-dev", "E: Unable to locate package llvm-dev",
			"apt-get install -y libgtest-dev", "E: Unable to locate package libgtest-dev"},
		{"git subcommands",
			"git push", "fatal: unable to access: Could not resolve host: github.com",
			"git fetch", "fatal: unable to access: Could not resolve host: github.com"},
		{"failing tests",
			"go test ./...", "--- FAIL: TestParse (0.00s)",
			"go test ./...", "--- FAIL: TestNormalize (0.00s)"},
		{"npm codes",
			"npm install", "npm ERR! code ERESOLVE",
			"npm install", "npm ERR! code E404"},
		{"permission and missing",
			"cat /etc/x", "cat: /etc/x: Permission denied",
			"cat /etc/x", "cat: /etc/x: No such file or directory"},
		{"wrapped and unwrapped types",
			"go build", "a.go:1:1: cannot use x (variable of type int) as string value in argument to f",
			"go build", "a.go:1:1: cannot use x (variable of type []byte) as string value in argument to f"},
	}
	for _, p := range pairs {
		a, b := sigOf(p.cmd1, p.out1), sigOf(p.cmd2, p.out2)
		if a == b {
			t.Errorf("%s: same signature %q", p.name, a)
		}
	}
}

func TestProtocolSignaturesAcrossSessions(t *testing.T) {
	a := Parse("Edit", `{"file_path":"/a/b.go","old_string":"x"}`, "<tool_use_error>String to replace not found in file.\nString: func main() {</tool_use_error>", nil)
	b := Parse("Edit", `{"file_path":"/c/d.ts","old_string":"y"}`, "<tool_use_error>String to replace not found in file.\nString: export default x</tool_use_error>", nil)
	if a.Signature != b.Signature || a.Kind != Protocol {
		t.Errorf("got %v %q and %q", a.Kind, a.Signature, b.Signature)
	}
	g := Parse("replace", `{}`, "Failed to edit, 0 occurrences found for old_string (foo). Original old_string was (foo) in /x/y.js.", nil)
	if g.Signature == a.Signature {
		t.Errorf("Gemini's and Claude's quirks share %q", g.Signature)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{None: "none", Refused: "refused", Protocol: "protocol", Environment: "environment"} {
		if k.String() != want {
			t.Errorf("%d: %q", k, k.String())
		}
	}
}

func TestParseWindow(t *testing.T) {
	// The error sits in the middle of a long output, outside both
	// windows, and near the end: the end wins.
	var b strings.Builder
	b.WriteString("Exit code 1\n")
	for b.Len() < 40<<10 {
		b.WriteString("=== RUN   TestX\n--- PASS: TestX (0.00s)\n")
	}
	b.WriteString("--- FAIL: TestMiddle (0.00s)\n")
	for b.Len() < 80<<10 {
		b.WriteString("=== RUN   TestY\n--- PASS: TestY (0.00s)\n")
	}
	b.WriteString("--- FAIL: TestEnd (0.00s)\nFAIL\n")
	e := Parse("Bash", `{"command":"go test ./..."}`, b.String(), nil)
	if e.Line != "--- FAIL: TestEnd (0.00s)" {
		t.Errorf("got %q", e.Line)
	}
}
