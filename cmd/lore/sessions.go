package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/transcript"
)

type sessionsOptions struct {
	IO    *iostreams.IOStreams
	Env   transcript.Env
	Paths []string
	JSON  bool
	filterOptions
}

// filterOptions narrow a list of sessions; sessions and sample share them.
type filterOptions struct {
	Agent string
	Repo  string
	Since string // YYYY-MM-DD
	since time.Time
	// skip leaves out what the settings exclude (config.excluded); nil
	// for none.
	skip func(*lore.Session) bool
}

// useConfig applies the settings' exclusions to the filter.
func (f *filterOptions) useConfig(env transcript.Env) error {
	c, err := loadConfig(env)
	if err != nil {
		return err
	}
	if len(c.Sessions.ExcludeAgents)+len(c.Sessions.ExcludePaths) > 0 {
		f.skip = c.excluded
	}
	return nil
}

func (f *filterOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Agent, "agent", "", "only sessions of this agent ("+strings.Join(lore.Agents, ", ")+")")
	cmd.Flags().StringVar(&f.Repo, "repo", "", "only sessions of this repository: "+repoFilterFlag)
	cmd.Flags().StringVar(&f.Since, "since", "", "only sessions active since then: a day (2026-01-01, local time) or a span back from now (7d, 12h, 2w)")
}

// checkAgent is a usage error unless a is empty or an agent lore knows.
func checkAgent(a *string) error {
	if alias, ok := agentAliases[*a]; ok {
		*a = alias
	}
	if *a != "" && !slices.Contains(lore.Agents, *a) {
		return usagef("unknown agent %q; known agents: %s", *a, strings.Join(lore.Agents, ", "))
	}
	return nil
}

// agentAliases are the names people type for an agent whose name in lore
// is longer: claude for claude-code, gemini for gemini-cli.
var agentAliases = map[string]string{"claude": lore.AgentClaudeCode, "gemini": lore.AgentGeminiCLI, "copilot": "copilot-cli"}

// check validates the filter flags.
func (f *filterOptions) check() error {
	if err := checkAgent(&f.Agent); err != nil {
		return err
	}
	if f.Since != "" {
		t, err := parseSince(f.Since, time.Now())
		if err != nil {
			return err
		}
		f.since = t
	}
	return nil
}

// keep reports whether s passes the filters.
func (f *filterOptions) keep(s *lore.Session) bool {
	if f.Agent != "" && s.Agent != f.Agent || f.skip != nil && f.skip(s) {
		return false
	}
	if f.Repo != "" && !lore.RepoMatches(s.Repo, f.Repo) {
		return false
	}
	if !f.since.IsZero() && s.LastActive().Before(f.since) {
		return false
	}
	return true
}

func newSessionsCmd(fac *factory, runF func(context.Context, *sessionsOptions) error) *cobra.Command {
	opts := &sessionsOptions{IO: fac.IO, Env: fac.Env}
	cmd := &cobra.Command{
		Use:   "sessions [PATH...]",
		Short: "List agent sessions found in transcripts",
		Long: `List agent sessions. With no PATH, lore looks where each agent writes its
transcripts (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, ~/.hermes, …,
honouring CLAUDE_CONFIG_DIR, CODEX_HOME, HERMES_HOME and the like). A PATH is a
transcript file or a folder, which is walked.

A session found in several files is listed once, from the file holding most of it.
Files that are not transcripts are reported on stderr and skipped.

` + repoFilterHelp + `

With --json, each session is one JSON object on its own line, with the fields
id, agent, path, repo, cwd, branch, model, started_at, ended_at, messages,
user_messages, assistant_messages, tool_calls, tool_errors, input_tokens,
output_tokens, cache_read_tokens, cache_write_tokens, outcome, warnings.

Exit status 1 only when PATHs were given and no session could be read in them.`,
		Example: `  lore sessions
  lore sessions ~/.claude/projects --json
  lore sessions --agent codex --since 2026-01-01
  lore sessions show claude-code:1af7fc5e`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.check(); err != nil {
				return err
			}
			if err := opts.useConfig(opts.Env); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON object per session per line")
	opts.addFlags(cmd)
	cmd.AddCommand(newSessionsShowCmd(fac, nil))
	return cmd
}

// scanOptions say where to look and how to report.
type scanOptions struct {
	IO       *iostreams.IOStreams
	Env      transcript.Env
	Paths    []string // none: the agents' default locations
	Messages bool
}

// scanned is what findSessions found, and where it looked.
type scanned struct {
	*transcript.Result
	roots []transcript.Root // default locations, when no path was given
}

// findSessions reads the sessions under the given paths or, with none,
// under every agent's default location, with a progress bar on a
// terminal. Problems are printed on stderr as "PATH: why".
func findSessions(ctx context.Context, o scanOptions) (*scanned, error) {
	paths, roots := searchPaths(o.Env, o.Paths)
	bar := newByteProgress(o.IO, "reading transcripts")
	res, err := transcript.Scan(ctx, paths, transcript.Options{Messages: o.Messages, Progress: bar.update, Defaults: len(o.Paths) == 0})
	bar.stop()
	if err != nil {
		return nil, err
	}
	for _, p := range res.Problems {
		fmt.Fprintln(o.IO.ErrOut, secrets.String(p.String())) // a path can hold a token
	}
	return &scanned{Result: res, roots: roots}, nil
}

// searchPaths returns the paths to read: those given or, with none, the
// agents' default locations that exist, and those locations.
func searchPaths(env transcript.Env, given []string) ([]string, []transcript.Root) {
	if len(given) > 0 {
		return given, nil
	}
	var paths []string
	roots := transcript.DefaultRoots(env)
	for _, r := range roots {
		if r.Exists {
			paths = append(paths, r.Path)
		}
	}
	// And the places the settings add (an error in them is said where
	// they are read for the filters).
	if c, err := loadConfig(env); err == nil {
		for _, p := range c.Sessions.ExtraPaths {
			if _, err := os.Stat(p); err == nil {
				paths = append(paths, p)
			}
		}
	}
	return paths, roots
}

// chooseFormat settles --format against --json (which means --format
// json) and checks it is one of allowed.
func chooseFormat(cmd *cobra.Command, jsonFlag bool, format *string, allowed ...string) error {
	if jsonFlag {
		if cmd.Flags().Changed("format") && *format != "json" {
			return usagef("--json and --format %s disagree", *format)
		}
		*format = "json"
	}
	if !slices.Contains(allowed, *format) {
		return usagef("--format %q: want %s or %s", *format, strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1])
	}
	return nil
}

