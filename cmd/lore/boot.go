package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/internal/tokens"
	"github.com/lorehq/lore/transcript"
)

type bootOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	boot.Options
	Cwd     string
	Session string
	Format  string
	JSON    bool
	// Holdout is the share of sessions whose context is withheld (see
	// boot.HeldOut); HoldoutSet says --holdout was given, else it is
	// LORE_HOLDOUT's.
	Holdout    float64
	HoldoutSet bool
}

// holdoutEnv sets the share of sessions held out when --holdout is not
// given: a setting for the hooks an agent runs.
const holdoutEnv = "LORE_HOLDOUT"

// hookDeadline is how long a hook may take before it gives up and hands
// the session an empty context: an agent must never wait on lore.
const hookDeadline = 2 * time.Second

// recordDeadline is how long boot waits to record itself: the record is
// bookkeeping for lore measure, and a store locked by a long harvest or
// read-only must not hold up the context an agent is waiting for.
const recordDeadline = 500 * time.Millisecond

// recordBoot records b for lore measure, waiting at most recordDeadline
// for a locked store. A record that fails is said on errOut ("<what> is
// not recorded …") and the command goes on: the record is bookkeeping,
// and an agent is waiting.
func recordBoot(ctx context.Context, st lore.Store, b lore.Boot, errOut io.Writer, what string) {
	rctx, cancel := context.WithTimeout(ctx, recordDeadline)
	defer cancel()
	err := st.RecordBoot(rctx, b)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("the store stayed locked by another process for %s", recordDeadline)
	}
	if err != nil {
		fmt.Fprintf(errOut, "%s is not recorded for lore measure: %v\n", what, err)
	}
}

// noHooksEnv is set in every process lore starts for itself (a harvest
// from a hook, an exec: model call): lore's hooks do nothing there, so
// that they never loop.
const noHooksEnv = "LORE_HARVEST"

func newBootCmd(fac *factory, runF func(context.Context, *bootOptions) error) *cobra.Command {
	opts := &bootOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "boot",
		Short: "Print the knowledge a new session should start with",
		Long: `Print a context for a new agent session: the active notes most worth knowing for
this repository, agent and task, within a token budget, under a header saying they
are lore's notes from earlier sessions (not instructions) and asking the agent to
cite the ids it uses.

The budget is a ceiling, not a target. A note goes in only when it is worth the
session's attention, in this order: the repository's own build, test and check
commands, one each (not those its CLAUDE.md or AGENTS.md already gives, nor one
whose script is gone, when --cwd is a checkout); the pitfalls and quirks two
sessions met or a verified fix, the user's standing rules, and notes a person
added (8 at most, more when they match the task); the rest only when it matches
--task. Within that, notes are ranked by relevance to --task, scope (this
repository first, then this agent, then global), confidence, recency and category
(pitfalls first); notes below --min-confidence and near-duplicates are left out.
Tokens are counted with a real tokenizer, offline; the budget is never exceeded.
Every boot is recorded for lore measure.

Run in a git checkout without --repo or --cwd, boot is for that checkout's
repository, as with --cwd .; elsewhere, for no repository (agent-wide and
global notes).

--format md (the default) prints the context; json prints {context, tokens,
budget, items: [{id, text, category, repo, confidence, score, why}]}, why being
command, confirmed or task; claude-hook prints
Claude Code's SessionStart hook answer, reading the hook's JSON (session_id, cwd)
from standard input. As a hook, boot fails open: any error, wrong flags included,
or more than 2 s, gives an empty context and exit 0. With nothing to hand out,
the context is a short header saying lore has no notes for this scope yet. When
the budget holds no context at all, md prints nothing and says so on standard
error.

--holdout 0.1 (or LORE_HOLDOUT=0.1 in the agent's environment, for its hooks)
withholds the notes from one session in ten, decided by the session's id: the
context is built and recorded as withheld, and nothing is handed over, so that
lore measure can compare the sessions with notes and those without.

` + repoScopeHelp + `

` + storeHelp,
		Example: `  lore boot                     # in a checkout: for its repository (as --cwd .)
  lore boot --repo acme/api --agent codex --task "fix the flaky retry test" --budget 1500
  lore boot --json | jq .tokens
  lore hooks install claude     # run boot at every Claude Code session start`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := chooseFormat(cmd, opts.JSON, &opts.Format, "md", "json", "claude-hook"); err != nil {
				return err
			}
			if opts.Repo != "" && opts.Cwd != "" {
				return usagef("--repo and --cwd both name the repository; give one")
			}
			// The settings' defaults, where no flag says otherwise.
			cfg, err := loadConfig(opts.Env)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("budget") && cfg.Boot.Budget > 0 {
				opts.Budget = cfg.Boot.Budget
			}
			if !cmd.Flags().Changed("min-confidence") && cfg.Boot.MinConfidence > 0 {
				opts.MinConfidence = cfg.Boot.MinConfidence
			}
			if opts.Budget < 0 {
				return usagef("--budget must be positive")
			}
			if opts.HoldoutSet, err = holdoutShare(cmd, opts.Env, &opts.Holdout); err != nil {
				return err
			}
			if opts.MinConfidence < 0 || opts.MinConfidence > 1 {
				return usagef("--min-confidence must be between 0 and 1")
			}
			if _, err := tokens.Loader(opts.Tokenizer); err != nil {
				return usageError{err}
			}
			if err := checkAgent(&opts.Agent); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Format == "claude-hook" {
				return bootHook(cmd.Context(), opts)
			}
			return bootRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", "", "the repository: "+repoScopeFlag)
	f.StringVar(&opts.Cwd, "cwd", "", "infer the repository from this folder, as sessions do")
	f.StringVar(&opts.Agent, "agent", "", "the agent the session runs ("+strings.Join(lore.Agents, ", ")+")")
	f.StringVar(&opts.Task, "task", "", "what the session is about to do, in your words")
	f.IntVar(&opts.Budget, "budget", boot.DefaultBudget, "most tokens the context may take")
	f.StringVar(&opts.Tokenizer, "tokenizer", "o200k", "how tokens are counted: o200k or cl100k")
	f.Float64Var(&opts.MinConfidence, "min-confidence", boot.DefaultMinConfidence, "leave out notes less confident than this")
	f.StringVar(&opts.Format, "format", "md", "md, json or claude-hook")
	f.BoolVar(&opts.JSON, "json", false, "same as --format json")
	f.StringVar(&opts.Session, "session", "", "the id of the session being started, for the boot record")
	f.Float64Var(&opts.Holdout, "holdout", 0, "withhold the notes from this share of sessions, for lore measure to compare (0.1: one in ten; default $"+holdoutEnv+" or 0)")
	opts.storeOptions.addFlag(cmd)
	return cmd
}

