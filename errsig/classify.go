package errsig

import (
	"strings"
	"unicode/utf8"

	"github.com/lorehq/lore/internal/shellcmd"
)

// verdict is what one line is worth as the error line.
type verdict struct {
	// score: the higher, the more specific; 0 an ordinary line, -1
	// noise that is never the error line (frames, wrappers, progress).
	score int
	class string
	form  form
	// cut is where the message starts, after a location or a shell's
	// prefix (formLoc, formShell).
	cut int
	// name: the language of a location's file (formLoc), a test
	// framework (formTest), an exception type (formException), or the
	// missing command (command not found).
	name string
	// join: the next line completes this one (CMake, a Rust panic).
	join bool
	// last: among equal scores the last such line wins (the final
	// exception of a traceback), not the first.
	last bool
}

// form says how a line makes a signature.
type form uint8

const (
	formPlain     form = iota // the program's name, then the line
	formLoc                   // the file's language, then the message after the location
	formShell                 // "sh", then the message after the shell's prefix
	formTest                  // the test framework, then the line, identifiers kept
	formException             // the language, then the line
)

// Scores of the kinds of lines, most specific first.
const (
	scoreTimeout   = 95 // the agent's harness killed the command
	scoreCompile   = 90 // a compiler or linter diagnostic at a location
	scorePanic     = 85
	scoreTestName  = 82 // a failing test, named
	scoreNotFound  = 80 // command not found
	scoreException = 80
	scoreHTTP      = 75
	scoreCode      = 70 // a tool's error code (npm ERR! code E…), CMake, git remote
	scoreCrash     = 70 // segmentation fault, out of memory
	scoreTestLine  = 65 // pytest's E lines
	scoreFatal     = 60 // fatal:, Killed, a merge conflict
	scoreSystem    = 55 // permission, network, apt
	scoreMissing   = 50 // a missing file or directory
	scoreError     = 45 // "error: …", "Error: …"
	scoreTestMark  = 40 // × test name
	scoreLocated   = 35 // an error at file:line, no column (t.Errorf)
	scoreVague     = 35 // "not found", of something
	scoreMention   = 30 // a line that mentions an error
	scoreFailed    = 28
	scoreComplaint = 25 // cannot, invalid, denied, …
	scoreSummary   = 20 // "2 failed, 3 passed", "could not compile"
	scoreWrapper   = 15 // make's "*** [x] Error 2", "FAIL pkg", ELIFECYCLE
	scoreUsage     = 10
	scoreWarning   = 1

	// minScore: below it a line (a warning) is a weaker witness than an
	// ordinary line of an output that failed.
	minScore = scoreUsage
)

