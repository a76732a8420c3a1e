package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFolderRepo(t *testing.T) {
	for dir, want := range map[string]string{
		"/Users/alex/workspace/cli/.worktrees/3": "cli",
		"/home/dev/api/worktrees/fix-retry":      "api",
		`C:\Users\dev\web\.worktrees\1`:          "web",
		"/home/dev/api":                          "api",
		"/home/dev/api/":                         "api",
		"/.worktrees/x":                          "x",
		"/home/dev/worktrees":                    "worktrees",
	} {
		if got := folderRepo(dir); got != want {
			t.Errorf("folderRepo(%q) = %q, want %q", dir, got, want)
		}
	}
}

// RepoOfDir takes a relative folder from the current one: "." is the
// repository the command runs in, not a repository named ".".
func TestRepoOfDir(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "api")
	sub := filepath.Join(repo, "internal", "retry")
	plain := filepath.Join(root, "notes")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cwd, dir, want string }{
		{repo, ".", "acme/api"},
		{sub, ".", "acme/api"},
		{repo, "internal/retry", "acme/api"},
		{sub, "..", "acme/api"},
		{plain, ".", "notes"},
		{repo, sub, "acme/api"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Chdir(tc.cwd)
			if got := RepoOfDir(tc.dir); got != tc.want {
				t.Errorf("RepoOfDir(%q) in %s = %q, want %q", tc.dir, tc.cwd, got, tc.want)
			}
		})
	}
}
