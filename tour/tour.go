// Package tour runs lore's whole loop on example sessions built into the
// binary, in a temporary folder that touches nothing of the user's: read,
// sample, harvest, boot a new session, the note a hook hands over before a
// command, see the session use what it was told, and measure.
//
// The sessions were written for lore: three agents (Claude Code, Codex and
// Gemini CLI), four repositories, each named by its folder as lore names a
// repository whose folder is not on this machine, and an error that comes
// back (a push to a protected main branch) until a later session, handed
// the note by boot, avoids it. The Gemini CLI session sits in Gemini's own
// layout (PROJECT/chats/session-*.jsonl beside PROJECT/.project_root),
// which is how lore learns its folder.
package tour

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/measure"
	"github.com/lorehq/lore/recall"
	"github.com/lorehq/lore/sample"
	"github.com/lorehq/lore/sqlite"
	"github.com/lorehq/lore/transcript"
)

// all: keeps Gemini's .project_root, which names its session's folder.
//
//go:embed all:sessions
var sessions embed.FS

// later is the session that runs after boot; the others come first.
const later = "05-api-after-boot.jsonl"

// The new session's task and scope, as the example has it.
const (
	task        = "Push the README fix for the retry docs."
	repo        = "acme/api" // its sessions pushed there
	laterID     = "claude-code:a1f0c3e2-5555-4a7e-9c1d-000000000005"
	reposFolder = "sessions"
)

// Result is what the tour measured at the end.
type Result struct {
	Metrics measure.Metrics
	Boot    boot.Context
	// Recall is the note lore recall hands over before the later session's
	// push to main, had it run one.
	Recall recall.Note
	Dir    string // the temporary folder, removed when the tour ends
}