// classify judges one cleaned line with hints f, once noise has had its
// say.
func (s *scanner) classify(l string, f feat) verdict {
	if f&fTimeout != 0 {
		if hasPrefixFold(l, "command timed out after") || hasPrefixFold(l, "error: command timed out") ||
			strings.HasPrefix(l, "[The command timed out") || strings.HasPrefix(l, "[The command has no new output") {
			return verdict{score: scoreTimeout, class: ClassTimeout}
		}
	}
	if f&fLoc != 0 {
		if v, ok := locVerdict(l, f); ok {
			return v
		}
	}
	if f&(fError|fPanic|fFatal) != 0 {
		switch {
		case strings.HasPrefix(l, "error[E"):
			return verdict{score: scoreCompile, class: ClassCompile, form: formLoc, name: "rust"}
		case strings.HasPrefix(l, "error TS"):
			return verdict{score: scoreCompile, class: ClassCompile, form: formLoc, name: "ts"}
		case strings.HasPrefix(l, "panic: "), strings.HasPrefix(l, "fatal error: "):
			return verdict{score: scorePanic, class: ClassPanic}
		}
	}
	if f&fPanic != 0 && strings.HasPrefix(l, "thread '") && strings.Contains(l, "panicked at") {
		return verdict{score: scorePanic, class: ClassPanic, join: true}
	}
	if f&(fFail|fError) != 0 {
		if v, ok := testVerdict(l); ok {
			return v
		}
	}
	if f&(fCommand|fNotFound) != 0 {
		if v, ok := s.commandNotFound(l); ok {
			return v
		}
	}
	if f&fErrorType != 0 {
		if name, ok := exceptionName(l); ok {
			return verdict{score: scoreException, form: formException, name: name, last: true}
		}
	}
	if f&(fHTTP|fNotFound|fError|fDenied|fConflict|fFail|fTimeout|fCannot) != 0 && hasDigit(l) {
		if code := httpStatus(l); code != "" {
			return verdict{score: scoreHTTP, class: ClassHTTP + ":" + code}
		}
	}
	if f&fError != 0 {
		if v, ok := toolCodeVerdict(l); ok {
			return v
		}
	}
	if f&fCrash != 0 {
		switch {
		case strings.Contains(l, "Segmentation fault"), strings.Contains(l, "segmentation fault"):
			return verdict{score: scoreCrash, class: ClassCrash}
		case strings.Contains(l, "out of memory"), strings.Contains(l, "OutOfMemory"):
			return verdict{score: scoreCrash, class: ClassOOM}
		case l == "Killed", strings.HasPrefix(l, "Killed: "):
			return verdict{score: scoreFatal, class: ClassOOM}
		case strings.Contains(l, "core dumped"), strings.HasPrefix(l, "Aborted"):
			return verdict{score: scoreFatal, class: ClassCrash}
		}
	}
	if f&fFatal != 0 && (strings.HasPrefix(l, "fatal: ") || strings.HasPrefix(l, "Fatal: ") || strings.HasPrefix(l, "FATAL")) {
		return verdict{score: scoreFatal}
	}
	if f&fConflict != 0 && strings.HasPrefix(l, "CONFLICT (") {
		return verdict{score: scoreFatal, class: ClassGit}
	}
	if f&(fPermission|fDenied) != 0 && containsAny(l, permissionPhrases) {
		return verdict{score: scoreSystem, class: ClassPermission}
	}
	if f&fNetwork != 0 && containsAny(l, networkPhrases) {
		return verdict{score: scoreSystem, class: ClassNetwork}
	}
	if strings.HasPrefix(l, "E: ") {
		return verdict{score: scoreSystem, class: ClassApt}
	}
	if f&fDenied != 0 && (strings.HasPrefix(l, "! [rejected]") || strings.HasPrefix(l, "! [remote rejected]")) {
		return verdict{score: scoreSystem, class: ClassGit}
	}
	if f&(fNotFound|fCannot|fFail) != 0 && containsAny(l, missingPhrases) {
		return verdict{score: scoreMissing, class: ClassNotFound}
	}
	if f&fTimeout != 0 && (strings.Contains(l, "timed out") || strings.Contains(l, "Timed out")) {
		return verdict{score: scoreMissing, class: ClassTimeout}
	}
	if f&fError != 0 && isErrorLine(l) {
		return verdict{score: scoreError}
	}
	if f&fNotFound != 0 && (strings.Contains(l, "not found") || strings.Contains(l, "Not Found") || strings.Contains(l, "NOT FOUND")) {
		return verdict{score: scoreVague, class: ClassNotFound}
	}
	if f&(fFail|fError) != 0 && strings.Contains(l, " passed") {
		return verdict{score: scoreSummary, class: ClassTest}
	}
	if f&fError != 0 {
		return verdict{score: scoreMention}
	}
	if f&fFail != 0 {
		return verdict{score: scoreFailed}
	}
	if f&(fCannot|fDenied|fConflict|fAssert) != 0 {
		return verdict{score: scoreComplaint}
	}
	if f&fUsage != 0 && hasPrefixFold(l, "usage:") {
		return verdict{score: scoreUsage}
	}
	if f&fWarning != 0 {
		return verdict{score: scoreWarning}
	}
	return verdict{}
}

