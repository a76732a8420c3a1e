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

// killGroup sends the process group SIGTERM, then SIGKILL to what is left
// after grace, and waits (at most a second more) until it is gone.
func killGroup(pgid int, grace time.Duration) {
	if !groupAlive(pgid) {
		return
	}
	syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGone(func() bool { return groupAlive(pgid) }, grace) {
		return
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	waitGone(func() bool { return groupAlive(pgid) }, time.Second)
}

// killProcesses does to processes what killGroup does to a group.
func killProcesses(pids []int, grace time.Duration) {
	if len(pids) == 0 {
		return
	}
	anyAlive := func() bool {
		for _, p := range pids {
			if processAlive(p) {
				return true
			}
		}
		return false
	}
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGTERM)
	}
	if waitGone(anyAlive, grace) {
		return
	}
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	waitGone(anyAlive, time.Second)
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

func waitGone(alive func() bool, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
