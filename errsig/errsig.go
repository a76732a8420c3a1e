package errsig

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/lorehq/lore/internal/shellcmd"
)

// Kind says what a failed tool result is.
type Kind int

const (
	// None: not an error — an empty output, only an exit-code wrapper,
	// or text that holds no error.
	None Kind = iota
	// Refused: the user, a permission rule or a hook refused the call;
	// not an error of the environment.
	Refused
	// Protocol: an error of the agent's own tool protocol (an edit whose
	// old string is not in the file, a write before a read): a quirk of
	// that agent's tools.
	Protocol
	// Environment: a real error of the environment — compiler, test,
	// linter, HTTP, a missing command or file, a permission.
	Environment
)

func (k Kind) String() string {
	switch k {
	case Refused:
		return "refused"
	case Protocol:
		return "protocol"
	case Environment:
		return "environment"
	}
	return "none"
}

// Coarse classes of errors (Error.Class). Some take a suffix: "lint:" the
// linter's rule, "http:" the status, "npm:" / "pnpm:" the error code, and
// an exception class its language and type ("python:ModuleNotFoundError",
// "js:TypeError", "java:…", or "exception:…" when the language is unknown).
const (
	ClassRefused         = "refused"
	ClassProtocol        = "protocol"
	ClassCompile         = "compile"
	ClassLint            = "lint"
	ClassTest            = "test"
	ClassPanic           = "panic"
	ClassCrash           = "crash"
	ClassOOM             = "oom"
	ClassTimeout         = "timeout"
	ClassCommandNotFound = "command-not-found"
	ClassNotFound        = "not-found"
	ClassPermission      = "permission"
	ClassNetwork         = "network"
	ClassHTTP            = "http"
	ClassGit             = "git"
	ClassNpm             = "npm"
	ClassPnpm            = "pnpm"
	ClassApt             = "apt"
	ClassCMake           = "cmake"
	ClassMake            = "make"
	ClassSandbox         = "sandbox"
)

// Error is what Parse found in a failed tool result.
type Error struct {
	Kind Kind
	// Line is the most specific error line, as it appeared, less colour
	// codes and the agent's wrappers, trimmed, at most 200 bytes.
	Line string
	// Signature is the key that tells the same error in another session:
	// a prefix naming where the error comes from, then Line normalised
	// (see Normalize). Empty for None.
	Signature string
	// Class is a coarse class (the Class… constants), or "".
	Class string
}

// window is how much of each end of a long output Parse reads: errors
// are at the start (compilers) or the end (test summaries, tracebacks).
const window = 16 << 10

// Parse reads a failed tool result: tool is the tool's name (Bash, shell,
// run_shell_command, Edit, str_replace_editor, execute_bash, …), input the
// call's arguments as recorded (JSON text usually), output the result's
// text, exitCode the process exit code when known. It picks the line
// that matters and builds its signature.
//
// The signature starts with where the error comes from, so one message
// from two sources stays two errors: the language for compiler and
// linter diagnostics ("go: undefined: <v>", "ts: error ts2307: …",
// "rust: error[e0308]: mismatched types") and exceptions ("python:
// modulenotfounderror: no module named <q>"), whatever command ran the
// compiler; "sh" for the shell's own errors ("sh: command not found:
// ponyc"); the test framework for a failing test ("go test: --- fail:
// testparse"); the agent's tool for protocol errors ("edit: string to
// replace not found in file."); otherwise the command's program and
// subcommand ("gh api: not found (http 404)", "git push: remote: error:
// gh006: protected branch update failed for <path>."), or the tool's name
// for a tool that is not a shell. Refusals have fixed signatures ("user
// rejected the tool use").
//
// Parse expects a failed result; given a successful one (exitCode 0, or
// an agent's "Exit Code: 0") it reports None unless the harness itself
// complained. Long outputs are read at their first and last 16 KB.
func Parse(tool, input, output string, exitCode *int) Error {
	text := output
	if t, code, ok := unwrapJSON(text); ok {
		text = t
		if exitCode == nil {
			exitCode = code
		}
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return Error{}
	}
	shell := shellcmd.IsShell(tool)
	if e, ok := known(tool, input, shell, text); ok {
		return e
	}
	s := scanner{exit: -1}
	if exitCode != nil {
		s.exit = *exitCode
	}
	s.scan(text)
	if (s.exit == 0 || s.succeeded) && !s.failed {
		return Error{} // a success, by the caller's or the agent's word
	}
	return s.result(&source{tool: tool, input: input})
}

// source is where an output came from: a tool call.
type source struct {
	tool, input string
	prog        string // the shell command's program, "go test"
	read        bool   // prog was worked out
}

