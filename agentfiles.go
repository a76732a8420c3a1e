package lore

import (
	"path"
	"strings"
)

// InstructionFiles are the files, at a checkout's root, in which a
// repository tells agents how to work in it: Claude Code's, Codex CLI's
// and the AGENTS.md convention's, Gemini CLI's, Qwen Code's, GitHub
// Copilot's, Cursor's, Windsurf's, Cline's and Aider's. Harvest leaves out
// what a file of these a session read already says; boot, what the
// checkout's say.
var InstructionFiles = []string{
	"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", "QWEN.md",
	".github/copilot-instructions.md", ".cursorrules", ".windsurfrules", ".clinerules", "CONVENTIONS.md",
}

// instructionNames are the base names of InstructionFiles, lower case.
var instructionNames = func() map[string]bool {
	m := make(map[string]bool, len(InstructionFiles))
	for _, f := range InstructionFiles {
		m[strings.ToLower(path.Base(f))] = true
	}
	return m
}()

// IsInstructionFile reports whether p (a path with slashes) names one of
// InstructionFiles, wherever it is and case aside: a session may read a
// subfolder's CLAUDE.md, or claude.md on a file system that ignores case.
func IsInstructionFile(p string) bool {
	return p != "" && instructionNames[strings.ToLower(path.Base(p))]
}
