//go:build unix

package prune

import (
	"errors"
	"os"
	"syscall"
)

// lockFile locks f, or fails with errLocked when another open file holds
// its lock.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}
