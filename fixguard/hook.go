package fixguard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Hooks are the git hooks lore guard install can add.
var Hooks = []string{"pre-push", "pre-commit"}

// The lines around what lore guard install adds to a hook, by which
// uninstall finds it and removes nothing else.
const (
	hookBegin = "# >>> lore guard >>>"
	hookEnd   = "# <<< lore guard <<<"
	hookShell = "#!/bin/sh"
)

// HookPath is the file of git hook name in r (core.hooksPath honoured).
func HookPath(ctx context.Context, r *Repo, name string) (string, error) {
	out, err := gitOut(ctx, r.Dir, "rev-parse", "--git-path", "hooks/"+name)
	if err != nil {
		return "", err
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Dir, p)
	}
	return p, nil
}

// hookBlock is what install adds to hook name, lore being the command
// that runs lore (quoted for the shell).
func hookBlock(name, lore string) string {
	var b strings.Builder
	b.WriteString(hookBegin + "\n")
	b.WriteString("# Refuse what undoes a guarded fix (lore guard check); lore guard uninstall removes this.\n")
	switch name {
	case "pre-commit":
		fmt.Fprintf(&b, "%s guard check --staged || exit 1\n", lore)
	default:
		// git hands pre-push the refs on stdin; they are kept for the rest
		// of the hook.
		// The fixes among the commits pushed are guarded first.
		b.WriteString(lore + " guard scan >/dev/null 2>&1\n")
		b.WriteString(`lore_guard_in=$(mktemp) || exit 1
cat > "$lore_guard_in"
while read -r _ lore_guard_sha _ _; do
	case "$lore_guard_sha" in *[!0]*) ;; *) continue ;; esac
	` + lore + ` guard check "$lore_guard_sha" || { rm -f "$lore_guard_in"; exit 1; }
done < "$lore_guard_in"
exec < "$lore_guard_in"
rm -f "$lore_guard_in"
`)
	}
	b.WriteString(hookEnd + "\n")
	return b.String()
}

// InstallHook adds lore guard's block to hook name of r, creating the
// hook when there is none; a hook that has the block already is left
// alone (false).
func InstallHook(ctx context.Context, r *Repo, name, lore string) (string, bool, error) {
	p, err := HookPath(ctx, r, name)
	if err != nil {
		return "", false, err
	}
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, false, err
	}
	s := string(old)
	if strings.Contains(s, hookBegin) {
		return p, false, nil
	}
	block := hookBlock(name, lore)
	switch {
	case len(old) == 0:
		s = hookShell + "\n" + block
	case strings.HasPrefix(s, "#!"):
		// Right after the interpreter line: a hook that ends with exit 0
		// still runs the check.
		first, rest, _ := strings.Cut(s, "\n")
		s = first + "\n" + block + rest
	default:
		s = block + s
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return p, false, err
	}
	if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
		return p, false, err
	}
	return p, true, os.Chmod(p, 0o755)
}

// UninstallHook removes lore guard's block from hook name, and the hook
// file when nothing else is left in it; false when there was no block.
func UninstallHook(ctx context.Context, r *Repo, name string) (string, bool, error) {
	p, err := HookPath(ctx, r, name)
	if err != nil {
		return "", false, err
	}
	old, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	s := string(old)
	i := strings.Index(s, hookBegin)
	j := strings.Index(s, hookEnd)
	if i < 0 || j < i {
		return p, false, nil
	}
	s = s[:i] + strings.TrimPrefix(s[j+len(hookEnd):], "\n")
	if strings.TrimSpace(s) == hookShell || strings.TrimSpace(s) == "" {
		return p, true, os.Remove(p)
	}
	return p, true, os.WriteFile(p, []byte(s), 0o755)
}