// filteredSessions finds the sessions under paths (or the default
// locations) that pass the filter. Finding none where the user pointed is
// an error; finding none by default is explained on stderr.
func filteredSessions(ctx context.Context, ios *iostreams.IOStreams, env transcript.Env, paths []string, f *filterOptions) ([]*lore.Session, error) {
	pool, _, err := filteredScan(ctx, ios, env, paths, f)
	return pool, err
}

// filteredScan is filteredSessions that also returns the transcripts that
// could not be read (already printed on stderr).
func filteredScan(ctx context.Context, ios *iostreams.IOStreams, env transcript.Env, paths []string, f *filterOptions) ([]*lore.Session, []transcript.Problem, error) {
	sc, err := findSessions(ctx, scanOptions{IO: ios, Env: env, Paths: paths})
	if err != nil {
		return nil, nil, err
	}
	if len(sc.Sessions) == 0 {
		if len(paths) > 0 {
			return nil, sc.Problems, fmt.Errorf("no session could be read in %v", paths)
		}
		explainEmpty(ios.ErrOut, sc)
	}
	var pool []*lore.Session
	for _, s := range sc.Sessions {
		if f.keep(s) {
			pool = append(pool, s)
		}
	}
	return pool, sc.Problems, nil
}

// explainEmpty tells a user with no sessions where lore looked.
func explainEmpty(w io.Writer, sc *scanned) {
	if len(sc.roots) == 0 {
		return
	}
	fmt.Fprintln(w, "No agent sessions found. lore looked in:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range sc.roots {
		state := "not there"
		switch {
		case r.Exists:
			state = "no transcripts"
		case r.Distrusted != "":
			state = "not read: " + r.Distrusted
		}
		fmt.Fprintf(tw, "  %s\t%s\t(%s, %s)\n", r.Agent, r.Path, r.Source, state)
	}
	tw.Flush()
	fmt.Fprintln(w, "Give a transcript file or folder to read another place: lore sessions PATH")
}