// noise recognises lines that are never the error line, and a few whose
// shape alone says what they are.
func (s *scanner) noise(l string) (verdict, bool) {
	n := verdict{score: -1}
	c := l[0]
	switch c {
	case 'a':
		if strings.HasPrefix(l, "at ") && strings.ContainsAny(l, "(:") {
			return n, true // a JavaScript or Java stack frame
		}
	case 'F':
		if l == "FAIL" || strings.HasPrefix(l, "File \"") {
			return n, true
		}
	case '=':
		if strings.HasPrefix(l, "=== RUN") || strings.HasPrefix(l, "=== PAUSE") || strings.HasPrefix(l, "=== CONT") || strings.HasPrefix(l, "=== NAME") {
			return n, true
		}
	case '-':
		if strings.HasPrefix(l, "--- PASS") || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "--> ") {
			return n, true
		}
		if strings.HasPrefix(l, "-- ") { // CMake's progress
			if strings.Contains(l, "error") {
				return verdict{score: scoreSummary, class: ClassCMake}, true
			}
			return n, true
		}
	case 'o':
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "ok\t") {
			return n, true
		}
	case 'g':
		if strings.HasPrefix(l, "goroutine ") {
			return n, true
		}
		if isMake(l) {
			return makeVerdict(l)
		}
	case 'c':
		if strings.HasPrefix(l, "created by ") {
			return n, true
		}
	case 'h':
		if strings.HasPrefix(l, "hint: ") {
			return n, true
		}
	case 's':
		if strings.HasPrefix(l, "stderr | ") || strings.HasPrefix(l, "stdout | ") {
			return n, true
		}
	case 'T':
		if strings.HasPrefix(l, "Traceback (most recent call last)") {
			s.python = true
			return n, true
		}
	case 'D':
		if strings.HasPrefix(l, "During handling of the above exception") {
			return n, true
		}
	case 'I':
		if strings.HasPrefix(l, "Ignored nodes") || strings.HasPrefix(l, "Ign:") {
			return n, true
		}
	case 'R':
		if strings.HasPrefix(l, "Reading package lists") || strings.HasPrefix(l, "Reading state information") {
			return n, true
		}
	case 'B':
		if strings.HasPrefix(l, "Building dependency tree") {
			return n, true
		}
	case 'S':
		if strings.HasPrefix(l, "Serialized Error") || strings.HasPrefix(l, "Shell cwd was reset") {
			return n, true
		}
	case 'Y':
		if strings.HasPrefix(l, "Your command ran successfully") { // SWE-agent
			return n, true
		}
	case 'W':
		if strings.HasPrefix(l, "Wall time:") {
			return n, true
		}
	case 'O':
		if l == "Output:" || strings.HasPrefix(l, "Original token count:") {
			return n, true // Codex's header
		}
	case 'C':
		if strings.HasPrefix(l, "Chunk ID:") {
			return n, true
		}
	case 'P':
		if l == "PASS" || strings.HasPrefix(l, "Process running with session ID") {
			return n, true
		}
	case '.':
		if strings.HasPrefix(l, "...") && strings.Contains(l, "truncated") {
			return n, true // Claude Code's cut in a long output
		}
	case 'H', 'G':
		if strings.HasPrefix(l, "Hit:") || strings.HasPrefix(l, "Get:") {
			return n, true
		}
	case 'm':
		if isMake(l) {
			return makeVerdict(l)
		}
	case 'E':
		// pytest: "E       assert 1 == 2"
		if len(l) > 3 && l[1] == ' ' && l[2] == ' ' {
			return verdict{score: scoreTestLine, class: ClassTest, form: formTest, name: "pytest"}, true
		}
	case 'U':
		if strings.HasPrefix(l, "Usage:") {
			return verdict{score: scoreUsage}, true
		}
	case '|', '^', '~', '>':
		if c == '>' && len(l) > 2 && l[1] == ' ' {
			return verdict{}, true // npm's "> script" echo
		}
		return n, true
	case '[':
		if strings.HasPrefix(l, "[The command completed") || strings.HasPrefix(l, "[Python Interpreter") ||
			strings.HasPrefix(l, "[Current working directory") || strings.HasPrefix(l, "[Command finished") ||
			strings.HasSuffix(l, "lines omitted]") || strings.HasSuffix(l, "truncated]") {
			return n, true
		}
		if l[len(l)-1] == ']' && len(l) > 2 && isAlpha(l[1]) { // Next.js: "[TypeError: x is not a function]"
			if _, ok := exceptionName(l[1 : len(l)-1]); ok {
				return verdict{score: scoreException, form: formException, name: exceptionType(l[1 : len(l)-1]), last: true}, true
			}
		}
	case '#':
		if strings.HasPrefix(l, "# ") && strings.IndexByte(l[2:], ' ') < 0 {
			return n, true // go build's package header
		}
	}
	if isDigit(c) {
		if v, ok := eslintVerdict(l); ok {
			return v, true
		}
		// A listing of code: "131|   expect(x)" (vitest), "  12 | foo"
		// (rustc), "89→\tif err" (Claude Code's Read), "293\t  x()" (cat -n).
		i := skipDigits(l, 0)
		if i < len(l) && l[i] == '\t' || strings.HasPrefix(l[i:], "→") {
			return n, true
		}
		if i = skipSpaces(l, i); i < len(l) && l[i] == '|' {
			return n, true
		}
	}
	if c >= 0x80 {
		return s.nonASCII(l)
	}
	if !isAlnum(c) && !hasAlnum(l) {
		return n, true // a rule, a box, a caret line
	}
	return verdict{}, false
}

