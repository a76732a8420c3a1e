package errsig

import (
	"path"
	"strings"
)

// shellTools are the names agents give the tool that runs a shell
// command, lower case: Claude Code Bash, Codex shell / shell_command /
// exec_command / local_shell / container.exec, Gemini run_shell_command,
// OpenHands execute_bash / terminal / run (CmdRunAction), mini-swe-agent
// bash, Goose developer__shell, Cline execute_command / command, Hermes
// terminal, Cursor run_terminal_cmd.
var shellTools = map[string]bool{
	"bash": true, "sh": true, "zsh": true, "shell": true, "local_shell": true, "shell_command": true,
	"exec_command": true, "container.exec": true, "run_shell_command": true, "execute_bash": true,
	"execute_command": true, "run_command": true, "run_terminal_cmd": true, "terminal": true,
	"run": true, "cmdrunaction": true, "command": true, "developer__shell": true, "bash_tool": true,
	"exec": true,
}

// IsShell reports whether tool is the name of a tool that runs shell
// commands.
func IsShell(tool string) bool {
	var buf [32]byte
	if len(tool) > len(buf) {
		return false
	}
	t := buf[:len(tool)]
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		if isUpperASCII(c) {
			c += 'a' - 'A'
		}
		t[i] = c
	}
	if shellTools[string(t)] {
		return true
	}
	for _, suf := range []string{"__shell", ".shell", "run_shell_command", "exec_command"} {
		if len(t) > len(suf) && string(t[len(t)-len(suf):]) == suf {
			return true
		}
	}
	return false
}

// sweCommands are SWE-agent's own commands, which its transcripts record
// the way they record shell commands (tool name = first word).
var sweCommands = map[string]bool{
	"open": true, "goto": true, "scroll_up": true, "scroll_down": true, "create": true, "edit": true,
	"search_dir": true, "search_file": true, "find_file": true, "submit": true, "str_replace_editor": true,
	"filemap": true, "insert": true, "undo_edit": true, "exit_forfeit": true, "exit_cost": true,
	"exit_context": true, "exit_format": true, "skip": true,
}

// Command returns the shell command a tool call runs, or "" when the call
// is not a shell command. tool is the tool's name and input its arguments
// as the transcript recorded them: JSON with "command" or "cmd" (a string,
// or an argv such as ["bash","-lc","…"] whose script is returned), or the
// raw command line (SWE-agent, whose tool name is the command's first
// word, and mini-swe-agent).
func Command(tool, input string) string {
	in := strings.TrimSpace(input)
	if in == "" {
		return ""
	}
	if !IsShell(tool) {
		// SWE-agent: tool "curl", input "curl http://…".
		if tool == "" || in[0] == '{' || sweCommands[tool] || firstField(in) != tool {
			return ""
		}
		return in
	}
	if in[0] != '{' {
		return in
	}
	for _, key := range []string{"command", "cmd"} {
		if raw, ok := jsonField(in, key); ok {
			if c := commandValue(raw); c != "" {
				return c
			}
		}
	}
	return ""
}

