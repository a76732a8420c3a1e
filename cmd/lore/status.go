package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/transcript"
)

type statusOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	JSON bool
}

func newStatusCmd(fac *factory, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show where lore stands: store, sessions, hooks, context files, hook log",
		Long: `Show where lore stands on this machine, reading and changing nothing else:
  store     the store's path and size, its items by status, how many sessions
            were harvested and when last
  sessions  the transcripts each agent left where it writes them (listed, not
            read: lore sessions reads them)
  hooks     whether lore's hooks are in Claude Code's and Gemini CLI's
            settings (yours, and the current project's), and the lore they run
  context   which instruction files (AGENTS.md, CLAUDE.md, GEMINI.md of the
            current project and your own) hold a lore block
  hook log  the last lines of hook-harvest.log beside the store, which the
            harvests the SessionEnd hook starts write, and when it was written
  next      the next step to take

With no store yet it says so, and exits 0. lore doctor checks each piece and
says how to fix what is broken.

--json prints one object: {"store": {"path", "exists", "bytes", "items":
{"active", "candidate", "superseded", "retired"}, "sessions_harvested",
"last_harvest", "error"}, "agents": [{"agent", "transcripts", "bytes",
"paths"}], "hooks": [{"agent", "file", "project", "installed", "hooks":
[{"event", "command"}], "missing", "error"}], "context_files": [{"file",
"block", "error"}], "hook_log": {"path", "exists", "bytes", "modified",
"tail", "errors"}, "next": {"command", "why"}}. Times are RFC 3339, null
when unknown.

` + storeHelp,
		Example: `  lore status
  lore status --json
  lore status --store ./team.db`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as one JSON object")
	opts.storeOptions.addFlag(cmd)
	return cmd
}

// statusReport is lore status's answer, and its JSON.
type statusReport struct {
	Store   storeStatus     `json:"store"`
	Agents  []agentStatus   `json:"agents"`
	Hooks   []hooksStatus   `json:"hooks"`
	Context []contextStatus `json:"context_files"`
	HookLog hookLogStatus   `json:"hook_log"`
	Next    nextStep        `json:"next"`
}

type storeStatus struct {
	Path              string         `json:"path"`
	Exists            bool           `json:"exists"`
	Bytes             int64          `json:"bytes"`
	Items             map[string]int `json:"items"`
	SessionsHarvested int            `json:"sessions_harvested"`
	LastHarvest       *string        `json:"last_harvest"`
	Error             string         `json:"error,omitempty"`
	// Remote says the store is a team's lore serve (Path its address).
	Remote bool `json:"remote,omitempty"`

	lastHarvest time.Time
}

type agentStatus struct {
	Agent       string   `json:"agent"`
	Transcripts int      `json:"transcripts"`
	Bytes       int64    `json:"bytes"`
	Paths       []string `json:"paths"`
}

type hooksStatus struct {
	Agent     string      `json:"agent"` // claude or gemini, as lore hooks install names them
	File      string      `json:"file"`
	Project   bool        `json:"project"`
	Installed bool        `json:"installed"` // every hook lore installs for the agent is there
	Hooks     []hookEntry `json:"hooks"`
	Missing   []string    `json:"missing"`
	Error     string      `json:"error,omitempty"`
}

type hookEntry struct {
	Event   string `json:"event"`
	Command string `json:"command"`
}

type contextStatus struct {
	File  string `json:"file"`
	Block bool   `json:"block"`
	Error string `json:"error,omitempty"`
}

type hookLogStatus struct {
	Path     string   `json:"path"`
	Exists   bool     `json:"exists"`
	Bytes    int64    `json:"bytes"`
	Modified *string  `json:"modified"`
	Tail     []string `json:"tail"`
	Errors   []string `json:"errors"`

	modified time.Time
}

type nextStep struct {
	Command string `json:"command"`
	Why     string `json:"why"`
}

func statusRun(ctx context.Context, opts *statusOptions) error {
	rep, err := gatherStatus(ctx, opts.Env, &opts.storeOptions)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, rep)
	}
	writeStatus(opts.IO.Out, rep, opts.Env.Home)
	return nil
}

