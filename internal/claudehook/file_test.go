package claudehook

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUserSettingsPath(t *testing.T) {
	for _, tt := range []struct {
		name, home, configDir, want string
		err                         bool
	}{
		{"home", "/home/me", "", "/home/me/.claude/settings.json", false},
		{"CLAUDE_CONFIG_DIR", "/home/me", "/etc/claude", "/etc/claude/settings.json", false},
		{"a list: the first", "/home/me", " , /a/claude, /b/claude", "/a/claude/settings.json", false},
		{"no home", "", "", "", true},
		{"no home but a folder", "", "/a", "/a/settings.json", false},
	} {
		getenv := func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" {
				return tt.configDir
			}
			return ""
		}
		got, err := UserSettingsPath(tt.home, getenv)
		if got != filepath.FromSlash(tt.want) || (err != nil) != tt.err {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if got, err := UserSettingsPath("/home/me", nil); err != nil || got != filepath.FromSlash("/home/me/.claude/settings.json") {
		t.Errorf("no environment: %q, %v", got, err)
	}
}

func TestProjectSettingsPath(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "src", "api")
	worktree := filepath.Join(home, "src", "wt")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "internal", "db"), 0o755)
	os.MkdirAll(worktree, 0o755)
	os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	scratch := filepath.Join(home, "scratch")
	os.MkdirAll(scratch, 0o755)
	for _, tt := range []struct{ cwd, want string }{
		{repo, repo},
		{filepath.Join(repo, "internal", "db"), repo},
		{worktree, worktree},
		{scratch, scratch},
	} {
		got, err := ProjectSettingsPath(tt.cwd)
		if want := filepath.Join(tt.want, ".claude", "settings.json"); err != nil || got != want {
			t.Errorf("in %s: %q, %v; want %q", tt.cwd, got, err, want)
		}
	}
	if _, err := ProjectSettingsPath(""); err == nil {
		t.Error("no current folder: no error")
	}
}