// commandValue reads a command given as a JSON string or as an argv.
func commandValue(raw string) string {
	if raw == "" {
		return ""
	}
	switch raw[0] {
	case '"':
		if s, ok := jsonString(raw); ok {
			return strings.TrimSpace(s)
		}
	case '[':
		argv, ok := jsonStrings(raw, 64)
		if !ok || len(argv) == 0 {
			return ""
		}
		if len(argv) >= 3 && shells[path.Base(argv[0])] && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
			return strings.TrimSpace(argv[2])
		}
		for i, a := range argv {
			argv[i] = shellQuote(a)
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// shellQuote quotes an argument for a command line, when it needs it.
func shellQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>(){}*?[]#~") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "pwsh": true, "powershell": true}

func firstField(s string) string {
	if i := strings.IndexAny(s, " \t\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// Program returns the program a shell command runs, with its subcommand
// for tools that have them: "go test", "git push", "npm run", "gh api",
// "pytest", "make". In a chain (a && b; c) it is the last command that
// is not housekeeping (cd, export, mkdir, echo, …); in a pipeline the
// first that is not a filter (grep, tail, …). Wrappers are looked through
// (sudo, env, timeout, npx, uv run, python -m); a script is named by its
// interpreter (x.py is python). "" when cmd holds no command.
func Program(cmd string) string {
	var sp splitter
	sp.split(cmd)
	if sp.chosen.name != "" {
		return sp.chosen.name
	}
	return sp.last.name
}

// housekeeping commands prepare the one that matters.
var housekeeping = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "export": true, "set": true, "unset": true, "source": true,
	".": true, "echo": true, "printf": true, "true": true, "false": true, "sleep": true, "mkdir": true,
	"touch": true, "rm": true, "cp": true, "mv": true, "clear": true, "alias": true, "trap": true,
	"wait": true, "ulimit": true, "shopt": true, "local": true, "declare": true, "read": true, ":": true,
	"test": true, "[": true, "[[": true, "ln": true, "chmod": true, "umask": true, "exit": true,
}

// filters read a pipeline's output; the program that matters feeds them.
var filters = map[string]bool{
	"cat": true, "echo": true, "printf": true, "grep": true, "egrep": true, "fgrep": true, "rg": true,
	"head": true, "tail": true, "sort": true, "uniq": true, "wc": true, "tee": true, "less": true,
	"more": true, "cut": true, "tr": true, "column": true, "yes": true, "jq": true, "sed": true, "awk": true,
	"nl": true, "fold": true, "fmt": true, "xxd": true, "base64": true,
}

// subcommanded programs are named with their first subcommand.
var subcommanded = map[string]bool{
	"go": true, "git": true, "cargo": true, "npm": true, "pnpm": true, "yarn": true, "bun": true,
	"deno": true, "docker": true, "podman": true, "kubectl": true, "gh": true, "uv": true, "pip": true,
	"poetry": true, "dotnet": true, "terraform": true, "helm": true, "mise": true, "apt": true,
	"apt-get": true, "brew": true, "conda": true, "rustup": true, "gcloud": true, "aws": true, "az": true,
	"swift": true, "mvn": true, "flutter": true, "dart": true, "rails": true, "bundle": true, "gem": true,
	"composer": true, "glab": true, "hatch": true, "pdm": true, "rye": true, "just": true, "task": true,
	"nx": true, "turbo": true, "lerna": true, "systemctl": true, "journalctl": false,
}

// segment is one simple command of a shell command line.
type segment struct {
	prog string // base name of the program, lower case
	name string // prog with its subcommand
}

// maxWords is how many words of a simple command name its program.
const maxWords = 12

// splitter splits a command line into its simple commands (at && || ; &
// and new lines, outside quotes; heredoc bodies skipped) and keeps the
// program that Program names.
type splitter struct {
	words  [maxWords]string
	nwords int
	pipe   segment // the current pipeline's program so far
	inPipe bool
	chosen segment // the last pipeline that is not housekeeping
	last   segment // the last pipeline
}

func (sp *splitter) word(w string) {
	if sp.nwords < maxWords {
		sp.words[sp.nwords] = w
		sp.nwords++
	}
}

// endCommand ends a simple command of the current pipeline.
func (sp *splitter) endCommand() {
	if sp.nwords == 0 {
		return
	}
	s, ok := commandProgram(sp.words[:sp.nwords])
	sp.nwords = 0
	if !ok {
		return
	}
	if !sp.inPipe || filters[sp.pipe.prog] && !filters[s.prog] {
		sp.pipe, sp.inPipe = s, true
	}
}

// endPipeline ends a pipeline, a command of the chain.
func (sp *splitter) endPipeline() {
	sp.endCommand()
	if !sp.inPipe {
		return
	}
	sp.last = sp.pipe
	if !housekeeping[sp.pipe.prog] {
		sp.chosen = sp.pipe
	}
	sp.inPipe = false
}

func (sp *splitter) split(cmd string) {
	var (
		start   = -1 // start of the current word
		quoted  bool // the current word holds quotes or escapes
		quote   byte // the open quote
		heredoc [4]string
		nhere   int
	)
	endWord := func(i int) {
		if start >= 0 {
			w := cmd[start:i]
			if quoted {
				w = unquoteWord(w)
			}
			sp.word(w)
			start, quoted = -1, false
		}
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
			continue
		}
		switch {
		case c == '\'' || c == '"':
			if start < 0 {
				start = i
			}
			quote, quoted = c, true
		case c == '\\':
			if start < 0 {
				start = i
			}
			quoted = true
			i++
		case c == '\n':
			endWord(i)
			sp.endPipeline()
			for _, d := range heredoc[:nhere] {
				i = skipHeredoc(cmd, i, d)
			}
			nhere = 0
		case c == ' ' || c == '\t':
			endWord(i)
		case c == ';':
			endWord(i)
			sp.endPipeline()
		case c == '&':
			switch {
			case i+1 < len(cmd) && cmd[i+1] == '&':
				endWord(i)
				i++
				sp.endPipeline()
			case i > 0 && (cmd[i-1] == '>' || cmd[i-1] == '<'), i+1 < len(cmd) && cmd[i+1] == '>':
				if start < 0 { // 2>&1, &>
					start = i
				}
			default:
				endWord(i)
				sp.endPipeline()
			}
		case c == '|':
			endWord(i)
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
				sp.endPipeline()
			} else {
				if i+1 < len(cmd) && cmd[i+1] == '&' {
					i++
				}
				sp.endCommand()
			}
		case c == '<' && i+1 < len(cmd) && cmd[i+1] == '<' && (i+2 >= len(cmd) || cmd[i+2] != '<'):
			endWord(i)
			i += 2
			for i < len(cmd) && (cmd[i] == '-' || cmd[i] == ' ' || cmd[i] == '\t') {
				i++
			}
			j := i
			for j < len(cmd) && cmd[j] != ' ' && cmd[j] != '\t' && cmd[j] != '\n' && cmd[j] != ';' && cmd[j] != ')' {
				j++
			}
			if d := strings.Trim(cmd[i:j], `'"\`); d != "" && nhere < len(heredoc) {
				heredoc[nhere] = d
				nhere++
			}
			i = j - 1
		case c == ')' || c == '}' || (c == '(' || c == '{') && start < 0:
			endWord(i) // a subshell or group: ( cd x && make )
			sp.endPipeline()
		default:
			if start < 0 {
				start = i
			}
		}
	}
	endWord(len(cmd))
	sp.endPipeline()
}

// unquoteWord removes the quotes and escapes of a shell word.
func unquoteWord(w string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == '\\' && quote != '\'' && i+1 < len(w):
			i++
			b.WriteByte(w[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipHeredoc returns the index of the new line that ends the heredoc
// whose body starts after cmd[i], a new line, and ends with delim.
func skipHeredoc(cmd string, i int, delim string) int {
	for j := i + 1; j <= len(cmd); {
		k := strings.IndexByte(cmd[j:], '\n')
		line := cmd[j:]
		if k >= 0 {
			line = cmd[j : j+k]
		}
		if strings.TrimSpace(line) == delim {
			if k < 0 {
				return len(cmd)
			}
			return j + k
		}
		if k < 0 {
			return len(cmd)
		}
		j += k + 1
	}
	return len(cmd)
}

// commandProgram names the program of one simple command.
func commandProgram(words []string) (segment, bool) {
	i := 0
	next := func() string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	skipFlags := func() {
		for i < len(words) && strings.HasPrefix(words[i], "-") {
			i++
		}
	}
	for i < len(words) {
		w := words[i]
		switch {
		case isAssignment(w), w == "!" || w == "then" || w == "do" || w == "else" || w == "if" || w == "while":
			i++
			continue
		}
		base := lowerASCII(path.Base(w))
		switch base {
		case "sudo", "env", "time", "nice", "nohup", "exec", "command", "builtin", "stdbuf", "caffeinate", "xargs", "watch":
			i++
			skipFlags()
			continue
		case "timeout", "gtimeout":
			i++
			skipFlags()
			if i < len(words) && len(words[i]) > 0 && isDigit(words[i][0]) {
				i++
			}
			continue
		case "npx", "bunx", "pnpx":
			i++
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				if words[i] == "-p" || words[i] == "--package" {
					i++
				}
				i++
			}
			continue
		case "python", "python3", "python2", "py":
			if i+2 < len(words) && words[i+1] == "-m" {
				i += 2
				continue
			}
		case "uv", "poetry", "pipenv", "pdm", "rye", "hatch", "bundle", "pnpm", "yarn", "npm", "bun":
			// uv run pytest runs pytest; npm run build runs the repo's
			// script, which "npm run" names well enough.
			sub := lowerASCII(wordAfter(words, i))
			script := base == "npm" || base == "pnpm" || base == "yarn" || base == "bun"
			if sub == "exec" || sub == "dlx" || sub == "run" && !script {
				i += 2
				skipFlags()
				continue
			}
		}
		if w == "" {
			i++
			continue
		}
		prog := programName(base)
		name := prog
		if subcommanded[prog] {
			i++
			if prog == "git" {
				for i < len(words) && strings.HasPrefix(words[i], "-") {
					if words[i] == "-C" || words[i] == "-c" {
						i++
					}
					i++
				}
			} else {
				skipFlags()
			}
			if sub := next(); isSubcommand(sub) {
				name = prog + " " + lowerASCII(sub)
			}
		}
		return segment{prog: prog, name: name}, true
	}
	return segment{}, false
}

// programName is the name of a program as signatures use it: python3 is
// python, a script is named by its interpreter.
func programName(base string) string {
	switch {
	case base == "python3" || base == "python2" || strings.HasPrefix(base, "python3."):
		return "python"
	case base == "pip3":
		return "pip"
	case strings.HasSuffix(base, ".py"):
		return "python"
	case strings.HasSuffix(base, ".js"), strings.HasSuffix(base, ".mjs"), strings.HasSuffix(base, ".cjs"):
		return "node"
	case strings.HasSuffix(base, ".rb"):
		return "ruby"
	case base == "gradlew":
		return "gradle"
	case base == "mvnw":
		return "mvn"
	}
	return base
}

func wordAfter(words []string, i int) string {
	if i+1 < len(words) {
		return words[i+1]
	}
	return ""
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		if !isWordByte(w[i]) {
			return false
		}
	}
	return !isDigit(w[0])
}

func isSubcommand(s string) bool {
	if s == "" || len(s) > 24 || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || isDigit(c) || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}
