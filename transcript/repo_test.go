package transcript

import "testing"

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
