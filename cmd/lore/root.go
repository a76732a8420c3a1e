package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	err := root.ExecuteContext(ctx)
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
		fmt.Fprintln(fac.IO.ErrOut, "Run 'lore --help' for usage.")
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
checks each piece and says how to fix what is broken.

Start with lore tour: the whole loop on built-in example sessions.

Exit codes: 0 ok, 1 failure, 2 usage error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		CompletionOptions: cobra.CompletionOptions{
			HiddenDefaultCmd: true,
		},
	}
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
	)
	return root
}

// exactArgs, maxArgs and rangeArgs are cobra's argument checks with
// usage errors that exit 2.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}