// nonASCII judges lines that start with a symbol: test runners' marks and
// frames, boxes.
func (s *scanner) nonASCII(l string) (verdict, bool) {
	n := verdict{score: -1}
	r, _ := utf8.DecodeRuneInString(l)
	switch {
	case r == '❯', r == '✓', r == '✔', r == '√', r == '⎯', r >= '─' && r <= '╿': // frames, passes, boxes
		return n, true
	case r == '●':
		if strings.Contains(l, " › ") {
			return verdict{score: scoreTestName, class: ClassTest, form: formTest, name: "jest"}, true
		}
		return verdict{score: scoreError, class: ClassTest}, true
	case r == '×', r == '✕', r == '✗', r == '✖', r == '✘':
		return verdict{score: scoreTestMark, class: ClassTest, form: formTest}, true
	case r == '→', r == '⚠':
		return verdict{}, false
	}
	if !hasAlnum(l) {
		return n, true
	}
	return verdict{}, false
}

// locVerdict judges a diagnostic at a location: file:line:col: message,
// file:line: message, file(line,col): message.
func locVerdict(l string, f feat) (verdict, bool) {
	cut, path, col, ok := parseLoc(l)
	if !ok || !col && f&(fError|fErrorType|fFail|fCannot|fNotFound|fAssert|fPanic|fDenied|fWarning) == 0 {
		return verdict{}, false // a test's t.Log, a grep hit
	}
	if strings.Contains(path, "://") || !hasFileExt(path) && !strings.Contains(path, "/") {
		return verdict{}, false
	}
	ext := ""
	if dot := strings.LastIndexByte(path, '.'); dot >= 0 && !strings.ContainsAny(path[dot:], "/\\") {
		ext = path[dot+1:]
	}
	msg := l[cut:]
	lang := languages[lowerASCII(ext)]
	if lang == "" {
		lang = lowerASCII(ext)
	}
	v := verdict{score: scoreCompile, class: ClassCompile, form: formLoc, cut: cut, name: lang}
	if rule := lintRule(msg); rule != "" {
		if strings.HasPrefix(rule, "-W") {
			v.score, v.class = scoreSummary, ClassCompile
			return v, true
		}
		v.class = ClassLint + ":" + rule
		return v, true
	}
	switch {
	case hasPrefixFold(msg, "warning"):
		v.score = scoreSummary
	case hasPrefixFold(msg, "note:"), hasPrefixFold(msg, "info"):
		v.score = scoreWarning
	case hasPrefixFold(msg, "error"), hasPrefixFold(msg, "fatal error"), col:
	case l[cut-1] == '\t' || !isAlpha(msg[0]):
		// grep -n's "x.go:89:\tif err …", a listed comment, a test's
		// t.Log: not a diagnostic.
		return verdict{}, false
	default:
		// file:line: message — a test's t.Errorf, a located exception.
		v.score, v.class = scoreLocated, ""
		if isTestFile(l[:cut]) {
			v.class = ClassTest
		}
	}
	return v, true
}

// eslintVerdict reads eslint's stylish format, whose file stands on a line
// of its own: "12:7  error  'x' is assigned a value but never used  no-unused-vars".
func eslintVerdict(l string) (verdict, bool) {
	i := skipDigits(l, 0)
	if i >= len(l) || l[i] != ':' {
		return verdict{}, false
	}
	j := skipDigits(l, i+1)
	if j == i+1 || j >= len(l) || l[j] != ' ' {
		return verdict{}, false
	}
	k := skipSpaces(l, j)
	level := ""
	for _, lv := range []string{"error", "warning"} {
		if strings.HasPrefix(l[k:], lv+" ") {
			level = lv
		}
	}
	sp := strings.LastIndex(l, "  ")
	if level == "" || sp <= k {
		return verdict{}, false
	}
	rule := strings.TrimSpace(l[sp:])
	if !isRuleName(rule) {
		return verdict{}, false
	}
	v := verdict{score: scoreCompile, class: ClassLint + ":" + rule, form: formLoc, cut: skipSpaces(l, k+len(level))}
	if level == "warning" {
		v.score = scoreSummary
	}
	return v, true
}

