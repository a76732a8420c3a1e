package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the errors for paths that are no regular
// file (nor a link to one).
var ErrNotRegular = errors.New("not a regular file")

// Check fails when fi describes no regular file, naming what it is.
func Check(fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	kind := ""
	switch {
	case m.IsDir():
		kind = "a folder"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	default:
		return ErrNotRegular
	}
	return fmt.Errorf("%w: %s", ErrNotRegular, kind)
}

// Open opens path for reading when it is a regular file, or a link to
// one. The check is made before the open, which some kinds refuse with an
// error of their own (a socket), and again on the opened file; the open
// itself does not wait for a pipe's writer, so a file swapped for a pipe
// in between is refused too, at once.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := Check(fi); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = Check(fi)
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}

// ReadFile is os.ReadFile for regular files only.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
