package transcript

import "path/filepath"

// CheckoutRoot is the root of the git checkout dir is in (the folder
// holding its .git), or "" when it is in none. A relative dir is taken
// from the current folder.
func CheckoutRoot(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	root, _ := gitRoot(dir)
	return root
}
