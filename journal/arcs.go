package journal

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/shellcmd"
)

// maxTask caps an attempt's task, taken from the user's request: the
// request's opening says what was asked, and a pasted log need not follow.
const maxTask = 300

// maxTestsTail is how much of the last run's output an imported attempt
// keeps: the end of a test run says how it went.
const maxTestsTail = 4 << 10

// Attempts reconstructs the attempts a session made: each arc of file
// edits followed by build or test runs, up to the next edit after a run.
// An arc's outcome is its last run's: a success when it passed, a
// failure when it failed. Edits that no run followed, runs that followed
// no edit, and edits of files outside the session's folder make no
// attempt. An arc that follows a failed one of the same request on a
// file it touched too is a retry of it: Retries counts the failed arcs
// before it. Texts are as the transcript holds them; the store redacts
// them (lore.Journal).
func Attempts(s *lore.Session) []lore.Attempt {
	var (
		out []lore.Attempt
		// task is the user's last request; sideTask, the last a
		// sub-agent was given, which its edits serve.
		task, sideTask string
		cur            *arc
		results        = results(s)
	)
	closeArc := func() {
		if cur != nil && len(cur.files) > 0 && cur.last != nil {
			out = append(out, cur.attempt(s))
		}
		cur = nil
	}
	for _, m := range s.Messages {
		if t := request(m.Text); t != "" && m.Role == lore.RoleUser {
			if m.Sidechain {
				sideTask = t
			} else {
				task = t
			}
		}
		for _, tc := range m.ToolCalls {
			r, ok := results[tc.ID]
			if !ok || tc.ID == "" {
				continue // no answer: neither an edit made nor a run that tells
			}
			es, cmd := callEdits(tc.Name, tc.Input)
			if cmd != "" {
				if cur != nil && len(cur.files) > 0 && harvest.Verifies(cmd) {
					cur.last, cur.cmd = &r, cmd
				}
				continue
			}
			if len(es) == 0 || r.Failed() {
				continue // not an edit, or one the tool refused
			}
			if cur != nil && cur.last != nil {
				closeArc()
			}
			if cur == nil {
				cur = &arc{task: task, at: m.Time}
				if m.Sidechain && sideTask != "" {
					cur.task = sideTask
				}
			}
			for _, e := range es {
				if f := repoPath(s.Cwd, e.file); f != "" {
					e.file = f
					cur.add(e)
				}
			}
		}
	}
	closeArc()
	retries(out)
	tries(out)
	return out
}

// tries tells apart the attempts of a session that served the same
// request on the same files, which a journal would take for one
// (lore.AttemptKey): the second and later say which try they are,
// "make the test pass (try 2)".
func tries(as []lore.Attempt) {
	seen := map[string]int{}
	for i, a := range as {
		k := a.Task + "\x00" + strings.Join(a.Files, "\x00")
		if seen[k]++; seen[k] > 1 {
			as[i].Task = fmt.Sprintf("%s (try %d)", a.Task, seen[k])
		}
	}
}

// results are a session's tool results by call id, each call's first.
func results(s *lore.Session) map[string]lore.ToolResult {
	rs := map[string]lore.ToolResult{}
	for _, m := range s.Messages {
		for _, r := range m.ToolResults {
			if _, ok := rs[r.CallID]; !ok && r.CallID != "" {
				rs[r.CallID] = r
			}
		}
	}
	return rs
}

// arc is an attempt being put together.
type arc struct {
	task  string
	at    time.Time // of its first edit, when the transcript tells
	files []string
	diff  strings.Builder
	last  *lore.ToolResult // the last run's result
	cmd   string           // and its command
}

func (a *arc) add(e edit) {
	if !slices.Contains(a.files, e.file) {
		a.files = append(a.files, e.file)
	}
	a.diff.WriteString(e.diff()) // the journal cuts it to lore.MaxAttemptDiff, and says so
}

func (a *arc) attempt(s *lore.Session) lore.Attempt {
	at := a.at
	if at.IsZero() {
		at = s.FirstActive()
	}
	out := lore.Attempt{At: at, Repo: s.Repo, Agent: s.Agent, Session: s.ID, Task: a.task,
		Files: slices.Sorted(slices.Values(a.files)), Diff: a.diff.String(),
		Tests: "$ " + a.cmd + "\n" + tail(a.last.Output, maxTestsTail), Outcome: lore.AttemptSuccess}
	if out.Task == "" {
		out.Task = "change " + strings.Join(out.Files, ", ")
	}
	if a.last.Failed() {
		out.Outcome = lore.AttemptFailure
	}
	return out
}

// retries counts, for each attempt, the failed attempts right before it
// that served the same request and touched a file it touched.
func retries(as []lore.Attempt) {
	for i := 1; i < len(as); i++ {
		p := as[i-1]
		if p.Outcome == lore.AttemptFailure && p.Task == as[i].Task && shares(p.Files, as[i].Files) {
			as[i].Retries = p.Retries + 1
		}
	}
}

func shares(a, b []string) bool {
	return slices.ContainsFunc(a, func(f string) bool { return slices.Contains(b, f) })
}

// request is a user's message as a request: its text, up to maxTask
// runes cut at a word; a slash command with its arguments ("/fix the
// login test"); or "" for what only looks like one (a command's output
// the agent's CLI wrapped as a user message, a system reminder, an
// interruption).
func request(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<command-") {
		name, args := tagged(t, "command-name"), tagged(t, "command-args")
		if args == "" {
			return ""
		}
		t = strings.TrimSpace(name + " " + args)
	}
	if t == "" || t[0] == '<' || strings.HasPrefix(t, "Caveat:") || strings.HasPrefix(t, "[Request interrupted") ||
		strings.HasPrefix(t, "This session is being continued") {
		return ""
	}
	t = strings.Join(strings.Fields(t), " ")
	if utf8.RuneCountInString(t) <= maxTask {
		return t
	}
	r := []rune(t)[:maxTask]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > maxTask/2 {
		cut = cut[:i]
	}
	return cut + " …"
}

