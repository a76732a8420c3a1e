package improve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/lorehq/lore/internal/gitexec"
)

// git runs git in dir and returns its standard output, trimmed; an error
// carries what git said on standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitBytes(ctx, dir, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// gitBytes runs git with stdin and returns its standard output as it is.
func gitBytes(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	// The loop's own commits run no hooks and need no identity of the
	// user's: they are lore's.
	full := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "user.name=lore improve", "-c", "user.email=lore-improve@localhost",
		"-c", "commit.gpgSign=false"}, args...)
	cmd := gitexec.Command(ctx, dir, full...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

// lines splits git's output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// addWorktree checks commit out, detached, in a new worktree at path.
func addWorktree(ctx context.Context, repo, path, commit string) error {
	_, err := git(ctx, repo, "worktree", "add", "--force", "--detach", path, commit)
	if err != nil {
		removeWorktree(ctx, repo, path) // what a cut-short add left
	}
	return err
}

// removeWorktree removes the worktree at path, whatever it holds, and
// forgets it.
func removeWorktree(ctx context.Context, repo, path string) {
	git(context.WithoutCancel(ctx), repo, "worktree", "remove", "--force", "--force", path)
	os.RemoveAll(path)
	git(context.WithoutCancel(ctx), repo, "worktree", "prune")
}

// snapshot commits everything in the worktree at dir (what the agent
// changed, committed or not, ignored files aside) as one commit on top of
// base, and returns it with the files it changes. No files: no commit.
func snapshot(ctx context.Context, dir, base, message string) (commit string, files []string, err error) {
	if _, err := git(ctx, dir, "add", "-A", "."); err != nil {
		return "", nil, err
	}
	tree, err := git(ctx, dir, "write-tree")
	if err != nil {
		return "", nil, err
	}
	names, err := git(ctx, dir, "diff-tree", "-r", "--no-renames", "--name-only", base, tree)
	if err != nil {
		return "", nil, err
	}
	files = lines(names)
	if len(files) == 0 {
		return "", nil, nil
	}
	commit, err = git(ctx, dir, "commit-tree", tree, "-p", base, "-m", message)
	return commit, files, err
}
