//go:build !unix

package main

import "os/exec"

// detach leaves cmd as it is where there are no sessions to leave.
func detach(*exec.Cmd) {}