// gatherStatus looks at every piece. Only a store path that cannot be
// worked out is an error; what is missing or broken is in the report.
func gatherStatus(ctx context.Context, env transcript.Env, so *storeOptions) (statusReport, error) {
	var rep statusReport
	path, err := so.storePath(env)
	if err != nil {
		return rep, err
	}
	rep.Store = storeState(ctx, so, env, path)
	rep.Agents = agentsFound(env)
	rep.Hooks = hooksInstalled(env)
	rep.Context = contextFiles(env)
	rep.HookLog = hookLog(hookLogPath(env, path))
	rep.Next = nextStepOf(rep)
	return rep, ctx.Err()
}

// storeState opens the store at path for reading, when it is there.
func storeState(ctx context.Context, so *storeOptions, env transcript.Env, path string) storeStatus {
	s := storeStatus{Path: storeName(path), Items: map[string]int{}}
	for _, status := range lore.Statuses {
		s.Items[string(status)] = 0
	}
	switch {
	case remote.IsURL(path):
		s.Exists, s.Remote = true, true
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, remoteCheckTimeout)
		defer cancel()
	case isPostgresURL(path):
		s.Exists = true
	default:
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return s
		}
		if err != nil {
			s.Error = err.Error()
			return s
		}
		s.Exists, s.Bytes = true, fi.Size()
	}
	st, err := so.openRead(ctx, env)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	defer st.Close()
	for _, status := range lore.Statuses {
		n, err := st.Count(ctx, lore.Filter{Statuses: []lore.Status{status}, Expired: true})
		if err != nil {
			s.Error = fmt.Sprintf("count %s items: %v", status, err)
			return s
		}
		s.Items[string(status)] = n
	}
	sessions := map[string]bool{}
	err = st.Harvests(ctx, func(h lore.Harvest) error {
		if h.Extractor == lore.Forgotten || h.Extractor == lore.JournalImported {
			return nil
		}
		sessions[h.Session] = true
		if h.At.After(s.lastHarvest) {
			s.lastHarvest = h.At
		}
		return nil
	})
	if err != nil {
		s.Error = fmt.Sprintf("read harvest records: %v", err)
	}
	s.SessionsHarvested = len(sessions)
	s.LastHarvest = jsonTime(s.lastHarvest)
	return s
}

// agentsFound lists, per agent, the transcripts in its default locations,
// as lore sessions finds them, without reading them.
func agentsFound(env transcript.Env) []agentStatus {
	_, roots := searchPaths(env, nil)
	out := []agentStatus{}
	at := map[string]int{}
	for _, r := range roots {
		if !r.Exists {
			continue
		}
		ins, _ := transcript.DefaultInputs([]string{r.Path})
		if len(ins) == 0 {
			continue
		}
		i, ok := at[r.Agent]
		if !ok {
			i = len(out)
			at[r.Agent] = i
			out = append(out, agentStatus{Agent: r.Agent})
		}
		out[i].Paths = append(out[i].Paths, r.Path)
		for _, in := range ins {
			out[i].Transcripts++
			out[i].Bytes += in.Size
		}
	}
	return out
}

// hookAgents are the agents lore hooks install serves, with their hooks
// and settings files.
var hookAgents = []struct {
	name  string
	hooks claudehook.Hooks
	file  func(env transcript.Env, project bool) (string, error)
}{
	{"claude", claudehook.Claude, claudeSettingsPath},
	{"gemini", claudehook.Gemini, func(env transcript.Env, project bool) (string, error) {
		return claudehook.GeminiSettingsPath(env.Home, env.Cwd, env.Getenv, project)
	}},
}

// hooksInstalled reads which of lore's hooks each agent's settings hold:
// the user's settings always, the current project's when they name lore.
func hooksInstalled(env transcript.Env) []hooksStatus {
	out := []hooksStatus{}
	for _, a := range hookAgents {
		user := ""
		for _, project := range []bool{false, true} {
			file, err := a.file(env, project)
			if err != nil {
				if !project {
					out = append(out, hooksStatus{Agent: a.name, Hooks: []hookEntry{}, Missing: []string{}, Error: err.Error()})
				}
				continue
			}
			if !project {
				user = file
			} else if file == user {
				continue // the current folder is the home folder
			}
			h := hooksStatus{Agent: a.name, File: file, Project: project, Hooks: []hookEntry{}, Missing: []string{}}
			found, err := a.hooks.Find(file)
			if err != nil {
				h.Error = err.Error()
				out = append(out, h)
				continue
			}
			for _, f := range found {
				if len(f.Commands) == 0 {
					h.Missing = append(h.Missing, f.Event)
				}
				for _, c := range f.Commands {
					h.Hooks = append(h.Hooks, hookEntry{f.Event, c})
				}
			}
			h.Installed = len(h.Missing) == 0
			if project && len(h.Hooks) == 0 {
				continue
			}
			out = append(out, h)
		}
	}
	return out
}

