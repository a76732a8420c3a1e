package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/fixguard"
)

type guardScanOptions struct {
	guardOptions
	Since   string
	Prove   bool
	Jobs    int
	Timeout time.Duration
}

func newGuardScanCmd(fac *factory, runF func(context.Context, *guardScanOptions) error) *cobra.Command {
	opts := &guardScanOptions{guardOptions: newGuardOptions(fac)}
	cmd := &cobra.Command{
		Use:   "scan [--repo DIR] [--since DATE|REV]",
		Short: "Find a repository's fix commits and keep a guard of each",
		Long: `Read the repository's history with git (nothing is written to it), find its fix
commits and keep a guard of each in the store, replacing the guards of the same
commits; each fix also adds a candidate pitfall of the repository, and a pitfall
a harvested session met and then committed this fix of is marked fixed by it
(boot says "fixed in abc1234; keep it"). --since keeps
to the fixes after a day, a time, a span back from now (7d) or a revision
(REV..HEAD).

With --prove, every fix that added tests lore knows how to run (Go, pytest) is
proven as lore guard test proves one, --jobs at a time.

A shallow clone is scanned as far as it goes, with a note of what it hides.
With --json, one object: the repository, the commits read, the guards and notes.

` + storeHelp,
		Example: `  lore guard scan
  lore guard scan --repo ~/src/api --since 2025-01-01
  lore guard scan --since v1.4.0 --prove --jobs 2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Jobs < 1 {
				return usagef("--jobs %d: want 1 or more", opts.Jobs)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return guardScanRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Since, "since", "", "only fixes after a day (2026-01-01), a span back (30d) or a revision (v1.2.0)")
	f.BoolVar(&opts.Prove, "prove", false, "prove each fix that added tests: they fail on its parent and pass on it")
	f.IntVar(&opts.Jobs, "jobs", max(1, runtime.NumCPU()/2), "with --prove, this many proofs at a time")
	f.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "with --prove, the longest one run of the tests may take")
	f.BoolVar(&opts.JSON, "json", false, "print what was found as JSON")
	opts.addFlags(cmd)
	return cmd
}

type guardScanReport struct {
	Repo     string          `json:"repo"`
	Commits  int             `json:"commits"`
	Guards   []lore.FixGuard `json:"guards"`
	Pitfalls int             `json:"pitfalls"`
	// Linked counts the harvested pitfalls found fixed by these commits,
	// which boot now says are fixed (lore.LinkFixes).
	Linked int              `json:"linked"`
	Proofs []fixguard.Proof `json:"proofs,omitempty"`
	Notes  []string         `json:"notes"`
}

func guardScanRun(ctx context.Context, opts *guardScanOptions) error {
	r, name, err := opts.openRepo(ctx)
	if err != nil {
		return err
	}
	so := fixguard.ScanOptions{Repo: name}
	if opts.Since != "" {
		if t, err := parseSince(opts.Since, time.Now()); err == nil {
			so.Since = t
		} else {
			so.SinceRev = opts.Since
		}
	}
	res, err := fixguard.Scan(ctx, r, so)
	if err != nil {
		return err
	}
	st, guards, err := opts.openGuards(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := guards.SaveGuards(ctx, res.Guards); err != nil {
		return storeError(err)
	}
	added, err := lore.AddGuardPitfalls(ctx, st, res.Guards...)
	if err != nil {
		return storeError(err)
	}
	// The pitfalls sessions met and then committed these fixes of.
	linked, err := lore.LinkFixes(ctx, st, res.Guards)
	if err != nil {
		return storeError(err)
	}
	// The guards as kept: a proof lore guard test recorded stays.
	kept, err := guards.Guards(ctx, name)
	if err != nil {
		return storeError(err)
	}
	proofs := map[string]lore.FixGuard{}
	for _, g := range kept {
		proofs[g.Commit] = g
	}
	for i, g := range res.Guards {
		k := proofs[g.Commit]
		res.Guards[i].Proof, res.Guards[i].ProofCmd, res.Guards[i].ProofAt = k.Proof, k.ProofCmd, k.ProofAt
	}
	rep := guardScanReport{Repo: name, Commits: res.Commits, Guards: res.Guards, Pitfalls: len(added), Linked: linked, Notes: res.Notes}
	if opts.Prove {
		rep.Proofs = proveAll(ctx, r, res.Guards, opts.Jobs, opts.Timeout)
		for _, p := range rep.Proofs {
			if p.Proof == "" {
				continue
			}
			if _, err := guards.SetProof(ctx, name, p.Commit, p.Proof, p.Command, time.Now()); err != nil {
				return storeError(err)
			}
		}
	}
	if rep.Guards == nil {
		rep.Guards = []lore.FixGuard{}
	}
	if rep.Notes == nil {
		rep.Notes = []string{}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, rep)
	}
	out := opts.IO.Out
	withTests, broad := 0, 0
	for _, g := range res.Guards {
		if len(g.Tests) > 0 {
			withTests++
		}
		if g.Broad {
			broad++
		}
	}
	fmt.Fprintf(out, "%s: %d commits read, %d fixes guarded (%d with tests, %d guarded by their tests only), %d pitfalls\n",
		name, res.Commits, len(res.Guards), withTests, broad, len(added))
	if linked > 0 {
		fmt.Fprintf(out, "%d pitfalls that sessions met are fixed by these commits: boot now says so\n", linked)
	}
	shown := res.Guards
	if len(shown) > 20 {
		fmt.Fprintf(out, "the latest 20 (--json lists every one):\n")
		shown = shown[len(shown)-20:]
	}
	for _, g := range shown {
		fmt.Fprintf(out, "  %s  %s  %-8s %s  (%d lines, %d tests)\n", lore.ShortCommit(g.Commit), g.At.Format("2006-01-02"),
			g.Why, oneLine(g.Subject, 70), len(g.Lines), len(g.Tests))
	}
	for _, p := range rep.Proofs {
		fmt.Fprintf(out, "  %s  %s  (%s)\n", lore.ShortCommit(p.Commit), p.Proof, p.Command)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", n)
	}
	return nil
}

// proveAll proves the guards whose fixes added tests, jobs at a time,
// each run cut at timeout; a proof that could not run is left out and
// said on the way.
func proveAll(ctx context.Context, r *fixguard.Repo, gs []lore.FixGuard, jobs int, timeout time.Duration) []fixguard.Proof {
	var todo []lore.FixGuard
	for _, g := range gs {
		if fixguard.TestCommand(g) != "" && g.Parent != "" {
			todo = append(todo, g)
		}
	}
	out := make([]fixguard.Proof, len(todo))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, g := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			pctx, cancel := context.WithTimeout(ctx, 2*timeout)
			defer cancel()
			p, err := fixguard.Prove(pctx, r, g, "")
			if err != nil {
				p = fixguard.Proof{Commit: g.Commit, Output: err.Error()}
			}
			out[i] = p
		}()
	}
	wg.Wait()
	return out
}
