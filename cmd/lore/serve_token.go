package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/transcript"
)

type tokenOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	openTeams func(ctx context.Context, path string) (lore.Teams, error)
	Team      string
	Scope     string
	Name      string
	ID        string
	JSON      bool
	Now       func() time.Time
}

func newTokenOptions(fac *factory) *tokenOptions {
	return &tokenOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions(), openTeams: fac.OpenTeams, Now: time.Now}
}

// open opens the teams of the store the options name, which keep the
// tokens.
func (o *tokenOptions) openTokens(ctx context.Context) (lore.Teams, error) {
	p, err := o.storePath(o.Env)
	if err != nil {
		return nil, err
	}
	if remote.IsURL(p) {
		return nil, usagef("lore serve token works on the server's store file, not at %s: run it on the server, with --store PATH", p)
	}
	return o.openTeams(ctx, p)
}

// checkTeam refuses a --team that cannot name a team.
func checkTeam(team string) error {
	if !lore.ValidTeam(team) {
		return usagef("--team %q: want 1 to 40 lower-case letters, digits, '-' and '_'", team)
	}
	return nil
}

func newServeTokenCmd(fac *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Make, list and revoke the bearer tokens of lore serve",
		Long: `The bearer tokens lore serve takes: each names a team, whose store it reads
(scope read) or also writes (scope write). The store keeps a token's hash, never
its secret, which lore serve token create prints once.

` + serveStoreHelp,
		Example: `  lore serve token create --team acme --scope read --name laptop
  lore serve token list --team acme
  lore serve token revoke 3f9a2c1b`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown token command %q; see lore serve token --help", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newTokenCreateCmd(fac, nil), newTokenListCmd(fac, nil), newTokenRevokeCmd(fac, nil))
	return cmd
}

func newTokenCreateCmd(fac *factory, runF func(context.Context, *tokenOptions) error) *cobra.Command {
	opts := newTokenOptions(fac)
	cmd := &cobra.Command{
		Use:   "create --team TEAM --scope read|write [--name NAME]",
		Short: "Make a bearer token for a team, and print it once",
		Long: `Make a bearer token for a team and print it, once: a line saying what it is,
then the token alone on the last line (so that tail -1 takes it). The store
keeps only its hash: a lost token cannot be shown again; revoke it and make
another. With --json, one object with the token and its id, team and scope.

A team's name is 1 to 40 lower-case letters, digits, '-' and '_'; its store is
created when a token of it is first used. --name says what the token is for,
and names who decided in the history of the items it promotes, retires or edits.

` + serveStoreHelp,
		Example: `  lore serve token create --team acme --scope write --name ci
  export LORE_TOKEN=$(lore serve token create --team acme --scope read | tail -1)`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTeam(opts.Team); err != nil {
				return err
			}
			if opts.Scope != string(lore.ScopeRead) && opts.Scope != string(lore.ScopeWrite) {
				return usagef("--scope %q: want read or write", opts.Scope)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tokenCreateRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Team, "team", "", "the team the token is for (required)")
	cmd.Flags().StringVar(&opts.Scope, "scope", "", "read, or write (read and add, review, upload) (required)")
	cmd.Flags().StringVar(&opts.Name, "name", "", "what the token is for, such as a person's or a machine's name")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the token and its record as JSON")
	opts.addFlag(cmd)
	return cmd
}

func tokenCreateRun(ctx context.Context, opts *tokenOptions) error {
	teams, err := opts.openTokens(ctx)
	if err != nil {
		return err
	}
	defer teams.Close()
	secret, hash := lore.NewToken()
	tok, err := teams.AddToken(ctx, lore.Token{Team: opts.Team, Scope: lore.TokenScope(opts.Scope), Name: strings.TrimSpace(opts.Name),
		Created: opts.Now()}, hash)
	if err != nil {
		return storeError(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			lore.Token
			Secret string `json:"token"`
		}{tok, secret})
	}
	fmt.Fprintf(opts.IO.Out, "token %s for team %s, scope %s (shown once; the store keeps only its hash):\n", tok.ID, tok.Team, tok.Scope)
	fmt.Fprintln(opts.IO.Out, secret)
	return nil
}

func newTokenListCmd(fac *factory, runF func(context.Context, *tokenOptions) error) *cobra.Command {
	opts := newTokenOptions(fac)
	cmd := &cobra.Command{
		Use:   "list [--team TEAM] [--json]",
		Short: "List the bearer tokens, never their secrets",
		Long: `List the bearer tokens of every team, or of --team, the oldest first: id,
team, scope, name, when made, and when revoked. Their secrets are not kept, and
so never shown. With --json, one token per line.

` + serveStoreHelp,
		Example: `  lore serve token list
  lore serve token list --team acme --json | jq -r 'select(.revoked == null) .id'`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Team != "" {
				if err := checkTeam(opts.Team); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tokenListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Team, "team", "", "only this team's tokens")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one token per line as JSON")
	opts.addFlag(cmd)
	return cmd
}

func tokenListRun(ctx context.Context, opts *tokenOptions) error {
	teams, err := opts.openTokens(ctx)
	if err != nil {
		return err
	}
	defer teams.Close()
	toks, err := teams.ListTokens(ctx, opts.Team)
	if err != nil {
		return err
	}
	if opts.JSON {
		for _, t := range toks {
			if err := writeJSON(opts.IO.Out, t); err != nil {
				return err
			}
		}
		return nil
	}
	if len(toks) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No tokens: lore serve token create makes one.")
		return nil
	}
	rows := make([][]string, len(toks))
	for i, t := range toks {
		revoked := "-"
		if !t.Revoked.IsZero() {
			revoked = t.Revoked.Local().Format("2006-01-02 15:04")
		}
		rows[i] = []string{t.ID, t.Team, string(t.Scope), t.Created.Local().Format("2006-01-02 15:04"), revoked, t.Name}
	}
	return writeTable(opts.IO.Out, opts.IO.TerminalWidth(), []string{"ID", "TEAM", "SCOPE", "CREATED", "REVOKED", "NAME"}, rows, 5)
}

func newTokenRevokeCmd(fac *factory, runF func(context.Context, *tokenOptions) error) *cobra.Command {
	opts := newTokenOptions(fac)
	cmd := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a bearer token: lore serve refuses it from then on",
		Long: `Revoke the token with this id, or a unique start of it (lore serve token list
shows them): a running lore serve refuses it from its next request on. The token
stays listed, with when it was revoked. With --json, the revoked token.

` + serveStoreHelp,
		Example: `  lore serve token revoke 3f9a2c1b`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tokenRevokeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the revoked token as JSON")
	opts.addFlag(cmd)
	return cmd
}

func tokenRevokeRun(ctx context.Context, opts *tokenOptions) error {
	teams, err := opts.openTokens(ctx)
	if err != nil {
		return err
	}
	defer teams.Close()
	tok, err := teams.RevokeToken(ctx, opts.ID, opts.Now())
	if err != nil {
		return storeError(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, tok)
	}
	fmt.Fprintf(opts.IO.Out, "revoked %s (team %s, scope %s)\n", tok.ID, tok.Team, tok.Scope)
	return nil
}
