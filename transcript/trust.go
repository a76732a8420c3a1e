package transcript

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Discovery reads the agents' default locations without being asked to,
// and some of them are in shared folders (/tmp/openhands_file_store): a
// file another user put there, or could have changed, would hand that
// user's text to lore as if it were the agent's. So a default location,
// and every file and folder found in one, is read only when it is the
// user's own and no one else can write it; the sticky bit does not make
// a file others can write any safer. Paths the user names are read as
// given.

// distrust says why a file or folder met in a default location is not
// read, or "" when it is the user's own and no other user can write it.
func distrust(fi fs.FileInfo) string {
	if !ownersKnown {
		return ""
	}
	if !ownedByUser(fi) {
		return "owned by another user"
	}
	if fi.Mode().Perm()&0o002 != 0 {
		return "writable by other users"
	}
	return ""
}

// distrustPath is distrust for a default location itself, which is also
// refused when a folder above it lets another user replace it: one owned
// by another user than the user or the system, or one others can write
// without the sticky bit that keeps them from renaming what is not
// theirs (/tmp is fine, /tmp/openhands_file_store made 0777 is not).
func distrustPath(path string, fi fs.FileInfo) string {
	if why := distrust(fi); why != "" || !ownersKnown {
		return why
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		di, err := os.Stat(dir)
		if err != nil {
			return ""
		}
		switch {
		case !ownedByUser(di) && !ownedBySystem(di):
			return "in " + dir + ", owned by another user"
		case di.Mode().Perm()&0o002 != 0 && di.Mode()&fs.ModeSticky == 0:
			return "in " + dir + ", writable by other users"
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}
