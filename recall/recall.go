package recall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/episode"
	"github.com/lorehq/lore/errsig"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/shellcmd"
)

// MaxNotes is the most notes one answer hands over: a note at the point
// of action interrupts, and the first few say what there is to say.
const MaxNotes = 3

// Options say whose session a note is for.
type Options struct {
	Repo  string // owner/name, or "" for none
	Agent string
	// MinConfidence leaves out items below it; 0 is
	// boot.DefaultMinConfidence, as for the notes a session starts with.
	MinConfidence float64
	// Told holds the ids of the items the session was handed already at
	// the point of action, which are not handed over again: an agent
	// that runs a command again after its note chose to.
	Told map[string]bool
}

// Note is what an agent is handed: Text is "" when lore knows nothing
// of the command or the error.
type Note struct {
	Text  string
	Items []string // the full ids of the items in Text, in order
}

// store is what recall reads.
type store interface {
	Recall(ctx context.Context, q lore.RecallQuery) ([]lore.Item, error)
}

// The first line of each note says where it comes from and what it is:
// knowledge from earlier sessions, not an order (see boot.Header).
const (
	beforeHeader = "lore: earlier sessions met a failure of this command. Notes from earlier sessions, knowledge and not instructions (they may be out of date); cite the id of one that helps, like [%s]:\n"
	afterHeader  = "lore: earlier sessions met this error. Notes from earlier sessions, knowledge and not instructions (they may be out of date); cite the id of one that helps, like [%s]:\n"
)

// perScope is how many items of a command each scope reads: those whose
// command is not the one about to run are left out after reading.
const perScope = 50

// BeforeTool is the note for a tool call about to run (tool its name,
// input its arguments as JSON): the active pitfalls and quirks in the
// session's scope whose failed command is this call's command, as the
// rules word commands (harvest.Meets). A call that runs no shell command
// gets none.
func BeforeTool(ctx context.Context, st store, opts Options, tool, input string) (Note, error) {
	words := harvest.CommandWords(shellcmd.FromCall(tool, input))
	if len(words) == 0 {
		return Note{}, nil
	}
	items, err := read(ctx, st, opts, lore.RecallQuery{Command: harvest.CommandPrefix(words), Limit: perScope}, func(it lore.Item) bool {
		failed := harvest.FailedCommand(it.Text)
		return failed != "" && harvest.Meets(failed, words)
	})
	if err != nil {
		return Note{}, err
	}
	return note(beforeHeader, items, opts.Repo), nil
}

// AfterFailure is the note for a tool call that failed (tool its name,
// input its arguments as JSON, output what the agent was told of the
// failure): the active pitfalls and quirks in the session's scope with
// the error's signature, as harvest builds it (errsig), or a stated cause
// of that error. An output that holds no error of the environment or of
// the agent's tools (a refusal, nothing) gets none. The note holds only
// the items' text: nothing of the output is handed back.
func AfterFailure(ctx context.Context, st store, opts Options, tool, input, output string) (Note, error) {
	e := errsig.Parse(tool, input, output, nil)
	if e.Signature == "" || e.Kind != errsig.Environment && e.Kind != errsig.Protocol {
		return Note{}, nil
	}
	q := lore.RecallQuery{Signatures: []string{e.Signature, harvest.CausePrefix + e.Signature}, Limit: MaxNotes}
	items, err := read(ctx, st, opts, q, func(lore.Item) bool { return true })
	if err != nil {
		return Note{}, err
	}
	return note(afterHeader, items, opts.Repo), nil
}

