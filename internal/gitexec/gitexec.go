// Package gitexec runs the git command the way lore reads repositories:
// output not localised, paged or coloured, paths not quoted, no lock taken
// and no prompt; an error is git's own first line.
package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Command is git with args in dir.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotepath=off", "-c", "color.ui=never"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "LC_ALL=C", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	return cmd
}

// Output runs git and returns its output; its error says what git said.
func Output(ctx context.Context, dir string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := Command(ctx, dir, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, Error(err, stderr.String())
	}
	return out, nil
}

// Error is the error of a git run that wrote stderr: git's first line, or
// that git is not installed.
func Error(err error, stderr string) error {
	if errors.Is(err, exec.ErrNotFound) {
		return errors.New("git is not installed or not on PATH")
	}
	if line := strings.TrimSpace(stderr); line != "" {
		first, _, _ := strings.Cut(line, "\n")
		return fmt.Errorf("git: %s", strings.TrimPrefix(first, "fatal: "))
	}
	return fmt.Errorf("git: %w", err)
}
