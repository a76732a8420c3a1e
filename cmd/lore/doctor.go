package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/transcript"
)

type doctorOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	JSON bool
	// Executable is the running lore's path.
	Executable func() (string, error)
	// VerifyStore checks the store file at path without changing it.
	VerifyStore func(ctx context.Context, path string) error
}

func newDoctorCmd(fac *factory, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions(), Executable: fac.Executable, VerifyStore: fac.VerifyStore}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that lore's pieces work, and say how to fix what does not",
		Long: `Check each piece of lore on this machine, changing nothing, and say how to fix
each one that fails:
  store          the store is there, opens, and SQLite's integrity check finds
                 it sound (read-only)
  store folder   the store's folder is readable by you only (0700, as lore
                 makes it) and the store file too (0600)
  hooks AGENT    lore's hooks in Claude Code's and Gemini CLI's settings (yours,
                 and the current project's) are all there and run a lore
                 binary that exists and is executable; hooks not installed
                 pass, with how to install them
  lore on PATH   a shell finds lore, and it is the lore running now
  hook log       the harvests the SessionEnd hook started have met no errors
                 since the last one that ran clean (hook-harvest.log beside
                 the store)

Exit status 1 when any check fails, 0 when all pass.

--json prints {"ok", "checks": [{"name", "ok", "detail", "fix"}]}; fix is ""
for a check that passes.

` + storeHelp,
		Example: `  lore doctor
  lore doctor --json
  lore doctor --store ./team.db`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checks as one JSON object")
	opts.storeOptions.addFlag(cmd)
	return cmd
}

// doctorCheck is one check lore doctor made, and its JSON.
type doctorCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

func doctorRun(ctx context.Context, opts *doctorOptions) error {
	path, err := opts.storePath(opts.Env)
	if err != nil {
		return err
	}
	exe, exeErr := opts.Executable()
	var checks []doctorCheck
	if remote.IsURL(path) {
		// The team's server: it answers, and lore's folder (which keeps
		// what lore push sent) is this user's alone.
		checks = append(checks, opts.checkServer(ctx, path), checkStoreFolder(filepath.Join(loreHome(opts.Env), pushStateFile)))
	} else {
		checks = append(checks, opts.checkStore(ctx, path), checkStoreFolder(path))
	}
	checks = append(checks, checkHooks(opts.Env, exe, exeErr)...)
	checks = append(checks, checkPath(opts.Env, exe, exeErr), checkHookLog(hookLogPath(opts.Env, path)))
	if err := ctx.Err(); err != nil {
		return err
	}
	ok := true
	for _, c := range checks {
		ok = ok && c.OK
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, struct {
			OK     bool          `json:"ok"`
			Checks []doctorCheck `json:"checks"`
		}{ok, checks}); err != nil {
			return err
		}
	} else {
		writeDoctor(opts, checks, ok)
	}
	if !ok {
		return errSilent
	}
	return nil
}

func writeDoctor(opts *doctorOptions, checks []doctorCheck, ok bool) {
	out := opts.IO.Out
	failed := 0
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(out, "%s  %-14s %s\n", mark, c.Name, c.Detail)
		if !c.OK && c.Fix != "" {
			fmt.Fprintf(out, "      %-14s fix: %s\n", "", c.Fix)
		}
	}
	if ok {
		fmt.Fprintln(out, "all checks pass")
	} else {
		fmt.Fprintf(out, "%d of %d checks fail\n", failed, len(checks))
	}
}

const storeRestore = "move it aside and run lore harvest to make a new one (lore import brings back an export)"

func (opts *doctorOptions) checkStore(ctx context.Context, path string) doctorCheck {
	c := doctorCheck{Name: "store"}
	if isPostgresURL(path) {
		if err := opts.VerifyStore(ctx, path); err != nil {
			c.Detail, c.Fix = oneLine(secrets.String(err.Error()), 300), "check the URL, the database and its user's rights"
			return c
		}
		c.OK, c.Detail = true, storeName(path)+", reachable, schema up to date"
		return c
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Detail = "no store at " + path + " yet"
		c.Fix = "lore harvest (it makes the store from the agents' sessions)"
		return c
	case err != nil:
		c.Detail = err.Error()
		c.Fix = "check the path and its folders' permissions"
		return c
	case !fi.Mode().IsRegular():
		c.Detail = path + " is not a regular file"
		c.Fix = "give --store a file path, or move what is there aside"
		return c
	}
	if err := opts.VerifyStore(ctx, path); err != nil {
		c.Detail = oneLine(secrets.String(err.Error()), 300)
		c.Fix = storeRestore
		if strings.Contains(err.Error(), "locked by another process") {
			c.Fix = "run lore doctor again when the other lore is done"
		}
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s, %s, integrity check ok", path, humanBytes(fi.Size()))
	return c
}

func checkStoreFolder(path string) doctorCheck {
	c := doctorCheck{Name: "store folder"}
	if isPostgresURL(path) {
		c.OK, c.Detail = true, "none: the store is a PostgreSQL database"
		return c
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		c.OK = true
		c.Detail = "no " + dir + " yet (lore makes it 0700)"
		return c
	}
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "check the folder's path and permissions"
		return c
	}
	var wrong, fixes []string
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		wrong = append(wrong, fmt.Sprintf("%s is %04o, readable by others", dir, perm))
		fixes = append(fixes, "chmod 700 "+claudehook.ShellQuote(dir))
	}
	if fi, err := os.Stat(path); err == nil {
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			wrong = append(wrong, fmt.Sprintf("%s is %04o, readable by others", path, perm))
			fixes = append(fixes, "chmod 600 "+claudehook.ShellQuote(path))
		}
	}
	if len(wrong) > 0 {
		c.Detail = strings.Join(wrong, "; ")
		c.Fix = strings.Join(fixes, " && ")
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s is %04o", dir, fi.Mode().Perm())
	return c
}

