package errsig

import (
	"strings"

	"github.com/lorehq/lore/internal/shellcmd"
)

// A phrase is a message an agent's harness writes itself, recognised by
// how a line starts (or, with contains, by what it holds).
type phrase struct {
	prefix   string
	contains string // also required, when set
	// sig is the signature; "" means the normalised line.
	sig string
	// shell: the phrase counts in a shell tool's output too. Phrases that
	// a program could print (File does not exist.) count only for the
	// agent's own tools.
	shell bool
	// join: the next line completes the message.
	join bool
}

// refusals are the ways a user, a permission rule or a hook refuses a
// tool call: Claude Code, Codex, Gemini CLI, Cline. Checked first.
var refusals = []phrase{
	{prefix: "The user doesn't want to proceed with this tool use", sig: "user rejected the tool use", shell: true},
	{prefix: "The user doesn't want to take this action right now", sig: "user rejected the tool use", shell: true},
	{prefix: "The user denied this operation", sig: "user rejected the tool use", shell: true},
	{prefix: "[Request interrupted by user", sig: "user interrupted the tool use", shell: true},
	{prefix: "Claude requested permissions to", contains: "haven't granted it yet", sig: "permission not granted", shell: true},
	{prefix: "Permission to use ", contains: "has been denied", sig: "permission denied by a rule", shell: true},
	{prefix: "exec command rejected by user", sig: "user rejected the command", shell: true},
	{prefix: "patch rejected by user", sig: "user rejected the patch", shell: true},
	{prefix: "rejected by user", sig: "user rejected the tool use", shell: true},
	{prefix: "aborted by user", sig: "user interrupted the tool use", shell: true},
	{prefix: "This action was rejected due to unacceptable risk", sig: "reviewer rejected the action as too risky", shell: true},
	{prefix: "[Operation Cancelled]", sig: "user cancelled the tool call", shell: true},
	{prefix: "PreToolUse:", contains: "hook", sig: "a hook blocked the tool use", shell: true},
	{prefix: "Error: PreToolUse:", contains: "hook", sig: "a hook blocked the tool use", shell: true},
	{prefix: "PostToolUse:", contains: "hook", sig: "a hook objected to the tool's result", shell: true},
	{prefix: "Blocked by hook", sig: "a hook blocked the tool use", shell: true},
	{prefix: "Operation blocked by hook", sig: "a hook blocked the tool use", shell: true},
}

