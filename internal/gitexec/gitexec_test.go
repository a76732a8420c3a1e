package gitexec

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestOutput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	out, err := Output(context.Background(), t.TempDir(), "version")
	if err != nil || !strings.HasPrefix(string(out), "git version") {
		t.Errorf("git version: %q, %v", out, err)
	}
	_, err = Output(context.Background(), t.TempDir(), "rev-parse", "HEAD")
	if err == nil || !strings.HasPrefix(err.Error(), "git: not a git repository") || strings.Contains(err.Error(), "\n") {
		t.Errorf("outside a repository: %v, want git's first line without fatal:", err)
	}
}

func TestError(t *testing.T) {
	if err := Error(exec.ErrNotFound, ""); err.Error() != "git is not installed or not on PATH" {
		t.Errorf("Error(not found) = %v", err)
	}
	base := errors.New("exit status 128")
	if err := Error(base, "fatal: bad revision 'x'\nmore\n"); err.Error() != "git: bad revision 'x'" {
		t.Errorf("Error = %v", err)
	}
	if err := Error(base, ""); !errors.Is(err, base) {
		t.Errorf("Error without stderr = %v, want it to wrap the run's error", err)
	}
}
