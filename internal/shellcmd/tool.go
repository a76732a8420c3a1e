package shellcmd

import (
	"path"
	"strings"
)

// shellTools are the names agents give the tool that runs a shell
// command, lower case: Claude Code Bash, Codex shell / shell_command /
// exec_command / local_shell / container.exec, Gemini run_shell_command,
// OpenHands execute_bash / terminal / run (CmdRunAction), mini-swe-agent
// bash, Goose developer__shell, Cline execute_command / command, Hermes
// terminal, Cursor run_terminal_cmd, Droid Execute.
var shellTools = map[string]bool{
	"bash": true, "sh": true, "zsh": true, "shell": true, "local_shell": true, "shell_command": true,
	"exec_command": true, "container.exec": true, "run_shell_command": true, "execute_bash": true,
	"execute_command": true, "run_command": true, "run_terminal_cmd": true, "terminal": true,
	"run": true, "cmdrunaction": true, "command": true, "developer__shell": true, "bash_tool": true,
	"exec": true, "execute": true,
}

// IsShell reports whether tool is the name of a tool that runs shell
// commands.
func IsShell(tool string) bool {
	var buf [32]byte
	if len(tool) > len(buf) {
		return false
	}
	t := buf[:len(tool)]
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		t[i] = c
	}
	if shellTools[string(t)] {
		return true
	}
	for _, suf := range []string{"__shell", ".shell", "run_shell_command", "exec_command"} {
		if len(t) > len(suf) && string(t[len(t)-len(suf):]) == suf {
			return true
		}
	}
	return false
}

// sweCommands are SWE-agent's own commands, which its transcripts record
// the way they record shell commands (tool name = first word).
var sweCommands = map[string]bool{
	"open": true, "goto": true, "scroll_up": true, "scroll_down": true, "create": true, "edit": true,
	"search_dir": true, "search_file": true, "find_file": true, "submit": true, "str_replace_editor": true,
	"filemap": true, "insert": true, "undo_edit": true, "exit_forfeit": true, "exit_cost": true,
	"exit_context": true, "exit_format": true, "skip": true,
}

// FromCall returns the shell command a tool call runs, or "" when the call
// is not a shell command. tool is the tool's name and input its arguments
// as the transcript recorded them: JSON with "command" or "cmd" (a string,
// or an argv such as ["bash","-lc","…"] whose script is returned), or the
// raw command line (SWE-agent, whose tool name is the command's first
// word, and mini-swe-agent).
func FromCall(tool, input string) string {
	in := strings.TrimSpace(input)
	if in == "" {
		return ""
	}
	if !IsShell(tool) {
		// SWE-agent: tool "curl", input "curl http://…".
		if tool == "" || in[0] == '{' || sweCommands[tool] || firstField(in) != tool {
			return ""
		}
		return in
	}
	if in[0] != '{' {
		return in
	}
	for _, key := range []string{"command", "cmd"} {
		if raw, ok := jsonField(in, key); ok {
			if c := commandValue(raw); c != "" {
				return c
			}
		}
	}
	return ""
}

// commandValue reads a command given as a JSON string or as an argv.
func commandValue(raw string) string {
	if raw == "" {
		return ""
	}
	switch raw[0] {
	case '"':
		if s, ok := jsonString(raw); ok {
			return strings.TrimSpace(s)
		}
	case '[':
		argv, ok := jsonStrings(raw, 64)
		if !ok || len(argv) == 0 {
			return ""
		}
		if len(argv) >= 3 && shells[path.Base(argv[0])] && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
			return strings.TrimSpace(argv[2])
		}
		for i, a := range argv {
			argv[i] = shellQuote(a)
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// shellQuote quotes an argument for a command line, when it needs it.
func shellQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>(){}*?[]#~") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// shells are the programs that run a script given with -c.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "pwsh": true, "powershell": true}

func firstField(s string) string {
	if i := strings.IndexAny(s, " \t\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// IsShellProgram reports whether name is a shell's program name, such as
// bash or zsh, as it starts the messages the shell writes ("zsh:1: …").
func IsShellProgram(name string) bool { return shells[name] }