func sessionsRun(ctx context.Context, opts *sessionsOptions) error {
	start := time.Now()
	sc, err := findSessions(ctx, scanOptions{IO: opts.IO, Env: opts.Env, Paths: opts.Paths})
	if err != nil {
		return err
	}
	if len(sc.Sessions) == 0 {
		if len(opts.Paths) > 0 {
			return fmt.Errorf("no session could be read in %s", strings.Join(opts.Paths, ", "))
		}
		explainEmpty(opts.IO.ErrOut, sc)
		return nil
	}
	var list []*lore.Session
	for _, s := range sc.Sessions {
		if opts.keep(s) {
			list = append(list, s)
		}
	}
	w := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	if opts.JSON {
		for _, s := range list {
			if err := writeJSON(w, summaryJSON(s)); err != nil {
				return err
			}
		}
	} else {
		writeSessionTable(w, opts.IO, list)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if opts.IO.IsStderrTTY() {
		fmt.Fprintf(opts.IO.ErrOut, "%d sessions from %d inputs (%s) in %s\n",
			len(list), sc.Inputs, humanBytes(sc.Bytes), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// sessionJSON is one line of lore sessions --json; its fields are a
// contract.
type sessionJSON struct {
	ID                string  `json:"id"`
	Agent             string  `json:"agent"`
	Path              string  `json:"path"`
	Repo              string  `json:"repo"`
	Cwd               string  `json:"cwd"`
	Branch            string  `json:"branch"`
	Model             string  `json:"model"`
	StartedAt         *string `json:"started_at"`
	EndedAt           *string `json:"ended_at"`
	Messages          int     `json:"messages"`
	UserMessages      int     `json:"user_messages"`
	AssistantMessages int     `json:"assistant_messages"`
	ToolCalls         int     `json:"tool_calls"`
	ToolErrors        int     `json:"tool_errors"`
	InputTokens       int64   `json:"input_tokens"`
	OutputTokens      int64   `json:"output_tokens"`
	CacheReadTokens   int64   `json:"cache_read_tokens"`
	CacheWriteTokens  int64   `json:"cache_write_tokens"`
	Outcome           string  `json:"outcome"`
	Warnings          int     `json:"warnings"`
}

func summaryJSON(s *lore.Session) sessionJSON {
	return sessionJSON{
		// A token in a folder's name is printed redacted, as everywhere.
		ID: s.ID, Agent: s.Agent, Path: secrets.String(s.Path), Repo: secrets.String(s.Repo),
		Cwd: secrets.String(s.Cwd), Branch: secrets.String(s.Branch), Model: s.Model,
		StartedAt: jsonTime(s.StartedAt), EndedAt: jsonTime(s.EndedAt),
		Messages: s.MessageCount(), UserMessages: s.UserMessages, AssistantMessages: s.AssistantMessages,
		ToolCalls: s.ToolCalls, ToolErrors: s.ToolErrors,
		InputTokens: s.Usage.InputTokens, OutputTokens: s.Usage.OutputTokens,
		CacheReadTokens: s.Usage.CacheReadTokens, CacheWriteTokens: s.Usage.CacheWriteTokens,
		Outcome: string(s.Outcome), Warnings: s.Warnings,
	}
}

// jsonTime is RFC 3339 in UTC with milliseconds, or null.
func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	return &s
}

func writeSessionTable(w io.Writer, ios *iostreams.IOStreams, list []*lore.Session) {
	rows := make([][]string, len(list))
	for i, s := range list {
		started := "-"
		if !s.StartedAt.IsZero() {
			started = s.StartedAt.Local().Format("2006-01-02 15:04")
		}
		rows[i] = []string{started, s.Agent, cmp.Or(s.Repo, "-"), strconv.Itoa(s.MessageCount()), strconv.Itoa(s.ToolCalls),
			strconv.Itoa(s.ToolErrors), string(s.Outcome), s.ID}
	}
	// On a terminal the repository is cut to fit its width; the id, which
	// sessions show takes, stays whole.
	writeTable(w, ios.TerminalWidth(), []string{"STARTED", "AGENT", "REPO", "MSGS", "TOOLS", "ERRS", "OUTCOME", "ID"}, rows, 2)
}

// truncate shortens s to n runes with an ellipsis; n ≤ 0 keeps it whole.
func truncate(s string, n int) string {
	if n <= 0 {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	// Where no part of a secret or of a redaction marker stays.
	return s[:redact.Cut(s, len(string(r[:n-1])))] + "…"
}

// oneLine puts s on one line, shortened to n runes (n ≤ 0: whole).
func oneLine(s string, n int) string {
	return truncate(strings.Join(strings.Fields(s), " "), n)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// parseSince reads a --since: a day (2026-01-01, from its start in local
// time), a time (2026-01-01T09:00:00Z), or a span back from now: a number
// and h (hours), d (days) or w (weeks): 12h, 7d, 2w.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n := len(s); n >= 2 {
		if k, err := strconv.Atoi(s[:n-1]); err == nil && k >= 0 {
			switch s[n-1] {
			case 'h':
				return now.Add(-time.Duration(k) * time.Hour), nil
			case 'd':
				return now.AddDate(0, 0, -k), nil
			case 'w':
				return now.AddDate(0, 0, -7*k), nil
			}
		}
	}
	return time.Time{}, usagef("--since %q: want a day (2026-01-01) or a span back from now (7d, 12h, 2w)", s)
}
