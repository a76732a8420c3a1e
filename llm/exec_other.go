//go:build !unix

package llm

import "os/exec"

// killGroup leaves cmd as it is: cancelling kills the command alone.
func killGroup(*exec.Cmd) {}
