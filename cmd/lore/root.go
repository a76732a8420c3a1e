package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lorehq/lore"
	"github.com/spf13/cobra"
)

// Exit codes, documented in lore --help.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a wrong flag or argument; lore exits 2 for it.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// silentError ends a command with exit status 1 when everything worth
// saying has been said already.
var errSilent = errors.New("")

// run runs lore with args and returns the exit code.
func run(ctx context.Context, fac *factory, args []string) int {
	root := newRootCmd(fac)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if isBootHook(args) {
		// The hook's own errors fail open inside it; these are its flags'.
		return failOpenHook(fac.IO, err)
	}
	if isRecallHook(args) {
		// Only tool hooks run it: nothing on standard output, exit 0.
		fmt.Fprintf(fac.IO.ErrOut, "lore recall: %s (nothing handed over)\n", secrets.String(err.Error()))
		return exitOK
	}
	if !errors.Is(err, errSilent) {
		fmt.Fprintf(fac.IO.ErrOut, "lore: %s\n", secrets.String(err.Error())) // errors quote paths and input
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		// The help of the command that was given: what to type is there.
		fmt.Fprintf(fac.IO.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	if ctx.Err() != nil {
		return 130
	}
	return exitFailure
}

// isCobraUsage recognises cobra's own errors for unknown commands, which
// it does not route through the flag error function.
func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "unknown shorthand flag") ||
		strings.Contains(s, "accepts ") && strings.Contains(s, " arg(s), received ")
}

func newRootCmd(fac *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "lore",
		Short: "Turn what coding agents learn into knowledge for their next session",
		Long: `lore reads the transcripts coding agents leave behind (Claude Code, Codex CLI,
Gemini CLI, Aider, OpenHands, SWE-agent, mini-swe-agent, Cline, Roo Code, Goose,
Hermes, OpenCode, Kilo Code, GitHub Copilot CLI, VS Code Copilot Chat, Cursor,
Amp, Droid, Crush, Qwen Code, Kimi CLI, plain OpenAI chat lists), finding them
where each agent writes them;
harvests what they learned into a knowledge store (lore harvest); lets you
review what it learned (lore list, lore review, lore promote, lore edit, lore
forget); hands the relevant part to the next session (lore boot, lore hooks
install claude, lore mcp, lore context write); and measures whether that pays
(lore measure, lore dashboard). lore status shows where you stand; lore doctor
checks each piece and says how to fix what is broken. A team shares one store:
lore serve on a server, and on each machine --store https://… (or LORE_STORE)
with LORE_TOKEN, and lore push to send its sessions.

Start with lore tour: the whole loop on built-in example sessions.

Exit codes: 0 ok, 1 failure, 2 usage error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// lore completion bash|zsh|fish|powershell: listed in the help.
	}
	// lore --version and lore -v, as in gh and git: the line lore version
	// prints.
	root.Version = versionString()
	root.SetVersionTemplate(versionLine())
	root.SetOut(fac.IO.Out)
	root.SetErr(fac.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newVersionCmd(fac),
		newSessionsCmd(fac, nil),
		newSampleCmd(fac, nil),
		newAddCmd(fac, nil),
		newSearchCmd(fac, nil),
		newShowCmd(fac, nil),
		newListCmd(fac, nil),
		newReviewCmd(fac, nil),
		newPromoteCmd(fac, nil),
		newEditCmd(fac, nil),
		newForgetCmd(fac, nil),
		newExportCmd(fac, nil),
		newImportCmd(fac, nil),
		newHarvestCmd(fac, nil),
		newBootCmd(fac, nil),
		newRecallCmd(fac, nil),
		newMeasureCmd(fac, nil),
		newDashboardCmd(fac, nil),
		newTourCmd(fac),
		newMCPCmd(fac, nil),
		newHooksCmd(fac, nil),
		newContextCmd(fac, nil),
		newPruneCmd(fac, nil),
		newStatusCmd(fac, nil),
		newDoctorCmd(fac, nil),
		newConfigCmd(fac),
		newJournalCmd(fac),
		newImproveCmd(fac),
		newGuardCmd(fac),
		newServeCmd(fac, nil),
		newPushCmd(fac, nil),
	)
	groupCommands(root)
	completeFlagValues(root)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "show", "promote", "edit", "forget":
			c.ValidArgsFunction = completeItemIDs(fac)
		}
	}
	return root
}

// completeItemIDs completes an item's id from the store (the one --store
// names, as the command would open it), each with the start of its text;
// at most maxCompleted of them.
func completeItemIDs(fac *factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		o := fac.storeOptions()
		o.Store, _ = cmd.Flags().GetString("store")
		st, err := o.openRead(cmd.Context(), fac.Env)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer st.Close()
		var ids []cobra.Completion
		st.Items(cmd.Context(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
			if strings.HasPrefix(it.ID, toComplete) && len(ids) < maxCompleted {
				ids = append(ids, cobra.CompletionWithDesc(it.ID, oneLine(it.Text, 60)))
			}
			return nil
		})
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

// maxCompleted is the most item ids completion offers.
const maxCompleted = 100

// The groups lore --help lists its commands in, in this order.
var commandGroups = []struct {
	id, title string
	names     []string
}{
	{"read", "Read what agents left behind:", []string{"sessions", "sample", "tour"}},
	{"learn", "Learn, and review what was learned:", []string{"harvest", "push", "list", "review", "promote", "edit", "forget", "add",
		"search", "show", "export", "import", "journal", "improve", "guard"}},
	{"use", "Hand it to agents:", []string{"boot", "recall", "hooks", "context", "mcp", "serve"}},
	{"look", "Look after it, and see whether it pays:", []string{"status", "doctor", "config", "measure", "dashboard", "prune", "version",
		"completion", "help"}},
}

// groupCommands puts root's commands in commandGroups; one not named
// there stays in cobra's "Additional Commands".
func groupCommands(root *cobra.Command) {
	group := map[string]string{}
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, n := range g.names {
			group[n] = g.id
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = group[c.Name()]
	}
	root.SetHelpCommandGroupID(group["help"])
	root.SetCompletionCommandGroupID(group["completion"])
}

// completeFlagValues lets shell completion (lore completion bash|zsh|fish|
// powershell) complete the values of every --agent, --category, --status
// and --outcome flag.
func completeFlagValues(root *cobra.Command) {
	values := map[string][]string{"agent": lore.Agents, "outcome": lore.AttemptOutcomes}
	for _, c := range lore.Categories {
		values["category"] = append(values["category"], string(c))
	}
	for _, st := range lore.Statuses {
		values["status"] = append(values["status"], string(st))
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for name, vs := range values {
			if c.LocalFlags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vs, cobra.ShellCompDirectiveNoFileComp))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// exactArgs, maxArgs and rangeArgs are cobra's argument checks with
// usage errors that exit 2.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			// Say what to type: the command's own line (lore show ID).
			return usagef("%s takes %d argument(s), got %d: %s", cmd.CommandPath(), n, len(args),
				strings.TrimSuffix(cmd.UseLine(), " [flags]"))
		}
		return nil
	}
}
