package claudehook

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorehq/lore/internal/atomicfile"
)

// Result is what Install or Uninstall did to a settings file.
type Result struct {
	File    string // as it was named, before a symbolic link was followed
	Changed bool
	Backup  string // where the previous file was kept; "" when none was written
	Hooks   []Change
	// HooksDisabled is set when the settings set disableAllHooks, under
	// which Claude Code runs no hooks, lore's included.
	HooksDisabled bool
}

// Install adds lore's hooks to the settings file, or points lore's hooks
// there at commands (by event, as Commands gives them). Every other
// setting and hook is kept as it was written; the previous file is kept
// beside it as settings.json.lore-backup. A dry run writes nothing.
func Install(file string, commands map[string]string, dryRun bool) (Result, error) {
	return Claude.Install(file, commands, dryRun)
}

// Uninstall removes lore's hooks from the settings file, wherever they call
// lore, and what only they kept from being empty. Other hooks stay.
func Uninstall(file string, dryRun bool) (Result, error) { return Claude.Uninstall(file, dryRun) }

// Install adds hs to the settings file as the package's Install adds
// Claude Code's: an agent whose settings have the same shape.
func (hs Hooks) Install(file string, commands map[string]string, dryRun bool) (Result, error) {
	return edit(file, dryRun, func(d *settingsDoc) ([]Change, error) { return d.install(hs, commands) })
}

// Uninstall removes hs from the settings file as the package's Uninstall
// removes Claude Code's.
func (hs Hooks) Uninstall(file string, dryRun bool) (Result, error) {
	return edit(file, dryRun, func(d *settingsDoc) ([]Change, error) { return d.uninstall(hs) })
}

// GeminiSettingsPath is Gemini CLI's user settings file:
// .gemini/settings.json in $GEMINI_CLI_HOME when that is set, else in
// home; with project, in the git repository holding cwd (else in cwd).
func GeminiSettingsPath(home, cwd string, getenv func(string) string, project bool) (string, error) {
	if project {
		if cwd == "" {
			return "", errors.New("no current folder to find the project in")
		}
		return filepath.Join(projectRoot(cwd), ".gemini", "settings.json"), nil
	}
	if getenv != nil {
		if d := strings.TrimSpace(getenv("GEMINI_CLI_HOME")); d != "" {
			home = d
		}
	}
	if home == "" {
		return "", errors.New("no home folder to find Gemini CLI's settings in: set GEMINI_CLI_HOME or use --project")
	}
	return filepath.Join(home, ".gemini", "settings.json"), nil
}

// edit changes the settings in file. A file that is not there reads as
// empty settings and is created only when change changes something.
func edit(file string, dryRun bool, change func(*settingsDoc) ([]Change, error)) (Result, error) {
	res := Result{File: file}
	target := atomicfile.ResolveLink(file)
	old, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", file, err)
	}
	doc, err := parseSettings(old)
	if err != nil {
		return res, fmt.Errorf("%s: %w; nothing changed", file, err)
	}
	res.Hooks, err = change(doc)
	if err != nil {
		return res, fmt.Errorf("%s: %w; nothing changed", file, err)
	}
	if v, ok := doc.top.get("disableAllHooks"); ok && string(bytes.TrimSpace(v)) == "true" {
		res.HooksDisabled = true
	}
	for _, c := range res.Hooks {
		res.Changed = res.Changed || c.changed()
	}
	if !res.Changed || dryRun {
		return res, nil
	}
	data, err := doc.marshal(old)
	if err != nil {
		return res, fmt.Errorf("%s: %w", file, err)
	}
	perm := fs.FileMode(0o600)
	if exists {
		if fi, err := os.Stat(target); err == nil {
			perm = fi.Mode().Perm()
		}
		backup := target + ".lore-backup"
		if err := atomicfile.WriteFile(backup, old, perm); err != nil {
			return res, fmt.Errorf("back up %s: %w; nothing changed", file, err)
		}
		res.Backup = backup
	}
	if err := atomicfile.WriteFile(target, data, perm); err != nil {
		return res, fmt.Errorf("write %s: %w", file, err)
	}
	return res, nil
}

// UserSettingsPath is the user's settings file: in the first folder of
// $CLAUDE_CONFIG_DIR when that is set, else ~/.claude/settings.json.
func UserSettingsPath(home string, getenv func(string) string) (string, error) {
	if getenv != nil {
		// Discovery accepts a comma-separated list here (as ccusage does);
		// the settings are in the first folder.
		for _, d := range strings.Split(getenv("CLAUDE_CONFIG_DIR"), ",") {
			if d = strings.TrimSpace(d); d != "" {
				return filepath.Join(d, "settings.json"), nil
			}
		}
	}
	if home == "" {
		return "", errors.New("no home folder to find Claude Code's settings in: set CLAUDE_CONFIG_DIR or use --project")
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// ProjectSettingsPath is the settings file of the project holding cwd:
// .claude/settings.json at the top of its git repository, else in cwd.
func ProjectSettingsPath(cwd string) (string, error) {
	if cwd == "" {
		return "", errors.New("no current folder to find the project in")
	}
	return filepath.Join(projectRoot(cwd), ".claude", "settings.json"), nil
}

// projectRoot is the top of the git repository holding dir (a .git folder,
// or a .git file in worktrees), else dir itself.
func projectRoot(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