// protocolErrors are errors of an agent's own tool protocol: the call was
// malformed or its precondition unmet, so the harness answered instead of
// the environment. Claude Code, Codex, Gemini CLI, OpenHands / SWE-agent's
// str_replace_editor, SWE-agent's commands, opencode.
var protocolErrors = []phrase{
	// Claude Code
	{prefix: "File has not been read yet", sig: "file has not been read yet. read it first before writing to it."},
	{prefix: "File has been modified since read", sig: "file has been modified since read. read it again before attempting to write it."},
	{prefix: "File has been unexpectedly modified", sig: "file has been modified since read. read it again before attempting to write it."},
	{prefix: "String to replace not found in file", sig: "string to replace not found in file."},
	{prefix: "Found ", contains: "matches of the string to replace, but replace_all is false", sig: "found <n> matches of the string to replace, but replace_all is false."},
	{prefix: "No changes to make: old_string and new_string are exactly the same", sig: "no changes to make: old_string and new_string are exactly the same."},
	{prefix: "File does not exist", sig: "file does not exist."},
	{prefix: "File content (", contains: "exceeds maximum allowed", sig: "file content exceeds the maximum allowed size."},
	{prefix: "File is too large"},
	{prefix: "InputValidationError:", join: true},
	{prefix: "No such tool available:"},
	{prefix: "Error: No such tool available:"},
	{prefix: "Sibling tool call errored", sig: "sibling tool call errored"},
	{prefix: "Cancelled: parallel tool call", sig: "cancelled: a parallel tool call errored"},
	{prefix: "Cannot create new file - file already exists", sig: "cannot create new file - file already exists."},
	{prefix: "This tool cannot read binary files", sig: "this tool cannot read binary files."},
	{prefix: "EISDIR: illegal operation on a directory", sig: "eisdir: illegal operation on a directory"},
	{prefix: "Path does not exist"},
	{prefix: "Path \"", contains: "does not exist"},
	{prefix: "Directory does not exist"},
	{prefix: "Invalid tool parameters"},
	{prefix: "No shell found with ID", sig: "no shell found with id"},
	// opencode and its kin
	{prefix: "oldString not found in content", sig: "oldstring not found in content"},
	{prefix: "oldString found multiple times", sig: "oldstring found multiple times"},
	{prefix: "oldString and newString must be different", sig: "oldstring and newstring must be different"},
	// Codex
	{prefix: "apply_patch verification failed: Failed to find expected lines", sig: "apply_patch verification failed: failed to find expected lines", shell: true},
	{prefix: "apply_patch verification failed:", shell: true},
	{prefix: "Invalid patch", shell: true},
	{prefix: "invalid patch", shell: true},
	{prefix: "invalid hunk at line", shell: true},
	{prefix: "The first line of the patch must be", shell: true},
	{prefix: "The last line of the patch must be", shell: true},
	{prefix: "unsupported call:"},
	{prefix: "unsupported custom tool call"},
	{prefix: "failed to parse function arguments", sig: "failed to parse function arguments"},
	// Gemini CLI
	{prefix: "Failed to edit, 0 occurrences found", sig: "failed to edit, could not find the string to replace."},
	{prefix: "Failed to edit, could not find the string to replace", sig: "failed to edit, could not find the string to replace."},
	{prefix: "Failed to edit, expected", sig: "failed to edit, expected <n> occurrences but found <n>."},
	{prefix: "Expected ", contains: "for old_string in file", sig: "failed to edit, expected <n> occurrences but found <n>."},
	{prefix: "No changes to apply. The old_string and new_string are identical", sig: "no changes to apply. the old_string and new_string are identical."},
	{prefix: "File path must be absolute", sig: "file path must be absolute"},
	{prefix: "File path must be within one of the workspace directories", sig: "file path must be within one of the workspace directories"},
	{prefix: "Path must be within one of the workspace directories", sig: "file path must be within one of the workspace directories"},
	{prefix: "File not found. Cannot apply edit", sig: "file not found. cannot apply edit."},
	{prefix: "File not found:"},
	{prefix: "File already exists, cannot create", sig: "file already exists, cannot create"},
	{prefix: "Failed to edit. Attempted to create a file that already exists", sig: "file already exists, cannot create"},
	{prefix: "Tool \"", contains: "not found in registry"},
	{prefix: "params must have required property"},
	{prefix: "Command substitution using $(), <(), or >() is not allowed", sig: "command substitution is not allowed"},
	// str_replace_editor (OpenHands, SWE-agent, Anthropic's reference tool)
	{prefix: "No replacement was performed, old_str", sig: "no replacement was performed, old_str did not appear verbatim."},
	{prefix: "No replacement was performed. Multiple occurrences of old_str", sig: "no replacement was performed. multiple occurrences of old_str."},
	{prefix: "Invalid `path` parameter:"},
	{prefix: "Invalid `view_range`"},
	{prefix: "Parameter `", contains: " is "},
	{prefix: "Parameter '", contains: " is "},
	{prefix: "File already exists at:"},
	{prefix: "The path ", contains: "is a directory and only the `view` command", sig: "the path is a directory and only the view command can be used on directories"},
	{prefix: "No edit history found for"},
	// SWE-agent
	{prefix: "Your proposed edit has introduced new syntax error(s)", sig: "your proposed edit has introduced new syntax error(s)"},
	{prefix: "No file open. Use the", sig: "no file open"},
	{prefix: "Usage: edit"},
}

// byFirst indexes refusals and protocolErrors by their first byte, so a
// line is tried only against the phrases it could start.
var refusalsByFirst, protocolByFirst [256][]*phrase

