package shellcmd

import (
	"path"
	"strings"
)

// Program returns the program a shell command runs, with its subcommand
// for tools that have them: "go test", "git push", "npm run", "gh api",
// "make lint", "pytest". In a chain (a && b; c) it is the last command
// that is not housekeeping (cd, export, mkdir, echo, …); in a pipeline
// the first that is not a filter (grep, tail, …). Wrappers are looked
// through (sudo, env, timeout, npx, uv run, python -m); a script is named
// by its interpreter (x.py is python). "" when the line holds no command.
func Program(line string) string {
	var (
		words                [maxWords]string
		n                    int
		pipe, chosen, latest segment
		inPipe               bool // pipe holds the current pipeline's program so far
	)
	lx := lexer{line: line}
	for {
		tok, w, _ := lx.next()
		if tok == tokWord {
			if n < maxWords {
				words[n] = w
				n++
			}
			continue
		}
		if n > 0 {
			s, ok := program(words[:n])
			n = 0
			if ok && (!inPipe || filters[pipe.prog] && !filters[s.prog]) {
				pipe, inPipe = s, true
			}
		}
		if tok != tokPipe && inPipe {
			latest, inPipe = pipe, false
			if !housekeeping[pipe.prog] {
				chosen = pipe
			}
		}
		if tok == tokEOF {
			break
		}
	}
	if chosen.name != "" {
		return chosen.name
	}
	return latest.name
}

// maxWords is how many words of a simple command name its program.
const maxWords = 12

// segment is the program of one simple command.
type segment struct {
	prog string // base name of the program, lower case
	name string // prog with its subcommand
}

// program names the program of one simple command.
func program(words []string) (segment, bool) {
	for {
		words = Unwrap(words)
		cmd, ok := Launched(words)
		if !ok {
			break
		}
		words = cmd
	}
	if len(words) == 0 {
		return segment{}, false
	}
	prog := programName(lowerASCII(path.Base(words[0])))
	s := segment{prog: prog, name: prog}
	if !subcommanded[prog] {
		return s, true
	}
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		if prog == "git" && (words[i] == "-C" || words[i] == "-c") {
			i++ // git -C dir, git -c name=value
		}
		i++
	}
	if i < len(words) && isSubcommand(words[i]) {
		s.name = prog + " " + lowerASCII(words[i])
	}
	return s, true
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
