//go:build unix

package regularfile

import (
	"os"
	"syscall"
)

// openNoWait opens path without blocking on a named pipe that has no
// writer; O_NONBLOCK changes nothing for reads of a regular file.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
