//go:build unix

package llm

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and has cancelling
// kill the whole group, so that what an agent CLI started dies with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
