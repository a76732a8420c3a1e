// Package atomicfile writes files so that no reader ever sees half of
// one: through a temporary file in the same folder, renamed over the old.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, with permissions perm, creating its
// folder when missing with the same permissions and search where there
// is read (0600 gives 0700, 0644 0755): a file for the user alone is not
// put in a folder others can list. On error the old file is left as it
// was.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), dirPerm(perm)); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// dirPerm is the folder mode for files of mode perm.
func dirPerm(perm fs.FileMode) fs.FileMode {
	perm &= fs.ModePerm
	return perm | perm&0o444>>2
}

// ResolveLink is the file a write to p should replace: where a symbolic
// link at p points, so that a file kept in a dotfiles folder is written
// where it lives and the link survives (WriteFile's rename would replace
// the link itself). It is p when p is no link, or not there.
func ResolveLink(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