// checkHooks checks each agent's settings, as lore status reads them.
func checkHooks(env transcript.Env, exe string, exeErr error) []doctorCheck {
	var checks []doctorCheck
	for _, h := range hooksInstalled(env) {
		c := doctorCheck{Name: "hooks " + h.Agent}
		install := "lore hooks install " + h.Agent
		if h.Project {
			c.Name += " (project)"
			install += " --project"
		}
		if exeErr == nil && claudehook.CheckInstalled(exe) != nil && !h.Project {
			install = "go install github.com/lorehq/lore/cmd/lore@latest, then " + install + " with that lore"
		}
		switch {
		case h.Error != "":
			c.Detail = oneLine(h.Error, 300)
			c.Fix = "fix the settings file by hand (lore hooks keeps the previous one as settings.json.lore-backup)"
			if h.File == "" {
				c.Fix = "set HOME"
			}
		case len(h.Hooks) == 0:
			c.OK = true
			c.Detail = "not installed in " + h.File + " (" + install + " adds them)"
		case !h.Installed:
			c.Detail = fmt.Sprintf("%s lacks lore's %s (of %d hooks)", h.File, strings.Join(h.Missing, ", "), len(h.Hooks)+len(h.Missing))
			c.Fix = install
		default:
			c.OK = true
		}
		if h.Error == "" && len(h.Hooks) > 0 {
			if bad := badPrograms(env, h); bad != "" {
				c.OK = false
				c.Detail = strings.TrimPrefix(strings.Join([]string{c.Detail, bad}, "; "), "; ")
				c.Fix = install + " (it points the hooks at the lore that runs it)"
			} else if c.OK {
				c.Detail = fmt.Sprintf("%s runs %s", h.File, hookPrograms(h))
			}
		}
		checks = append(checks, c)
	}
	return checks
}

// badPrograms says which lore programs h's hooks run that cannot run.
func badPrograms(env transcript.Env, h hooksStatus) string {
	var bad []string
	seen := map[string]bool{}
	for _, e := range h.Hooks {
		prog := claudehook.Program(e.Command)
		if prog == "" || seen[prog] {
			continue
		}
		seen[prog] = true
		if !strings.ContainsAny(prog, `/\`) {
			if claudehook.LookLore(getenv(env, "PATH"), env.GOOS) == "" {
				bad = append(bad, fmt.Sprintf("the hooks run %s by name and PATH has no lore", prog))
			}
			continue
		}
		fi, err := os.Stat(prog)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("the hooks run %s, which is not there", prog))
		case !fi.Mode().IsRegular():
			bad = append(bad, fmt.Sprintf("the hooks run %s, which is not a file", prog))
		case env.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
			bad = append(bad, fmt.Sprintf("the hooks run %s, which is not executable", prog))
		}
	}
	return strings.Join(bad, "; ")
}

func checkPath(env transcript.Env, exe string, exeErr error) doctorCheck {
	c := doctorCheck{Name: "lore on PATH"}
	found := claudehook.LookLore(getenv(env, "PATH"), env.GOOS)
	if found == "" {
		c.Detail = "no lore in any folder of PATH"
		c.Fix = "go install github.com/lorehq/lore/cmd/lore@latest, and put $(go env GOPATH)/bin in PATH"
		return c
	}
	c.OK = true
	c.Detail = found
	if exeErr != nil {
		c.Detail += " (which lore runs now is unknown: " + exeErr.Error() + ")"
		return c
	}
	if claudehook.CheckInstalled(exe) != nil {
		c.Detail += " (this lore is a temporary go run build)"
		return c
	}
	a, errA := os.Stat(found)
	b, errB := os.Stat(exe)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		c.Detail += ", the lore running now"
		return c
	}
	c.OK = false
	c.Detail += ", not the lore running now (" + exe + ")"
	c.Fix = "run the lore you mean to keep, or put " + filepath.Dir(exe) + " first in PATH"
	return c
}

// checkServer asks the team's lore serve for its active items.
func (opts *doctorOptions) checkServer(ctx context.Context, url string) doctorCheck {
	c := doctorCheck{Name: "store"}
	ctx, cancel := context.WithTimeout(ctx, remoteCheckTimeout)
	defer cancel()
	st, err := opts.openRead(ctx, opts.Env)
	if err == nil {
		defer st.Close()
		var n int
		if n, err = st.Count(ctx, lore.Filter{}); err == nil {
			c.OK = true
			c.Detail = fmt.Sprintf("lore serve at %s answers: %d active items in the token's team", url, n)
			return c
		}
	}
	c.Detail = oneLine(secrets.String(err.Error()), 300)
	c.Fix = "check that lore serve runs at " + url + " and that LORE_TOKEN holds a token it made (lore serve token list on the server)"
	return c
}

func checkHookLog(path string) doctorCheck {
	c := doctorCheck{Name: "hook log"}
	l := hookLog(path)
	switch {
	case !l.Exists:
		c.OK = true
		c.Detail = "no " + l.Path + " yet (the SessionEnd hook's harvests write it)"
	case len(l.Errors) > 0:
		c.Detail = fmt.Sprintf("%s (last written %s): %s", l.Path, localTime(l.modified), oneLine(l.Errors[0], 300))
		if n := len(l.Errors); n > 1 {
			c.Detail += fmt.Sprintf(" (and %d more error lines)", n-1)
		}
		c.Fix = "read " + l.Path + " and fix what it names; the check passes once a harvest the hook starts ends without errors (or move the log aside)"
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%s, last written %s, no errors since the last clean harvest", l.Path, localTime(l.modified))
	}
	return c
}
