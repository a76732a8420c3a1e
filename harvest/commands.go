package harvest

import (
	"encoding/json"
	"path"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/shellcmd"
)

// actionKey is what a shell command does, as "program subcommand" ("go
// test", "npm run build", "make lint", "pytest"), or "" for no command.
// Of several commands joined by && or ;, it is the last that is not a cd
// or an export; of a pipeline, the first.
func actionKey(cmd string) string { return wordsKey(mainWords(cmd)) }

// wordsKey is the action key of a simple command's words, from its
// program on.
func wordsKey(words []string) string {
	if len(words) == 0 {
		return ""
	}
	if launched, ok := shellcmd.Launched(words); ok {
		return wordsKey(shellcmd.Unwrap(launched)) // uv run pytest, python -m pytest
	}
	prog := path.Base(words[0])
	switch prog {
	case "python", "python3", "node", "bash", "sh", "ruby":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") {
				return prog + " " + path.Base(w)
			}
		}
		return prog
	}
	if !shellcmd.Subcommanded(prog) || len(words) < 2 || strings.HasPrefix(words[1], "-") {
		return prog
	}
	key := prog + " " + words[1]
	if shellcmd.ScriptRunner(prog) && words[1] == "run" && len(words) > 2 {
		key += " " + words[2]
	}
	return key
}

// mainWords returns the words of the command that matters in cmd, from
// its program on: the first of each pipeline, the last of a chain that is
// not incidental (cd, export, echo).
func mainWords(cmd string) []string { return mainWordsOf(shellcmd.Split(cmd)) }

// mainWordsOf is mainWords of a command line already split.
func mainWordsOf(cmds []shellcmd.Command) []string {
	var main []string
	for _, c := range cmds {
		if c.Piped {
			continue
		}
		words := shellcmd.Unwrap(c.Words)
		if len(words) == 0 || shellcmd.Incidental(path.Base(words[0])) {
			continue
		}
		main = words
	}
	return main
}

// normCommand is a command as an item shows it: the commands that matter,
// without cd into the session's folder, output trimming or redirections.
func normCommand(cmd string) string { return normCommandOf(shellcmd.Split(cmd)) }

// normCommandOf is normCommand of a command line already split.
func normCommandOf(cmds []shellcmd.Command) string {
	var kept []string
	for _, c := range cmds {
		if c.Piped || c.Words[0] == "cd" || c.Words[0] == "echo" || c.Words[0] == "clear" {
			continue
		}
		words := make([]string, len(c.Raw))
		for i, w := range c.Raw {
			words[i] = unquoted(w)
		}
		kept = append(kept, strings.Join(words, " "))
	}
	return strings.Join(kept, " && ")
}

