package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/mcpserver"
	"github.com/lorehq/lore/transcript"
)

type mcpOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Agent string
	Repo  string
}

func newMCPCmd(fac *factory, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the knowledge store to agents over MCP (stdio)",
		Long: `Serve the knowledge store over the Model Context Protocol on standard input and
output, for an agent that starts lore as an MCP server. Five tools:

  search_knowledge  items that answer a question, best first
  boot_context      the notes worth knowing for a repository, agent and task
  record_knowledge  store one thing learned; a candidate unless its confidence is
                    0.7 or more (default 0.5), secrets redacted, text that reads
                    as an instruction to an agent refused
  journal_similar   earlier attempts at a change like the one at hand, with the
                    lessons of those that failed (lore journal similar)
  journal_log       log an attempt and its outcome; a failure's lesson becomes a
                    candidate pitfall (lore journal log)

Standard output carries protocol messages only; problems go to standard error.
Each input line is one message: a line that is not a JSON-RPC 2.0 message is
answered with a JSON-RPC error (-32700 or -32600) and skipped.
lore mcp stops when its input closes or on interrupt. The store is created if
it is missing, since record_knowledge writes to it. --agent names the agent
boot_context is for when a call does not say, and --repo the repository; with
no --repo, it is the repository of the folder lore mcp starts in (agents start
their MCP servers in the project they work on), as sessions infer it.
` + repoScopeHelp + ` search_knowledge's repo selects as
lore search --repo does.

Claude Code:
  claude mcp add --scope user lore -- lore mcp --agent claude-code

Codex CLI, in ~/.codex/config.toml (or: codex mcp add lore -- lore mcp --agent codex):
  [mcp_servers.lore]
  command = "lore"
  args = ["mcp", "--agent", "codex"]

Gemini CLI, in ~/.gemini/settings.json (or .gemini/settings.json in a project):
  {"mcpServers": {"lore": {"command": "lore", "args": ["mcp", "--agent", "gemini-cli"]}}}

Give the full path of the lore binary if the agent's PATH does not hold it.

` + storeHelp,
		Example: `  claude mcp add lore -- lore mcp
  lore mcp --store ~/work/team-lore.db --agent codex`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkAgent(&opts.Agent); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return mcpRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the agent lore serves ("+strings.Join(lore.Agents, ", ")+"), for boot_context calls that name none")
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "the repository (owner/name) for boot_context calls that name none (default: inferred from the working folder)")
	opts.addFlag(cmd)
	return cmd
}

func mcpRun(ctx context.Context, opts *mcpOptions) error {
	st, err := opts.open(ctx, opts.Env, false)
	if err != nil {
		return err
	}
	defer st.Close()
	wd := opts.Env.Cwd
	if wd == "" {
		wd, _ = os.Getwd()
	}
	repo, wdRepo := opts.Repo, ""
	if wd != "" {
		wdRepo = transcript.RepoOfDir(wd)
	}
	if repo == "" {
		repo = wdRepo
	}
	log := slog.New(slog.NewTextHandler(opts.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcpserver.New(st, mcpserver.Options{
		Version: versionString(),
		Agent:   opts.Agent,
		Repo:    repo,
		Boot:    bootContext(st, wd, wdRepo),
		Log:     log,
	})
	// The injected streams rather than mcp.StdioTransport, which is bound
	// to os.Stdin and os.Stdout: main passes those, tests pass pipes. And
	// lore's transport rather than the SDK's, which ends the session on
	// the first line it cannot decode.
	in, ok := opts.IO.In.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(opts.IO.In)
	}
	err = srv.Run(ctx, &mcpserver.StdioTransport{In: in, Out: opts.IO.Out, Log: log})
	if ctx.Err() != nil {
		return nil // interrupted: a normal way to stop a server
	}
	return err
}

// bootContext is boot_context's builder over st: boot.Build with its
// defaults. When the server's folder wd is a checkout of the repository
// asked about (wdRepo), its location facts are checked against the
// working tree, as lore boot --cwd does.
func bootContext(st lore.Store, wd, wdRepo string) mcpserver.BootFunc {
	return func(ctx context.Context, r mcpserver.BootRequest) (mcpserver.BootContext, error) {
		o := boot.Options{Repo: r.Repo, Agent: r.Agent, Task: r.Task, Budget: r.Budget}
		if wd != "" && r.Repo != "" && lore.SameRepo(r.Repo, wdRepo) {
			o.Dir, o.Cwd = transcript.CheckoutRoot(wd), wd
		}
		c, err := boot.Build(ctx, st, o)
		if err != nil {
			return mcpserver.BootContext{}, err
		}
		ids := make([]string, len(c.Items))
		for i, p := range c.Items {
			ids[i] = p.ID
		}
		return mcpserver.BootContext{Context: c.Text, Tokens: c.Tokens, Budget: c.Budget, Items: ids}, nil
	}
}
