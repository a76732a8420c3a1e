package transcript

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/lorehq/lore"
)

// Root is a place where an agent writes its transcripts.
type Root struct {
	Agent string
	Path  string
	// Source says what chose the path: an environment variable such as
	// "CODEX_HOME", or "default".
	Source string
	// Exists is set by DefaultRoots when the path is there and may be
	// read.
	Exists bool
	// Distrusted says why a path that is there is not read: another user
	// owns it, or could write it (see distrust).
	Distrusted string
}

// Env is what discovery reads of the machine; tests build their own.
type Env struct {
	Home   string
	GOOS   string
	Getenv func(string) string
	// Cwd is the working directory, for agents that write transcripts
	// into the project (Aider, SWE-agent).
	Cwd string
}

// HostEnv is the environment of this process.
func HostEnv() Env {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return Env{Home: home, GOOS: runtime.GOOS, Getenv: os.Getenv, Cwd: cwd}
}

// get returns an environment variable, or "" when unset.
func (e Env) get(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(e.Getenv(name))
}

// home joins path elements under the home folder.
func (e Env) home(elem ...string) string {
	return filepath.Join(append([]string{e.Home}, elem...)...)
}

// xdg returns $NAME when set, else the home-relative default, as the XDG
// base directory spec says.
func (e Env) xdg(name string, def ...string) string {
	if v := e.get(name); v != "" && filepath.IsAbs(v) {
		return v
	}
	return e.home(def...)
}

// macAppSupport is ~/Library/Application Support.
func (e Env) macAppSupport(elem ...string) string {
	return e.home(append([]string{"Library", "Application Support"}, elem...)...)
}

// DefaultRoots lists where each agent writes transcripts on this kind of
// machine, honouring the agents' own overrides (CLAUDE_CONFIG_DIR,
// CODEX_HOME, HERMES_HOME, …), with Exists set for those present and
// the user's own (Distrusted says why one present is not). A path is
// listed once.
func DefaultRoots(e Env) []Root {
	var out []Root
	seen := map[string]bool{}
	for _, f := range rootFuncs {
		for _, r := range f(e) {
			if r.Path == "" {
				continue
			}
			r.Path = filepath.Clean(r.Path)
			if seen[r.Path] {
				continue
			}
			seen[r.Path] = true
			if fi, err := os.Stat(r.Path); err == nil {
				r.Distrusted = distrustPath(r.Path, fi)
				r.Exists = r.Distrusted == ""
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return agentOrder(out[i].Agent) < agentOrder(out[j].Agent) })
	return out
}

func agentOrder(agent string) int {
	for i, a := range lore.Agents {
		if a == agent {
			return i
		}
	}
	return len(lore.Agents)
}

// claudeRoots: $CLAUDE_CONFIG_DIR/projects (a comma-separated list is
// accepted, as ccusage does), else ~/.claude/projects and
// ~/.config/claude/projects.
func claudeRoots(e Env) []Root {
	if v := e.get("CLAUDE_CONFIG_DIR"); v != "" {
		var out []Root
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				out = append(out, Root{Agent: lore.AgentClaudeCode, Path: filepath.Join(d, "projects"), Source: "CLAUDE_CONFIG_DIR"})
			}
		}
		return out
	}
	return []Root{
		{Agent: lore.AgentClaudeCode, Path: e.home(".claude", "projects"), Source: "default"},
		{Agent: lore.AgentClaudeCode, Path: filepath.Join(e.xdg("XDG_CONFIG_HOME", ".config"), "claude", "projects"), Source: "default"},
	}
}
