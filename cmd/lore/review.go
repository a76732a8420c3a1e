package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type reviewOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	itemFlags
	Filter lore.Filter
	All    bool
}

func newReviewCmd(fac *factory, runF func(context.Context, *reviewOptions) error) *cobra.Command {
	opts := &reviewOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Go through the candidates lore learned, one at a time",
		Long: `Go through the candidates lore learned, one at a time: what one session taught,
which lore does not hand out until a second session confirms it. For each, lore
shows its text, scope, confidence, the sessions it came from and its history,
and asks what to do:

  k  keep     leave it as it is, to lore's rules; not asked about again
  p  promote  make it active: you vouch for it (as lore promote ID)
  r  retire   take it back (as lore forget ID)
  e  edit     reword it (as lore edit ID --text …); then decide again
  s  skip     decide later; asked about again next time
  q  quit

The most confirmed candidates come first. Candidates lore keeps only for search,
since the repository's instructions file gives them or the next session would be
told on the spot (tagged documented or self-evident), are asked about only with
--all. Every decision is recorded on the item
(lore show ID lists them), and no harvest undoes one: a promoted, retired or
edited item keeps the status you left it in.

lore review needs a terminal (elsewhere it exits 2). In a script or an agent, list the
candidates with lore list --status candidate --json and decide with lore
promote ID, lore forget ID and lore edit ID --text TEXT.

` + repoFilterHelp + `

` + storeHelp,
		Example: `  lore review
  lore review --repo acme/api --category pitfall`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("lore review takes no arguments; to decide about one item: lore promote %s, lore forget %s or lore edit %s --text …", args[0], args[0], args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.filter(&opts.Filter); err != nil {
				return err
			}
			opts.Filter.Statuses = []lore.Status{lore.StatusCandidate}
			if !opts.IO.IsStdinTTY() || !opts.IO.IsStdoutTTY() {
				return usagef("lore review asks at a terminal, and this is none; instead: lore list --status candidate, " +
					"then lore promote ID, lore forget ID or lore edit ID --text TEXT")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return reviewRun(cmd.Context(), opts)
		},
	}
	opts.addFlags(cmd, "candidates")
	cmd.Flags().BoolVar(&opts.All, "all", false, "ask about the candidates tagged documented or self-evident too")
	opts.addFlag(cmd)
	return cmd
}

func reviewRun(ctx context.Context, opts *reviewOptions) error {
	s, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return err
	}
	defer s.Close()
	items, err := listItems(ctx, s, opts.Filter)
	if err != nil {
		return err
	}
	known := 0
	items = slices.DeleteFunc(items, func(it lore.Item) bool {
		if !opts.All && lore.Known(it) && !it.Kept() {
			known++
			return true
		}
		return it.Kept()
	})
	// The most confirmed first: they are the nearest to being handed out.
	slices.SortStableFunc(items, func(a, b lore.Item) int {
		return cmp.Or(cmp.Compare(b.SourceCount, a.SourceCount), cmp.Compare(b.Confidence, a.Confidence),
			b.FirstSeen.Compare(a.FirstSeen), cmp.Compare(a.ID, b.ID))
	})
	if known > 0 {
		fmt.Fprintf(opts.IO.Out, "%d candidate(s) lore keeps only for search (documented or self-evident) are left out; --all asks about them too.\n", known)
	}
	if len(items) == 0 {
		fmt.Fprintln(opts.IO.Out, "No candidates to review.")
		return nil
	}
	r := &reviewSession{store: s, in: bufio.NewReader(opts.IO.In), out: opts.IO.Out, by: reviewer(opts.Env, "lore review")}
	err = r.run(ctx, items)
	fmt.Fprintln(opts.IO.Out, r.summary(len(items)))
	return err
}

// reviewSession asks a person about candidates, one at a time, and
// records their decisions.
type reviewSession struct {
	store lore.Store
	in    *bufio.Reader
	out   io.Writer
	by    string
	done  map[lore.ReviewAction]int
	skips int
}

const reviewPrompt = "[k]eep  [p]romote  [r]etire  [e]dit  [s]kip  [q]uit > "