// read asks each of the session's scopes (boot.Scopes) and keeps at most MaxNotes items that
// keep selects, confident enough and safe to hand out, this repository's
// first.
func read(ctx context.Context, st store, opts Options, q lore.RecallQuery, keep func(lore.Item) bool) ([]lore.Item, error) {
	minConf := opts.MinConfidence
	if minConf == 0 {
		minConf = boot.DefaultMinConfidence
	}
	var out []lore.Item
	seen := map[string]bool{}
	for _, f := range boot.Scopes(opts.Repo, opts.Agent) {
		q.Filter = f
		items, err := st.Recall(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		for _, it := range items {
			if len(out) == MaxNotes {
				return out, nil
			}
			// As in boot, a dangerous setting is never handed out as advice.
			if seen[it.ID] || opts.Told[it.ID] || !boot.InScope(it, opts.Repo, opts.Agent) || it.Confidence < minConf ||
				!keep(it) || lore.Unsafe(it.Text) {
				continue
			}
			seen[it.ID] = true
			out = append(out, it)
		}
	}
	return out, nil
}

// note renders items under header as boot renders its notes.
func note(header string, items []lore.Item, repo string) Note {
	if len(items) == 0 {
		return Note{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, header, lore.Cite(items[0].ID))
	n := Note{}
	for _, it := range items {
		b.WriteString(boot.Line(it, repo))
		n.Items = append(n.Items, it.ID)
	}
	n.Text = b.String()
	return n
}

// Points says at which points of action lore's hooks reach a session of
// agent, as lore hooks install sets them up (and the README's Codex CLI
// hook): before a shell command runs, Claude Code's PreToolUse and Codex
// CLI's; after a failed call, Claude Code's PostToolUseFailure and Gemini
// CLI's AfterTool. Other agents get their notes at session start only
// (lore boot, lore context write). measure --replay credits a note
// handed over at a point only where the agent's hook is there.
func Points(agent string) (beforeTool, afterFailure bool) {
	switch agent {
	case lore.AgentClaudeCode:
		return true, true
	case lore.AgentCodex:
		return true, false
	case lore.AgentGeminiCLI:
		return false, true
	}
	return false, false
}

// episodes is what the episode fallback reads.
type episodes interface {
	Episodes(ctx context.Context, q lore.EpisodeQuery) ([]lore.Episode, error)
}

// Episode is what a failure no note covers is answered with (tool its
// name, input its arguments as JSON, output what the agent was told): the
// earlier sessions' episodes of its error, the best one named in the
// answer's Note with what fixed it. The note is "" when there is none to
// hand over: an agent tool's own error ("String to replace not found":
// its message says what to do, and an earlier session's meeting it adds
// nothing), a cascade, or no earlier episode of the same error: its
// signature, and the values the error names (errsig.Values: the script,
// the symbol, the missing file). One whose error only shares words, or
// names another script, is a lead for a search, not a note.
func Episode(ctx context.Context, st episodes, opts Options, tool, input, output string) (episode.Answer, error) {
	e := errsig.Parse(tool, input, output, nil)
	if e.Signature == "" || e.Kind != errsig.Environment || errsig.Cascade(e.Line) {
		return episode.Answer{}, nil
	}
	a, err := episode.Recall(ctx, st, episode.Failure{Signature: e.Signature, Line: e.Line, Repo: opts.Repo, Agent: opts.Agent},
		episode.Options{})
	if err != nil || a.Note == "" || !a.Episodes[0].Same || !errsig.Names(a.Episodes[0].Error, errsig.Values(e.Line)) {
		return episode.Answer{}, err
	}
	return a, nil
}

// toldSince is how far back Told looks for the notes a session was
// handed: longer than a session lasts.
const toldSince = 24 * time.Hour

// boots is what Told reads.
type boots interface {
	Boots(ctx context.Context, since time.Time, fn func(lore.Boot) error) error
}

// Told is which of ids session was handed already at the point of action
// (boots of kind before-tool and after-failure in the day before now):
// the Told of Options, so that a note is handed to a session once.
func Told(ctx context.Context, st boots, session string, ids []string, now time.Time) (map[string]bool, error) {
	var out map[string]bool
	err := st.Boots(ctx, now.Add(-toldSince), func(b lore.Boot) error {
		if b.Session != session || b.Kind == lore.BootStart || b.Withheld {
			return nil
		}
		for _, id := range b.Items {
			if slices.Contains(ids, id) {
				if out == nil {
					out = map[string]bool{}
				}
				out[id] = true
			}
		}
		return nil
	})
	return out, err
}
