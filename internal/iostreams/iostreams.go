// Package iostreams carries lore's terminal input and output, and knows
// whether each stream is a terminal: progress bars only on a TTY,
// plain text for pipes and files.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// IOStreams is where a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY  bool
	outTTY bool
	errTTY bool
	// width is the terminal's columns when output goes to one; 0 for a
	// pipe or a file.
	width int
}

// defaultWidth is a terminal's width when it cannot be asked for one.
const defaultWidth = 80

// System returns the process's own streams.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	s.inTTY = term.IsTerminal(int(os.Stdin.Fd()))
	s.outTTY = term.IsTerminal(int(os.Stdout.Fd()))
	s.errTTY = term.IsTerminal(int(os.Stderr.Fd()))
	if s.outTTY {
		s.width = defaultWidth
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.width = w
		} else if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
			s.width = n
		}
	}
	return s
}

// TerminalWidth is how many columns output may take: the terminal's when
// output goes to one, 0 (no limit) for a pipe or a file, where tables are
// written whole.
func (s *IOStreams) TerminalWidth() int {
	if !s.outTTY {
		return 0
	}
	if s.width <= 0 {
		return defaultWidth
	}
	return s.width
}

// SetTerminalWidth sets the terminal's width, for tests of tables.
func (s *IOStreams) SetTerminalWidth(w int) { s.width = w }

// Test returns streams backed by buffers, none of them a terminal.
func Test() (s *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdinTTY reports whether input comes from a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether output goes to a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether errors and progress go to a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// SetStdinTTY says whether input is to be taken for a terminal: for tests
// of what a command does at one.
func (s *IOStreams) SetStdinTTY(tty bool) { s.inTTY = tty }

// SetStdoutTTY says whether output is to be taken for a terminal.
func (s *IOStreams) SetStdoutTTY(tty bool) { s.outTTY = tty }
