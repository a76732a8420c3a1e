package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type hooksOptions struct {
	IO        *iostreams.IOStreams
	Env       transcript.Env
	Agent     string // "claude" or "gemini"
	Uninstall bool
	Project   bool
	DryRun    bool
	JSON      bool
	// Executable is the running lore's path, which the user's hooks call.
	Executable func() (string, error)
}

func newHooksCmd(fac *factory, runF func(context.Context, *hooksOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install lore into an agent's hooks",
		Long: `Install lore into an agent's session hooks, so that every new session starts with
what earlier sessions learned (lore boot), every finished session is harvested
(lore harvest), and what earlier sessions learned of a command or an error is
handed over where it matters: before a shell command runs and after a tool call
failed (lore recall). Claude Code gets all four; Gemini CLI the note after a
failed shell command (its hooks take no context before a tool runs).`,
		Example: `  lore hooks install claude
  lore hooks install claude --project --dry-run
  lore hooks install gemini
  lore hooks uninstall claude`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown hooks command %q: want install or uninstall", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHooksInstallCmd(fac, runF), newHooksUninstallCmd(fac, runF))
	return cmd
}

const hooksFileHelp = `The settings file is ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json
when that is set); with --project, .claude/settings.json in the git repository
holding the current folder (else in the current folder). For gemini it is
~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini/settings.json when that is
set), or .gemini/settings.json of the project. Every other setting and hook is
kept. The previous file is kept as settings.json.lore-backup.`

func newHooksInstallCmd(fac *factory, runF func(context.Context, *hooksOptions) error) *cobra.Command {
	opts := &hooksOptions{IO: fac.IO, Env: fac.Env, Executable: fac.Executable}
	cmd := &cobra.Command{
		Use:   "install (claude | gemini)",
		Short: "Add lore's hooks to Claude Code's or Gemini CLI's settings",
		Long: `Add four hooks to Claude Code's settings, calling this lore binary by its
absolute path (with --project, by the name lore, for each user's PATH to find:
a project's settings are shared with everyone who clones it):
  SessionStart        lore boot --format claude-hook  hands the new session
                                                      what earlier sessions learned
  SessionEnd          lore harvest --from-hook        harvests the finished session
  PreToolUse (Bash)   lore recall --before-tool       before a shell command: the
                                                      pitfalls of that command
  PostToolUseFailure  lore recall --after-tool        after a tool call failed:
                                                      what is known of its error

For gemini, one hook in Gemini CLI's settings:
  AfterTool (run_shell_command)  lore recall --after-tool   after a shell command
                                                            failed: what is known
                                                            of its error

Installing again changes nothing; installing after lore moved replaces lore's
old hooks. A lore run with go run is refused for your own settings: its binary
is deleted when it exits, so install lore with go install first.

` + hooksFileHelp + `

--json prints {"file", "changed", "hooks": [{"event", "command", "action"}]}.`,
		Example: `  lore hooks install claude
  lore hooks install claude --project
  lore hooks install claude --dry-run --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.start(cmd, args, runF)
		},
	}
	opts.addFlags(cmd, "show what would change, change nothing")
	return cmd
}

func newHooksUninstallCmd(fac *factory, runF func(context.Context, *hooksOptions) error) *cobra.Command {
	opts := &hooksOptions{IO: fac.IO, Env: fac.Env, Executable: fac.Executable, Uninstall: true}
	cmd := &cobra.Command{
		Use:   "uninstall (claude | gemini)",
		Short: "Remove lore's hooks from Claude Code's or Gemini CLI's settings",
		Long: `Remove lore's hooks (lore boot, lore harvest and lore recall, wherever lore is installed) from
Claude Code's (or Gemini CLI's) settings. Other hooks stay; an event's list is removed only when
removing lore's hooks leaves it empty. Uninstalling again changes nothing.

` + hooksFileHelp + `

--json prints {"file", "changed", "hooks": [{"event", "action", "previous"}]}.`,
		Example: `  lore hooks uninstall claude
  lore hooks uninstall claude --project`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.start(cmd, args, runF)
		},
	}
	opts.addFlags(cmd, "show what would be removed, change nothing")
	return cmd
}

func (o *hooksOptions) addFlags(cmd *cobra.Command, dryRunHelp string) {
	f := cmd.Flags()
	f.BoolVar(&o.Project, "project", false, "change the project's settings (.claude/ or .gemini/settings.json) instead of yours")
	f.BoolVar(&o.DryRun, "dry-run", false, dryRunHelp)
	f.BoolVar(&o.JSON, "json", false, "print what was done as one JSON object")
}

func (o *hooksOptions) start(cmd *cobra.Command, args []string, runF func(context.Context, *hooksOptions) error) error {
	switch strings.ToLower(args[0]) {
	case "claude", "claude-code":
		o.Agent = "claude"
	case "gemini", "gemini-cli":
		o.Agent = "gemini"
	default:
		return usagef("lore installs hooks into claude (Claude Code) and gemini (Gemini CLI), not %q", args[0])
	}
	if runF != nil {
		return runF(cmd.Context(), o)
	}
	return hooksRun(cmd.Context(), o)
}

func hooksRun(ctx context.Context, opts *hooksOptions) error {
	hooks, file, err := claudehook.Claude, "", error(nil)
	if opts.Agent == "gemini" {
		hooks = claudehook.Gemini
		file, err = claudehook.GeminiSettingsPath(opts.Env.Home, opts.Env.Cwd, opts.Env.Getenv, opts.Project)
	} else {
		file, err = claudeSettingsPath(opts.Env, opts.Project)
	}
	if err != nil {
		return err
	}
	var commands map[string]string
	if !opts.Uninstall {
		exe, err := opts.Executable()
		if err != nil {
			return fmt.Errorf("find the lore binary: %w", err)
		}
		name := claudehook.ShellQuote(exe)
		if opts.Project {
			// The project's settings are shared with everyone who clones
			// it: its hooks name lore, for each user's PATH to find.
			name = "lore"
			if note := claudehook.ProjectNote(getenv(opts.Env, "PATH"), opts.Env.GOOS, exe); note != "" {
				fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", note)
			}
		} else if err := claudehook.CheckInstalled(exe); err != nil {
			return err
		}
		commands = hooks.Commands(name)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var res claudehook.Result
	if opts.Uninstall {
		res, err = hooks.Uninstall(file, opts.DryRun)
	} else {
		res, err = hooks.Install(file, commands, opts.DryRun)
		if res.HooksDisabled && opts.Agent == "claude" {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s sets disableAllHooks, so Claude Code runs no hooks, lore's included\n", file)
		}
	}
	if err != nil {
		return err
	}
	return printHookChanges(opts, res)
}

func printHookChanges(opts *hooksOptions, res claudehook.Result) error {
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			File    string              `json:"file"`
			Changed bool                `json:"changed"`
			DryRun  bool                `json:"dry_run,omitempty"`
			Backup  string              `json:"backup,omitempty"`
			Hooks   []claudehook.Change `json:"hooks"`
		}{res.File, res.Changed, opts.DryRun, res.Backup, res.Hooks})
	}
	out := opts.IO.Out
	prefix := ""
	if opts.DryRun {
		prefix = "would be "
	}
	fmt.Fprintln(out, res.File)
	for _, c := range res.Hooks {
		action := c.Action
		if action != claudehook.AlreadyThere && action != claudehook.NotThere {
			action = prefix + action
		}
		switch {
		case c.Command != "":
			fmt.Fprintf(out, "  %s: %s: %s\n", c.Event, action, c.Command)
		case len(c.Previous) > 0:
			fmt.Fprintf(out, "  %s: %s: %s\n", c.Event, action, strings.Join(c.Previous, ", "))
		default:
			fmt.Fprintf(out, "  %s: %s\n", c.Event, action)
		}
		if c.Action == claudehook.Replaced {
			fmt.Fprintf(out, "    (was %s)\n", strings.Join(c.Previous, ", "))
		}
	}
	switch {
	case opts.DryRun:
		fmt.Fprintln(out, "dry run: nothing changed")
	case res.Backup != "":
		fmt.Fprintf(out, "previous file kept as %s\n", res.Backup)
	}
	if res.Changed && !opts.DryRun {
		agent := "Claude Code"
		if opts.Agent == "gemini" {
			agent = "Gemini CLI"
		}
		fmt.Fprintf(out, "%s reads hooks when a session starts: the change applies from the next session.\n", agent)
	}
	return nil
}

// claudeSettingsPath is the user's settings file, or the project's.
func claudeSettingsPath(env transcript.Env, project bool) (string, error) {
	if project {
		return claudehook.ProjectSettingsPath(env.Cwd)
	}
	return claudehook.UserSettingsPath(env.Home, env.Getenv)
}

// getenv is the environment variable k, "" when env has none.
func getenv(env transcript.Env, k string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(k)
}
