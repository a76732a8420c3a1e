//go:build unix

package improve

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd in a process group of its own, so that the group
// can be killed with everything the command started in it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcesses does to processes what kill does.
func killProcesses(pids []int, grace time.Duration) { kill(nil, pids, grace) }

// kill ends process groups and processes together: SIGTERM to all, then,
// after grace (none: at once), SIGKILL to what is left, and waits at most
// a second more until they are gone.
func kill(groups, pids []int, grace time.Duration) {
	alive := func() bool {
		for _, g := range groups {
			if groupAlive(g) {
				return true
			}
		}
		for _, p := range pids {
			if processAlive(p) {
				return true
			}
		}
		return false
	}
	send := func(sig syscall.Signal) {
		for _, g := range groups {
			syscall.Kill(-g, sig)
		}
		for _, p := range pids {
			syscall.Kill(p, sig)
		}
	}
	if !alive() {
		return
	}
	if grace > 0 {
		send(syscall.SIGTERM)
		if waitGone(alive, grace) {
			return
		}
	}
	send(syscall.SIGKILL)
	waitGone(alive, time.Second)
}

// signalTerm asks the process to stop.
func signalTerm(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// groupAlive says whether a process of the group lives; zombies, which
// only wait to be reaped, do not count.
func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) && groupMembers(pgid)
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}
