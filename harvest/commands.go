package harvest

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

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
func mainWords(cmd string) []string {
	var main []string
	for _, c := range shellcmd.Split(cmd) {
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
func normCommand(cmd string) string {
	var kept []string
	for _, c := range shellcmd.Split(cmd) {
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
func dryRun(cmd string) bool {
	for _, c := range shellcmd.Split(cmd) {
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

// selective reports whether a test command runs only some tests.
var selectivePattern = regexp.MustCompile(`\s-(run|k|t|-filter|-grep|-testNamePattern|-tests?)[\s=]|::|_test\.go\b|\.(test|spec)\.[jt]sx?\b|\btest_\w+\.py\b|\w+_test\.py\b`)

func selective(cmd string) bool {
	if selectivePattern.MatchString(cmd) {
		return true
	}
	for _, w := range mainWords(cmd)[1:] {
		if strings.Contains(w, "/") && w != "./..." && !strings.HasPrefix(w, "-") || strings.ContainsAny(w, "*?") {
			return true // a part of the project: one package, one folder, a glob
		}
	}
	return false
}

var versionCommandPattern = lazyRegexp(`^\S+( version| --version| -v| -V| -version)$`)

// versionCommand reports whether a command only prints a version.
func versionCommand(cmd string) bool {
	return versionCommandPattern().MatchString(normCommand(cmd))
}

// editTool reports whether a tool changes files.
func editTool(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "edit") || strings.Contains(n, "write") || strings.Contains(n, "patch") ||
		strings.Contains(n, "replace") || strings.Contains(n, "create")
}

var identPattern = lazyRegexp(`^[\w.-]{3,60}$`)

// searchPattern returns what a search call looked for, when it is a name
// worth remembering: an identifier searched in files (glob false), or a
// file name searched by name (glob true).
func searchPattern(c *call) (pattern string, glob bool) {
	var p string
	switch n := strings.ToLower(c.name); n {
	case "grep", "glob", "search_file_content", "glob_search", "file_search", "find_files", "search_files":
		var in struct {
			Pattern string `json:"pattern"`
			Query   string `json:"query"`
			Regex   string `json:"regex"`
		}
		if json.Unmarshal([]byte(c.input), &in) != nil {
			return "", false
		}
		p = firstNonEmpty(in.Pattern, in.Query, in.Regex)
		glob = strings.Contains(n, "glob") || strings.Contains(n, "find")
	default:
		words := mainWords(c.cmd)
		if len(words) < 2 {
			return "", false
		}
		switch path.Base(words[0]) {
		case "grep", "rg", "ag", "ack", "git":
			if words[0] == "git" && words[1] != "grep" {
				return "", false
			}
			for _, w := range words[1:] {
				if w != "grep" && !strings.HasPrefix(w, "-") {
					p = w
					break
				}
			}
		case "find", "fd":
			glob = true
			for i, w := range words {
				if (w == "-name" || w == "-iname") && i+1 < len(words) {
					p = words[i+1]
				}
			}
		}
	}
	if glob {
		p = path.Base(p)
		if strings.ContainsAny(p, "*?[{") || !strings.Contains(p, ".") || strings.HasPrefix(p, ".") {
			return "", false // a file name, not a pattern of many
		}
		return p, true
	}
	p = strings.Trim(p, `\b^$`)
	if !identPattern().MatchString(p) || !identifier(p) {
		return "", false
	}
	return p, false
}

var camel = lazyRegexp(`[a-z][A-Z]|[A-Za-z]_[A-Za-z]|[a-z]\.[A-Z]`)

// identifier reports whether a search term names one thing in code
// (camelCase, snake_case, pkg.Name), not a common word.
func identifier(p string) bool { return camel().MatchString(p) }

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

var pathLike = lazyRegexp(`^(\.{0,2}/)?[\w.@-]+(/[\w.@-]+)*\.\w{1,8}$|^(\.{0,2}/)?[\w.@-]+(/[\w.@-]+)+$`)

// foundPaths lists the paths in a search's output, one per line, with
// grep's ":line:" suffixes cut.
func foundPaths(out string) []string {
	var paths []string
	seen := map[string]bool{}
	for i, line := range strings.Split(out, "\n") {
		if i > 200 {
			break
		}
		line = strings.TrimSpace(line)
		if j := strings.IndexByte(line, ':'); j > 0 {
			line = line[:j]
		}
		if pathLike().MatchString(line) && !seen[line] {
			seen[line] = true
			paths = append(paths, line)
		}
	}
	return paths
}

var offer = lazyRegexp(`(?i)\b(would you|do you|shall i|should i|want me|can i|may i|let me know|anything else|you like|you want|you prefer|like me to|or should|ready to)\b`)

// questionSentences returns the questions in text that ask about the
// project, not offers to the user ("Would you like me to commit?").
func questionSentences(text string) []string {
	var qs []string
	for _, q := range sentences(text) {
		if !strings.HasSuffix(q, "?") {
			continue
		}
		q = strings.TrimSpace(strings.TrimLeft(q, "-*#> \t"))
		if len(q) < 15 || len(q) > 250 || offer().MatchString(q) || strings.ContainsAny(q, "`{}") {
			continue
		}
		qs = append(qs, q)
	}
	return qs
}

// sentences cuts text into sentences: at a line break, after a question
// or exclamation mark followed by a blank, and after a full stop followed
// by a blank and a capital, a digit, a quote or a bracket, or by nothing.
// The dots of setup.py, v2.31.0, e.g. and addresses end nothing.
func sentences(text string) []string {
	var out []string
	start := 0
	cut := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			cut(i + 1)
		case '?', '!', '.':
			j := i + 1
			for j < len(text) && (text[j] == '?' || text[j] == '!' || text[j] == '.' || text[j] == ')' || text[j] == '"' || text[j] == '\'') {
				j++ // "?!", "...", a closing bracket or quote
			}
			if j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' {
				i = j - 1
				continue
			}
			if c == '.' && !sentenceStarts(text[j:]) {
				i = j - 1
				continue
			}
			cut(j)
			i = j - 1
		}
	}
	cut(len(text))
	return out
}

// sentenceStarts reports whether rest, after the blanks that start it,
// begins a sentence or ends the text.
func sentenceStarts(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" || rest[0] == '\n' {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'`([*-#>", r)
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
