//go:build !unix

package improve

import (
	"os"
	"os/exec"
	"time"
)

// Without process groups, lore improve kills the command it started and
// no more; its descendants may outlive it.
func ownGroup(cmd *exec.Cmd) {}

func kill(groups, pids []int, grace time.Duration) { killProcesses(append(groups, pids...), grace) }

func killProcesses(pids []int, grace time.Duration) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

func signalTerm(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p != nil
}