// contextFiles lists the instruction files lore context write would be
// pointed at, those there, and whether each holds lore's block: the
// current project's, and each agent's own in the home folder.
func contextFiles(env transcript.Env) []contextStatus {
	var files []string
	if env.Cwd != "" {
		root := transcript.CheckoutRoot(env.Cwd)
		if root == "" {
			root = env.Cwd
		}
		for _, name := range []string{"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md"} {
			files = append(files, filepath.Join(root, name))
		}
	}
	if f, err := claudehook.UserSettingsPath(env.Home, env.Getenv); err == nil {
		files = append(files, filepath.Join(filepath.Dir(f), "CLAUDE.md"))
	}
	if f, err := claudehook.GeminiSettingsPath(env.Home, env.Cwd, env.Getenv, false); err == nil {
		files = append(files, filepath.Join(filepath.Dir(f), "GEMINI.md"))
	}
	if codex := getenv(env, "CODEX_HOME"); codex != "" {
		files = append(files, filepath.Join(codex, "AGENTS.md"))
	} else if env.Home != "" {
		files = append(files, filepath.Join(env.Home, ".codex", "AGENTS.md"))
	}
	out := []contextStatus{}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		data, err := os.ReadFile(f)
		if err != nil {
			continue // not there, or not a file lore could write either
		}
		c := contextStatus{File: f}
		blk, err := findContextBlock(data)
		if err != nil {
			c.Error = err.Error()
		}
		c.Block = blk.found
		out = append(out, c)
	}
	return out
}

// hookLogName is the log of the harvests lore harvest --from-hook starts,
// beside the store.
const hookLogName = "hook-harvest.log"

// hookLogTail is how many of the log's last lines status shows.
const hookLogTail = 5

// hookLogScan is how much of the log's end is read: the last runs.
const hookLogScan = 64 << 10

// remoteCheckTimeout bounds what status and doctor ask a team's server.
const remoteCheckTimeout = 5 * time.Second

// hookLogPath is the log of what the SessionEnd hook starts: the
// harvests' beside the store (in lore's folder for a database), or the
// pushes' in lore's folder when the store is a team's server.
func hookLogPath(env transcript.Env, store string) string {
	switch {
	case remote.IsURL(store):
		return filepath.Join(loreHome(env), "hook-push.log")
	case isPostgresURL(store):
		return filepath.Join(loreHome(env), hookLogName)
	}
	return filepath.Join(filepath.Dir(store), hookLogName)
}

func hookLog(path string) hookLogStatus {
	l := hookLogStatus{Path: path, Tail: []string{}, Errors: []string{}}
	fi, err := os.Stat(l.Path)
	if err != nil || !fi.Mode().IsRegular() {
		return l
	}
	l.Exists, l.Bytes, l.modified = true, fi.Size(), fi.ModTime()
	l.Modified = jsonTime(l.modified)
	lines, err := lastLines(l.Path, fi.Size())
	if err != nil {
		l.Errors = append(l.Errors, err.Error())
		return l
	}
	for i, line := range lines {
		lines[i] = secrets.String(line) // a transcript's path can hold a token
	}
	l.Tail = lines[max(0, len(lines)-hookLogTail):]
	l.Errors = logErrors(lines)
	return l
}

// lastLines reads the lines of the last hookLogScan bytes of the file.
func lastLines(path string, size int64) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	from := max(0, size-hookLogScan)
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, hookLogScan))
	if err != nil {
		return nil, err
	}
	if from > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:] // the first line is cut
		}
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), hookLogScan)
	for sc.Scan() {
		if line := strings.TrimRight(sc.Text(), " \r"); line != "" {
			lines = append(lines, line)
		}
	}
	return lines, nil
}

// harvestSummary is the first line of lore harvest's summary, which ends
// each run the hook starts (writeHarvestSummary).
var harvestSummary = regexp.MustCompile(`^\d+ sessions: \d+ harvested, \d+ unchanged or lore's own; (\d+) errors`)

