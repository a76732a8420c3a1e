//go:build unix

package transcript

import (
	"io/fs"
	"os"
	"syscall"
)

// ownersKnown: files have an owning user and mode bits for others.
const ownersKnown = true

// ownedByUser reports whether this process's user owns fi.
func ownedByUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// ownedBySystem reports whether root owns fi.
func ownedBySystem(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0
}
