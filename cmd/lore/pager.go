package main

import (
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// pager is where a long text goes on a terminal, as git sends it: through
// $LORE_PAGER, else $PAGER, else less -R (which also quits at once when
// the text fits: less's -F, given by $LESS=FRX when it is not set). Not on
// a terminal, or with a pager of "cat" or "", the text goes straight out.
type pager struct {
	w    io.WriteCloser
	cmd  *exec.Cmd
	done bool
}

// startPager starts the pager for ios's output, or returns one that writes
// to it directly.
func startPager(ios *iostreams.IOStreams, env transcript.Env) *pager {
	if !ios.IsStdoutTTY() {
		return &pager{w: nopCloser{ios.Out}}
	}
	getenv := func(k string) string {
		if env.Getenv == nil {
			return ""
		}
		return env.Getenv(k)
	}
	command := getenv("LORE_PAGER")
	if command == "" {
		command = getenv("PAGER")
	}
	if command == "" {
		command = "less -R"
	}
	if strings.TrimSpace(command) == "cat" {
		return &pager{w: nopCloser{ios.Out}}
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdout, cmd.Stderr = ios.Out, ios.ErrOut
	cmd.Env = os.Environ()
	if getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return &pager{w: nopCloser{ios.Out}}
	}
	if err := cmd.Start(); err != nil {
		return &pager{w: nopCloser{ios.Out}} // no pager here: straight out
	}
	return &pager{w: in, cmd: cmd}
}

func (p *pager) Write(b []byte) (int, error) { return p.w.Write(b) }

// Close ends the text and waits for the person to quit the pager. A pager
// quit before the end (a broken pipe) is no error.
func (p *pager) Close() error {
	if p.done {
		return nil
	}
	p.done = true
	p.w.Close()
	if p.cmd != nil {
		p.cmd.Wait()
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
