package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type sessionsShowOptions struct {
	IO   *iostreams.IOStreams
	Env  transcript.Env
	Arg  string // an id, an id prefix, or a path
	In   string // look the id up under this folder instead
	JSON bool
	Full bool
	Raw  bool // print secrets as the transcript has them
}

func newSessionsShowCmd(fac *factory, runF func(context.Context, *sessionsShowOptions) error) *cobra.Command {
	opts := &sessionsShowOptions{IO: fac.IO, Env: fac.Env}
	cmd := &cobra.Command{
		Use:   "show ID|PATH",
		Short: "Show one session with its messages, tool calls and results",
		Long: `Show one normalised session: its summary, then every message with its tool
calls and results. ID is a session id as lore sessions lists it (agent:native-id),
or an unambiguous start of one; it is looked up among the sessions in the agents'
default locations, or under --in DIR. PATH is a transcript file or folder; a file
holding several sessions (an Aider history) shows them all.

Long texts are cut to their first lines; --full prints them whole. --json prints
the session as one JSON object with its messages under "transcript".

Secrets (API keys and tokens, private keys, passwords in URLs, assignments and
command-line flags such as mysql -p, e-mail addresses) are shown as
[REDACTED:kind]; --raw shows the transcript as it is.`,
		Example: `  lore sessions show claude-code:1af7fc5e-8455-4414-9ccd-011d40f70b2a
  lore sessions show ~/.codex/sessions/2026/01/02/rollout-….jsonl --json
  lore sessions show codex:019a005e --in ./transcripts`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Arg = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsShowRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.In, "in", "", "look the `DIR`ectory up for the id instead of the default locations")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the session as JSON")
	cmd.Flags().BoolVar(&opts.Full, "full", false, "print long texts whole")
	cmd.Flags().BoolVar(&opts.Raw, "raw", false, "do not redact secrets")
	return cmd
}

func sessionsShowRun(ctx context.Context, opts *sessionsShowOptions) error {
	sessions, err := resolveSessions(ctx, opts)
	if err != nil {
		return err
	}
	if !opts.Raw {
		for _, s := range sessions {
			s.Redact()
		}
	}
	// On a terminal, through a pager, as git shows a log.
	pg := startPager(opts.IO, opts.Env)
	defer pg.Close()
	w := bufio.NewWriterSize(pg, 64<<10)
	for i, s := range sessions {
		if opts.JSON {
			if err := writeJSON(w, detailJSON(s)); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeSession(w, s, opts.Full)
	}
	if err := w.Flush(); err != nil && pg.cmd == nil {
		return err // a pager quit early is no error
	}
	return pg.Close()
}

// resolveSessions reads the sessions the argument names, with messages.
func resolveSessions(ctx context.Context, opts *sessionsShowOptions) ([]*lore.Session, error) {
	_, err := os.Stat(opts.Arg)
	if errors.Is(err, fs.ErrNotExist) && opts.In == "" && looksLikePath(opts.Arg) {
		return nil, fmt.Errorf("%s: no such file or folder", opts.Arg)
	}
	if err == nil && opts.In == "" {
		ss, err := transcript.Read(ctx, opts.Arg, transcript.Options{Messages: true})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opts.Arg, err)
		}
		return ss, nil
	}
	var paths []string
	if opts.In != "" {
		paths = []string{opts.In}
	}
	sc, err := findSessions(ctx, scanOptions{IO: opts.IO, Env: opts.Env, Paths: paths})
	if err != nil {
		return nil, err
	}
	s, err := lookup(sc.Sessions, opts.Arg)
	if err != nil {
		if len(sc.Sessions) == 0 {
			explainEmpty(opts.IO.ErrOut, sc)
		}
		return nil, err
	}
	ss, err := transcript.Read(ctx, s.Path, transcript.Options{Messages: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	for _, full := range ss {
		if full.ID == s.ID {
			return []*lore.Session{full}, nil
		}
	}
	return nil, fmt.Errorf("%s is no longer in %s", s.ID, s.Path)
}

// looksLikePath reports whether arg names a file rather than a session:
// it has a folder in it or a transcript's extension, and does not start
// as a session id does, with an agent's name and a colon.
func looksLikePath(arg string) bool {
	for _, a := range lore.Agents {
		if strings.HasPrefix(arg, a+":") {
			return false
		}
	}
	if strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) {
		return true
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".jsonl", ".json", ".zst", ".md", ".db", ".traj":
		return true
	}
	return false
}

var errNoSession = errors.New("no session")

// lookup finds a session by id, by a unique start of its id, or by a
// unique start of its native id.
func lookup(sessions []*lore.Session, id string) (*lore.Session, error) {
	var matches []*lore.Session
	for _, s := range sessions {
		if s.ID == id {
			return s, nil
		}
		if strings.HasPrefix(s.ID, id) || strings.HasPrefix(s.NativeID, id) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("%w %q among %d sessions; list them with lore sessions", errNoSession, id, len(sessions))
	case 1:
		return matches[0], nil
	}
	var ids []string
	for i, s := range matches {
		if i == 5 {
			ids = append(ids, fmt.Sprintf("and %d more", len(matches)-5))
			break
		}
		ids = append(ids, s.ID)
	}
	return nil, usagef("%q matches %d sessions: %s", id, len(matches), strings.Join(ids, ", "))
}