// parseLoc reads a location prefix: cut is where the message starts,
// path the file, col whether a column is given.
func parseLoc(l string) (cut int, path string, col, ok bool) {
	i := 0
	if len(l) > 2 && isAlpha(l[0]) && l[1] == ':' && (l[2] == '\\' || l[2] == '/') {
		i = 2 // C:\…
	}
	for i < len(l) && l[i] != ':' && l[i] != '(' && l[i] != ' ' && l[i] != '\t' {
		i++
	}
	if i < 2 || i >= len(l) || l[i] == ' ' || l[i] == '\t' {
		return 0, "", false, false
	}
	path = l[:i]
	j := i + 1
	if l[i] == '(' { // file(12,5): message
		k := skipDigits(l, j)
		if k == j || k >= len(l) {
			return 0, "", false, false
		}
		if l[k] == ',' {
			col = true
			k = skipDigits(l, k+1)
		}
		if k+1 >= len(l) || l[k] != ')' || l[k+1] != ':' {
			return 0, "", false, false
		}
		return skipSpaces(l, k+2), path, col, true
	}
	k := skipDigits(l, j)
	if k == j || k >= len(l) {
		return 0, "", false, false
	}
	if l[k] == ':' && k+1 < len(l) && isDigit(l[k+1]) {
		col = true
		k = skipDigits(l, k+1)
	}
	switch {
	case k < len(l) && l[k] == ':':
		k++
	case strings.HasPrefix(l[k:], " - "): // tsc --pretty, pyright
		k += 3
	default:
		return 0, "", false, false
	}
	k = skipSpaces(l, k)
	if strings.HasPrefix(l[k:], "- ") {
		k = skipSpaces(l, k+2)
	}
	if k >= len(l) {
		return 0, "", false, false
	}
	return k, path, col, true
}

// languages name the language of a file extension in signatures.
var languages = map[string]string{
	"go": "go", "rs": "rust", "ts": "ts", "tsx": "ts", "mts": "ts", "cts": "ts", "js": "js", "jsx": "js",
	"mjs": "js", "cjs": "js", "vue": "js", "svelte": "js", "py": "python", "pyi": "python", "c": "c", "h": "c",
	"cc": "c++", "cpp": "c++", "cxx": "c++", "hpp": "c++", "hh": "c++", "java": "java", "kt": "kotlin",
	"rb": "ruby", "php": "php", "cs": "c#", "swift": "swift", "sh": "sh", "bash": "sh", "scala": "scala",
	"dart": "dart", "ex": "elixir", "exs": "elixir", "hs": "haskell", "zig": "zig", "lua": "lua",
	"pony": "pony", "m": "objc", "mm": "objc", "sol": "solidity",
}

// lintRule returns the rule a linter names at the end of its message:
// golangci-lint's "(errcheck)", pyright's "(reportMissingImports)",
// ShellCheck's or mypy's "[SC2086]", eslint's "[Error/no-unused-vars]",
// flake8's and ruff's leading "F401".
func lintRule(msg string) string {
	m := strings.TrimRight(msg, " ")
	if n := len(m); n > 2 && (m[n-1] == ')' || m[n-1] == ']') {
		open := byte('(')
		if m[n-1] == ']' {
			open = '['
		}
		i := strings.LastIndexByte(m, open)
		if i > 0 && m[i-1] == ' ' {
			rule := m[i+1 : n-1]
			if j := strings.IndexByte(rule, '/'); j > 0 && (strings.HasPrefix(rule, "Error/") || strings.HasPrefix(rule, "Warning/")) {
				rule = rule[j+1:]
			}
			if isRuleName(rule) {
				return rule
			}
		}
	}
	if sp := strings.IndexByte(m, ' '); sp > 0 && isCode(m[:sp]) && isUpperASCII(m[0]) {
		return m[:sp]
	}
	return ""
}

func isRuleName(s string) bool {
	if s == "" || len(s) > 48 || digits(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '/' && c != '@' {
			return false
		}
	}
	return true
}

func isTestFile(p string) bool {
	p = lowerASCII(p)
	return strings.Contains(p, "_test.") || strings.Contains(p, "test_") || strings.Contains(p, ".test.") ||
		strings.Contains(p, ".spec.") || strings.Contains(p, "/tests/")
}

