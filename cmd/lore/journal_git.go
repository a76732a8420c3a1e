package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/gitexec"
)

// fromGit fills a's files and diff from the checkout at root: a commit
// (its message and date too, for the fields no flag gave), what is staged
// (gitStaged), or every change to tracked files since HEAD and the names
// of new files (gitWorktree).
func fromGit(ctx context.Context, root, what string, a *lore.Attempt, flags map[string]bool) error {
	var diffArgs, nameArgs []string
	switch what {
	case gitStaged:
		diffArgs = []string{"diff", "--cached", "--patch", "--no-color", "--no-ext-diff"}
		nameArgs = []string{"diff", "--cached", "--name-only", "-z"}
	case gitWorktree:
		diffArgs = []string{"diff", "HEAD", "--patch", "--no-color", "--no-ext-diff"}
		nameArgs = []string{"diff", "HEAD", "--name-only", "-z"}
	default:
		if strings.HasPrefix(what, "-") {
			return usagef("--from-git %q: want a commit, --staged or --worktree", what)
		}
		out, err := gitexec.Output(ctx, root, "log", "-1", "--format=%H%x00%aI%x00%B", what, "--")
		if err != nil {
			return fmt.Errorf("--from-git %s: %w", what, err)
		}
		parts := strings.SplitN(string(out), "\x00", 3)
		if len(parts) != 3 {
			return fmt.Errorf("--from-git %s: git log printed %q", what, oneLine(string(out), 80))
		}
		commit := parts[0]
		subject, body, _ := strings.Cut(strings.TrimSpace(parts[2]), "\n")
		if !flags["task"] && a.Task == "" {
			a.Task = subject
		}
		if !flags["approach"] && a.Approach == "" {
			a.Approach = strings.TrimSpace(body)
		}
		if a.At.IsZero() {
			if t, err := time.Parse(time.RFC3339, parts[1]); err == nil {
				a.At = t
			}
		}
		diffArgs = []string{"show", "--format=", "--patch", "--no-color", "--no-ext-diff", commit}
		nameArgs = []string{"show", "--format=", "--name-only", "-z", commit}
	}
	if !flags["file"] {
		names, err := gitexec.Output(ctx, root, nameArgs...)
		if err != nil {
			return fmt.Errorf("--from-git: %w", err)
		}
		a.Files = splitZ(names)
		if what == gitWorktree {
			untracked, err := gitexec.Output(ctx, root, "ls-files", "--others", "--exclude-standard", "-z")
			if err != nil {
				return fmt.Errorf("--from-git: %w", err)
			}
			a.Files = append(a.Files, splitZ(untracked)...)
		}
	}
	diff, cut, err := gitHead(ctx, root, lore.MaxAttemptDiff+journalReadMargin, diffArgs...)
	if err != nil {
		return fmt.Errorf("--from-git: %w", err)
	}
	a.Diff, a.DiffCut = diff, cut
	return nil
}

func splitZ(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// gitHead runs git and returns the first n bytes of its output and how
// many more there were, reading the rest without keeping it.
func gitHead(ctx context.Context, dir string, n int, args ...string) (string, int, error) {
	var stderr bytes.Buffer
	cmd := gitexec.Command(ctx, dir, args...)
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, gitexec.Error(err, "")
	}
	head, err := io.ReadAll(io.LimitReader(out, int64(n)))
	var rest int64
	if err == nil {
		rest, err = io.Copy(io.Discard, out)
	}
	if werr := cmd.Wait(); werr != nil {
		return "", 0, gitexec.Error(werr, stderr.String())
	}
	return string(head), int(rest), err
}