// run asks about each item until they are all decided or the person
// quits (q, or the end of the input).
func (r *reviewSession) run(ctx context.Context, items []lore.Item) error {
	r.done = map[lore.ReviewAction]int{}
	for i := 0; i < len(items); {
		fmt.Fprintf(r.out, "\n── %d of %d ──\n", i+1, len(items))
		if err := printItem(ctx, r.out, r.store, items[i]); err != nil {
			return err
		}
		next, quit, err := r.ask(ctx, &items[i])
		if err != nil || quit {
			return err
		}
		if next {
			i++
		}
	}
	return nil
}

// ask asks what to do with it until the person says, and does it. It
// reports whether to go on to the next item (false: show it again, as
// after an edit) and whether to stop.
func (r *reviewSession) ask(ctx context.Context, it *lore.Item) (next, quit bool, err error) {
	for {
		fmt.Fprint(r.out, "\n"+reviewPrompt)
		line, eof := r.line()
		d := lore.Decision{By: r.by}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "k", "keep":
			d.Action = lore.ReviewKeep
		case "p", "promote":
			d.Action = lore.ReviewPromote
		case "r", "retire":
			d.Action = lore.ReviewRetire
		case "e", "edit":
			edited, err := r.edit(ctx, *it)
			if err != nil || edited == nil {
				return false, err != nil || eof, err
			}
			*it = *edited
			r.done[lore.ReviewEdit]++
			return false, false, nil
		case "s", "skip":
			r.skips++
			return true, false, nil
		case "q", "quit":
			return false, true, nil
		default:
			if eof {
				return false, true, nil
			}
			fmt.Fprintln(r.out, "k keeps it as it is, p makes it active, r retires it, e rewords it, s leaves it for later, q stops")
			continue
		}
		got, err := r.store.Review(ctx, it.ID, d)
		if err != nil {
			return false, true, storeError(err)
		}
		r.done[d.Action]++
		fmt.Fprintf(r.out, "%s: %s, confidence %.2f\n", pastTense(d.Action), got.Status, got.Confidence)
		return true, false, nil
	}
}

// edit asks for an item's new text and records the edit; it returns the
// edited item, or nil when the person gave no text or lore refused it.
func (r *reviewSession) edit(ctx context.Context, it lore.Item) (*lore.Item, error) {
	fmt.Fprint(r.out, "new text (empty to keep the old one) > ")
	line, _ := r.line()
	text := strings.TrimSpace(line)
	if text == "" {
		fmt.Fprintln(r.out, "not edited")
		return nil, nil
	}
	d, err := lore.EditDecision(text, false, r.by)
	if err != nil {
		fmt.Fprintf(r.out, "%v; lore edit %s --text … --as-is takes it as written\n", err, it.ID)
		return nil, nil
	}
	got, err := r.store.Review(ctx, it.ID, d)
	if lore.ErrorCode(err) == lore.EINVALID {
		fmt.Fprintf(r.out, "not edited: %v\n", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(r.out, "edited; now decide about the new text")
	if d.Hold {
		fmt.Fprintln(r.out, heldNote)
	}
	return &got, nil
}

// line reads a line of input, and reports the end of the input.
func (r *reviewSession) line() (string, bool) {
	s, err := r.in.ReadString('\n')
	return strings.TrimRight(s, "\r\n"), errors.Is(err, io.EOF) || err != nil
}

// summary says what the person decided.
func (r *reviewSession) summary(n int) string {
	decided := r.done[lore.ReviewKeep] + r.done[lore.ReviewPromote] + r.done[lore.ReviewRetire]
	return fmt.Sprintf("\nDecided %d of %d candidate(s): %d kept, %d promoted, %d retired, %d edited, %d skipped.",
		decided, n, r.done[lore.ReviewKeep], r.done[lore.ReviewPromote], r.done[lore.ReviewRetire], r.done[lore.ReviewEdit], r.skips)
}

// pastTense names a decision done.
func pastTense(a lore.ReviewAction) string {
	switch a {
	case lore.ReviewKeep:
		return "kept"
	case lore.ReviewPromote:
		return "promoted"
	case lore.ReviewRetire:
		return "retired"
	}
	return "edited"
}
