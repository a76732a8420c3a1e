package claudehook

import "strings"

// The hooks lore installs into Claude Code. A hook is lore's when its
// command is a program named lore followed by one of these.
const (
	BootArgs        = "boot --format claude-hook"
	HarvestArgs     = "harvest --from-hook"
	BeforeToolArgs  = "recall --before-tool"
	AfterToolArgs   = "recall --after-tool"
	toolHookTimeout = 5 // seconds: lore answers within 1 s or gives up
)

// hook is one hook lore manages in Claude Code's settings.
type hook struct {
	Event   string
	Args    string
	Matcher *string // nil: no matcher field (SessionEnd's matcher filters by exit reason)
	Timeout int     // seconds for Claude Code, milliseconds for Gemini CLI
}

// Hooks are the hooks lore manages in one agent's settings.
type Hooks []hook

var (
	emptyMatcher = ""
	bashMatcher  = "Bash"
	geminiShell  = "run_shell_command"
	// Claude are lore's hooks in Claude Code's settings.
	Claude = Hooks{
		// Starting a session must stay quick.
		{Event: SessionStart, Args: BootArgs, Matcher: &emptyMatcher, Timeout: 5},
		// Claude Code gives SessionEnd hooks 1.5 s between them unless a hook
		// asks for more (up to 60 s). The harvest itself runs detached; the
		// margin is for starting it on a slow, busy machine.
		{Event: SessionEnd, Args: HarvestArgs, Timeout: 10},
		// Before every shell command: the pitfalls of that command. Claude
		// Code waits for it, so it answers at once or not at all.
		{Event: PreToolUse, Args: BeforeToolArgs, Matcher: &bashMatcher, Timeout: toolHookTimeout},
		// After any tool call that failed: what is known of its error.
		{Event: PostToolUseFailure, Args: AfterToolArgs, Matcher: &emptyMatcher, Timeout: toolHookTimeout},
	}
	// Gemini are lore's hooks in Gemini CLI's settings (the same shape as
	// Claude Code's, timeouts in milliseconds). AfterTool runs after every
	// call, the shell's the ones lore knows most of; BeforeTool takes no
	// additional context, and the session's start and end are Claude
	// Code's hooks only so far.
	Gemini = Hooks{
		{Event: GeminiAfterTool, Args: AfterToolArgs, Matcher: &geminiShell, Timeout: toolHookTimeout * 1000},
	}
)

// Commands are the commands of lore's Claude Code hooks, by event, for the
// lore that prog names in the shell (a quoted path, or lore for PATH to
// find).
func Commands(prog string) map[string]string { return Claude.Commands(prog) }

// Commands are the commands of hs, by event, for the lore that prog names
// in the shell.
func (hs Hooks) Commands(prog string) map[string]string {
	commands := map[string]string{}
	for _, h := range hs {
		commands[h.Event] = prog + " " + h.Args
	}
	return commands
}

// What Install and Uninstall did to a hook.
const (
	Added        = "added"
	Replaced     = "replaced"
	AlreadyThere = "already there"
	Removed      = "removed"
	NotThere     = "not there"
)

// Change is what install or uninstall did to one hook. It is also lore
// hooks' --json report, hence the tags.
type Change struct {
	Event    string   `json:"event"`
	Command  string   `json:"command,omitempty"`
	Action   string   `json:"action"` // Added, Replaced, AlreadyThere, Removed, NotThere
	Previous []string `json:"previous,omitempty"`
}

// changed reports whether c changed the settings.
func (c Change) changed() bool {
	return c.Action == Added || c.Action == Replaced || c.Action == Removed
}

// isLoreHook reports whether command runs a program named lore with args.
func isLoreHook(command, args string) bool {
	_, ok := loreProgram(command, args)
	return ok
}

// ShellQuote quotes p for the shell Claude Code runs hook commands with,
// when it needs quoting.
func ShellQuote(p string) string {
	safe := p != ""
	for _, r := range p {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_-./:@%+=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