// logErrors are the errors of the runs since the last one that ended
// without any: lore's own error lines, and summaries counting errors with
// the lines before them that name what went wrong.
func logErrors(lines []string) []string {
	start := 0
	for i := len(lines) - 1; i >= 0; i-- {
		if m := harvestSummary.FindStringSubmatch(unstamp(lines[i])); m != nil && m[1] == "0" {
			start = i + 1
			break
		}
	}
	errs := []string{}
	for i := start; i < len(lines); i++ {
		line := unstamp(lines[i])
		m := harvestSummary.FindStringSubmatch(line)
		switch {
		case strings.HasPrefix(line, "lore: "), strings.HasPrefix(line, "lore harvest"):
			errs = append(errs, line)
		case m != nil && m[1] != "0":
			errs = append(errs, line)
		case m == nil && i+1 < len(lines) && !isSummaryTail(line) && followedByErrors(lines[i+1:]):
			errs = append(errs, line) // a transcript that could not be read, named before the summary
		}
	}
	return errs
}

// isSummaryTail reports whether line is one of the summary's later lines,
// or the line a hook's harvest opens with: none names an error.
func isSummaryTail(line string) bool {
	for _, p := range []string{"items stored", "items found", "model: ", "no usable answer", "rebuild: ", "the store: ", "next: ",
		"harvest of "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	_, err := strconv.ParseFloat(strings.SplitN(line, " ", 2)[0], 64)
	return err == nil && strings.Contains(line, " s, ") && strings.HasSuffix(line, "of transcripts read")
}

// unstamp is a line of the hook log without the time and session the
// hook's harvest opens it with ("2026-11-28T17:55:02Z claude-code:x: ").
func unstamp(line string) string {
	at, rest, ok := strings.Cut(line, " ")
	if _, err := time.Parse(time.RFC3339, at); !ok || err != nil {
		return line
	}
	if _, text, ok := strings.Cut(rest, ": "); ok {
		return text
	}
	return line
}

// followedByErrors reports whether the next summary in lines counts errors.
func followedByErrors(lines []string) bool {
	for _, l := range lines {
		if m := harvestSummary.FindStringSubmatch(unstamp(l)); m != nil {
			return m[1] != "0"
		}
	}
	return false
}

// nextStepOf is the one thing most worth doing next.
func nextStepOf(rep statusReport) nextStep {
	sessions := 0
	for _, a := range rep.Agents {
		sessions += a.Transcripts
	}
	hooked := false
	for _, h := range rep.Hooks {
		hooked = hooked || len(h.Hooks) > 0
	}
	switch {
	case rep.Store.Error != "":
		return nextStep{"lore doctor", "the store could not be read"}
	case !rep.Store.Exists && sessions == 0:
		return nextStep{"lore sessions PATH", "no store yet, and no agent transcripts where the agents write them: name a folder of transcripts, or use an agent first"}
	case !rep.Store.Exists:
		return nextStep{"lore harvest", "no store yet: harvest what the agents' sessions learned"}
	case rep.Store.SessionsHarvested == 0 && sessions > 0:
		return nextStep{"lore harvest", "no session harvested yet"}
	case !hooked:
		agent := "claude"
		if len(rep.Agents) > 0 && rep.Agents[0].Agent == lore.AgentGeminiCLI {
			agent = "gemini"
		}
		return nextStep{"lore hooks install " + agent, "no hooks: sessions start without lore's notes and are not harvested when they end"}
	case len(rep.HookLog.Errors) > 0:
		return nextStep{"lore doctor", "the hook's harvests met errors"}
	case rep.Store.Items[string(lore.StatusCandidate)] > 0:
		n := rep.Store.Items[string(lore.StatusCandidate)]
		why := fmt.Sprintf("%d candidates wait for your decision", n)
		if n == 1 {
			why = "1 candidate waits for your decision"
		}
		return nextStep{"lore review", why}
	}
	return nextStep{"lore measure", "everything is in place: see whether the notes pay"}
}

// writeStatus prints rep for people, paths under home shortened to ~.
func writeStatus(w io.Writer, rep statusReport, home string) {
	short := func(p string) string { return tildePath(p, home) }
	s := rep.Store
	switch {
	case s.Error != "":
		fmt.Fprintf(w, "store     %s: %s\n", short(s.Path), s.Error)
	case !s.Exists:
		fmt.Fprintf(w, "store     %s: none yet\n", short(s.Path))
	default:
		switch {
		case s.Remote:
			fmt.Fprintf(w, "store     %s (the team's lore serve)\n", s.Path)
		case isPostgresURL(s.Path):
			fmt.Fprintf(w, "store     %s\n", s.Path) // a database: its size is not the store's
		default:
			fmt.Fprintf(w, "store     %s, %s\n", short(s.Path), humanBytes(s.Bytes))
		}
		fmt.Fprintf(w, "          items: %d active, %d candidate, %d superseded, %d retired\n",
			s.Items["active"], s.Items["candidate"], s.Items["superseded"], s.Items["retired"])
		if s.SessionsHarvested == 0 {
			fmt.Fprintln(w, "          no session harvested yet")
		} else {
			fmt.Fprintf(w, "          %s harvested, the last at %s\n", plural(s.SessionsHarvested, "session"), localTime(s.lastHarvest))
		}
	}

	if len(rep.Agents) == 0 {
		fmt.Fprintln(w, "sessions  no agent transcripts where the agents write them (lore sessions says where it looked)")
	}
	for i, a := range rep.Agents {
		head := sectionHead("sessions", i)
		paths := make([]string, len(a.Paths))
		for j, p := range a.Paths {
			paths[j] = short(p)
		}
		fmt.Fprintf(w, "%s %-13s %s, %s in %s\n", head, a.Agent, plural(a.Transcripts, "transcript"), humanBytes(a.Bytes), strings.Join(paths, ", "))
	}

	for i, h := range rep.Hooks {
		head := sectionHead("hooks", i)
		where := short(h.File)
		var state string
		switch {
		case h.Error != "":
			state = "unreadable: " + h.Error
		case len(h.Hooks) == 0:
			state = "not installed"
		case h.Installed:
			state = fmt.Sprintf("installed (%s), running %s", plural(len(h.Hooks), "hook"), hookPrograms(h))
		default:
			state = fmt.Sprintf("partly installed: %s missing (lore hooks install %s), running %s", strings.Join(h.Missing, ", "), h.Agent, hookPrograms(h))
		}
		if where != "" {
			state += " — " + where
		}
		fmt.Fprintf(w, "%s %-13s %s\n", head, h.Agent, state)
	}

	if len(rep.Context) == 0 {
		fmt.Fprintln(w, "context   no instruction file (AGENTS.md, CLAUDE.md, GEMINI.md) here or in your agents' folders")
	}
	for i, c := range rep.Context {
		head := sectionHead("context", i)
		state := "no lore block"
		switch {
		case c.Error != "":
			state = "lore block unreadable: " + c.Error
		case c.Block:
			state = "lore block"
		}
		fmt.Fprintf(w, "%s %s: %s\n", head, short(c.File), state)
	}

	l := rep.HookLog
	if !l.Exists {
		fmt.Fprintf(w, "hook log  %s: none yet (the SessionEnd hook's harvests write it)\n", short(l.Path))
	} else {
		// Each harvest the hook starts opens with its time and session;
		// the lines it writes after carry none.
		fmt.Fprintf(w, "hook log  %s, last written %s\n", short(l.Path), localTime(l.modified))
		for _, line := range l.Tail {
			fmt.Fprintf(w, "          | %s\n", oneLine(line, 200))
		}
		if n := len(l.Errors); n > 0 {
			fmt.Fprintf(w, "          %s since the last harvest without errors (lore doctor)\n", plural(n, "error line"))
		}
	}
	fmt.Fprintf(w, "next      %s: %s\n", rep.Next.Command, rep.Next.Why)
}

// sectionHead is the name of a section of lore status on its first line,
// blanks of the same width on the next.
func sectionHead(name string, i int) string {
	if i > 0 {
		name = ""
	}
	return fmt.Sprintf("%-9s", name)
}

// hookPrograms names the lore programs h's hooks run.
func hookPrograms(h hooksStatus) string {
	var progs []string
	for _, e := range h.Hooks {
		p := claudehook.Program(e.Command)
		if p != "" && !slices.Contains(progs, p) {
			progs = append(progs, p)
		}
	}
	return strings.Join(progs, ", ")
}

// tildePath writes p under home as ~/….
func tildePath(p, home string) string {
	if home == "" || p == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.Join("~", rel)
	}
	return p
}

// localTime is t in local time to the minute, "unknown" when zero.
func localTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.Local().Format("2006-01-02 15:04")
}
