//go:build unix

package atomicfile

import "syscall"

func umask(m int) int { return syscall.Umask(m) }
