package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/internal/atomicfile"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type hooksOptions struct {
	IO        *iostreams.IOStreams
	Env       transcript.Env
	Agent     string // only "claude" so far
	Uninstall bool
	Project   bool
	DryRun    bool
	JSON      bool
}

// loreExecutable is the absolute path of the running lore, symlinks
// resolved; tests replace it, since a test binary lives in a temporary
// folder that install refuses.
var loreExecutable = func() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// The hooks lore installs into Claude Code. A hook is lore's when its
// command is a program named lore followed by one of these.
const (
	bootHookArgs    = "boot --format claude-hook"
	harvestHookArgs = "harvest --from-hook"
)

// claudeHook is one hook lore manages in Claude Code's settings.
type claudeHook struct {
	Event   string
	Args    string
	Matcher *string // nil: no matcher field (SessionEnd's matcher filters by exit reason)
	Timeout int     // seconds
}

var (
	emptyMatcher = ""
	claudeHooks  = []claudeHook{
		// Starting a session must stay quick.
		{Event: "SessionStart", Args: bootHookArgs, Matcher: &emptyMatcher, Timeout: 5},
		// Claude Code gives SessionEnd hooks 1.5 s between them unless a hook
		// asks for more (up to 60 s). The harvest itself runs detached; the
		// margin is for starting it on a slow, busy machine.
		{Event: "SessionEnd", Args: harvestHookArgs, Timeout: 10},
	}
)

// hookChange is what install or uninstall did to one hook.
type hookChange struct {
	Event    string   `json:"event"`
	Command  string   `json:"command,omitempty"`
	Action   string   `json:"action"` // added, replaced, already there, removed, not there
	Previous []string `json:"previous,omitempty"`
}

