package improve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorehq/lore/llm"
)

// maxRepoBytes bounds the repository's files the model is shown.
const maxRepoBytes = 48 << 10

const modelSystem = `You improve a code repository so that its benchmark scores higher. Answer with one unified diff
(as git diff prints it, paths a/… and b/…, in a fenced block marked diff) of the files shown, and
after it one line "approach: <what you did, in a few words>". Change nothing else.`

// runModel asks the model for a unified diff and applies it in the
// worktree with git apply; a diff that does not apply is a failed try
// with git's reason.
func (c *Config) runModel(ctx context.Context, wt, prompt, logFile string) (string, *agentError) {
	if c.Model == nil {
		return "", &agentError{AgentFailed, "no model for " + c.Agent}
	}
	var b strings.Builder
	b.WriteString(prompt)
	b.WriteString("\n## The repository's files\n\n")
	b.WriteString(c.repoFiles(ctx, wt))
	mctx, cancel := context.WithTimeout(ctx, c.AgentTimeout)
	defer cancel()
	resp, err := c.Model.Complete(mctx, llm.Request{System: modelSystem, Prompt: b.String(), MaxTokens: 8192})
	os.WriteFile(logFile, []byte(resp.Text), 0o600)
	if err != nil {
		if mctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return "", &agentError{TimedOut, "the model did not answer within " + c.AgentTimeout.String()}
		}
		return "", &agentError{AgentFailed, "the model: " + err.Error()}
	}
	diff := diffOf(resp.Text)
	if diff == "" {
		return resp.Text, &agentError{AgentFailed, "the model's answer holds no unified diff"}
	}
	patch := filepath.Join(filepath.Dir(logFile), "model.patch")
	if err := os.WriteFile(patch, []byte(diff), 0o600); err != nil {
		return resp.Text, &agentError{AgentFailed, err.Error()}
	}
	if _, err := gitBytes(ctx, wt, nil, "apply", "--whitespace=nowarn", patch); err != nil {
		return resp.Text, &agentError{AgentFailed, "the model's diff does not apply: " + strings.TrimPrefix(err.Error(), "git apply: ")}
	}
	return resp.Text, nil
}

// diffOf is the unified diff in a model's answer: the first fenced block
// that holds one, else the answer from its first "diff --git" or "--- ".
func diffOf(answer string) string {
	rest := answer
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		body := rest[nl+1:]
		end := strings.Index(body, "```")
		if end < 0 {
			end = len(body)
		}
		block := body[:end]
		if isDiff(block) {
			return strings.TrimRight(block, " \n") + "\n"
		}
		if end == len(body) {
			break
		}
		rest = body[end+3:]
	}
	for _, start := range []string{"diff --git ", "--- "} {
		if i := strings.Index(answer, start); i >= 0 && (i == 0 || answer[i-1] == '\n') && isDiff(answer[i:]) {
			return strings.TrimRight(answer[i:], " \n") + "\n"
		}
	}
	return ""
}

func isDiff(s string) bool {
	return strings.Contains(s, "\n+++ ") && strings.Contains(s, "@@") && (strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "diff --git ") || strings.Contains(s, "\n--- "))
}

// repoFiles are the worktree's tracked text files, the benchmark's
// aside, within maxRepoBytes.
func (c *Config) repoFiles(ctx context.Context, wt string) string {
	out, err := git(ctx, wt, "ls-files")
	if err != nil {
		return ""
	}
	var b strings.Builder
	left := maxRepoBytes
	for _, f := range lines(out) {
		if c.judgeG.Match(f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(wt, filepath.FromSlash(f)))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		if len(data) > left {
			fmt.Fprintf(&b, "(%s left out: too large for the prompt)\n", f)
			continue
		}
		left -= len(data)
		fmt.Fprintf(&b, "%s:\n\n```\n%s\n```\n\n", f, strings.TrimRight(string(data), "\n"))
	}
	return b.String()
}