// unquoted is a word as an item shows it: without its quotes, which
// items leave out to read easily, but with its backslashes, so that a
// pattern (grep "\(x\)") keeps its meaning.
func unquoted(w string) string {
	if !strings.ContainsAny(w, `'"`) {
		return w
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func program(key string) string {
	p, _, _ := strings.Cut(key, " ")
	return p
}

var (
	testKeys = set(`go_test cargo_test npm_test pnpm_test yarn_test bun_test deno_test npm_run_test pnpm_run_test
		yarn_run_test bun_run_test mise_run_test make_test make_check just_test pytest tox nox jest vitest mocha
		rspec phpunit mvn_test mvn_verify gradle_test gradlew_test bazel_test dotnet_test swift_test mix_test
		stack_test cabal_test flutter_test dart_test ctest`)
	buildKeys = set(`go_build go_vet go_install cargo_build cargo_check cargo_clippy npm_run_build pnpm_run_build
		yarn_run_build bun_run_build npm_run_lint pnpm_run_lint yarn_run_lint mise_run_lint mise_run_build make_build
		make_lint make_all make just_build just_lint tsc eslint ruff mypy golangci-lint mvn_package mvn_install
		mvn_compile gradle_build gradlew_build bazel_build dotnet_build swift_build mix_compile stack_build
		cabal_build flutter_build npm_run_typecheck pnpm_run_typecheck yarn_run_typecheck`)
	setupKeys = set(`npm_install npm_ci npm_i pnpm_install pnpm_i yarn_install yarn bun_install go_mod go_generate
		go_get cargo_fetch pip_install pip3_install uv_sync uv_pip uv_venv poetry_install bundle_install
		composer_install mix_deps.get gem_install mise_install mise_trust docker_compose docker_build
		make_generate make_deps make_install make_setup just_setup prisma_generate prisma_migrate alembic_upgrade
		npm_run_generate pnpm_run_generate yarn_run_generate npm_run_migrate pnpm_run_migrate
		brew_install apt_install apt-get_install conda_install rustup_target terraform_init helm_dependency
		git_submodule pnpm_add npm_add yarn_add bun_add cargo_add uv_add poetry_add go_get npm_rebuild`)
	changeKeys = set(`chmod chown mkdir ln touch cp mv rm export git_checkout git_switch git_pull git_fetch
		git_stash git_config git_reset git_clean git_rebase git_merge gh_auth kubectl_apply kubectl_config
		docker_pull docker_start docker_run systemctl service pg_ctl createdb`)
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[strings.ReplaceAll(w, "_", " ")] = true
	}
	return m
}

func testCommand(key string) bool { return testKeys[key] }

// checkCommand reports whether a command lints or type-checks.
func checkCommand(key string) bool {
	for _, w := range []string{"lint", "vet", "check", "clippy", "tsc", "eslint", "ruff", "mypy", "typecheck", "fmt"} {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// exploring reports whether a command only looks around.
func exploring(key string) bool { return lookKeys[key] || lookKeys[program(key)] }

var lookKeys = set(`ls cat head tail less more grep rg ag ack find fd pwd echo printf test [ stat file which whereis
	type wc tree du df sed awk cut sort uniq diff cmp jq yq env printenv true false sleep date whoami id uname
	hostname ps lsof git_status git_diff git_log git_show git_branch git_remote git_rev-parse git_blame
	git_ls-files git_grep cd EOF`)

// dryRun reports whether a command only shows what it would do.
func dryRun(cmd string) bool { return dryRunOf(shellcmd.Split(cmd)) }

// dryRunOf is dryRun of a command line already split.
func dryRunOf(cmds []shellcmd.Command) bool {
	for _, c := range cmds {
		for _, w := range c.Words {
			if w == "-n" || w == "--dry-run" || w == "--dryrun" || w == "--just-print" {
				return true
			}
		}
	}
	return false
}

// ecosystems group programs whose setup serves each other.
var ecosystems = map[string]string{
	"go": "go", "gofmt": "go", "golangci-lint": "go",
	"npm": "js", "pnpm": "js", "yarn": "js", "bun": "js", "npx": "js", "node": "js", "jest": "js", "vitest": "js",
	"tsc": "js", "eslint": "js", "deno": "js", "prisma": "js",
	"pip": "py", "pip3": "py", "uv": "py", "poetry": "py", "python": "py", "python3": "py", "pytest": "py",
	"tox": "py", "nox": "py", "ruff": "py", "mypy": "py", "alembic": "py", "conda": "py",
	"cargo": "rust", "rustup": "rust",
	"bundle": "ruby", "gem": "ruby", "rspec": "ruby", "rake": "ruby",
	"mvn": "jvm", "gradle": "jvm", "gradlew": "jvm",
}

// sameEcosystem reports whether a setup command can serve a build or
// test command: the same language's tools, or a general one (make,
// docker, a task runner) on either side.
func sameEcosystem(setup, build string) bool {
	a, b := ecosystems[program(setup)], ecosystems[program(build)]
	return a == "" || b == "" || a == b
}

// buildOrTest reports whether a command builds, checks or tests a
// project.
func buildOrTest(key string) bool { return testKeys[key] || buildKeys[key] }

// Verifies reports whether a shell command line builds, checks or tests a
// project (go test ./..., npm run build, cargo clippy): what the journal
// takes for the run that tells whether edits worked.
func Verifies(cmd string) bool { return buildOrTest(actionKey(cmd)) }

// setupCommand reports whether a command prepares a project: installs,
// generates, migrates, starts services.
func setupCommand(key string) bool { return setupKeys[key] }

// addsDependency reports whether a command adds a dependency (npm install
// jsdom, go get x, cargo add y): a fix made once, not a step to repeat.
// Installing what a project declares (npm ci, pip install -r
// requirements.txt) is not.
func addsDependency(cmd string) bool {
	words := mainWords(cmd)
	if len(words) < 2 {
		return false
	}
	switch words[1] {
	case "add", "get":
		return true
	case "install", "i":
	default:
		return false
	}
	for i, w := range words[2:] {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if prev := words[i+1]; prev == "-r" || prev == "-c" || prev == "--requirement" || prev == "--constraint" || prev == "-e" {
			continue // a file of what the project declares
		}
		return true
	}
	return false
}

// changes reports whether a command changes something a later command
// may depend on.
func changes(cmd string) bool {
	key := actionKey(cmd)
	return setupKeys[key] || changeKeys[key] || changeKeys[program(key)]
}

// selectivePatterns are what a command running some of the tests holds:
// a flag picking tests, a test's path, a test file. Each is read only on a
// command holding its word (see alternatives).
var selectivePatterns = alternatives{
	{"-run", `\s-run[\s=]`}, {"-k", `\s-k[\s=]`}, {"-t", `\s-t[\s=]`}, {"--filter", `\s--filter[\s=]`}, {"--grep", `\s--grep[\s=]`},
	{"--testNamePattern", `\s--testNamePattern[\s=]`}, {"--test", `\s--tests?[\s=]`},
	{"::", `::`}, {"_test.go", `_test\.go\b`}, {".test.", `\.test\.[jt]sx?\b`}, {".spec.", `\.spec\.[jt]sx?\b`},
	{"test_", `\btest_\w+\.py\b`}, {"_test.py", `\w+_test\.py\b`},
}.compiled()

// selective reports whether a test command runs only some tests; words
// are its main words (mainWords).
func selective(cmd string, words []string) bool {
	if matchAny(selectivePatterns, cmd) {
		return true
	}
	for _, w := range words[1:] {
		if strings.Contains(w, "/") && w != "./..." && !strings.HasPrefix(w, "-") || strings.ContainsAny(w, "*?") {
			return true // a part of the project: one package, one folder, a glob
		}
	}
	return false
}

var versionCommandPattern = lazyRegexp(`^\S+( version| --version| -v| -V| -version)$`)

// versionCommand reports whether a command only prints a version.
func versionCommand(cmd string) bool {
	return versionCommandOf(cmd, func() string { return normCommand(cmd) })
}

// versionCommandOf is versionCommand of a command whose normal form
// (normCommand) norm returns.
func versionCommandOf(cmd string, norm func() string) bool {
	// The query's last word, as written, holds "version", -v or -V, or a
	// quote that normCommand takes out: most commands hold none, and are
	// not split.
	if !holdsAny(cmd, versionWords) {
		return false
	}
	return versionCommandPattern().MatchString(norm())
}

var versionWords = []string{"version", "-v", "-V", `"`, "'"}

// editTool reports whether a tool changes files.
func editTool(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "edit") || strings.Contains(n, "write") || strings.Contains(n, "patch") ||
		strings.Contains(n, "replace") || strings.Contains(n, "create")
}

// searchedSymbol returns the symbol a search call looked for, or "": a
// search in files (grep, rg, git grep, a Grep tool) for one identifier
// (camelCase, snake_case, pkg.Name), or for its definition ("func
// Load", "class Config", "def load_config").
func searchedSymbol(c *call) string {
	var p string
	switch n := strings.ToLower(c.name); n {
	case "grep", "search_file_content", "grep_search", "search_files", "codebase_search":
		var in struct {
			Pattern string `json:"pattern"`
			Query   string `json:"query"`
			Regex   string `json:"regex"`
		}
		if json.Unmarshal([]byte(c.input), &in) != nil {
			return ""
		}
		p = firstNonEmpty(in.Pattern, in.Regex, in.Query)
	default:
		words := c.mainWords()
		if len(words) < 2 {
			return ""
		}
		switch path.Base(words[0]) {
		case "grep", "rg", "ag", "ack", "git":
			if words[0] == "git" && words[1] != "grep" {
				return ""
			}
			for i, w := range words[1:] {
				if w == "-e" && i+2 < len(words) {
					p = words[i+2]
					break
				}
				if w != "grep" && !strings.HasPrefix(w, "-") {
					p = w
					break
				}
			}
		}
	}
	return symbolOf(p)
}

var (
	regexEscape = lazyRegexp(`\\\(.*?\\\)|\\[A-Za-z]`)
	wordToken   = lazyRegexp(`[A-Za-z_][\w.]*`)
	defKeywords = set(`func type class def interface struct enum trait fn function const var let val fun object
		record module protocol export public private protected static async pub impl`)
)

// symbolOf is the one identifier a search pattern names, or "": its
// regular expression's escapes (\b, \s, \w) and a receiver in escaped
// brackets (func \(s \*Store\) Load) read as blanks, definition keywords
// left out. Without a keyword it must read as an identifier
// (camelCase, snake_case, pkg.Name), not a word.
func symbolOf(p string) string {
	if p == "" || len(p) > 120 {
		return ""
	}
	keyword := false
	var sym string
	for _, t := range wordToken().FindAllString(regexEscape().ReplaceAllString(p, " "), -1) {
		t = strings.TrimRight(t, ".")
		switch {
		case defKeywords[t]:
			keyword = true
		case sym != "":
			return "" // two names: not one symbol
		default:
			sym = t
		}
	}
	if len(sym) < 3 || len(sym) > 60 || !keyword && !identifier(sym) {
		return ""
	}
	if i := strings.LastIndexByte(sym, '.'); i >= 0 {
		sym = sym[i+1:] // pkg.Name is defined as Name
	}
	if len(sym) < 3 {
		return ""
	}
	return sym
}

var camel = lazyRegexp(`[a-z][A-Z]|[A-Za-z]_[A-Za-z]|[a-z]\.[A-Z]`)

// identifier reports whether a search term names one thing in code
// (camelCase, snake_case, pkg.Name), not a common word.
func identifier(p string) bool { return camel().MatchString(p) }

// definitionPattern matches a line that defines sym (lore.DefinitionPattern).
// Compiling it took a fifth of the rules' time on a session, and the
// sessions of a project search the same symbols: the last few hundred
// symbols' expressions are kept.
func definitionPattern(sym string) *regexp.Regexp {
	definitions.Lock()
	defer definitions.Unlock()
	if re, ok := definitions.bySymbol[sym]; ok {
		return re
	}
	if len(definitions.bySymbol) >= maxDefinitions {
		clear(definitions.bySymbol) // started afresh: a harvest meets symbols project by project
	}
	if definitions.bySymbol == nil {
		definitions.bySymbol = map[string]*regexp.Regexp{}
	}
	re := lore.DefinitionPattern(sym)
	definitions.bySymbol[sym] = re
	return re
}

// definitions are the expressions definitionPattern compiled, up to
// maxDefinitions of them.
var definitions struct {
	sync.Mutex
	bySymbol map[string]*regexp.Regexp
}

const maxDefinitions = 512

var (
	grepLinePattern = lazyRegexp(`^([^:\s][^:]*\.[\w]{1,8}):(?:\d+:)?(.*)$`)
	lineNumber      = lazyRegexp(`^\s*\d+(?:\t|→|: |\| )`)
)

// grepLine splits a line of grep's output, path:line:text or path:text,
// into the path and the text.
func grepLine(line string) (file, text string, ok bool) {
	m := grepLinePattern().FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// stripLineNumber cuts the line number a read tool puts before each line
// ("    12\t", "    12→").
func stripLineNumber(line string) string {
	if loc := lineNumber().FindStringIndex(line); loc != nil {
		return line[loc[1]:]
	}
	return line
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// searchedName is the file name a search by name looked for (a Glob
// tool, find -name, fd), or "".
func searchedName(c *call) string {
	n := strings.ToLower(c.name)
	if c.cmd == "" && (strings.Contains(n, "glob") || strings.Contains(n, "find")) {
		var in struct {
			Pattern string `json:"pattern"`
			Query   string `json:"query"`
		}
		if json.Unmarshal([]byte(c.input), &in) != nil {
			return ""
		}
		return firstNonEmpty(in.Pattern, in.Query)
	}
	words := c.mainWords()
	if len(words) < 2 {
		return ""
	}
	switch path.Base(words[0]) {
	case "find":
		for i, w := range words {
			if (w == "-name" || w == "-iname") && i+1 < len(words) {
				return words[i+1]
			}
		}
	case "fd":
		return words[len(words)-1]
	}
	return ""
}

// readTool reports whether a tool reads a file.
func readTool(name string) bool {
	switch strings.ToLower(name) {
	case "read", "read_file", "view", "view_file", "readfile", "open_file", "cat":
		return true
	}
	return false
}

// readPath is the file a read tool's input names.
func readPath(input string) string {
	var in struct {
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		File     string `json:"file"`
		Absolute string `json:"absolute_path"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return ""
	}
	return firstNonEmpty(in.FilePath, in.Path, in.File, in.Absolute)
}

// quoteCode shows s as code in an item's text.
func quoteCode(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

// clip shortens s to at most n bytes, marking the cut. It redacts s
// first, as it came, since joining its lines and cutting it could hide a
// secret from the redactor (a PEM block's lines, a token's end), and
// cuts where redact.Cut says no part of a secret or marker stays.
func clip(s string, n int) string {
	head := clipRedactor.Head(s, n)
	out := strings.Join(strings.Fields(head), " ")
	if len(out) <= n && len(head) < len(s) {
		out = strings.Join(strings.Fields(clipRedactor.String(s)), " ") // blanks shrank more than the margin
	}
	if len(out) <= n {
		return out
	}
	k := redact.Cut(out, n)
	if k < n {
		return strings.TrimRight(out[:k], " ") + "…"
	}
	return out[:k] + "…"
}

var clipRedactor = redact.New()

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// sameCall reports whether two tool calls' inputs are the same call: the
// same command and the same parameters (a timeout, a working folder),
// byte for byte, leaving out only the description an agent writes for
// its user.
func sameCall(a, b string) bool {
	if a == b {
		return true
	}
	var x, y map[string]any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	delete(x, "description")
	delete(y, "description")
	return reflect.DeepEqual(x, y)
}

var plainWord = lazyRegexp(`^[a-z][a-z0-9-]*$`)

// subcommand is the word after the program of the command that matters
// (its mainWords), when it reads as a subcommand (bd unlink, workmux
// send), or "". A fix must be the same program and subcommand as the
// failure: another subcommand that works (bd dep remove for bd unlink) is
// a different thing done.
func subcommand(words []string) string {
	if launched, ok := shellcmd.Launched(words); ok {
		words = shellcmd.Unwrap(launched)
	}
	if len(words) < 2 || !plainWord().MatchString(words[1]) {
		return ""
	}
	return words[1]
}

// helpOnly reports whether a command, by the words of the one that
// matters (mainWords), only prints its usage: it fixes nothing.
func helpOnly(words []string) bool {
	for _, w := range words[1:] {
		if w == "--help" || w == "-h" || w == "help" || w == "-help" {
			return true
		}
	}
	return false
}

var (
	destructivePattern = lazyRegexp(`\brm\s+(-\w*[rR]\w*f|-\w*f\w*[rR]|-[rR]\s+-f|-f\s+-[rR]|--recursive)|\bgit\s+(stash\s+(drop|clear)|checkout\s+(-f\b|--\s|\.(\s|$))|reset\s+--hard|clean\s+-\w*[fdx]|push\s+.*(--force\b|-f\b|--force-with-lease)|branch\s+-D|restore\s)|\bdrop\s+(table|database|schema)\b|\btruncate\s+table\b`)
	// writesPatterns are what a command that writes holds, each read
	// only on a command holding its word: most commands hold one or two
	// of the words (git, >, cp in scp), and running all of them as one
	// expression on those took 8% of the rules' time.
	writesPatterns = alternatives{
		{">", `(^|[^0-9&>=-])>{1,2}\s*[^&\s/]|>{1,2}\s*/(?:[^d]|d[^e]|de[^v])`},
		{"sed", `\bsed\s+(-\w+\s+)*-i`},
		{"perl", `\bperl\s+-\w*i`},
		{"tee", `\btee\b`},
		{"--write", `--write\b`},
		{"--fix", `--fix\b`},
		{"gofmt", `\bgofmt\s+(-\w+\s+)*-w\b`},
		{"goimports", `\bgoimports\s+.*-w\b`},
		{"git", `\bgit\s+(apply|am|restore|reset|stash|merge|rebase|cherry-pick|revert|pull)\b|\bgit\s+(checkout|switch)\s+([^-\s]|--\s)`},
		{"patch", `\bpatch\b`}, {"cp", `\bcp\b`}, {"mv", `\bmv\b`}, {"touch", `\btouch\b`}, {"mkdir", `\bmkdir\b`},
		{"rm", `\brm\b`}, {"ln", `\bln\b`}, {"truncate", `\btruncate\b`}, {"dd", `\bdd\b`},
	}.compiled()
)

// destructiveWords hold a word of every match of destructivePattern: a
// command holding none (most do) is passed over without running it.
var destructiveWords = []string{"rm", "git", "drop", "truncate"}

// alternatives are the alternatives of an expression (a|b|c), each with
// a word every match of it holds: the expression matches a text where
// one of them does, and each is read only on a text holding its word.
type alternatives []struct{ word, re string }

// compiled returns the alternatives compiled when first used.
func (as alternatives) compiled() []prefiltered {
	out := make([]prefiltered, len(as))
	for i, a := range as {
		out[i] = prefiltered{word: a.word, re: lazyRegexp(a.re)}
	}
	return out
}

// prefiltered is an expression read only on a text holding word.
type prefiltered struct {
	word string
	re   func() *regexp.Regexp
}

// matchAny reports whether one of ps matches s.
func matchAny(ps []prefiltered, s string) bool {
	for _, p := range ps {
		if strings.Contains(s, p.word) && p.re().MatchString(s) {
			return true
		}
	}
	return false
}

// destructive reports whether a command throws work away (rm -rf, git
// reset --hard, git stash drop, git checkout --, git clean, push
// --force): never a fix to teach.
func destructive(cmd string) bool {
	return holdsAny(cmd, destructiveWords) && destructivePattern().MatchString(cmd)
}

// writes reports whether a command writes or removes files: a
// redirection into a file, sed -i, a formatter's --write or --fix, a
// patch, a copy, git moving the work tree.
func writes(cmd string) bool { return matchAny(writesPatterns, cmd) }

// sourcePosition matches an error that points at a line of code
// (main.go:12, fetch_result.dart:6:6, "File x.py", line 3).
var sourcePosition = lazyRegexp(`\.[A-Za-z]{1,6}:\d+\b|\.[A-Za-z]{1,6}", line \d+|\.[A-Za-z]{1,6}\(\d+,\d+\)`)