func newHooksCmd(ios *iostreams.IOStreams, runF func(context.Context, *hooksOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install lore into an agent's hooks",
		Long: `Install lore into an agent's session hooks, so that every new session starts with
what earlier sessions learned (lore boot) and every finished session is harvested
(lore harvest). Only Claude Code is supported so far.`,
		Example: `  lore hooks install claude
  lore hooks install claude --project --dry-run
  lore hooks uninstall claude`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown hooks command %q: want install or uninstall", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHooksInstallCmd(ios, runF), newHooksUninstallCmd(ios, runF))
	return cmd
}

const hooksFileHelp = `The settings file is ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json
when that is set); with --project, .claude/settings.json in the git repository
holding the current folder (else in the current folder). Every other setting
and hook is kept. The previous file is kept as settings.json.lore-backup.`

func newHooksInstallCmd(ios *iostreams.IOStreams, runF func(context.Context, *hooksOptions) error) *cobra.Command {
	opts := &hooksOptions{IO: ios, Env: hostEnv()}
	cmd := &cobra.Command{
		Use:   "install claude",
		Short: "Add lore's hooks to Claude Code's settings",
		Long: `Add two hooks to Claude Code's settings, calling this lore binary by its
absolute path (with --project, by the name lore, for each user's PATH to find:
a project's settings are shared with everyone who clones it):
  SessionStart  lore boot --format claude-hook   hands the new session what
                                                  earlier sessions learned
  SessionEnd    lore harvest --from-hook         harvests the finished session

Installing again changes nothing; installing after lore moved replaces lore's
old hooks. A lore run with go run is refused for your own settings: its binary
is deleted when it exits, so install lore with go install first.

` + hooksFileHelp + `

--json prints {"file", "changed", "hooks": [{"event", "command", "action"}]}.`,
		Example: `  lore hooks install claude
  lore hooks install claude --project
  lore hooks install claude --dry-run --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.start(cmd, args, runF)
		},
	}
	opts.addFlags(cmd, "show what would change, change nothing")
	return cmd
}

func newHooksUninstallCmd(ios *iostreams.IOStreams, runF func(context.Context, *hooksOptions) error) *cobra.Command {
	opts := &hooksOptions{IO: ios, Env: hostEnv(), Uninstall: true}
	cmd := &cobra.Command{
		Use:   "uninstall claude",
		Short: "Remove lore's hooks from Claude Code's settings",
		Long: `Remove lore's hooks (lore boot and lore harvest, wherever lore is installed) from
Claude Code's settings. Other hooks stay; an event's list is removed only when
removing lore's hooks leaves it empty. Uninstalling again changes nothing.

` + hooksFileHelp + `

--json prints {"file", "changed", "hooks": [{"event", "action", "previous"}]}.`,
		Example: `  lore hooks uninstall claude
  lore hooks uninstall claude --project`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.start(cmd, args, runF)
		},
	}
	opts.addFlags(cmd, "show what would be removed, change nothing")
	return cmd
}

func (o *hooksOptions) addFlags(cmd *cobra.Command, dryRunHelp string) {
	f := cmd.Flags()
	f.BoolVar(&o.Project, "project", false, "change the project's .claude/settings.json instead of yours")
	f.BoolVar(&o.DryRun, "dry-run", false, dryRunHelp)
	f.BoolVar(&o.JSON, "json", false, "print what was done as one JSON object")
}

func (o *hooksOptions) start(cmd *cobra.Command, args []string, runF func(context.Context, *hooksOptions) error) error {
	switch strings.ToLower(args[0]) {
	case "claude", "claude-code":
		o.Agent = "claude"
	default:
		return usagef("lore installs hooks into claude (Claude Code) only, not %q", args[0])
	}
	if runF != nil {
		return runF(cmd.Context(), o)
	}
	return hooksRun(cmd.Context(), o)
}

func hooksRun(ctx context.Context, opts *hooksOptions) error {
	file, err := claudeSettingsPath(opts.Env, opts.Project)
	if err != nil {
		return err
	}
	var commands map[string]string // event → command
	if !opts.Uninstall {
		exe, err := loreExecutable()
		if err != nil {
			return fmt.Errorf("find the lore binary: %w", err)
		}
		name := shellQuote(exe)
		if opts.Project {
			// The project's settings are shared with everyone who clones
			// it: its hooks name lore, for each user's PATH to find.
			name = "lore"
			if note := projectLoreNote(opts.Env, exe); note != "" {
				fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", note)
			}
		} else if err := checkInstalled(exe); err != nil {
			return err
		}
		commands = map[string]string{}
		for _, h := range claudeHooks {
			commands[h.Event] = name + " " + h.Args
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	target := resolveLink(file)
	old, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", file, err)
	}
	doc, err := parseSettings(old)
	if err != nil {
		return fmt.Errorf("%s: %w; nothing changed", file, err)
	}
	var changes []hookChange
	if opts.Uninstall {
		changes, err = doc.uninstall()
	} else {
		changes, err = doc.install(commands)
	}
	if err != nil {
		return fmt.Errorf("%s: %w; nothing changed", file, err)
	}
	if !opts.Uninstall {
		if v, ok := doc.top.get("disableAllHooks"); ok && string(bytes.TrimSpace(v)) == "true" {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s sets disableAllHooks, so Claude Code runs no hooks, lore's included\n", file)
		}
	}
	changed := false
	for _, c := range changes {
		changed = changed || c.Action == "added" || c.Action == "replaced" || c.Action == "removed"
	}

	backup := ""
	if changed && !opts.DryRun {
		data, err := doc.marshal(old)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		perm := fs.FileMode(0o600)
		if exists {
			if fi, err := os.Stat(target); err == nil {
				perm = fi.Mode().Perm()
			}
			backup = target + ".lore-backup"
			if err := atomicfile.WriteFile(backup, old, perm); err != nil {
				return fmt.Errorf("back up %s: %w; nothing changed", file, err)
			}
		}
		if err := atomicfile.WriteFile(target, data, perm); err != nil {
			return fmt.Errorf("write %s: %w", file, err)
		}
	}
	return printHookChanges(opts, file, changed, backup, changes)
}

func printHookChanges(opts *hooksOptions, file string, changed bool, backup string, changes []hookChange) error {
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			File    string       `json:"file"`
			Changed bool         `json:"changed"`
			DryRun  bool         `json:"dry_run,omitempty"`
			Backup  string       `json:"backup,omitempty"`
			Hooks   []hookChange `json:"hooks"`
		}{file, changed, opts.DryRun, backup, changes})
	}
	out := opts.IO.Out
	prefix := ""
	if opts.DryRun {
		prefix = "would be "
	}
	fmt.Fprintln(out, file)
	for _, c := range changes {
		action := c.Action
		if action != "already there" && action != "not there" {
			action = prefix + action
		}
		switch {
		case c.Command != "":
			fmt.Fprintf(out, "  %s: %s: %s\n", c.Event, action, c.Command)
		case len(c.Previous) > 0:
			fmt.Fprintf(out, "  %s: %s: %s\n", c.Event, action, strings.Join(c.Previous, ", "))
		default:
			fmt.Fprintf(out, "  %s: %s\n", c.Event, action)
		}
		if c.Action == "replaced" {
			fmt.Fprintf(out, "    (was %s)\n", strings.Join(c.Previous, ", "))
		}
	}
	switch {
	case opts.DryRun:
		fmt.Fprintln(out, "dry run: nothing changed")
	case backup != "":
		fmt.Fprintf(out, "previous file kept as %s\n", backup)
	}
	if changed && !opts.DryRun {
		fmt.Fprintln(out, "Claude Code reads hooks when a session starts: the change applies from the next session.")
	}
	return nil
}

// claudeSettingsPath is the user's settings file, or the project's.
func claudeSettingsPath(env transcript.Env, project bool) (string, error) {
	if project {
		if env.Cwd == "" {
			return "", errors.New("no current folder to find the project in")
		}
		return filepath.Join(projectRoot(env.Cwd), ".claude", "settings.json"), nil
	}
	if env.Getenv != nil {
		// Discovery accepts a comma-separated list here (as ccusage does);
		// the settings are in the first folder.
		for _, d := range strings.Split(env.Getenv("CLAUDE_CONFIG_DIR"), ",") {
			if d = strings.TrimSpace(d); d != "" {
				return filepath.Join(d, "settings.json"), nil
			}
		}
	}
	if env.Home == "" {
		return "", errors.New("no home folder to find Claude Code's settings in: set CLAUDE_CONFIG_DIR or use --project")
	}
	return filepath.Join(env.Home, ".claude", "settings.json"), nil
}

// projectRoot is the top of the git repository holding dir (a .git folder,
// or a .git file in worktrees), else dir itself.
func projectRoot(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// checkInstalled refuses a binary that go run built: it is deleted when
// that run ends, and the hooks would call nothing.
// projectLoreNote says what is wrong when this user's PATH would not run
// exe as lore: a project's hooks call lore by name.
func projectLoreNote(env transcript.Env, exe string) string {
	found := lookLore(env)
	if found == "" {
		return "the project's hooks call lore by name, and PATH has no lore: install it where PATH finds it (go install github.com/lorehq/lore/cmd/lore@latest)"
	}
	a, errA := os.Stat(found)
	b, errB := os.Stat(exe)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		return fmt.Sprintf("the project's hooks call lore by name, which PATH finds at %s, not this lore (%s)", found, exe)
	}
	return ""
}

// lookLore is the lore PATH finds, or "".
func lookLore(env transcript.Env) string {
	if env.Getenv == nil {
		return ""
	}
	name := "lore"
	if env.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (env.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return p
		}
	}
	return ""
}

func checkInstalled(exe string) error {
	if isTemporaryBuild(exe) {
		return fmt.Errorf("lore runs from a temporary build (%s) that hooks cannot call; install it first with `go install github.com/lorehq/lore/cmd/lore@latest` (or `go install ./cmd/lore` in a checkout) and run that lore", exe)
	}
	return nil
}

func isTemporaryBuild(exe string) bool {
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return true
	}
	tmp := filepath.Clean(os.TempDir())
	dirs := []string{tmp}
	if r, err := filepath.EvalSymlinks(tmp); err == nil && r != tmp {
		dirs = append(dirs, r) // macOS: /var → /private/var
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, exe); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// shellQuote quotes p for the shell Claude Code runs hook commands with,
// when it needs quoting.
func shellQuote(p string) string {
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

// isLoreHook reports whether command runs a program named lore with args.
func isLoreHook(command, args string) bool {
	c := strings.Join(strings.Fields(command), " ")
	prog, ok := strings.CutSuffix(c, " "+args)
	if !ok {
		return false
	}
	prog = strings.TrimSpace(prog)
	if n := len(prog); n >= 2 && (prog[0] == '\'' && prog[n-1] == '\'' || prog[0] == '"' && prog[n-1] == '"') {
		prog = strings.ReplaceAll(prog[1:n-1], `'\''`, "'")
	}
	if strings.ContainsAny(prog, " \t") && !strings.ContainsAny(prog, `/\`) {
		return false // "env X=1 lore" and the like are someone else's
	}
	base := path.Base(strings.ReplaceAll(prog, `\`, "/"))
	return base == "lore" || strings.EqualFold(base, "lore.exe")
}

// settingsDoc is Claude Code's settings, parsed only as deep as lore's
// hooks need, so that everything else is written back as it was read.
type settingsDoc struct {
	top *jsonObject
	bom bool
}

// parseSettings reads a settings file; an empty one is an empty object.
func parseSettings(data []byte) (*settingsDoc, error) {
	doc := &settingsDoc{}
	if b, ok := bytes.CutPrefix(data, []byte("\xef\xbb\xbf")); ok {
		data, doc.bom = b, true
	}
	if len(bytes.TrimSpace(data)) == 0 {
		doc.top = newJSONObject()
		return doc, nil
	}
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	top, err := parseJSONObject(data)
	if err != nil {
		return nil, errors.New("the settings are not a JSON object")
	}
	doc.top = top
	return doc, nil
}

// checkJSON says where data stops being JSON, as line and column.
func checkJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	p := int(se.Offset)
	if p > 0 {
		p-- // Offset counts the byte that went wrong
	}
	p = min(p, len(data))
	line := 1 + bytes.Count(data[:p], []byte("\n"))
	col := p - bytes.LastIndexByte(data[:p], '\n')
	return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
}

// marshal writes the settings as Claude Code does: two-space indent, and a
// final newline when the old file had one (or there was none).
func (d *settingsDoc) marshal(old []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, d.top.compact(), "", "  "); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(old)) == 0 || bytes.HasSuffix(old, []byte("\n")) {
		buf.WriteByte('\n')
	}
	if d.bom {
		return append([]byte("\xef\xbb\xbf"), buf.Bytes()...), nil
	}
	return buf.Bytes(), nil
}

// hookRef is where one of lore's hooks sits: the group in the event's
// list, and the hook in the group's "hooks".
type hookRef struct {
	group, hook int
	command     string
}

// eventHooks is one event's list of matcher groups.
type eventHooks struct {
	groups []json.RawMessage
}

// hooksObject returns the "hooks" object; nil when there is none.
func (d *settingsDoc) hooksObject() (*jsonObject, error) {
	raw, ok := d.top.get("hooks")
	if !ok || isNull(raw) {
		return nil, nil
	}
	h, err := parseJSONObject(raw)
	if err != nil {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	return h, nil
}

func (d *settingsDoc) event(hooks *jsonObject, name string) (*eventHooks, error) {
	raw, ok := hooks.get(name)
	if !ok || isNull(raw) {
		return &eventHooks{}, nil
	}
	var groups []json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, fmt.Errorf(`"hooks.%s" is not a JSON array`, name)
	}
	return &eventHooks{groups: groups}, nil
}

// find lists the hooks in e that run lore with args. Groups and hooks of
// a shape lore does not know are left alone.
func (e *eventHooks) find(args string) []hookRef {
	var refs []hookRef
	for gi, g := range e.groups {
		for hi, h := range groupHooks(g) {
			var hook struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			}
			if json.Unmarshal(h, &hook) == nil && hook.Type == "command" && isLoreHook(hook.Command, args) {
				refs = append(refs, hookRef{gi, hi, hook.Command})
			}
		}
	}
	return refs
}

// groupHooks is a matcher group's "hooks" list; nil when it has none.
func groupHooks(group json.RawMessage) []json.RawMessage {
	var g struct {
		Hooks []json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(group, &g) != nil {
		return nil
	}
	return g.Hooks
}

// remove deletes the hooks refs points at, and a group left with no hooks
// by that.
func (e *eventHooks) remove(refs []hookRef) {
	drop := map[int]map[int]bool{}
	for _, r := range refs {
		if drop[r.group] == nil {
			drop[r.group] = map[int]bool{}
		}
		drop[r.group][r.hook] = true
	}
	var groups []json.RawMessage
	for gi, g := range e.groups {
		if drop[gi] == nil {
			groups = append(groups, g)
			continue
		}
		var kept []json.RawMessage
		for hi, h := range groupHooks(g) {
			if !drop[gi][hi] {
				kept = append(kept, h)
			}
		}
		if len(kept) == 0 {
			continue
		}
		obj, _ := parseJSONObject(g) // groupHooks parsed it
		obj.set("hooks", rawArray(kept))
		groups = append(groups, obj.compact())
	}
	e.groups = groups
}

// install adds lore's hooks, or points lore's existing ones at commands.
func (d *settingsDoc) install(commands map[string]string) ([]hookChange, error) {
	hooks, err := d.hooksObject()
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		hooks = newJSONObject()
	}
	var changes []hookChange
	for _, h := range claudeHooks {
		ev, err := d.event(hooks, h.Event)
		if err != nil {
			return nil, err
		}
		want := commands[h.Event]
		c := hookChange{Event: h.Event, Command: want}
		refs := ev.find(h.Args)
		switch {
		case len(refs) == 0:
			c.Action = "added"
			entry := newJSONObject()
			entry.set("type", jsonValue("command"))
			entry.set("command", jsonValue(want))
			entry.set("timeout", jsonValue(h.Timeout))
			group := newJSONObject()
			if h.Matcher != nil {
				group.set("matcher", jsonValue(*h.Matcher))
			}
			group.set("hooks", rawArray([]json.RawMessage{entry.compact()}))
			ev.groups = append(ev.groups, group.compact())
		case len(refs) == 1 && refs[0].command == want:
			c.Action = "already there"
		default:
			// The first keeps its place, matcher and timeout; the others go.
			c.Action = "replaced"
			for _, r := range refs {
				c.Previous = append(c.Previous, r.command)
			}
			first := refs[0]
			group, _ := parseJSONObject(ev.groups[first.group])
			list := groupHooks(ev.groups[first.group])
			entry, _ := parseJSONObject(list[first.hook])
			entry.set("command", jsonValue(want))
			if _, ok := entry.get("timeout"); !ok {
				entry.set("timeout", jsonValue(h.Timeout))
			}
			list[first.hook] = entry.compact()
			group.set("hooks", rawArray(list))
			ev.groups[first.group] = group.compact()
			ev.remove(refs[1:])
		}
		if c.Action != "already there" {
			hooks.set(h.Event, rawArray(ev.groups))
		}
		changes = append(changes, c)
	}
	d.top.set("hooks", hooks.compact())
	return changes, nil
}

// uninstall removes lore's hooks, and what only they kept from being empty.
func (d *settingsDoc) uninstall() ([]hookChange, error) {
	hooks, err := d.hooksObject()
	if err != nil {
		return nil, err
	}
	var changes []hookChange
	removedAny := false
	for _, h := range claudeHooks {
		c := hookChange{Event: h.Event, Action: "not there"}
		if hooks == nil {
			changes = append(changes, c)
			continue
		}
		ev, err := d.event(hooks, h.Event)
		if err != nil {
			return nil, err
		}
		refs := ev.find(h.Args)
		if len(refs) > 0 {
			c.Action = "removed"
			for _, r := range refs {
				c.Previous = append(c.Previous, r.command)
			}
			ev.remove(refs)
			if len(ev.groups) == 0 {
				hooks.delete(h.Event)
			} else {
				hooks.set(h.Event, rawArray(ev.groups))
			}
			removedAny = true
		}
		changes = append(changes, c)
	}
	if removedAny {
		if len(hooks.keys) == 0 {
			d.top.delete("hooks")
		} else {
			d.top.set("hooks", hooks.compact())
		}
	}
	return changes, nil
}

// jsonObject is a JSON object that keeps its keys in order and its values
// as they were written.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]json.RawMessage{}} }

// parseJSONObject reads one JSON object. A key given twice keeps its first
// place and its last value, as encoding/json would read it.
func parseJSONObject(data []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := newJSONObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set replaces k's value in its place, or adds k at the end.
func (o *jsonObject) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// compact writes the object on one line, values as they were read.
func (o *jsonObject) compact() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonValue(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonValue encodes v without HTML escaping, which Claude Code does not do.
func jsonValue(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings and numbers are encoded here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func rawArray(items []json.RawMessage) json.RawMessage {
	if len(items) == 0 {
		return json.RawMessage("[]")
	}
	b := []byte("[")
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// resolveLink follows a symbolic link at p, so that a settings file kept
// in a dotfiles folder is written where it lives and the link survives.
func resolveLink(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
