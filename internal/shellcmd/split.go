package shellcmd

import (
	"path"
	"strings"
)

// Command is one simple command of a command line.
type Command struct {
	// Words are the command's words, unquoted, its redirections left out;
	// Raw are the same words as written.
	Words, Raw []string
	// Piped is set when the command reads the output of the one before
	// it: b in a | b.
	Piped bool
}

// Split splits a command line into its simple commands, in order: at &&,
// ||, ;, &, | and new lines outside quotes, and at the brackets of
// subshells and groups. Heredoc bodies are skipped: they are text, not
// commands.
func Split(line string) []Command {
	// The commands' words share two arrays, sized for a word at each
	// space up to a point: growing each command's words one by one took
	// half the time of splitting.
	size := min(strings.Count(line, " ")+1, 64)
	var (
		cmds   []Command
		words  = make([]string, 0, size)
		raw    = make([]string, 0, size)
		first  int  // the current command's first word
		inPipe bool // a command of this pipeline came before
	)
	lx := lexer{line: line}
	for {
		tok, w, r := lx.next()
		if tok == tokWord {
			words, raw = append(words, w), append(raw, r)
			continue
		}
		if n := len(words); n > first {
			cmds = append(cmds, Command{Words: words[first:n:n], Raw: raw[first:n:n], Piped: inPipe})
			first, inPipe = n, true
		}
		switch tok {
		case tokEnd:
			inPipe = false
		case tokEOF:
			return cmds
		}
	}
}

// Unwrap returns the words of a simple command from its program on:
// without the variables set for it (FOO=1 make), the shell's keywords
// (then make), empty words and the wrappers that run it (sudo, timeout
// 60, npx).
func Unwrap(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "", isAssignment(w), keywords[w]:
			words = words[1:]
		case wrappers[lowerASCII(path.Base(w))]:
			js := jsRunners[lowerASCII(path.Base(w))]
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || words[0] != "" && isDigit(words[0][0])) {
				if js && (words[0] == "-p" || words[0] == "--package") && len(words) > 1 {
					words = words[1:]
				}
				words = words[1:] // sudo -E, timeout 60, nice -n 10
			}
		default:
			return words
		}
	}
	return words
}

// Launched returns the command that words, a simple command from its
// program on, launch: pytest for uv run pytest and python -m pytest,
// vitest for pnpm exec vitest. ok is false when words launch nothing.
func Launched(words []string) (cmd []string, ok bool) {
	if len(words) < 3 {
		return nil, false
	}
	prog, sub := lowerASCII(path.Base(words[0])), lowerASCII(words[1])
	switch {
	case python(prog) && sub == "-m":
		return words[2:], true
	case launchers[prog] && (sub == "run" || sub == "exec" || sub == "dlx"),
		jsLaunchers[prog] && (sub == "exec" || sub == "dlx"):
		words = words[2:]
		for len(words) > 0 && strings.HasPrefix(words[0], "-") {
			words = words[1:]
		}
		return words, len(words) > 0
	}
	return nil, false
}

func python(prog string) bool {
	return prog == "python" || prog == "python3" || prog == "python2" || prog == "py"
}

// isAssignment reports whether w sets a variable: NAME=value.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 || isDigit(w[0]) {
		return false
	}
	for i := 0; i < eq; i++ {
		if c := w[i]; !(isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}
