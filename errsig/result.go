package errsig

import "strings"

// result turns what the scan found into an Error.
func (s *scanner) result(src *source) Error {
	failed := s.failed || s.exit > 0 || s.exit < -1 // -1: unknown (OpenHands: still running)
	c := s.best
	plain, hasPlain := cand{}, false
	if !(c.ok && c.v.score >= minScore) && failed {
		plain, hasPlain = s.lastPlain()
	}
	switch {
	case c.ok && c.v.score >= minScore:
	case hasPlain:
		c = plain
	case c.ok && failed:
	case s.sandbox:
		return Error{Kind: Environment, Line: "failed in sandbox", Signature: prefixed(src.prefix(), "failed in sandbox"), Class: ClassSandbox}
	default:
		return Error{}
	}
	line := c.line
	if c.v.join {
		if next := s.nextLine(c.end); next != "" {
			line += " " + next
		}
	}
	v := c.v
	e := Error{Kind: Environment, Line: lineOf(line), Class: v.class}
	if e.Line == "" {
		return Error{} // nothing readable
	}
	switch v.form {
	case formLoc:
		prefix := v.name
		if prefix == "" {
			prefix = src.prefix()
		}
		e.Signature = prefixed(prefix, Normalize(line[v.cut:]))
	case formShell:
		if v.class == ClassCommandNotFound {
			e.Signature = prefixed("sh", "command not found: "+normalize(v.name, true))
		} else {
			e.Signature = prefixed("sh", Normalize(line[v.cut:]))
		}
	case formTest:
		prefix := v.name
		if prefix == "" {
			prefix = src.prefix()
		}
		msg := line
		if v.name == "pytest" && strings.HasPrefix(msg, "E ") {
			msg = msg[2:] // pytest's mark for the lines of a failure
		}
		e.Signature = prefixed(prefix, normalize(msg, true))
	case formException:
		family := src.family()
		if s.python {
			family = "python"
		}
		prefix := family
		if family == "" {
			family, prefix = "exception", src.prefix()
		}
		e.Class = family + ":" + v.name
		msg := line
		if len(msg) > 2 && msg[0] == '[' && msg[len(msg)-1] == ']' {
			msg = msg[1 : len(msg)-1]
		}
		e.Signature = prefixed(prefix, Normalize(msg))
	default:
		prefix := src.prefix()
		e.Signature = prefixed(prefix, Normalize(dropProgram(line, prefix)))
	}
	switch {
	case e.Class == "", e.Class == ClassNotFound, e.Class == ClassNpm, v.form == formException:
		if code := httpStatus(line); code != "" {
			e.Class = ClassHTTP + ":" + code
		}
	}
	if e.Class == "" {
		if p := src.program(); p == "git" || strings.HasPrefix(p, "git ") {
			e.Class = ClassGit
		}
	}
	return e
}

// dropProgram removes "prog: " from the start of line when prog is the
// program the prefix names: "gh: Not Found" under "gh api".
func dropProgram(line, prefix string) string {
	base := prefix
	if i := strings.IndexByte(base, ' '); i >= 0 {
		base = base[:i]
	}
	if base != "" && len(line) > len(base)+2 && strings.EqualFold(line[:len(base)], base) && line[len(base)] == ':' && line[len(base)+1] == ' ' {
		return line[len(base)+2:]
	}
	return line
}

// nextLine is the first non-blank line after offset end, cleaned.
func (s *scanner) nextLine(end int) string {
	for from := end + 1; from < len(s.text); {
		to := len(s.text)
		if i := strings.IndexByte(s.text[from:], '\n'); i >= 0 {
			to = from + i
		}
		l := strings.TrimSpace(s.text[from:min(to, from+maxScanLine)])
		if strings.IndexByte(l, 0x1b) >= 0 {
			l = strings.TrimSpace(stripANSI(l))
		}
		if l != "" {
			return l
		}
		from = to + 1
	}
	return ""
}
