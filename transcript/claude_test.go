package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

func TestClaudeCorpus(t *testing.T) {
	dir := corpusDir(t, "claude-code")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		s := readOne(t, f)
		t.Logf("%s: %s msgs=%d u=%d a=%d tools=%d err=%d in=%d out=%d cr=%d cw=%d outcome=%s warn=%d model=%s branch=%s",
			filepath.Base(f), s.ID, s.MessageCount(), s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors,
			s.Usage.InputTokens, s.Usage.OutputTokens, s.Usage.CacheReadTokens, s.Usage.CacheWriteTokens, s.Outcome, s.Warnings, s.Model, s.Branch)
	}
	_ = os.Stderr
}
