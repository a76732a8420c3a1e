package claudehook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckInstalled refuses a binary that go run built: it is deleted when
// that run ends, and the hooks would call nothing.
func CheckInstalled(exe string) error {
	if isTemporaryBuild(exe) {
		return fmt.Errorf("lore runs from a temporary build (%s) that hooks cannot call; install it first with `go install github.com/lorehq/lore/cmd/lore@latest` (or `go install ./cmd/lore` in a checkout) and run that lore", exe)
	}
	return nil
}

func isTemporaryBuild(exe string) bool {
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return true
	}
	tmp := filepath.Clean(os.TempDir())
	dirs := []string{tmp}
	if r, err := filepath.EvalSymlinks(tmp); err == nil && r != tmp {
		dirs = append(dirs, r) // macOS: /var → /private/var
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, exe); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// ProjectNote says what is wrong when this user's PATH (the value of
// $PATH, on goos) would not run exe as lore: a project's hooks call lore by
// name. It is "" when PATH finds exe.
func ProjectNote(pathList, goos, exe string) string {
	found := lookLore(pathList, goos)
	if found == "" {
		return "the project's hooks call lore by name, and PATH has no lore: install it where PATH finds it (go install github.com/lorehq/lore/cmd/lore@latest)"
	}
	a, errA := os.Stat(found)
	b, errB := os.Stat(exe)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		return fmt.Sprintf("the project's hooks call lore by name, which PATH finds at %s, not this lore (%s)", found, exe)
	}
	return ""
}

// lookLore is the lore PATH finds, or "".
func lookLore(pathList, goos string) string {
	name := "lore"
	if goos == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (goos == "windows" || fi.Mode()&0o111 != 0) {
			return p
		}
	}
	return ""
}