// testVerdict recognises a line that names a failing test.
func testVerdict(l string) (verdict, bool) {
	switch {
	case strings.HasPrefix(l, "--- FAIL: "):
		return verdict{score: scoreTestName, class: ClassTest, form: formTest, name: "go test"}, true
	case strings.HasPrefix(l, "FAILED ") && strings.Contains(l, "::"):
		return verdict{score: scoreTestName, class: ClassTest, form: formTest, name: "pytest"}, true
	case strings.HasPrefix(l, "ERROR ") && (strings.Contains(l, "::") || strings.Contains(l, " - ")):
		return verdict{score: scoreTestName, class: ClassTest, form: formTest, name: "pytest"}, true
	case isUnittestLine(l):
		return verdict{score: scoreTestName, class: ClassTest, form: formTest, name: "unittest"}, true
	case strings.HasPrefix(l, "FAILED ("):
		return verdict{score: scoreSummary, class: ClassTest}, true // unittest's "FAILED (failures=2)"
	case strings.HasPrefix(l, "FAIL\t"):
		return verdict{score: scoreWrapper, class: ClassTest}, true // go test's package line
	case strings.HasPrefix(l, "FAIL "):
		if strings.Contains(l, " > ") {
			return verdict{score: scoreTestName, class: ClassTest, form: formTest, name: "vitest"}, true
		}
		return verdict{score: scoreMention, class: ClassTest}, true // a suite that failed to load
	}
	return verdict{}, false
}

// isUnittestLine recognises unittest's (and Django's) report of a
// failing test: "FAIL: test_x (app.tests.T.test_x)".
func isUnittestLine(l string) bool {
	rest, ok := strings.CutPrefix(l, "FAIL: ")
	if !ok {
		if rest, ok = strings.CutPrefix(l, "ERROR: "); !ok {
			return false
		}
	}
	name, where, ok := strings.Cut(rest, " (")
	return ok && strings.HasPrefix(name, "test") && !strings.Contains(name, " ") &&
		strings.HasSuffix(where, ")") && !strings.Contains(where, " ")
}

// commandNotFound recognises a shell that could not find a command, and
// the shell's other complaints.
func (s *scanner) commandNotFound(l string) (verdict, bool) {
	cut := shellPrefix(l)
	rest := l
	if cut > 0 {
		rest = l[cut:]
	}
	name := ""
	switch {
	case strings.HasPrefix(rest, "command not found: "):
		name = rest[len("command not found: "):]
	case strings.HasSuffix(rest, ": command not found"):
		name = rest[:len(rest)-len(": command not found")]
	case cut > 0 && strings.HasSuffix(rest, ": not found"):
		name = rest[:len(rest)-len(": not found")]
	case cut > 0 && s.exit == 127 && strings.HasSuffix(rest, ": No such file or directory"):
		name = rest[:len(rest)-len(": No such file or directory")]
	case strings.Contains(rest, "is not recognized as an internal or external command"),
		strings.Contains(rest, "executable file not found in $PATH"):
		return verdict{score: scoreNotFound, class: ClassCommandNotFound}, true
	}
	if name != "" && !strings.ContainsAny(name, " \t") {
		return verdict{score: scoreNotFound, class: ClassCommandNotFound, form: formShell, cut: cut, name: name}, true
	}
	if cut > 0 {
		v := verdict{score: scoreMissing, class: ClassNotFound, form: formShell, cut: cut}
		if !containsAny(rest, missingPhrases) {
			v.score, v.class = scoreError, ""
		}
		return v, true
	}
	return verdict{}, false
}

// shellPrefix returns where the message starts after a shell's own
// prefix — "bash: ", "bash: line 1: ", "/bin/sh: 1: ", "zsh:1: ",
// "(eval):1: " — or 0.
func shellPrefix(l string) int {
	if strings.HasPrefix(l, "(eval):") {
		k := skipDigits(l, len("(eval):"))
		if strings.HasPrefix(l[k:], ": ") {
			return k + 2
		}
		return 0
	}
	i := 0
	for _, dir := range []string{"/usr/local/bin/", "/usr/bin/", "/bin/"} {
		if strings.HasPrefix(l, dir) {
			i = len(dir)
			break
		}
	}
	j := strings.IndexByte(l[i:], ':')
	if j <= 0 || !shellcmd.IsShellProgram(l[i:i+j]) {
		return 0
	}
	k := i + j + 1
	if k < len(l) && isDigit(l[k]) { // zsh:1:
		k = skipDigits(l, k)
		if k < len(l) && l[k] == ':' {
			k++
		}
	}
	k = skipSpaces(l, k)
	// "line 1: " or "1: "
	m := k
	if strings.HasPrefix(l[m:], "line ") {
		m += len("line ")
	}
	if e := skipDigits(l, m); e > m && strings.HasPrefix(l[e:], ": ") {
		k = e + 2
	}
	if k >= len(l) {
		return 0
	}
	return k
}