func init() {
	for i := range refusals {
		p := &refusals[i]
		refusalsByFirst[p.prefix[0]] = append(refusalsByFirst[p.prefix[0]], p)
	}
	for i := range protocolErrors {
		p := &protocolErrors[i]
		protocolByFirst[p.prefix[0]] = append(protocolByFirst[p.prefix[0]], p)
	}
}

// refusal returns the refusal line l starts with, or nil.
func refusal(l string) *phrase {
	for _, p := range refusalsByFirst[l[0]] {
		if p.match(l) {
			return p
		}
	}
	return nil
}

// match reports whether line holds p.
func (p *phrase) match(line string) bool {
	return strings.HasPrefix(line, p.prefix) && (p.contains == "" || strings.Contains(line, p.contains))
}

// known recognises a refusal or a protocol error in the first lines of an
// output. tool names the tool; shell says it runs shell commands.
func known(tool, input string, shell bool, text string) (Error, bool) {
	// Claude Code's harness wraps its own complaints.
	wrapped := strings.Contains(text[:min(len(text), 64)], "<tool_use_error>")
	prefix := func() string {
		if shell && !wrapped {
			// A shell runs the agent's own tools too: Codex's apply_patch.
			if p := shellcmd.Program(shellcmd.FromCall(tool, input)); p != "" {
				return p
			}
		}
		return toolPrefix(tool)
	}
	var buf [4]string
	lines := firstLines(buf[:0], text)
	for i, l := range lines {
		if p := refusal(l); p != nil {
			return Error{Kind: Refused, Line: lineOf(l), Signature: p.sig, Class: ClassRefused}, true
		}
		if shell && !wrapped && i > 0 {
			continue // a shell's output: only its first line can be the harness's
		}
		for _, p := range protocolByFirst[l[0]] {
			if !p.match(l) || shell && !p.shell && !wrapped {
				continue
			}
			line := l
			if p.join && i+1 < len(lines) {
				line = l + " " + lines[i+1]
			}
			sig := p.sig
			if sig == "" {
				sig = firstSentence(Normalize(line))
			}
			return Error{Kind: Protocol, Line: lineOf(line), Signature: prefixed(prefix(), sig), Class: ClassProtocol}, true
		}
	}
	if last := lastLine(text); last != "" {
		if p := refusal(last); p != nil {
			return Error{Kind: Refused, Line: lineOf(last), Signature: p.sig, Class: ClassRefused}, true
		}
	}
	if wrapped && len(lines) > 0 {
		// Claude Code's harness refused the call for a reason not listed.
		return Error{Kind: Protocol, Line: lineOf(lines[0]), Signature: prefixed(prefix(), firstSentence(Normalize(lines[0]))), Class: ClassProtocol}, true
	}
	return Error{}, false
}

// firstLines appends to out, up to its capacity, the first non-blank
// lines of text,
// trimmed, without Claude Code's <tool_use_error> tags, Codex's sandbox
// notice, OpenHands' "ERROR:" header, or an "Error: " in front of a
// harness message.
func firstLines(out []string, text string) []string {
	for len(text) > 0 && len(out) < cap(out) {
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "<tool_use_error>"))
		l = lineOf(strings.TrimSuffix(l, "</tool_use_error>"))
		if isExitWrapper(l) {
			continue
		}
		if l == "" || l == "ERROR:" || l == "Error:" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// lastLine is the last non-blank line of text, trimmed.
func lastLine(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return strings.TrimSpace(text)
}

// firstSentence cuts a harness message at its first sentence when more
// follow: the rest is advice to the model, which changes between versions.
func firstSentence(s string) string {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && i > 0 && isAlpha(s[i-1]) {
			return s[:i+1]
		}
	}
	return s
}

// cascadeWords are what an agent's harness says of a call it cancelled
// because another failed.
var cascadeWords = []string{"sibling tool call errored", "cancelled because another", "canceled because another",
	"cancelled due to", "canceled due to", "parallel tool call", "was cancelled because", "was canceled because"}

// Cascade reports whether an error line is only the echo of another
// call's failure (Claude Code cancels the parallel calls of a failed
// one): it says nothing about the call itself, and is no error of its own.
func Cascade(line string) bool {
	l := strings.ToLower(line)
	for _, w := range cascadeWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
