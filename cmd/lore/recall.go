package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/recall"
	"github.com/lorehq/lore/transcript"
)

type recallOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	BeforeTool bool
	AfterTool  bool
	Agent      string
	// Holdout is the share of sessions whose notes are withheld, as lore
	// boot's: a held-out session gets no note at the point of action either.
	Holdout float64
}

// recallDeadline is how long a tool hook may take before it gives up and
// hands over nothing: the agent waits for it before every shell command.
const recallDeadline = time.Second

func newRecallCmd(fac *factory, runF func(context.Context, *recallOptions) error) *cobra.Command {
	opts := &recallOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "recall (--before-tool | --after-tool)",
		Short: "Hand an agent what lore knows of a command or an error, as a tool hook",
		Long: `Answer an agent's tool hook with what earlier sessions learned, at the point of
action. It reads the hook's JSON on standard input and prints the hook's answer:

  --before-tool  before a shell command runs (Claude Code's PreToolUse, tool Bash):
                 the active pitfalls of this repository, this agent or every
                 repository whose failed command is this one (the same program
                 and subcommand, and the words the pitfall shows), with what
                 worked.
  --after-tool   after a tool call failed (Claude Code's PostToolUseFailure,
                 Gemini CLI's AfterTool): the active pitfalls and tool quirks in
                 scope with the error's signature, built as harvest builds it.

The answer is {"hookSpecificOutput": {"hookEventName", "additionalContext"}}: a
note the agent reads, never a block or a permission decision. The note is the
items' stored text, at most 3 of them, each with its id to cite, each once a
session; nothing of the tool's output is handed back. Every note handed over
is recorded for lore measure (a boot of kind before-tool or after-failure). A
session held out (--holdout, or LORE_HOLDOUT in the agent's environment, as for
lore boot) is handed nothing: its notes are recorded as withheld.

It fails open: with nothing to say, no store, input it cannot read, another
event or tool, any error (wrong flags included) or more than 1 s, it prints
nothing and exits 0. lore hooks install claude installs both; lore hooks
install gemini installs --after-tool for Gemini CLI's shell tool.

` + storeHelp,
		Example: `  lore hooks install claude     # PreToolUse and PostToolUseFailure run these
  echo '{"session_id":"s1","cwd":".","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push origin main"}}' | lore recall --before-tool`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.BeforeTool == opts.AfterTool {
				return usagef("give one of --before-tool and --after-tool")
			}
			if err := checkAgent(&opts.Agent); err != nil {
				return err
			}
			if _, err := holdoutShare(cmd, opts.Env, &opts.Holdout); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return recallRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.BeforeTool, "before-tool", false, "answer a hook that runs before a shell command")
	f.BoolVar(&opts.AfterTool, "after-tool", false, "answer a hook that runs after a tool call failed")
	f.StringVar(&opts.Agent, "agent", "", "the agent the session runs (default: the one whose hook event it is)")
	f.Float64Var(&opts.Holdout, "holdout", 0, "withhold the notes from this share of sessions, as lore boot --holdout does (default $"+holdoutEnv+" or 0)")
	opts.storeOptions.addFlag(cmd)
	return cmd
}

// recallRun answers the hook. It fails open: every error is a line on
// standard error, nothing on standard output, and exit 0.
func recallRun(ctx context.Context, opts *recallOptions) error {
	if opts.Env.Getenv != nil && opts.Env.Getenv(noHooksEnv) != "" {
		return nil // a session lore started itself
	}
	a, err := withinDeadline(ctx, recallDeadline, opts.respond)
	switch {
	case errors.Is(err, errNoTime):
		fmt.Fprintf(opts.IO.ErrOut, "lore recall: no answer within %s (nothing handed over)\n", recallDeadline)
	case err != nil:
		fmt.Fprintf(opts.IO.ErrOut, "lore recall: %s (nothing handed over)\n", secrets.String(err.Error()))
	case a.text != "":
		claudehook.WriteContext(opts.IO.Out, a.event, a.text)
	}
	return nil
}

// answer is the event a tool hook answers and the note it hands over;
// no text for none.
type answer struct{ event, text string }