// exceptionName reports whether l starts with an exception: a type name,
// maybe dotted, whose last part ends in Error, Exception, Exit, Interrupt,
// …, then ':' or the end of the line. A bare "Error:" is not one: every
// tool writes that.
func exceptionName(l string) (string, bool) {
	for _, p := range []string{"Uncaught ", "Unhandled ", "Exception in thread "} {
		if strings.HasPrefix(l, p) {
			l = l[len(p):]
			if p == "Exception in thread " {
				if q := quoteLen(l, 0); q > 0 {
					l = strings.TrimSpace(l[q:])
				}
			}
		}
	}
	i := 0
	for i < len(l) && (isWordByte(l[i]) || l[i] == '.' || l[i] == '$') {
		i++
	}
	if i == 0 {
		return "", false
	}
	rest := l[i:]
	if rest != "" && rest[0] != ':' && !strings.HasPrefix(rest, " [") {
		return "", false
	}
	name := l[:i]
	last := name
	if d := strings.LastIndexByte(name, '.'); d >= 0 {
		last = name[d+1:]
	}
	if last == "" || !isUpperASCII(last[0]) || last == "Error" || strings.HasSuffix(last, "Warning") || !isExceptionName(last) {
		return "", false
	}
	return last, true
}

// exceptionType is the type exceptionName finds, or "".
func exceptionType(l string) string {
	name, _ := exceptionName(l)
	return name
}

// httpStatus finds an HTTP error status (400–599) in l: after "HTTP",
// "status", "code", "error", or before a reason phrase.
func httpStatus(l string) string {
	for i := 0; i+3 <= len(l); i++ {
		if !isDigit(l[i]) || i > 0 && (isAlnum(l[i-1]) || l[i-1] == '.' || l[i-1] == ':' || l[i-1] == '-' || l[i-1] == '_' || l[i-1] == '/') {
			continue
		}
		j := skipDigits(l, i)
		if j-i != 3 || l[i] < '4' || l[i] > '5' || j < len(l) && (isAlnum(l[j]) || l[j] == '.' && j+1 < len(l) && isDigit(l[j+1])) {
			i = j
			continue
		}
		before := lowerASCII(strings.TrimRight(l[max(0, i-16):i], " :("))
		after := lowerASCII(l[j:min(len(l), j+24)])
		after = strings.TrimLeft(after, " :-")
		switch {
		case strings.HasSuffix(before, "http"), strings.HasSuffix(before, "http/1.1"), strings.HasSuffix(before, "http/1.0"),
			strings.HasSuffix(before, "http/2"), strings.HasSuffix(before, "http/3"), strings.HasSuffix(before, "http error"),
			strings.HasSuffix(before, "status"), strings.HasSuffix(before, "status code"), strings.HasSuffix(before, "returned error"),
			strings.HasSuffix(before, "error code"):
			return l[i:j]
		}
		for _, r := range reasonPhrases {
			if strings.HasPrefix(after, r) {
				return l[i:j]
			}
		}
		i = j
	}
	return ""
}

var reasonPhrases = []string{
	"not found", "forbidden", "unauthorized", "bad request", "internal server error", "service unavailable",
	"too many requests", "method not allowed", "unprocessable", "conflict", "bad gateway", "gateway timeout",
	"gone", "payment required", "precondition failed", "request timeout", "not acceptable",
}

// toolCodeVerdict recognises tools' own error codes and summaries: npm,
// pnpm, yarn, make, CMake, git's remote, cargo.
func toolCodeVerdict(l string) (verdict, bool) {
	switch {
	case strings.HasPrefix(l, "npm ERR! code "), strings.HasPrefix(l, "npm error code "):
		code := strings.TrimSpace(l[strings.Index(l, "code ")+5:])
		if code == "ELIFECYCLE" {
			return verdict{score: scoreWrapper, class: ClassNpm}, true
		}
		return verdict{score: scoreCode, class: ClassNpm + ":" + code}, true
	case strings.HasPrefix(l, "npm ERR! A complete log"), strings.HasPrefix(l, "npm error A complete log"),
		strings.HasPrefix(l, "npm ERR! Log files"), strings.HasPrefix(l, "npm error Log files"),
		strings.HasPrefix(l, "npm ERR! errno"), strings.HasPrefix(l, "npm error errno"):
		return verdict{score: -1}, true
	case strings.HasPrefix(l, "npm ERR!"), strings.HasPrefix(l, "npm error "):
		return verdict{score: scoreError, class: ClassNpm}, true
	case strings.HasPrefix(l, "ERR_PNPM_"):
		code := l
		if sp := strings.IndexByte(code, ' '); sp > 0 {
			code = code[:sp]
		}
		if code == "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL" || code == "ERR_PNPM_RECURSIVE_EXEC_FIRST_FAIL" {
			return verdict{score: scoreWrapper, class: ClassPnpm}, true
		}
		return verdict{score: scoreCode, class: ClassPnpm + ":" + code}, true
	case strings.Contains(l, "ELIFECYCLE"), strings.HasPrefix(l, "error Command failed with exit code"),
		strings.HasPrefix(l, "Error: Process completed with exit code"):
		return verdict{score: scoreWrapper}, true
	case strings.HasPrefix(l, "remote: error:"), strings.HasPrefix(l, "remote: fatal:"):
		return verdict{score: scoreCode, class: ClassGit}, true
	case strings.HasPrefix(l, "CMake Error"):
		return verdict{score: scoreCode, class: ClassCMake, join: true}, true
	case strings.HasPrefix(l, "error: could not compile"), strings.HasPrefix(l, "error: aborting due to"),
		strings.HasPrefix(l, "Found ") && strings.Contains(l, " error"):
		return verdict{score: scoreSummary, class: ClassCompile}, true
	}
	return verdict{}, false
}

