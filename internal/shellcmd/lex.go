package shellcmd

import "strings"

// token is what the lexer reads next.
type token int

const (
	tokWord token = iota // a word, unquoted
	tokPipe              // | or |&: the next command reads this one's output
	tokEnd               // the end of a pipeline: && || ; & a new line, a bracket
	tokEOF
)

// lexer reads a command line word by word, the way a shell would split
// it, well enough to name its commands: quotes and escapes are honoured,
// heredoc bodies and redirections are skipped, and brackets end a
// pipeline (a subshell or a group). It allocates only to unquote a word.
type lexer struct {
	line    string
	i       int
	heredoc [4]string // delimiters of the heredocs whose bodies start at the next new line
	nhere   int
	skip    bool // the word after a bare redirection (> file) is its target
}

// next returns the next token and, for a word, the word unquoted and as
// written.
func (lx *lexer) next() (tok token, word, raw string) {
	var (
		line   = lx.line
		start  = -1 // start of the current word
		quoted bool // the current word holds quotes or escapes
		quote  byte // the open quote; $ for $'…', which takes escapes
	)
	// finish ends the current word at i, and reports whether it is one to
	// return: a redirection and its target are not.
	finish := func(i int) bool {
		raw, q := line[start:i], quoted
		start, quoted = -1, false
		if bare, ok := redirection(raw); ok {
			lx.skip = bare
			return false
		}
		if lx.skip {
			lx.skip = false
			return false
		}
		word = raw
		if q {
			word = unquoteWord(raw)
		}
		return true
	}
	for ; lx.i < len(line); lx.i++ {
		i := lx.i
		c := line[i]
		if quote != 0 {
			switch {
			case c == quote, quote == '$' && c == '\'':
				quote = 0
			case c == '\\' && quote != '\'':
				lx.i++
			case c == '$' && quote == '"' && i+1 < len(line) && line[i+1] == '(':
				lx.i = substitution(line, i+1) // "$(cat <<'EOF' … EOF)"
			}
			continue
		}
		if substitutes(line, i) {
			// $(cmd), <(cmd), >(cmd): the command inside is part of the word
			if start < 0 {
				start = i
			}
			quoted = true
			lx.i = substitution(line, i+1)
			continue
		}
		if c == '$' && i+1 < len(line) && line[i+1] == '\'' {
			if start < 0 { // $'a\tb'
				start = i
			}
			quote, quoted = '$', true
			lx.i++
			continue
		}
		if start >= 0 && endsWord(line, i) {
			if s := start; finish(i) {
				return tokWord, word, line[s:i]
			}
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			if start < 0 {
				start = i
			}
			quote, quoted = c, true
		case c == '\\' && start < 0 && i+1 < len(line) && line[i+1] == '\n':
			lx.i++ // a line continued: a blank
		case c == '\\':
			if start < 0 {
				start = i
			}
			quoted = true
			lx.i++
		case c == ' ' || c == '\t':
		case start >= 0:
			// inside a word: 2>&1, &>, x(y), ${x}
		case c == '\n':
			for _, d := range lx.heredoc[:lx.nhere] {
				lx.i = skipHeredoc(line, lx.i, d)
			}
			lx.nhere = 0
			return lx.end(1)
		case c == ';':
			return lx.end(1)
		case c == '&':
			if i+1 < len(line) && line[i+1] == '&' {
				return lx.end(2)
			}
			if i+1 < len(line) && line[i+1] == '>' {
				start = i // &> file
				continue
			}
			return lx.end(1)
		case c == '|':
			if i+1 < len(line) && line[i+1] == '|' {
				return lx.end(2)
			}
			lx.skip = false
			if i+1 < len(line) && line[i+1] == '&' {
				lx.i += 2
			} else {
				lx.i++
			}
			return tokPipe, "", ""
		case c == '<' && i+1 < len(line) && line[i+1] == '<' && (i+2 >= len(line) || line[i+2] != '<'):
			lx.i = lx.heredocStart(i + 2)
		case c == '(' || c == ')':
			return lx.end(1) // a subshell: ( cd x && make )
		case (c == '{' || c == '}') && (i+1 == len(line) || strings.IndexByte(" \t\n;&|()", line[i+1]) >= 0):
			return lx.end(1) // a group: { make; }
		default:
			start = i
		}
	}
	if start >= 0 {
		if s := start; finish(len(line)) {
			return tokWord, word, line[s:]
		}
	}
	lx.skip = false
	return tokEOF, "", ""
}

// substitutes reports whether line[i] starts a command substitution,
// $(cmd), or a process substitution, <(cmd) or >(cmd).
func substitutes(line string, i int) bool {
	c := line[i]
	return (c == '$' || c == '<' || c == '>') && i+1 < len(line) && line[i+1] == '(' && (c == '$' || i == 0 || line[i-1] == ' ' || line[i-1] == '\t')
}

