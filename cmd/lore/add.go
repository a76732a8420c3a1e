package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type addOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Item       lore.Item
	Category   string
	Status     string
	Session    string
	Position   int
	Expires    string
	Supersedes string
	AsIs       bool
	JSON       bool
	Now        time.Time // zero: the current time
}

func newAddCmd(fac *factory, runF func(context.Context, *addOptions) error) *cobra.Command {
	opts := &addOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "add TEXT --category C",
		Short: "Add one knowledge item by hand",
		Long: `Add one knowledge item: a sentence a future session can act on. An item with the
same text (ignoring case, quoting and white space), category, repo and agent, or
a near-duplicate of one, is merged into it instead of stored twice.

Categories: fact, pitfall, pattern, tool-quirk, question. Without --repo and
--agent the item is global. Secrets in the text are redacted before it is stored.

The text passes the screen harvest applies, since it may be pasted from anywhere
and is handed to agents: text that reads as an instruction aimed at an agent
("ignore previous instructions", however spelled) is refused (exit 1), and an
order that names nothing of a project or asks for harm ("always push with
--force to main") is stored as a held candidate, never handed out until a person
makes it active. --as-is adds your own text as it is.

Prints the item's id; with --json, the stored item.

` + storeHelp,
		Example: `  lore add "Pushing to main returns HTTP 405: open a pull request" --category pitfall --repo acme/api
  lore add "apply_patch needs exact context lines" --category tool-quirk --agent codex --confidence 0.9
  lore add "CI runners are being migrated" --category fact --expires 14d --tag ci`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(`lore add needs the item's text: lore add "…" --category fact`)
			}
			return exactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Item.Text = args[0]
			if strings.TrimSpace(opts.Item.Text) == "" {
				return usagef("the item's text is empty")
			}
			if !cmd.Flags().Changed("category") {
				return usagef("--category is required (fact, pitfall, pattern, tool-quirk or question)")
			}
			if err := opts.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return addRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Category, "category", "c", "", "fact, pitfall, pattern, tool-quirk or question (required)")
	f.StringVar(&opts.Item.Repo, "repo", "", "scope the item to a repository (owner/name)")
	f.StringVar(&opts.Item.Agent, "agent", "", "scope the item to an agent ("+strings.Join(lore.Agents, ", ")+")")
	f.Float64Var(&opts.Item.Confidence, "confidence", lore.DefaultConfidence, "how sure this is, 0..1")
	f.StringArrayVarP(&opts.Item.Tags, "tag", "t", nil, "a free tag; repeat for more")
	f.StringVar(&opts.Status, "status", "active", "active or candidate")
	f.StringVar(&opts.Session, "session", "", "the session this was learned in, as evidence (agent:id)")
	f.IntVar(&opts.Position, "position", 0, "the message position in --session")
	f.StringVar(&opts.Item.Signature, "signature", "", "the error signature a pitfall or tool quirk is about")
	f.StringVar(&opts.Expires, "expires", "", "when the item stops being handed out: a date (YYYY-MM-DD) or a time from now (90d, 12h)")
	f.StringVar(&opts.Supersedes, "supersedes", "", "the id of an item this one replaces; it becomes superseded")
	f.BoolVar(&opts.AsIs, "as-is", false, "add the text as written: not refused as an instruction, not held as an order")
	f.BoolVar(&opts.JSON, "json", false, "print the stored item as JSON")
	opts.addFlag(cmd)
	return cmd
}

// parse checks the flags and fills opts.Item.
func (o *addOptions) parse() error {
	c, err := lore.ParseCategory(o.Category)
	if err != nil {
		return usageError{err}
	}
	o.Item.Category = c
	st, err := lore.ParseStatus(o.Status)
	if err != nil {
		return usageError{err}
	}
	if st != lore.StatusActive && st != lore.StatusCandidate {
		return usagef("--status %s: a new item is active or candidate", st)
	}
	o.Item.Status = st
	if c := o.Item.Confidence; c < 0 || c > 1 || c != c {
		return usagef("--confidence %v: want a number from 0 to 1", c)
	}
	if err := checkAgent(&o.Item.Agent); err != nil {
		return err
	}
	if strings.ContainsAny(o.Item.Repo, " \t\n") {
		return usagef("--repo %q: want owner/name", o.Item.Repo)
	}
	if o.Session != "" {
		if o.Position < 0 {
			return usagef("--position %d: want 0 or more", o.Position)
		}
		o.Item.Evidence = []lore.Evidence{{Session: o.Session, Position: o.Position}}
	} else if o.Position != 0 {
		return usagef("--position needs --session")
	}
	if o.Supersedes != "" && !lore.ValidIDPrefix(strings.ToLower(o.Supersedes)) {
		return usagef("--supersedes %q: want an item id (4 to 24 hex digits)", o.Supersedes)
	}
	if o.Expires != "" {
		now := o.Now
		if now.IsZero() {
			now = time.Now()
		}
		t, err := parseExpires(o.Expires, now)
		if err != nil {
			return usageError{err}
		}
		o.Item.Expires = t
	}
	return nil
}

// parseExpires reads a day (YYYY-MM-DD, local midnight), an RFC 3339
// time, or a span from now: a Go duration or a number of days ("90d").
func parseExpires(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n > 0 {
			return now.AddDate(0, 0, n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("--expires %q: want a day (2026-12-31), a time (RFC 3339) or a span from now (90d, 36h)", s)
}

func addRun(ctx context.Context, opts *addOptions) error {
	held := false
	if !opts.AsIs {
		if lore.Instruction(opts.Item.Text) {
			return errors.New("refused: the text reads as an instruction aimed at an agent (overriding its instructions, " +
				"changing its role, hiding things from its user or sending data away); --as-is adds it as written")
		}
		if held = lore.Hold(opts.Item.Text); held {
			opts.Item.MarkHeld()
		}
	}
	s, err := opts.open(ctx, opts.Env, false)
	if err != nil {
		return err
	}
	defer s.Close()
	if opts.Supersedes != "" {
		// Checked before adding, so that a wrong id stores nothing.
		old, err := s.Item(ctx, opts.Supersedes)
		if err != nil {
			return fmt.Errorf("--supersedes: %w", storeError(err))
		}
		opts.Supersedes = old.ID
	}
	res, err := s.Add(ctx, []lore.Item{opts.Item})
	if err != nil {
		return storeError(err)
	}
	r := res[0]
	if opts.Supersedes != "" {
		if err := s.Supersede(ctx, opts.Supersedes, r.ID); err != nil {
			return fmt.Errorf("added %s, but --supersedes: %w", r.ID, err)
		}
	}
	it, err := s.Item(ctx, r.ID)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, it); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(opts.IO.Out, it.ID)
	}
	switch {
	case r.Action == lore.Merged && r.NearDuplicate:
		fmt.Fprintf(opts.IO.ErrOut, "merged into a similar item: %s\n", oneLine(it.Text, 100))
	case r.Action == lore.Merged:
		fmt.Fprintf(opts.IO.ErrOut, "already known; now confidence %.2f from %d session(s)\n", it.Confidence, it.SourceCount)
	case r.Action == lore.Unchanged:
		fmt.Fprintln(opts.IO.ErrOut, "already known; nothing new")
	}
	if held {
		fmt.Fprintf(opts.IO.ErrOut, "held as a candidate: it reads as an order that names nothing of a project or asks for harm; --as-is adds it as written\n")
	}
	for _, id := range r.Superseded {
		fmt.Fprintf(opts.IO.ErrOut, "supersedes %s (same signature)\n", id)
	}
	return nil
}