// detailJSON is lore sessions show --json: the summary fields of lore
// sessions --json, then the messages.
type sessionDetailJSON struct {
	sessionJSON
	WarningSamples []string      `json:"warning_samples"`
	Transcript     []messageJSON `json:"transcript"`
}

type messageJSON struct {
	Index       int              `json:"index"`
	Role        string           `json:"role"`
	Time        *string          `json:"time"`
	Text        string           `json:"text,omitempty"`
	Thinking    string           `json:"thinking,omitempty"`
	Model       string           `json:"model,omitempty"`
	Sidechain   bool             `json:"sidechain,omitempty"`
	ToolCalls   []toolCallJSON   `json:"tool_calls,omitempty"`
	ToolResults []toolResultJSON `json:"tool_results,omitempty"`
}

type toolCallJSON struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input string `json:"input"`
}

type toolResultJSON struct {
	CallID   string `json:"call_id"`
	Output   string `json:"output"`
	IsError  bool   `json:"is_error"`
	ExitCode *int   `json:"exit_code"`
}

func detailJSON(s *lore.Session) sessionDetailJSON {
	d := sessionDetailJSON{sessionJSON: summaryJSON(s), WarningSamples: s.WarningSamples, Transcript: []messageJSON{}}
	if d.WarningSamples == nil {
		d.WarningSamples = []string{}
	}
	for _, m := range s.Messages {
		mj := messageJSON{
			Index: m.Index, Role: string(m.Role), Time: jsonTime(m.Time), Text: m.Text,
			Thinking: m.Thinking, Model: m.Model, Sidechain: m.Sidechain,
		}
		for _, c := range m.ToolCalls {
			mj.ToolCalls = append(mj.ToolCalls, toolCallJSON{ID: c.ID, Name: c.Name, Input: c.Input})
		}
		for _, r := range m.ToolResults {
			mj.ToolResults = append(mj.ToolResults, toolResultJSON{CallID: r.CallID, Output: r.Output, IsError: r.IsError, ExitCode: r.ExitCode})
		}
		d.Transcript = append(d.Transcript, mj)
	}
	return d
}

const showLines = 12 // lines of a long text shown without --full

func writeSession(w io.Writer, s *lore.Session, full bool) {
	fmt.Fprintf(w, "%s\n", s.ID)
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %-9s %s\n", name, value)
		}
	}
	field("path", s.Path)
	field("repo", s.Repo)
	field("cwd", s.Cwd)
	field("branch", s.Branch)
	field("model", s.Model)
	if !s.StartedAt.IsZero() {
		span := s.StartedAt.Local().Format("2006-01-02 15:04:05 MST")
		if !s.EndedAt.IsZero() {
			span += " for " + s.EndedAt.Sub(s.StartedAt).Round(time.Second).String()
		}
		field("started", span)
	}
	field("outcome", string(s.Outcome))
	field("turns", fmt.Sprintf("%d (%d user, %d assistant)", s.MessageCount(), s.UserMessages, s.AssistantMessages))
	field("tools", fmt.Sprintf("%d calls, %d failed", s.ToolCalls, s.ToolErrors))
	u := s.Usage
	field("tokens", fmt.Sprintf("%d in, %d out, %d cache read, %d cache write", u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens))
	if s.Warnings > 0 {
		field("warnings", fmt.Sprintf("%d damaged parts", s.Warnings))
		for _, ws := range s.WarningSamples {
			fmt.Fprintf(w, "            %s\n", ws)
		}
	}
	for _, m := range s.Messages {
		fmt.Fprintln(w)
		head := fmt.Sprintf("#%d %s", m.Index, m.Role)
		if m.Sidechain {
			head += " (sub-agent)"
		}
		if !m.Time.IsZero() {
			head += " · " + m.Time.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintln(w, head)
		if m.Thinking != "" {
			writeIndented(w, "  (thinking) ", m.Thinking, full)
		}
		if m.Text != "" {
			writeIndented(w, "  ", m.Text, full)
		}
		for _, c := range m.ToolCalls {
			writeIndented(w, "  → ", fmt.Sprintf("%s [%s] %s", c.Name, c.ID, c.Input), full)
		}
		for _, r := range m.ToolResults {
			state := "ok"
			if r.IsError {
				state = "error"
			}
			if r.ExitCode != nil {
				state += fmt.Sprintf(", exit %d", *r.ExitCode)
			}
			writeIndented(w, "  ← ", fmt.Sprintf("[%s] %s: %s", r.CallID, state, r.Output), full)
		}
	}
}

// writeIndented writes text under a prefix, cut to showLines lines unless
// full.
func writeIndented(w io.Writer, prefix, text string, full bool) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	more := 0
	if !full && len(lines) > showLines {
		more = len(lines) - showLines
		lines = lines[:showLines]
	}
	pad := strings.Repeat(" ", len([]rune(prefix)))
	for i, l := range lines {
		if !full {
			l = truncate(l, 400)
		}
		if i == 0 {
			fmt.Fprintf(w, "%s%s\n", prefix, l)
		} else {
			fmt.Fprintf(w, "%s%s\n", pad, l)
		}
	}
	if more > 0 {
		fmt.Fprintf(w, "%s… %d more lines (--full shows them)\n", pad, more)
	}
}