// substitution returns the index of the bracket that closes the one at
// line[i], minding quotes, nested brackets and heredoc bodies; the last
// index when none does.
func substitution(line string, i int) int {
	var (
		depth   int
		quote   byte
		heredoc [4]string
		nhere   int
	)
	for ; i < len(line); i++ {
		c := line[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			} else if c == '\\' && quote != '\'' {
				i++
			}
			continue
		}
		switch c {
		case '\\':
			i++
		case '\'', '"', '`':
			quote = c
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		case '<':
			if i+1 < len(line) && line[i+1] == '<' && (i+2 >= len(line) || line[i+2] != '<') {
				i += 2
				for i < len(line) && (line[i] == '-' || line[i] == ' ' || line[i] == '\t') {
					i++
				}
				j := i
				for j < len(line) && strings.IndexByte(" \t\n;)", line[j]) < 0 {
					j++
				}
				if d := strings.Trim(line[i:j], `'"\`); d != "" && nhere < len(heredoc) {
					heredoc[nhere] = d
					nhere++
				}
				i = j - 1
			}
		case '\n':
			for _, d := range heredoc[:nhere] {
				i = skipHeredoc(line, i, d)
			}
			nhere = 0
		}
	}
	return len(line) - 1
}

// endsWord reports whether line[i] ends the word before it.
func endsWord(line string, i int) bool {
	switch c := line[i]; c {
	case ' ', '\t', '\n', ';', '|', ')':
		return true
	case '&':
		prev := line[i-1]
		return prev != '>' && prev != '<' && (i+1 >= len(line) || line[i+1] != '>')
	case '<':
		return i+1 < len(line) && line[i+1] == '<' && (i+2 >= len(line) || line[i+2] != '<')
	}
	return false
}

// end ends a pipeline at an operator n bytes long.
func (lx *lexer) end(n int) (token, string, string) {
	lx.i += n
	lx.skip = false
	return tokEnd, "", ""
}

// heredocStart reads the delimiter of a heredoc whose operator (<<)
// ends before i, and returns where the line goes on after it.
func (lx *lexer) heredocStart(i int) int {
	line := lx.line
	for i < len(line) && (line[i] == '-' || line[i] == ' ' || line[i] == '\t') {
		i++
	}
	j := i
	for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\n' && line[j] != ';' && line[j] != ')' {
		j++
	}
	if d := strings.Trim(line[i:j], `'"\`); d != "" && lx.nhere < len(lx.heredoc) {
		lx.heredoc[lx.nhere] = d
		lx.nhere++
	}
	return j - 1 // the loop steps past it
}

// redirection reports whether w, as written, redirects input or output
// (>out, 2>&1, <in, &>log), and whether it is bare, its file the next
// word (> out).
func redirection(w string) (bare, ok bool) {
	i := 0
	if i < len(w) && w[i] == '&' {
		i++
	} else {
		for i < len(w) && isDigit(w[i]) {
			i++
		}
	}
	switch {
	case strings.HasPrefix(w[i:], ">("), strings.HasPrefix(w[i:], "<("):
		return false, false // a process substitution
	case strings.HasPrefix(w[i:], ">>"):
		i += 2
	case strings.HasPrefix(w[i:], ">"), strings.HasPrefix(w[i:], "<"):
		i++
	default:
		return false, false
	}
	return i == len(w), true
}

// unquoteWord removes the quotes and escapes of a shell word, as the
// shell does: within double quotes a backslash escapes only $ ` " \ and
// a new line (grep "\bx\b" looks for \bx\b).
func unquoteWord(w string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case quote != 0 && c == quote, quote == '$' && c == '\'':
			quote = 0
		case quote == 0 && c == '$' && i+1 < len(w) && w[i+1] == '\'':
			quote = '$' // $'…' takes escapes: \' \\ \n
			i++
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == '\\' && quote != '\'' && i+1 < len(w) && w[i+1] == '\n':
			i++ // a line continued
		case (quote == 0 || quote == '"') && c == '$' && i+1 < len(w) && w[i+1] == '(':
			j := substitution(w, i+1)
			b.WriteString(w[i : j+1]) // $(cmd) stays as written
			i = j
		case c == '\\' && i+1 < len(w) && (quote == 0 || quote == '$' || quote == '"' && strings.IndexByte("$`\"\\\n", w[i+1]) >= 0):
			i++
			switch c := w[i]; {
			case quote == '$' && c == 'n':
				b.WriteByte('\n')
			case quote == '$' && c == 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipHeredoc returns the index of the new line that ends the heredoc
// whose body starts after line[i], a new line, and ends with delim.
func skipHeredoc(line string, i int, delim string) int {
	for j := i + 1; j <= len(line); {
		k := strings.IndexByte(line[j:], '\n')
		l := line[j:]
		if k >= 0 {
			l = line[j : j+k]
		}
		if strings.TrimSpace(l) == delim {
			if k < 0 {
				return len(line)
			}
			return j + k
		}
		if k < 0 {
			return len(line)
		}
		j += k + 1
	}
	return len(line)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lowerASCII lowers the ASCII letters of s only: names are ASCII, and
// other bytes stay as they are, even when they are not UTF-8.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