// program is the program the call ran, worked out when first needed.
func (src *source) program() string {
	if !src.read {
		src.prog, src.read = shellcmd.Program(shellcmd.FromCall(src.tool, src.input)), true
	}
	return src.prog
}

// prefix is the signature prefix for errors named by their source: the
// command's program, else the tool's name.
func (src *source) prefix() string {
	if p := src.program(); p != "" {
		return p
	}
	return toolPrefix(src.tool)
}

// family is the language family of the program: python, js, java, or "".
func (src *source) family() string {
	p := src.program()
	if i := strings.IndexByte(p, ' '); i >= 0 {
		p = p[:i]
	}
	return families[p]
}

var families = map[string]string{
	"python": "python", "pytest": "python", "pip": "python", "uv": "python", "poetry": "python",
	"pipenv": "python", "tox": "python", "nox": "python", "mypy": "python", "django-admin": "python",
	"flask": "python", "ipython": "python", "jupyter": "python", "coverage": "python", "pdm": "python",
	"hatch": "python", "rye": "python",
	"node": "js", "npm": "js", "npx": "js", "pnpm": "js", "yarn": "js", "bun": "js", "deno": "js",
	"tsc": "js", "vitest": "js", "jest": "js", "next": "js", "vite": "js", "webpack": "js", "eslint": "js",
	"tsx": "js", "ts-node": "js", "mocha": "js", "playwright": "js",
	"java": "java", "javac": "java", "mvn": "java", "gradle": "java", "kotlin": "java", "sbt": "java",
}

// maxPrefix is the most bytes of a signature's prefix.
const maxPrefix = 48

// toolPrefix is a tool's name as a signature prefix.
func toolPrefix(tool string) string {
	return lowerASCII(strings.TrimSpace(tool))
}

// prefixed joins a signature's prefix and body. A prefix is a name,
// short; a longer one is cut so that the body always has room.
func prefixed(prefix, body string) string {
	if prefix = strings.TrimSpace(clip(prefix, maxPrefix)); prefix == "" {
		return clip(body, maxSignature)
	}
	return clip(prefix+": "+body, maxSignature)
}

// unwrapJSON reads outputs that are JSON objects wrapping the text: Hermes
// {"output","exit_code","error"}, Codex 0.4x {"output","metadata":{"exit_code"}}.
func unwrapJSON(s string) (text string, code *int, ok bool) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' || !strings.Contains(t[:min(len(t), 256)], `"`) {
		return "", nil, false
	}
	var v struct {
		Output   *string `json:"output"`
		Stdout   *string `json:"stdout"`
		Stderr   *string `json:"stderr"`
		Error    any     `json:"error"`
		ExitCode *int    `json:"exit_code"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(t), &v) != nil {
		return "", nil, false
	}
	var parts []string
	if e, isStr := v.Error.(string); isStr && e != "" {
		parts = append(parts, e)
	}
	for _, p := range []*string{v.Stderr, v.Output, v.Stdout} {
		if p != nil && *p != "" {
			parts = append(parts, *p)
		}
	}
	if len(parts) == 0 && v.ExitCode == nil && v.Metadata.ExitCode == nil {
		return "", nil, false
	}
	code = v.ExitCode
	if code == nil {
		code = v.Metadata.ExitCode
	}
	return strings.Join(parts, "\n"), code, true
}

// isExitWrapper reports whether l is only an agent's note of an exit
// code: "Exit code 1" (Claude Code), "Exit code: 1", "Process exited with
// code 1" (Codex), "Exit Code: 1" (Gemini CLI), "exit status 1" (go run),
// "[The command completed with exit code 1.]" (OpenHands),
// "<returncode>1</returncode>" (mini-swe-agent).
func isExitWrapper(l string) bool {
	_, ok := exitWrapper(l)
	return ok
}

var exitPrefixes = []string{
	"Exit code: ", "Exit code ", "Exit Code: ", "exit code ", "Process exited with code ", "exit status ",
	"[The command completed with exit code ", "<returncode>", "Command exited with code ",
	"Exit status ", "Command exited with non-zero status ",
}

// exitWrapper reads an exit-code wrapper line.
func exitWrapper(l string) (code int, ok bool) {
	if len(l) < 8 {
		return 0, false
	}
	switch l[:2] {
	case "Ex", "ex", "Pr", "[T", "<r", "Co":
	default:
		return 0, false
	}
	for _, p := range exitPrefixes {
		if !strings.HasPrefix(l, p) {
			continue
		}
		rest := l[len(p):]
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, "</returncode>"), ".]")
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil {
			return 0, false
		}
		return n, true
	}
	return 0, false
}
