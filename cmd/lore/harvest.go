package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/llm"
	"github.com/lorehq/lore/sample"
	"github.com/lorehq/lore/transcript"
)

type harvestOptions struct {
	IO    *iostreams.IOStreams
	Env   transcript.Env
	Paths []string
	storeOptions
	filterOptions
	LLM           string
	Model         string
	ContextTokens int
	Top           int
	Workers       int
	DryRun        bool
	Rebuild       bool
	JSON          bool
	FromHook      bool
	// LogSession, set by the harvest a hook starts, opens every line it
	// writes with the time and this session, for hook-harvest.log.
	LogSession string
	Now        time.Time // zero: the current time
	// SelfCommand runs lore again: --from-hook's harvest, detached.
	SelfCommand func(args ...string) (*exec.Cmd, error)
}

func newHarvestCmd(fac *factory, runF func(context.Context, *harvestOptions) error) *cobra.Command {
	opts := &harvestOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions(), SelfCommand: fac.SelfCommand}
	cmd := &cobra.Command{
		Use:   "harvest [PATH...]",
		Short: "Turn sessions into knowledge items",
		Long: `Read sessions and store what they teach: pitfalls (a failure and what fixed it),
tool quirks, facts (build and test commands that work, where things are, versions),
patterns, the user's corrections and preferences, and the agent's own findings (kept
as candidates). With no PATH, the agents' default locations are read.

By default the rules extractor runs: offline, no model, only what a transcript
shows for certain. --llm asks a model instead:
  openai:BASE_URL     any OpenAI-compatible server (Ollama http://localhost:11434/v1,
                      vLLM, llama.cpp's server, https://api.openai.com/v1); --model required;
                      key from OPENAI_API_KEY when the server needs one
  anthropic           the Anthropic API (anthropic:BASE_URL for another host); key from
                      ANTHROPIC_API_KEY
  A key goes over plain http only to this machine: LORE_LLM_ALLOW_HTTP=1 allows another host.
  exec:COMMAND        a command that reads the prompt on stdin and prints the answer,
                      such as exec:'claude -p'

As Claude Code's SessionEnd hook (lore hooks install claude), --from-hook reads the
hook's JSON on standard input and harvests its transcript_path in a detached process,
so the agent exits at once; it always exits 0.

Secrets are redacted before anything is stored or sent to a model, and items that
read as instructions to an agent are refused. A session whose transcript has not
changed since it was last harvested (same path, size and content) is skipped, so
running harvest again adds nothing; a session that grew is read again, and
confirms its own items only once.

--rebuild harvests the sessions again with lore's rules as they are now, in place
of what earlier rules took from them (after an upgrade): each session's evidence is
taken back first, so an item only earlier rules made is deleted, while one a person
added or vouched for stays. It leaves alone a session another extractor (--llm)
harvested too, one a person forgot (lore forget --session), and one whose transcript
is gone; --repo, --agent, --since and --top choose the sessions as they do for a run.

--json prints one object: sessions_seen, sessions_harvested, sessions_skipped,
items_new, items_merged, items_superseded, items_refused, items_held, items_dropped,
redactions, llm_calls, llm_tokens_in, llm_tokens_out, llm_failures,
llm_tokens_per_item, errors, seconds, bytes, problems; with --rebuild, rebuild
(sessions, other_extractor, forgotten, evidence_removed, items_deleted, items_updated).

A transcript or session that cannot be read is an error: a line on stderr, and
counted, and the run goes on. A key the model's API refuses (401, 403) ends the
run with exit 1.

` + storeHelp,
		Example: `  lore harvest
  lore harvest ~/.claude/projects --since 2026-01-01
  lore harvest --top 50 --dry-run
  lore harvest --rebuild
  lore harvest --llm openai:http://localhost:11434/v1 --model llama3.1 --workers 2`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.check(); err != nil {
				return err
			}
			if opts.FromHook {
				if len(args) > 0 {
					return usagef("--from-hook reads the transcript's path from the hook's input; give no PATH")
				}
				return harvestFromHook(cmd.Context(), opts)
			}
			if opts.Top < 0 {
				return usagef("--top must not be negative")
			}
			if opts.Workers < 0 {
				return usagef("--workers must not be negative")
			}
			if opts.ContextTokens < harvest.MinContextTokens {
				return usagef("--context-tokens must be at least %d", harvest.MinContextTokens)
			}
			if opts.Rebuild && (opts.DryRun || opts.FromHook) {
				return usagef("--rebuild changes the store: it goes with neither --dry-run nor --from-hook")
			}
			// Not before --from-hook: the harvest it starts reads them, and
			// says what is wrong in its log, while the hook fails open.
			if err := opts.useConfig(opts.Env); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return harvestRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.LLM, "llm", "", "extract with a model: openai:BASE_URL, anthropic[:BASE_URL] or exec:COMMAND")
	f.StringVar(&opts.Model, "model", "", "the model for --llm (required for openai)")
	f.IntVar(&opts.ContextTokens, "context-tokens", harvest.DefaultContextTokens, "the model's context window, in tokens; long sessions are cut into chunks that fit")
	f.IntVar(&opts.Top, "top", 0, "harvest only the N sessions most worth it (see lore sample)")
	f.IntVar(&opts.Workers, "workers", 0, "sessions harvested at once (default: one per CPU for rules, 1 for --llm)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "show what would be stored, store nothing")
	f.BoolVar(&opts.Rebuild, "rebuild", false, "take back what these sessions taught this extractor before, and harvest them again (after an upgrade of lore's rules)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object")
	f.BoolVar(&opts.FromHook, "from-hook", false, "read Claude Code's SessionEnd hook input and harvest its transcript in the background")
	f.StringVar(&opts.LogSession, "log-session", "", "open every line written with the time and this session (the hook's harvest does)")
	f.MarkHidden("log-session")
	opts.filterOptions.addFlags(cmd)
	opts.storeOptions.addFlag(cmd)
	return cmd
}