// build opens the store, builds the context and records the boot. With no
// store yet the context says lore has no notes.
func (opts *bootOptions) build(ctx context.Context) (boot.Context, error) {
	if opts.Repo == "" && opts.Cwd == "" && opts.Format != "claude-hook" && opts.Env.Cwd != "" &&
		transcript.CheckoutRoot(opts.Env.Cwd) != "" {
		opts.Cwd = opts.Env.Cwd // run in a checkout: its repository, as lore journal takes it
	}
	if opts.Cwd != "" {
		dir := opts.Cwd
		if !filepath.IsAbs(dir) && opts.Env.Cwd != "" {
			dir = filepath.Join(opts.Env.Cwd, dir)
		}
		opts.Repo = transcript.RepoOfDir(dir)
		// A checkout of the repository: its location facts are checked
		// against the working tree.
		opts.Dir, opts.Options.Cwd = transcript.CheckoutRoot(dir), dir
	}
	if opts.MinConfidence == 0 {
		opts.MinConfidence = -1 // asked for 0: keep everything
	}
	p, err := opts.storePath(opts.Env)
	if err != nil {
		return boot.Context{}, err
	}
	if missing(p) {
		return boot.Empty(opts.Options) // nothing learned yet
	}
	st, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return boot.Context{}, err
	}
	defer st.Close()
	c, err := boot.Build(ctx, st, opts.Options)
	if err != nil {
		return boot.Context{}, err
	}
	ids := make([]string, len(c.Items))
	for i, p := range c.Items {
		ids[i] = p.ID
	}
	withheld := boot.HeldOut(opts.Session, opts.Holdout)
	recordBoot(ctx, st, lore.Boot{Session: opts.Session, Repo: opts.Repo, Agent: opts.Agent, Task: opts.Task,
		Items: ids, Tokens: c.Tokens, Withheld: withheld}, opts.IO.ErrOut, "lore boot: note: this boot")
	if withheld {
		// Held out: the session starts as it would without lore.
		return boot.Context{Budget: c.Budget, Items: []boot.Picked{}, Withheld: true}, nil
	}
	return c, nil
}