// makeVerdict judges one of make's own lines; ok is false for the others
// it prints ("make[1]: x: No such file or directory"), judged as any line.
func makeVerdict(l string) (v verdict, ok bool) {
	switch {
	case strings.Contains(l, "Entering directory"), strings.Contains(l, "Leaving directory"), strings.Contains(l, "Nothing to be done"):
		return verdict{score: -1}, true
	case strings.Contains(l, "No rule to make target"), strings.Contains(l, "missing separator"), strings.Contains(l, "No targets"):
		return verdict{score: scoreMissing, class: ClassMake}, true
	case strings.Contains(l, "] Error "):
		return verdict{score: scoreWrapper, class: ClassMake}, true
	case strings.Contains(l, "***"):
		return verdict{score: scoreError, class: ClassMake}, true
	}
	return verdict{}, false
}

// isMake reports whether l is one of make's own lines: "make: *** …",
// "make[1]: *** …", "gmake[2]: …".
func isMake(l string) bool {
	i := 0
	if strings.HasPrefix(l, "gmake") {
		i = 5
	} else if strings.HasPrefix(l, "make") {
		i = 4
	} else {
		return false
	}
	if i < len(l) && l[i] == '[' {
		i = skipDigits(l, i+1)
		if i >= len(l) || l[i] != ']' {
			return false
		}
		i++
	}
	return strings.HasPrefix(l[i:], ": ")
}

// isErrorLine reports whether l is an error message by its form:
// "error: …", "Error: …", "ERROR …", "[ERROR] …", "x: error: …".
func isErrorLine(l string) bool {
	for _, p := range []string{"error:", "Error:", "ERROR", "[ERROR]", "[error]", "error ", "Error ", "ERR!", "ERR "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return strings.Contains(l, ": error:") || strings.Contains(l, ": Error:") || strings.Contains(l, ": error ") ||
		strings.Contains(l, " ERROR ") || strings.Contains(l, ": ERROR")
}

var (
	permissionPhrases = []string{
		"Permission denied", "permission denied", "EACCES", "Operation not permitted", "EPERM",
		"Read-only file system", "Access is denied", "Access denied", "access denied", "not permitted",
		"sandbox denied", "Permission Denied",
	}
	networkPhrases = []string{
		"Could not resolve host", "Temporary failure resolving", "Temporary failure in name resolution",
		"Name or service not known", "nodename nor servname", "Connection refused", "connection refused",
		"ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "ECONNRESET", "Network is unreachable", "network is unreachable",
		"certificate verify failed", "Connection timed out", "connection timed out", "Could not connect",
		"Failed to connect", "failed to connect", "Connection reset", "connection reset", "no such host",
		"getaddrinfo", "SSL", "TLS handshake", "Cannot connect to", "cannot connect to",
	}
	missingPhrases = []string{
		"No such file or directory", "no such file or directory", "ENOENT", "cannot access", "does not exist",
		"Cannot find", "cannot find", "Could not find", "could not find", "No such ", "no such ", "can't cd to",
		"can't open", "cannot open", "Unable to locate", "unable to locate", "no matches found", "not find",
		"unknown revision", "did not match any file", "Unable to find", "unable to find", "not a directory",
		"Not a directory", "is a directory", "Is a directory", "Failed to find", "failed to find",
	}
)

func containsAny(s string, subs []string) bool {
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			return true
		}
	}
	return false
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