// tagged is the text of the first <tag>…</tag> in s, trimmed; "".
func tagged(s, tag string) string {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(after, "</"+tag+">")
	return strings.TrimSpace(in)
}

// repoPath is a file an edit named, relative to the session's folder and
// slashed; "" for one outside it. A file in a worktree kept inside the
// project (.worktrees/x/a.go, .claude/worktrees/x/a.go) is the project's
// file (a.go).
func repoPath(cwd, file string) string {
	f := strings.ReplaceAll(file, "\\", "/")
	c := strings.TrimSuffix(strings.ReplaceAll(cwd, "\\", "/"), "/")
	if absolute(f) {
		if c == "" || !strings.HasPrefix(f, c+"/") {
			return ""
		}
		f = f[len(c)+1:]
	}
	f = path.Clean(f)
	if f == "." || f == ".." || strings.HasPrefix(f, "../") || absolute(f) {
		return ""
	}
	parts := strings.Split(f, "/")
	for i, p := range parts {
		if (p == "worktrees" || p == ".worktrees") && strings.HasPrefix(parts[0], ".") && i+2 < len(parts) {
			return strings.Join(parts[i+2:], "/")
		}
	}
	return f
}

// absolute reports whether a slashed path is absolute, on Unix or Windows.
func absolute(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && p[2] == '/'
}

// tail is the end of s, at most n bytes, from a line's start where one
// is near.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n ")
	if len(s) <= n {
		return s
	}
	t := s[len(s)-n:]
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < n/4 {
		t = t[i+1:]
	}
	return "…\n" + t
}

// edit is one change a tool call made to one file.
type edit struct {
	file     string
	old, new string
	// whole: new is the file's whole content (a write); patch: new is
	// the change as a patch already.
	whole, patch bool
}

// callEdits are the changes a tool call made (edits), or the shell
// command it ran, when it ran one that is not a patch (Codex's shell
// runs apply_patch <<'EOF' … too).
func callEdits(name, input string) ([]edit, string) {
	cmd := shellcmd.FromCall(name, input)
	switch {
	case cmd == "":
		return edits(name, input), ""
	case !strings.HasPrefix(cmd, "apply_patch"):
		return nil, cmd
	}
	if i := strings.Index(cmd, "*** Begin Patch"); i >= 0 {
		return patchEdits(cmd[i:]), ""
	}
	return nil, ""
}

// edits are the changes an edit tool's call made: Claude Code's Edit,
// MultiEdit and Write, Gemini CLI's replace and write_file, OpenCode's
// edit and write, str_replace_editor's str_replace, insert and create,
// and apply_patch's patch (Codex, OpenCode, Copilot); none for a call of
// any other tool. They are known by their arguments, not the tool's name.
func edits(name, input string) []edit {
	in := strings.TrimSpace(input)
	if strings.HasPrefix(in, "*** Begin Patch") {
		return patchEdits(in)
	}
	if !strings.HasPrefix(in, "{") {
		return nil
	}
	var v struct {
		FilePath     string `json:"file_path"`
		FilePathC    string `json:"filePath"`
		Path         string `json:"path"`
		AbsolutePath string `json:"absolute_path"`
		Command      string `json:"command"`

		OldString string  `json:"old_string"`
		OldC      string  `json:"oldString"`
		OldStr    *string `json:"old_str"`
		NewString *string `json:"new_string"`
		NewC      *string `json:"newString"`
		NewStr    *string `json:"new_str"`
		Content   *string `json:"content"`
		FileText  *string `json:"file_text"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
		PatchText string `json:"patchText"`
		Patch     string `json:"patch"`
		Input     string `json:"input"`
	}
	if json.Unmarshal([]byte(in), &v) != nil {
		return nil
	}
	for _, p := range []string{v.PatchText, v.Patch, v.Input} {
		if p = strings.TrimSpace(p); strings.HasPrefix(p, "*** Begin Patch") {
			return patchEdits(p)
		}
	}
	file := firstOf(v.FilePath, v.FilePathC, v.Path, v.AbsolutePath)
	if file == "" {
		return nil
	}
	switch {
	case v.Edits != nil:
		var es []edit
		for _, e := range v.Edits {
			es = append(es, edit{file: file, old: e.OldString, new: e.NewString})
		}
		return es
	case v.NewString != nil:
		return []edit{{file: file, old: v.OldString, new: *v.NewString}}
	case v.NewC != nil:
		return []edit{{file: file, old: v.OldC, new: *v.NewC}}
	case v.NewStr != nil && (v.OldStr != nil || v.Command == "insert"):
		old := ""
		if v.OldStr != nil {
			old = *v.OldStr
		}
		return []edit{{file: file, old: old, new: *v.NewStr}}
	case v.FileText != nil && (v.Command == "" || v.Command == "create"):
		return []edit{{file: file, new: *v.FileText, whole: true}}
	case v.Content != nil && v.Command == "" && writeTool(name):
		return []edit{{file: file, new: *v.Content, whole: true}}
	}
	return nil
}

// writeTool reports whether a tool with a content argument writes a file
// (Write, write_file, write) rather than sending a message or a todo.
func writeTool(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "write") && !strings.Contains(n, "todo") && !strings.Contains(n, "stdin") ||
		strings.Contains(n, "create_file")
}

func firstOf(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
