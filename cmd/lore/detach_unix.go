//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach makes cmd outlive lore and the agent that ran it: its own
// session, away from the agent's terminal and process group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