// respond reads the hook's input and works out the note: the event to
// answer and its text, "" for none.
func (opts *recallOptions) respond(ctx context.Context) (answer, error) {
	in, err := readHookInput(ctx, opts.IO)
	if err != nil {
		return answer{}, fmt.Errorf("reading the hook's input: %w", err)
	}
	agent, kind := "", ""
	switch in.HookEventName {
	case claudehook.PreToolUse:
		agent, kind = lore.AgentClaudeCode, lore.BootBeforeTool
	case claudehook.PostToolUseFailure:
		agent, kind = lore.AgentClaudeCode, lore.BootAfterFailure
	case claudehook.GeminiAfterTool:
		agent, kind = lore.AgentGeminiCLI, lore.BootAfterFailure
	}
	// Another event (Gemini CLI's BeforeTool takes no context), or one the
	// other flag answers.
	if kind == "" || (kind == lore.BootBeforeTool) != opts.BeforeTool {
		return answer{}, nil
	}
	failure := ""
	if kind == lore.BootAfterFailure {
		var ok bool
		if failure, ok = in.Failure(); !ok {
			return answer{}, nil // a call that worked, or one the user stopped
		}
	}
	if opts.Agent != "" {
		agent = opts.Agent
	}
	p, err := opts.storePath(opts.Env)
	if err != nil {
		return answer{}, err
	}
	if missing(p) {
		return answer{}, nil // nothing learned yet
	}
	o := recall.Options{Agent: agent}
	if in.Cwd != "" {
		dir := in.Cwd
		if !filepath.IsAbs(dir) && opts.Env.Cwd != "" {
			dir = filepath.Join(opts.Env.Cwd, dir)
		}
		o.Repo = transcript.RepoOfDir(dir)
	}
	st, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return answer{}, err
	}
	defer st.Close()
	note := func() (recall.Note, error) {
		if kind == lore.BootBeforeTool {
			return recall.BeforeTool(ctx, st, o, in.ToolName, string(in.ToolInput))
		}
		return recall.AfterFailure(ctx, st, o, in.ToolName, string(in.ToolInput), failure)
	}
	n, err := note()
	if err != nil {
		return answer{}, err
	}
	if n.Text == "" {
		if kind == lore.BootBeforeTool {
			return answer{}, nil
		}
		// No note covers the error: an earlier session that met it, and
		// what it did next.
		return opts.episode(ctx, st, in, o, failure)
	}
	session := ""
	if in.SessionID != "" {
		session = agent + ":" + in.SessionID
		// A note is handed to a session once: asked only when there is one
		// to hand over, which most commands have not.
		if o.Told, err = recall.Told(ctx, st, session, n.Items, time.Now()); err != nil {
			return answer{}, err
		}
		if len(o.Told) > 0 {
			if n, err = note(); err != nil || n.Text == "" {
				return answer{}, err
			}
		}
	}
	return opts.handOver(ctx, st, lore.Boot{Session: session, Repo: o.Repo, Agent: agent, Items: n.Items, Kind: kind},
		in.HookEventName, n.Text), nil
}

// handOver records b, a note about to be handed over, and answers the
// hook's event with text; a session held out (--holdout) is answered
// nothing, its note recorded as withheld.
func (opts *recallOptions) handOver(ctx context.Context, st lore.Store, b lore.Boot, event, text string) answer {
	b.Withheld = boot.HeldOut(b.Session, opts.Holdout)
	recordBoot(ctx, st, b, opts.IO.ErrOut, "lore recall: note: this note")
	if b.Withheld {
		return answer{} // held out: the session goes on as it would without lore
	}
	return answer{event, text}
}

// episode answers a failure no note covers with the best earlier episode
// of its error (recall.Episode), in at most 300 tokens, recorded as a boot
// of kind episode.
func (opts *recallOptions) episode(ctx context.Context, st lore.Store, in claudehook.Input, o recall.Options, failure string) (answer, error) {
	a, err := recall.Episode(ctx, st, o, in.ToolName, string(in.ToolInput), failure)
	if err != nil || a.Note == "" {
		return answer{}, err
	}
	session := ""
	if in.SessionID != "" {
		session = o.Agent + ":" + in.SessionID
	}
	return opts.handOver(ctx, st, lore.Boot{Session: session, Repo: o.Repo, Agent: o.Agent, Items: []string{}, Kind: lore.BootEpisode,
		Tokens: a.Tokens}, in.HookEventName, a.Note), nil
}

// isRecallHook reports whether args run lore recall, which only hooks
// run: its errors, wrong flags included, fail open.
func isRecallHook(args []string) bool {
	if len(args) == 0 || args[0] != "recall" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--help" || a == "-h" {
			return false
		}
	}
	return true
}
