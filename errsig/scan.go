package errsig

import "strings"

// scanner reads an output's lines and keeps the best.
type scanner struct {
	text string
	// exit is the caller's exit code, -1 when unknown.
	exit int
	// failed: a wrapper said the command failed; succeeded: it said 0.
	failed, succeeded bool
	python            bool // a Python traceback was seen
	gemini            bool // Gemini CLI's run_shell_command layout
	ansi              bool // the text being read holds escape sequences
	sandbox           bool // Codex's "failed in sandbox:" with nothing after
	best              cand
}

// cand is a candidate error line.
type cand struct {
	line string
	end  int // offset in text just past the line
	v    verdict
	ok   bool
}

// maxScanLine is how much of one line the classifier reads; maxHintScan
// how much the hint pass reads: an error line says what it is early.
const (
	maxScanLine = 1024
	maxHintScan = 256
)

func (s *scanner) scan(text string) {
	s.text = text
	s.gemini = strings.HasPrefix(text, "Command: ")
	if len(text) <= 2*window {
		s.lines(0, len(text))
		return
	}
	head := window
	if i := strings.LastIndexByte(text[:head], '\n'); i > 0 {
		head = i
	}
	tail := len(text) - window
	if i := strings.IndexByte(text[tail:], '\n'); i >= 0 {
		tail += i + 1
	}
	s.lines(0, head)
	s.lines(tail, len(text))
}

// lines reads text[from:to] line by line. Most lines of a long output
// hold no hint of an error; they cost one pass over their bytes.
func (s *scanner) lines(from, to int) {
	cr := strings.IndexByte(s.text[from:to], '\r') >= 0
	s.ansi = strings.IndexByte(s.text[from:to], 0x1b) >= 0
	for from < to {
		end := to
		if i := strings.IndexByte(s.text[from:to], '\n'); i >= 0 {
			end = from + i
		}
		raw := s.text[from:end]
		from = end + 1
		if len(raw) > maxScanLine {
			raw = raw[:maxScanLine]
		}
		if cr {
			raw = lastFrame(raw)
		}
		l := s.clean(raw)
		if l == "" {
			continue
		}
		v, shaped := s.noise(l)
		if !shaped {
			f := features(l[:min(len(l), maxHintScan)])
			if f == 0 {
				continue // an ordinary line
			}
			v = s.classify(l, f)
		}
		if v.score > 0 && (!s.best.ok || v.score > s.best.v.score || v.score == s.best.v.score && v.last) {
			s.best = cand{line: l, end: end, v: v, ok: true}
		}
	}
}

// lastFrame is what a terminal shows of a line that redraws itself with
// carriage returns: its last non-blank frame.
func lastFrame(l string) string {
	for {
		i := strings.LastIndexByte(l, '\r')
		if i < 0 {
			return l
		}
		if strings.TrimSpace(l[i+1:]) != "" {
			return l[i+1:]
		}
		l = l[:i]
	}
}

// lastPlain finds the last line of the scanned text that is neither
// noise nor a wrapper: the witness of a failure that printed no error.
func (s *scanner) lastPlain() (cand, bool) {
	to := len(s.text)
	floor := max(0, len(s.text)-window)
	for to > floor {
		from := strings.LastIndexByte(s.text[floor:to], '\n') + 1 + floor
		if from == floor && floor > 0 {
			break // a cut line
		}
		raw := s.text[from:to]
		end := to
		to = from - 1
		if len(raw) > maxScanLine {
			raw = raw[:maxScanLine]
		}
		l := s.clean(lastFrame(raw))
		if l == "" {
			continue
		}
		if v, noise := s.noise(l); noise && v.score < 0 {
			continue
		}
		return cand{line: l, end: end, ok: true}, true
	}
	return cand{}, false
}

// clean turns a raw line into the text to judge: the last frame of a
// progress line, trimmed, without colour codes or the agent's wrappers
// ("failed in sandbox:", Gemini's "Output:", a task runner's "[lint:go]").
// It returns "" for lines that are only wrappers, noting what they say.
func (s *scanner) clean(l string) string {
	l = trimASCII(l)
	if l == "" {
		return ""
	}
	if s.ansi && strings.IndexByte(l, 0x1b) >= 0 {
		if l = strings.TrimSpace(stripANSI(l)); l == "" {
			return ""
		}
	}
	if code, ok := exitWrapper(l); ok {
		if code != 0 {
			s.failed = true
		} else {
			s.succeeded = true
		}
		return ""
	}
	switch l[0] {
	case 'f':
		if strings.HasPrefix(l, "failed in sandbox:") {
			s.failed = true
			l = strings.TrimSpace(l[len("failed in sandbox:"):])
			if l == "" {
				s.sandbox = true
			}
		}
	case '<':
		if l == "<output>" || l == "</output>" || strings.HasPrefix(l, "<tool_use_error>") {
			return ""
		}
	case '[':
		// mise and other task runners: "[lint:go] x.go:1:2: …"
		if i := strings.IndexByte(l, ']'); i > 1 && i+1 < len(l) && l[i+1] == ' ' && isTaskName(l[1:i]) {
			l = strings.TrimSpace(l[i+1:])
		}
	}
	if s.gemini {
		switch {
		case strings.HasPrefix(l, "Command: "), strings.HasPrefix(l, "Directory: "),
			strings.HasPrefix(l, "Signal: "), strings.HasPrefix(l, "Background PIDs: "),
			strings.HasPrefix(l, "Process Group PGID: "), l == "Error: (none)":
			return ""
		}
		for _, p := range []string{"Output: ", "Stdout: ", "Stderr: "} {
			if strings.HasPrefix(l, p) {
				l = strings.TrimSpace(l[len(p):])
			}
		}
		if l == "(empty)" {
			return ""
		}
	}
	return l // may be "": a wrapper with nothing after it
}

// trimASCII trims ASCII white space, which is all an output's lines are
// padded with, faster than strings.TrimSpace.
func trimASCII(s string) string {
	i, j := 0, len(s)
	for i < j && asciiSpace[s[i]] {
		i++
	}
	for j > i && asciiSpace[s[j-1]] {
		j--
	}
	return s[i:j]
}

var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

// isTaskName reports whether s names a task ("lint:go", "build"), not a
// level ("ERROR") or anything else in brackets.
func isTaskName(s string) bool {
	if len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || isDigit(c) || strings.IndexByte(":_-./@", c) >= 0) {
			return false
		}
	}
	return true
}

// stripANSI removes terminal escape sequences.
func stripANSI(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[': // CSI: parameters, then a final byte in @..~
			j := i + 2
			for j < len(s) && (s[j] < '@' || s[j] > '~') {
				j++
			}
			i = j
		case ']': // OSC: up to BEL or ESC \
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}
