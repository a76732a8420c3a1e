package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/postgres"
	"github.com/lorehq/lore/sqlite"
	"github.com/lorehq/lore/transcript"
)

// factory is what commands take from the machine they run on. main builds
// one and hands it to every newXCmd; a test builds its own instead of
// replacing package state, so tests can run side by side.
type factory struct {
	IO *iostreams.IOStreams
	// Env is the machine as discovery and the store's path read it.
	Env transcript.Env
	// Executable is the absolute path of the running lore, symbolic links
	// resolved: what lore's hooks in the user's settings call.
	Executable func() (string, error)
	// SelfCommand is a command that runs lore again with args.
	SelfCommand func(args ...string) (*exec.Cmd, error)
	// OpenStore opens the store file at path, creating it when missing;
	// readOnly opens an existing one for reading only.
	OpenStore func(ctx context.Context, path string, readOnly bool) (lore.Store, error)
	// VerifyStore checks the store file at path without changing it.
	VerifyStore func(ctx context.Context, path string) error
	// OpenTeams opens the teams of the store file or database at path (lore serve):
	// the file is the default team's store and keeps the tokens.
	OpenTeams func(ctx context.Context, path string) (lore.Teams, error)
}

// newFactory is the factory of a lore run on this machine: ios and env
// are its streams and environment, the rest the process's own.
func newFactory(ios *iostreams.IOStreams, env transcript.Env) *factory {
	return &factory{
		IO:          ios,
		Env:         env,
		Executable:  executable,
		SelfCommand: selfCommand,
		OpenStore: func(ctx context.Context, path string, readOnly bool) (lore.Store, error) {
			if isPostgresURL(path) {
				return openPostgres(ctx, env, path)
			}
			return sqlite.Open(ctx, path, sqlite.Options{ReadOnly: readOnly})
		},
		VerifyStore: func(ctx context.Context, path string) error {
			if !isPostgresURL(path) {
				return sqlite.Verify(ctx, path)
			}
			s, err := openPostgres(ctx, env, path)
			if err != nil {
				return err
			}
			return s.Close()
		},
		OpenTeams: func(ctx context.Context, path string) (lore.Teams, error) {
			if isPostgresURL(path) {
				return postgres.OpenTeams(ctx, path)
			}
			return sqlite.OpenTeams(ctx, path, sqlite.Options{})
		},
	}
}

// openPostgres opens the store of the team LORE_TEAM names (else
// lore.DefaultTeam) in the database at url, making its schema when it is
// not there: reading commands too, so that a new team reads an empty
// store rather than an error.
func openPostgres(ctx context.Context, env transcript.Env, url string) (*postgres.Store, error) {
	team := strings.TrimSpace(getenv(env, "LORE_TEAM"))
	if team != "" && !lore.ValidTeam(team) {
		return nil, usagef("LORE_TEAM=%q is not a team name (1 to 40 lower-case letters, digits, - and _)", team)
	}
	return postgres.Open(ctx, url, postgres.Options{Team: team})
}

func executable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

func selfCommand(args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, args...), nil
}

// storeOptions are the store options of a command, opening stores as f
// does.
func (f *factory) storeOptions() storeOptions {
	return storeOptions{openStore: f.OpenStore}
}
