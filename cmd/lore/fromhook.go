package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/remote"
)

// harvestFromHook answers Claude Code's SessionEnd hook: it starts a
// harvest of the session's transcript (a push, when the store is a team's
// lore serve) in a detached process and returns
// at once, so that the agent's exit is not delayed. It fails open: every
// error is a line on stderr and exit 0. The harvest it starts, and any
// model call that harvest makes, carry LORE_HARVEST=1, under which lore's
// hooks do nothing: no loops.
func harvestFromHook(ctx context.Context, opts *harvestOptions) error {
	if opts.Env.Getenv != nil && opts.Env.Getenv(noHooksEnv) != "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, hookDeadline)
	defer cancel()
	if err := startHookHarvest(ctx, opts); err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "lore harvest --from-hook: %s\n", secrets.String(err.Error()))
	}
	return nil
}

func startHookHarvest(ctx context.Context, opts *harvestOptions) error {
	in, err := readHookInput(ctx, opts.IO)
	if err != nil {
		return fmt.Errorf("reading the hook's input: %w", err)
	}
	if in.TranscriptPath == "" {
		return fmt.Errorf("the hook's input names no transcript_path")
	}
	store, err := opts.storePath(opts.Env)
	if err != nil {
		return err
	}
	// Every line written to the log says when, and for which session.
	session := "(no session)"
	// A team's store is a server's: the session is pushed for the server
	// to harvest (and queued when it cannot be reached), not harvested here.
	verb, logDir := "harvest", filepath.Dir(store)
	switch {
	case remote.IsURL(store):
		verb, logDir = "push", loreHome(opts.Env)
		if logDir == "" {
			return fmt.Errorf("no home folder to keep push-state.json in: set LORE_HOME")
		}
	case isPostgresURL(store):
		if logDir = loreHome(opts.Env); logDir == "" {
			return fmt.Errorf("no home folder to keep the hook's log in: set LORE_HOME")
		}
	}
	args := []string{verb, in.TranscriptPath}
	if !isPostgresURL(store) {
		args = append(args, "--store", store) // a database's URL, password and all, goes in the environment, out of the process list
	}
	if in.SessionID != "" {
		session = "claude-code:" + in.SessionID
		args = append(args, "--log-session", session)
	}
	if opts.LLM != "" && verb == "harvest" {
		args = append(args, "--llm", opts.LLM, "--model", opts.Model)
	}
	cmd, err := opts.SelfCommand(args...)
	if err != nil {
		return err
	}
	cmd.Env = append(cmd.Environ(), noHooksEnv+"=1")
	if isPostgresURL(store) {
		cmd.Env = append(cmd.Env, "LORE_STORE="+store)
	}
	// What the harvest says goes to a log beside the store (a push's, in
	// lore's folder).
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(logDir, "hook-"+verb+".log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	// Each run starts with a line saying when, for which session, what:
	// the harvest's own lines follow it, stamped alike (--log-session). A
	// path can hold a token: it goes to the log redacted, as all else.
	fmt.Fprintf(&stampWriter{w: log, session: secrets.String(session)}, "%s of %s started\n", verb, secrets.String(in.TranscriptPath))
	cmd.Stdout, cmd.Stderr = log, log
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// readHookInput reads the hook's JSON from standard input, when input is
// not a terminal, within the time ctx leaves.
func readHookInput(ctx context.Context, ios *iostreams.IOStreams) (claudehook.Input, error) {
	if ios.In == nil || ios.IsStdinTTY() {
		return claudehook.Input{}, nil
	}
	return claudehook.ReadInput(ctx, ios.In)
}
