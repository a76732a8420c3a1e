package harvest

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/errsig"
	"github.com/lorehq/lore/internal/shellcmd"
)

// maxEpisodes caps the failures one session keeps as episodes: a session
// that met hundreds of distinct errors is no better a memory for them.
const maxEpisodes = 50

// episodes are the session's failures, each error signature once (its
// first occurrence), with what came next: the first later call of the
// same program and subcommand (the same tool, for a tool that is not a
// shell) that worked within lore.EpisodeWindow calls, or none when the
// session gave up. A cascade (a call cancelled because a parallel one
// failed) is no failure of its own. The store prepares them
// (lore.PrepareEpisode): redacted, and an error line that reads as an
// order withheld.
func (r *ruleRun) episodes() []lore.Episode {
	eps := []lore.Episode{}
	seen := map[string]bool{}
	for i, f := range r.calls {
		if !f.failed || f.err.Signature == "" || seen[f.err.Signature] || errsig.Cascade(f.err.Line) {
			continue
		}
		seen[f.err.Signature] = true
		e := lore.Episode{Session: r.s.ID, Agent: r.s.Agent, Repo: r.s.Repo, At: r.s.FirstActive(), Position: f.pos,
			Tool: f.name, Input: f.shown(), Error: f.err.Line, Signature: f.err.Signature}
		if m, ok := messageAt(r.s, f.pos); ok && !m.Time.IsZero() {
			e.At = m.Time
		}
		end := min(len(r.calls), i+1+lore.EpisodeWindow)
		e.Steps = end - i - 1
		for j := i + 1; j < end; j++ {
			if c := r.calls[j]; c.ok() && sameAction(f, c) {
				e.Fix, e.Changes, e.Steps = c.shown(), r.changedBetween(i, j), j-i
				break
			}
		}
		if eps = append(eps, e); len(eps) == maxEpisodes {
			break
		}
	}
	return eps
}

// changedBetween says what the session changed between calls i and j:
// the files it edited (by name) and the commands that change things it
// ran and that worked (an install, a migration), up to three of each:
// "edited `a.go`, `b.go` and ran `npm install`".
func (r *ruleRun) changedBetween(i, j int) string {
	var files, cmds []string
	for k := i + 1; k < j; k++ {
		c := r.calls[k]
		switch {
		case c.cmd == "" && editTool(c.name) && c.ok():
			if f := editedFile(c.input); f != "" && !slices.Contains(files, f) && len(files) < 3 {
				files = append(files, f)
			}
		case c.cmd != "" && c.ok() && changes(c.cmd):
			if n := clip(c.normCommand(), 60); !slices.Contains(cmds, n) && len(cmds) < 3 {
				cmds = append(cmds, n)
			}
		}
	}
	var parts []string
	if len(files) > 0 {
		parts = append(parts, "edited "+codeList(files))
	}
	if len(cmds) > 0 {
		parts = append(parts, "ran "+codeList(cmds))
	}
	return strings.Join(parts, " and ")
}

// editedFile is the name (not the folder) of the file an edit tool's
// input names, or of the first a patch updates; "".
func editedFile(input string) string {
	var in map[string]any
	if json.Unmarshal([]byte(input), &in) != nil {
		if m := patchFile.FindStringSubmatch(input); m != nil {
			return path.Base(m[1])
		}
		return ""
	}
	for _, k := range shownKeys {
		if v, ok := in[k].(string); ok && v != "" {
			if m := patchFile.FindStringSubmatch(v); m != nil {
				v = m[1]
			}
			return path.Base(strings.ReplaceAll(v, "\\", "/"))
		}
	}
	return ""
}

// codeList is xs in code spans, joined with commas.
func codeList(xs []string) string {
	for i, x := range xs {
		xs[i] = "`" + strings.ReplaceAll(x, "`", "'") + "`"
	}
	return strings.Join(xs, ", ")
}

// shown is what an episode shows of a call: its shell command (redacted
// as it came); else the tool's name and what it was called on (a file, a
// pattern, an address: the first of shownKeys its input has, or the file
// a patch updates) with its numbers and the flags it set (Read f.go
// limit=100: what made a retry work; never a text it was given, which
// may be anything); else its name and input.
func (c *call) shown() string {
	if c.cmd != "" {
		return c.cmd
	}
	var in map[string]any
	if json.Unmarshal([]byte(c.input), &in) != nil {
		if m := patchFile.FindStringSubmatch(c.input); m != nil {
			return c.name + " " + m[1] // Codex's apply_patch: the patch as it is
		}
		return c.name + " " + c.input
	}
	i := slices.IndexFunc(shownKeys, func(k string) bool { v, ok := in[k].(string); return ok && v != "" })
	if i < 0 {
		return c.name + " " + c.input
	}
	v := in[shownKeys[i]].(string)
	if m := patchFile.FindStringSubmatch(v); m != nil {
		v = m[1]
	}
	out := c.name + " " + v
	for _, k := range slices.Sorted(maps.Keys(in)) {
		switch x := in[k].(type) {
		case float64:
			out += fmt.Sprintf(" %s=%v", k, x)
		case bool:
			if x {
				out += " " + k
			}
		}
	}
	return out
}

// shownKeys are the arguments that say what a tool was called on, the
// likeliest first.
var shownKeys = []string{"file_path", "filePath", "path", "notebook_path", "absolute_path", "pattern", "url", "query",
	"patchText", "patch", "input", "prompt"}

// patchFile finds the file a patch (apply_patch's) updates.
var patchFile = regexp.MustCompile(`\*\*\* (?:Update|Add|Delete) File: (\S+)`)

// sameAction reports whether call c is another try at what call f did:
// a shell command that runs a program and subcommand f ran (npm run build
// after npm run build:web failed for a missing script; git push after a
// chain of git pull and git push), or a call of the same tool that is not
// a shell. Looking around (ls, cat, git status) is no try at what a
// command that did more did.
func sameAction(f, c *call) bool {
	if f.cmd == "" || c.cmd == "" {
		return f.cmd == "" && c.cmd == "" && c.name == f.name
	}
	for _, a := range c.attempts() {
		if slices.Contains(f.attempts(), a) {
			return true
		}
	}
	return false
}

// attempts are the program and subcommand of each command of the call
// that matters (not a pipe's reader, not an incidental cd or echo), those
// that only look around left out unless there is nothing else; worked
// out once.
func (c *call) attempts() []string {
	if c.tries != nil {
		return c.tries
	}
	var look, act []string
	for _, sc := range shellcmd.Split(c.cmd) {
		words := shellcmd.Unwrap(sc.Words)
		if sc.Piped || len(words) == 0 || shellcmd.Incidental(path.Base(words[0])) {
			continue
		}
		a := path.Base(words[0]) + " " + subcommand(words)
		if exploring(wordsKey(words)) {
			look = append(look, a)
		} else {
			act = append(act, a)
		}
	}
	c.tries = act
	if len(act) == 0 {
		c.tries = look
	}
	if c.tries == nil {
		c.tries = []string{} // worked out: nothing
	}
	return c.tries
}