// Run runs the tour, printing each step to w.
func Run(ctx context.Context, w io.Writer) (Result, error) {
	var res Result
	dir, err := os.MkdirTemp("", "lore-tour-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	res.Dir = dir
	src := filepath.Join(dir, reposFolder)
	if err := copySessions(src, func(name string) bool { return name != later }); err != nil {
		return res, err
	}
	p := printer{w: w}
	now := time.Date(2026, 5, 9, 9, 0, 0, 0, time.UTC) // the day after the examples

	p.step("1. Read the transcripts agents left behind (%s)", src)
	scan, err := transcript.Scan(ctx, []string{src}, transcript.Options{NoGit: true})
	if err != nil {
		return res, err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "   STARTED\tAGENT\tREPO\tTOOLS\tERRORS\tFIRST ASK")
	for _, s := range scan.Sessions {
		fmt.Fprintf(tw, "   %s\t%s\t%s\t%d\t%d\t%s\n", s.StartedAt.Format("2006-01-02 15:04"), s.Agent, s.Repo, s.ToolCalls, s.ToolErrors, firstAsk(ctx, s))
	}
	tw.Flush()

	p.step("2. Rank them by what harvesting them is likely to yield (lore sample)")
	for _, sc := range sample.Select(sample.Score(scan.Sessions, now), sample.Selection{}) {
		fmt.Fprintf(w, "   score %2d  %s  %s\n", sc.Score, sc.Session.Agent, sc.Session.ID)
	}

	st, err := sqlite.Open(ctx, filepath.Join(dir, "lore.db"), sqlite.Options{Now: func() time.Time { return now }})
	if err != nil {
		return res, err
	}
	defer st.Close()
	p.step("3. Harvest what they teach, offline, by rules (lore harvest)")
	sum, err := harvest.Run(ctx, scan.Sessions, harvest.Options{Store: st, Extractor: harvest.Rules{}, Workers: 1, Now: func() time.Time { return now }})
	if err != nil {
		return res, err
	}
	err = st.Items(ctx, lore.Filter{AnyStatus: true}, func(it lore.Item) error {
		scope := it.Repo
		if scope == "" {
			scope = or(it.Agent, "global")
		}
		fmt.Fprintf(w, "   %-10s %-9s %.2f  %-12s %s\n", it.Category, it.Status, it.Confidence, scope, clip(it.Text, 110))
		return nil
	})
	if err != nil {
		return res, err
	}
	fmt.Fprintf(w, "   %d sessions, %d items stored (%d merged into others); the push error met twice is one active\n"+
		"   pitfall with two sources; the Edit quirk is kept, never handed out: its message says what to do.\n",
		sum.SessionsHarvested, sum.ItemsNew, sum.ItemsMerged)

	p.step("4. A new Claude Code session starts in acme-api: %q (lore boot)", task)
	res.Boot, err = boot.Build(ctx, st, boot.Options{Repo: repo, Agent: lore.AgentClaudeCode, Task: task, Now: now})
	if err != nil {
		return res, err
	}
	ids := make([]string, len(res.Boot.Items))
	for i, it := range res.Boot.Items {
		ids[i] = it.ID
	}
	if err := st.RecordBoot(ctx, lore.Boot{At: now, Session: laterID, Repo: repo, Agent: lore.AgentClaudeCode, Task: task,
		Items: ids, Tokens: res.Boot.Tokens}); err != nil {
		return res, err
	}
	for _, line := range strings.Split(strings.TrimRight(res.Boot.Text, "\n"), "\n") {
		fmt.Fprintln(w, "   | "+line)
	}
	fmt.Fprintf(w, "   (%d of %d tokens)\n", res.Boot.Tokens, res.Boot.Budget)

	p.step("5. Before a command runs, the note again, at the point of action (lore recall, a PreToolUse hook)")
	res.Recall, err = recall.BeforeTool(ctx, st, recall.Options{Repo: repo, Agent: lore.AgentClaudeCode}, "Bash", `{"command":"git push origin main"}`)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(w, "   had the session run `git push origin main`, Claude Code would have been told, before it ran:\n")
	for _, line := range strings.Split(strings.TrimRight(res.Recall.Text, "\n"), "\n") {
		fmt.Fprintln(w, "   | "+line)
	}

	p.step("6. The session runs with those notes")
	if err := copySessions(src, func(name string) bool { return name == later }); err != nil {
		return res, err
	}
	scan, err = transcript.Scan(ctx, []string{src}, transcript.Options{NoGit: true})
	if err != nil {
		return res, err
	}
	for _, s := range scan.Sessions {
		if s.ID == laterID {
			fmt.Fprintf(w, "   %s: %d tool calls, %d failed. It wrote: %q\n", s.ID, s.ToolCalls, s.ToolErrors, citingLine(ctx, s))
		}
	}
	sum, err = harvest.Run(ctx, scan.Sessions, harvest.Options{Store: st, Extractor: harvest.Rules{}, Workers: 1, Now: func() time.Time { return now }})
	if err != nil {
		return res, err
	}
	fmt.Fprintf(w, "   harvested again: %d new session, %d unchanged skipped\n", sum.SessionsHarvested, sum.SessionsSkipped)

	p.step("7. Measure whether the loop pays (lore measure)")
	res.Metrics, err = measure.Compute(ctx, scan.Sessions, st, measure.Options{Now: now, Replay: true,
		ReplayStore: func(ctx context.Context) (lore.Store, error) {
			return sqlite.Open(ctx, filepath.Join(dir, "replay.db"), sqlite.Options{})
		}})
	if err != nil {
		return res, err
	}
	m := res.Metrics
	fmt.Fprintf(w, "   hit rate          %d of %d injected notes cited or acted on\n", m.HitRate.Cited+m.HitRate.ActedOn, m.HitRate.Injected)
	fmt.Fprintf(w, "   recurrence        %d of %d sessions with errors met one lore already knew\n", m.Recurrence.SessionsHitKnown, m.Recurrence.SessionsWithErrors)
	fmt.Fprintf(w, "   first-try success %d of %d sessions with tool calls\n", m.FirstTry.Succeeded, m.FirstTry.Sessions)
	k := m.WouldHaveKnown
	fmt.Fprintf(w, "   would-have-known  of %d errors met, earlier sessions had taught %d and boot would have handed over %d\n", k.Errors, k.Known, k.Delivered)
	for _, s := range k.BySession {
		for _, e := range s.Errors {
			if !e.Known {
				continue
			}
			how := "an earlier session had taught it, but boot would not have handed the note over"
			if e.Delivered {
				how = "an earlier session had taught it, and boot would have handed the note over"
			}
			fmt.Fprintf(w, "     %s in %s met %q:\n       %s\n", s.Agent, s.Repo, clip(e.Signature, 70), how)
		}
	}
	fmt.Fprintf(w, "\nOn your own sessions: lore harvest, then lore boot --cwd . and lore measure (lore hooks install claude does it for you).\n")
	return res, nil
}

type printer struct{ w io.Writer }

func (p printer) step(format string, args ...any) {
	fmt.Fprintf(p.w, "\n"+format+"\n", args...)
}

// copySessions writes the embedded files keep accepts (by name) into dir,
// in the folders they are in.
func copySessions(dir string, keep func(string) bool) error {
	return fs.WalkDir(sessions, "sessions", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !keep(d.Name()) {
			return err
		}
		b, err := sessions.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "sessions/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
}

// firstAsk is a session's first user message.
func firstAsk(ctx context.Context, s *lore.Session) string {
	return clip(firstText(ctx, s, func(m lore.Message) bool { return m.Role == lore.RoleUser }), 50)
}

// citingLine is what the session wrote citing a note.
func citingLine(ctx context.Context, s *lore.Session) string {
	return clip(firstText(ctx, s, func(m lore.Message) bool {
		return m.Role == lore.RoleAssistant && len(lore.Citations(m.Text)) > 0
	}), 120)
}

func firstText(ctx context.Context, s *lore.Session, pick func(lore.Message) bool) string {
	read, err := transcript.Read(ctx, s.Path, transcript.Options{Messages: true, NoGit: true})
	if err != nil {
		return ""
	}
	for _, r := range read {
		if r.ID != s.ID {
			continue
		}
		for _, m := range r.Messages {
			if pick(m) && strings.TrimSpace(m.Text) != "" && !strings.HasPrefix(m.Text, "<environment_context>") {
				return strings.TrimSpace(m.Text)
			}
		}
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
