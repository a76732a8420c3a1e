//go:build !unix

package regularfile

import "os"

// openNoWait is os.Open: where there is no O_NONBLOCK, named pipes are not
// found by a path on disk.
func openNoWait(path string) (*os.File, error) {
	return os.Open(path)
}