func harvestRun(ctx context.Context, opts *harvestOptions) error {
	ex, err := opts.extractor()
	if err != nil {
		return err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	// What harvest prints names the transcripts it read and quotes their
	// errors, and a path can hold a token: it goes out redacted, to a
	// terminal as to the hook's log (lore harvest --from-hook).
	errOut, out := io.Writer(redactingWriter{opts.IO.ErrOut}), io.Writer(redactingWriter{opts.IO.Out})
	if opts.LogSession != "" {
		// For hook-harvest.log: every line says when, and for which session.
		errOut = &stampWriter{w: errOut, session: secrets.String(opts.LogSession)}
		out = &stampWriter{w: out, session: secrets.String(opts.LogSession)}
	}
	if err := opts.local(opts.Env, "lore harvest works on a store on this machine", "use lore push, and the server harvests what it is sent"); err != nil {
		return err
	}
	if err := pathsThere(errOut, opts.Paths); err != nil {
		return err // before the store is opened: a typo creates no store
	}
	st, err := opts.openForHarvest(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	// Transcripts harvested already and unchanged since are not read,
	// unless a selection among all sessions needs what they hold.
	listing, pool, err := listForRun(ctx, opts.IO, errOut, opts.Env, opts.Paths, &opts.filterOptions, harvest.ListOptions{Store: st,
		Extractor: ex.Name(), DryRun: opts.DryRun, Every: opts.Rebuild || opts.Top > 0})
	if err != nil {
		return err
	}
	if opts.Top > 0 {
		picked := sample.Select(sample.Score(pool, now), sample.Selection{Count: opts.Top})
		pool = pool[:0]
		for _, p := range picked {
			pool = append(pool, p.Session)
		}
	}

	// A rebuild takes back what the sessions to be harvested taught, and
	// no others: --repo, --agent, --since and --top choose them.
	var rebuilt *harvest.Rebuilt
	if opts.Rebuild {
		rb, err := listing.Rebuild(ctx, st, pool)
		if err != nil {
			return fmt.Errorf("rebuild: %w", err)
		}
		rebuilt = &rb
		if !opts.JSON {
			fmt.Fprintf(errOut, "rebuild: took back what %d sessions taught (%d items deleted, %d recomputed); left alone %d harvested by another extractor too and %d a person forgot\n",
				rb.Sessions, rb.Deleted, rb.Updated, rb.Other, rb.Forgotten)
		}
	}
	bar := newHarvestProgress(opts.IO, len(pool))
	// A dry run stores into the copy openForHarvest made: what it counts
	// is what a real run would do.
	hopts := harvest.Options{Store: st, Extractor: ex, Workers: opts.Workers, Progress: bar.update, Listing: listing}
	if opts.DryRun && !opts.JSON {
		hopts.Found = func(s *lore.Session, items []lore.Item) {
			for _, it := range items {
				scope := it.Repo
				if scope == "" {
					scope = "global"
				}
				fmt.Fprintf(out, "%s\t%s\t%.1f\t%s\t%s\n", s.ID, it.Category, it.Confidence, scope, it.Text)
			}
		}
	}
	sum, err := harvest.Run(ctx, pool, hopts)
	bar.stop()
	for _, p := range sum.Problems {
		fmt.Fprintf(errOut, "%s (%s): %s\n", p.Session, p.Path, p.Error)
	}
	if err != nil {
		return err
	}
	// A transcript the listing could not read is an error of this run
	// too; its line on stderr is printed above.
	var unreadable []harvest.Problem
	for _, p := range listing.Problems {
		unreadable = append(unreadable, harvest.Problem{Path: p.Path, Error: p.Err.Error()})
	}
	sum.Errors += len(unreadable)
	sum.Problems = append(unreadable, sum.Problems...)
	sum.Rebuild = rebuilt
	if opts.JSON {
		return writeJSON(out, sum)
	}
	writeHarvestSummary(errOut, sum, opts.DryRun)
	if !opts.DryRun {
		if p, err := opts.storePath(opts.Env); err == nil {
			fmt.Fprintf(errOut, "the store: %s\n%s\n", storeName(p), harvestNext(sum))
		}
	}
	return nil
}

// listForRun lists the sessions a run of an extractor reads (harvest's,
// journal import's) under the paths given, else the agents' default
// locations (harvest.List, with progress on a terminal; every transcript
// is read when the filter selects among sessions), says on errOut what
// could not be read, and returns the listing with the sessions the
// filter keeps. No session at all under the paths given is an error.
func listForRun(ctx context.Context, ios *iostreams.IOStreams, errOut io.Writer, env transcript.Env, given []string,
	filter *filterOptions, lo harvest.ListOptions) (*harvest.Listing, []*lore.Session, error) {
	paths, roots := searchPaths(env, given)
	read := newByteProgress(ios, "reading transcripts")
	lo.Defaults, lo.Progress = len(given) == 0, read.update
	lo.Every = lo.Every || filter.Agent != "" || filter.Repo != "" || filter.Since != ""
	listing, err := harvest.List(ctx, paths, lo)
	read.stop()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range listing.Problems {
		fmt.Fprintln(errOut, p.String())
	}
	if len(listing.Sessions) == 0 {
		if len(given) > 0 {
			return nil, nil, fmt.Errorf("no session could be read in %v", given)
		}
		explainEmpty(errOut, &scanned{roots: roots})
	}
	var pool []*lore.Session
	for _, s := range listing.Sessions {
		if filter.keep(s) {
			pool = append(pool, s)
		}
	}
	return listing, pool, nil
}

// harvestNext is the step to take after a harvest.
func harvestNext(s harvest.Summary) string {
	switch {
	case s.ItemsNew+s.ItemsMerged == 0:
		return "next: nothing new was learned; lore sessions lists what lore finds, lore list what it knows"
	case s.ItemsHeld > 0 || s.ItemsNew > 0:
		return "next: lore list shows what was learned, lore review goes through the candidates, lore boot --cwd . shows what a session here starts with"
	}
	return "next: lore boot --cwd . shows what a session here starts with"
}

// pathsThere fails, naming each on w, when no path of paths is there;
// with one there, the listing reports the others.
func pathsThere(w io.Writer, paths []string) error {
	var errs []error
	for _, p := range paths {
		_, err := os.Stat(p)
		if err == nil {
			return nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		errs = append(errs, fmt.Errorf("%s: %w", p, err))
	}
	if len(errs) == 0 {
		return nil
	}
	for _, err := range errs {
		fmt.Fprintln(w, err)
	}
	return fmt.Errorf("no session could be read in %v", paths)
}

// openForHarvest opens the store. A dry run never changes or creates one:
// it harvests into a copy of the store (an empty one with no store yet)
// that is thrown away, so that what it counts, merges included, is what a
// real run would store.
func (opts *harvestOptions) openForHarvest(ctx context.Context) (lore.Store, error) {
	if !opts.DryRun {
		return opts.open(ctx, opts.Env, false)
	}
	p, err := opts.storePath(opts.Env)
	if err != nil {
		return nil, err
	}
	if missing(p) {
		return opts.tempStore(ctx, "lore-dry-run-")
	}
	// VACUUM INTO needs a connection that may write (it writes the
	// copy); the store itself is only read.
	st, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	c, ok := st.(interface {
		CopyTo(ctx context.Context, path string) error
	})
	if !ok {
		return opts.tempStore(ctx, "lore-dry-run-") // a store that cannot be copied: counted against none
	}
	dir, err := os.MkdirTemp("", "lore-dry-run-")
	if err != nil {
		return nil, err
	}
	copied := filepath.Join(dir, "lore.db")
	if err := c.CopyTo(ctx, copied); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cp, err := opts.openStore(ctx, copied, false)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return removeOnClose{cp, dir}, nil
}

// openOrEmpty opens the store; when readOnly and there is no store yet,
// it opens an empty one that is thrown away, rather than creating one.
func (o *storeOptions) openOrEmpty(ctx context.Context, env transcript.Env, readOnly bool) (lore.Store, error) {
	p, err := o.storePath(env)
	if err != nil {
		return nil, err
	}
	if readOnly && missing(p) {
		return o.tempStore(ctx, "lore-dry-run-")
	}
	return o.open(ctx, env, false)
}

// extractor returns the extractor the flags ask for.
func (opts *harvestOptions) extractor() (harvest.Extractor, error) {
	if opts.LLM == "" {
		if opts.Model != "" {
			return nil, usagef("--model needs --llm")
		}
		return harvest.Rules{}, nil
	}
	return newLLMExtractor(opts)
}

func writeHarvestSummary(w io.Writer, s harvest.Summary, dry bool) {
	verb := "stored"
	if dry {
		verb = "found (dry run, nothing stored)"
	}
	fmt.Fprintf(w, "%d sessions: %d harvested, %d unchanged or lore's own; %d errors (sessions or transcripts that could not be read or harvested)\n",
		s.SessionsSeen, s.SessionsHarvested, s.SessionsSkipped, s.Errors)
	fmt.Fprintf(w, "items %s: %d new, %d merged, %d superseded; %d refused as instructions, %d held as candidates; %d secrets redacted\n",
		verb, s.ItemsNew, s.ItemsMerged, s.ItemsSuperseded, s.ItemsRefused, s.ItemsHeld, s.Redactions)
	if s.LLMCalls > 0 {
		fmt.Fprintf(w, "model: %d calls, %d tokens in, %d out (%.0f per item kept), %d unusable answers, %d incomplete items dropped\n",
			s.LLMCalls, s.LLMTokensIn, s.LLMTokensOut, s.LLMTokensPerItem, s.LLMFailures, s.ItemsDropped)
	}
	if len(s.LLMUnanswered) > 0 {
		fmt.Fprintf(w, "no usable answer at all for %s: not recorded, asked again next run\n", strings.Join(s.LLMUnanswered, ", "))
	}
	fmt.Fprintf(w, "%.1f s, %s of transcripts read\n", s.Seconds, humanBytes(s.Bytes))
}

// harvestProgress draws sessions done, items and time left on a terminal.
type harvestProgress struct {
	p             *mpb.Progress
	bar           *mpb.Bar
	items, merged atomic.Int64
}

func newHarvestProgress(io *iostreams.IOStreams, total int) *harvestProgress {
	if !io.IsStderrTTY() || total == 0 {
		return &harvestProgress{}
	}
	h := &harvestProgress{p: mpb.New(mpb.WithOutput(io.ErrOut), mpb.WithWidth(30))}
	h.bar = h.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name("harvesting "), decor.CountersNoUnit("%d / %d sessions")),
		mpb.AppendDecorators(
			decor.Any(func(decor.Statistics) string {
				return fmt.Sprintf("  %d new, %d merged", h.items.Load(), h.merged.Load())
			}),
			decor.Name("  "), decor.AverageETA(decor.ET_STYLE_GO),
		),
		mpb.BarRemoveOnComplete(),
	)
	return h
}

// update is called one at a time, from several goroutines.
func (h *harvestProgress) update(s harvest.Summary) {
	if h.bar == nil {
		return
	}
	h.items.Store(int64(s.ItemsNew))
	h.merged.Store(int64(s.ItemsMerged))
	h.bar.SetCurrent(int64(s.SessionsHarvested + s.SessionsSkipped + s.Errors))
}

func (h *harvestProgress) stop() {
	if h.bar != nil {
		h.bar.Abort(true)
		h.p.Wait()
	}
}

// newLLMExtractor builds the LLM extractor --llm names. A bad spec, a
// missing model or key is a usage error.
func newLLMExtractor(opts *harvestOptions) (harvest.Extractor, error) {
	c, err := llm.New(opts.LLM, llm.Options{Model: opts.Model, Env: []string{"LORE_HARVEST=1"}})
	if err != nil {
		return nil, usageError{err}
	}
	x, err := harvest.NewLLM(c, harvest.LLMOptions{ContextTokens: opts.ContextTokens})
	if err != nil {
		return nil, usageError{err}
	}
	if opts.Workers == 0 {
		opts.Workers = 1 // one model call at a time unless asked
	}
	return x, nil
}

// stampWriter opens every line written through it with the time and a
// session: "2026-11-28T17:55:02Z claude-code:5c03…: …".
type stampWriter struct {
	w       io.Writer
	session string
	mid     bool // in the middle of a line
}

func (s *stampWriter) Write(p []byte) (int, error) {
	n := len(p)
	var b []byte
	for len(p) > 0 {
		if !s.mid {
			b = append(b, time.Now().UTC().Format(time.RFC3339)+" "+s.session+": "...)
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b, p, s.mid = append(b, p...), nil, true
			break
		}
		b, p, s.mid = append(b, p[:i+1]...), p[i+1:], false
	}
	if _, err := s.w.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}