func bootRun(ctx context.Context, opts *bootOptions) error {
	if opts.Session != "" && !strings.Contains(opts.Session, ":") && opts.Agent != "" {
		opts.Session = opts.Agent + ":" + opts.Session
	}
	c, err := opts.build(ctx)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return writeJSON(opts.IO.Out, c)
	}
	if c.Withheld {
		fmt.Fprintf(opts.IO.ErrOut, "note: this session is held out (--holdout %g): its notes are recorded, not handed over\n", opts.Holdout)
		return nil
	}
	if c.Text == "" {
		// Nothing fits: say so where a person reads it, and print nothing
		// that an agent would take for a context.
		fmt.Fprintf(opts.IO.ErrOut, "note: no context fits in %d tokens (its header and one note at the least): raise --budget\n", c.Budget)
		return nil
	}
	_, err = io.WriteString(opts.IO.Out, c.Text)
	return err
}

// bootHook answers Claude Code's SessionStart hook. It fails open: an
// error, or running out of time, gives an empty context and exit 0.
func bootHook(ctx context.Context, opts *bootOptions) error {
	var text string
	defer func() { claudehook.WriteSessionStart(opts.IO.Out, text) }()
	if opts.Env.Getenv != nil && opts.Env.Getenv(noHooksEnv) != "" {
		return nil // a session lore started itself
	}
	c, err := withinDeadline(ctx, hookDeadline-200*time.Millisecond, func(ctx context.Context) (boot.Context, error) {
		in, err := readHookInput(ctx, opts.IO)
		if err != nil {
			return boot.Context{}, fmt.Errorf("reading the hook's input: %w", err)
		}
		if in.Cwd != "" && opts.Repo == "" && opts.Cwd == "" {
			opts.Cwd = in.Cwd
		}
		if opts.Agent == "" {
			opts.Agent = lore.AgentClaudeCode
		}
		if in.SessionID != "" && opts.Session == "" {
			opts.Session = lore.AgentClaudeCode + ":" + in.SessionID
		}
		return opts.build(ctx)
	})
	switch {
	case errors.Is(err, errNoTime):
		fmt.Fprintf(opts.IO.ErrOut, "lore boot: no context within %s (the session starts without notes)\n", hookDeadline)
	case err != nil:
		fmt.Fprintf(opts.IO.ErrOut, "lore boot: %v (the session starts without notes)\n", err)
	default:
		text = c.Text
	}
	return nil
}

// errNoTime is withinDeadline's error when fn did not finish in time.
var errNoTime = errors.New("out of time")

// withinDeadline runs fn with a context that ends after d, and returns
// what it returns, or errNoTime as soon as d has passed, whether or not fn
// watches its context (a read stuck on a file system does not); a panic
// in fn is an error. A hook answers this way: late or broken, it still
// answers.
func withinDeadline[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		v, err := fn(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, errNoTime
	}
}

// holdoutShare sets share, the part of sessions held out, from LORE_HOLDOUT
// (else the settings' boot.holdout) when cmd's --holdout was not given,
// and checks it; set says --holdout was given.
func holdoutShare(cmd *cobra.Command, env transcript.Env, share *float64) (set bool, err error) {
	if set = cmd.Flags().Changed("holdout"); !set {
		// The settings' boot.holdout, unless LORE_HOLDOUT says otherwise.
		c, err := loadConfig(env)
		if err != nil {
			return set, err
		}
		*share = c.Boot.Holdout
	}
	if !set && env.Getenv != nil {
		if v := env.Getenv(holdoutEnv); v != "" {
			if *share, err = strconv.ParseFloat(v, 64); err != nil {
				return set, usagef("%s=%q is not a share between 0 and 1 (0.1 holds one session in ten out)", holdoutEnv, v)
			}
		}
	}
	if *share < 0 || *share > 1 || math.IsNaN(*share) {
		return set, usagef("--holdout must be between 0 and 1 (0.1 holds one session in ten out)")
	}
	return set, nil
}

// isBootHook reports whether args run lore boot as a Claude Code hook
// (--format claude-hook), whatever else they hold.
func isBootHook(args []string) bool {
	if len(args) == 0 || args[0] != "boot" {
		return false
	}
	for i, a := range args[1:] {
		switch {
		case a == "--":
			return false
		case a == "--format=claude-hook":
			return true
		case a == "--format" && i+2 < len(args) && args[i+2] == "claude-hook":
			return true
		}
	}
	return false
}

// failOpenHook ends a hook run whose flags or arguments are wrong as a hook
// must end: with an empty context and exit 0, since a hook must never break
// the session it starts, and the error on standard error.
func failOpenHook(ios *iostreams.IOStreams, err error) int {
	fmt.Fprintf(ios.ErrOut, "lore boot: %v (the session starts without notes)\n", err)
	claudehook.WriteSessionStart(ios.Out, "")
	return exitOK
}
