package prune

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// errLocked is what the platform's lock says when another process holds
// it.
var errLocked = errors.New("locked")

// archiveLock is held by the one prune or restore that changes a
// database and its archive. Two at once would each take the other's
// sessions for unfinished or changed ones and delete their archived copy
// after the other deleted them from the database: both copies gone.
type archiveLock struct{ f *os.File }

// lockArchive takes the lock of the archive at path: a file beside it,
// path.lock, holding the process id of its holder. The system releases
// it when the process ends, however it ends.
func lockArchive(path string) (*archiveLock, error) {
	name := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("another lore prune or restore (%s) is using the archive %s: run this one when it has ended", holder(name), path)
		}
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	// The holder's id is for the message above; the lock does not need it.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	}
	return &archiveLock{f: f}, nil
}

// holder names the process the lock file says holds it.
func holder(name string) string {
	b, err := os.ReadFile(name)
	if pid, err2 := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil && err2 == nil {
		return "process " + strconv.Itoa(pid)
	}
	return "a process"
}

// unlock releases the lock.
func (l *archiveLock) unlock() error { return l.f.Close() }
