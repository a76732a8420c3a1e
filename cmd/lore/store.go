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
	"github.com/lorehq/lore/postgres"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/transcript"
)

// storeOptions choose the store a command works on.
type storeOptions struct {
	Store string // --store; empty: LORE_STORE, then $LORE_HOME/lore.db

	openStore func(ctx context.Context, path string, readOnly bool) (lore.Store, error) // the factory's OpenStore
}

const storeHelp = `The store is $LORE_HOME/lore.db (LORE_HOME defaults to ~/.lore, created
readable by you only); --store PATH or LORE_STORE choose another file, or a
team's lore serve (https://host:7077, with the token in LORE_TOKEN), or a
PostgreSQL database (postgres://user:password@host/db), where the store is
that of the team LORE_TEAM names (default: default).`

func (o *storeOptions) addFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Store, "store", "", "the knowledge store: a file path, a lore serve's https:// URL or a postgres:// URL (default $LORE_STORE, else $LORE_HOME/lore.db, else ~/.lore/lore.db)")
}

// loreHome is lore's folder: $LORE_HOME, else ~/.lore; "" with neither.
func loreHome(env transcript.Env) string {
	if home := strings.TrimSpace(getenv(env, "LORE_HOME")); home != "" {
		return home
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".lore")
}

// storePath works out which store the options, then the environment,
// name.
func (o *storeOptions) storePath(env transcript.Env) (string, error) {
	p := o.Store
	if p == "" {
		p = strings.TrimSpace(getenv(env, "LORE_STORE"))
	}
	if p == "" {
		c, err := loadConfig(env)
		if err != nil {
			return "", err
		}
		p = c.Store // the settings' store, when they name one
	}
	if p == "" {
		home := loreHome(env)
		if home == "" {
			return "", errors.New("no home folder to keep the store in: set LORE_HOME or pass --store")
		}
		p = filepath.Join(home, "lore.db")
	}
	switch {
	case remote.IsURL(p), isPostgresURL(p):
		return p, nil
	case strings.HasPrefix(p, "sqlite://"):
		p = strings.TrimPrefix(p, "sqlite://")
	case strings.HasPrefix(p, "sqlite:"):
		p = strings.TrimPrefix(p, "sqlite:")
	}
	if strings.HasPrefix(p, "~/") && env.Home != "" {
		p = filepath.Join(env.Home, p[2:])
	}
	return p, nil
}

// open opens the store. A command that only reads (mustExist) does not
// create a store that is not there.
func (o *storeOptions) open(ctx context.Context, env transcript.Env, mustExist bool) (lore.Store, error) {
	p, err := o.storePath(env)
	if err != nil {
		return nil, err
	}
	if remote.IsURL(p) {
		return openRemote(env, p)
	}
	if mustExist {
		if err := existing(p); err != nil {
			return nil, err
		}
	}
	return o.openStore(ctx, p, false)
}

// openAs opens the store for writing, or an existing one for reading
// only, as the part of it a command uses (lore.Journal, lore.FixGuards);
// a store that keeps no such part is an error naming what (a journal).
func openAs[T any](ctx context.Context, o *storeOptions, env transcript.Env, write bool, what string) (T, lore.Store, error) {
	var part T
	if err := o.local(env, "lore keeps its "+what+" in a store on this machine", "pass --store PATH"); err != nil {
		return part, nil, err
	}
	var s lore.Store
	var err error
	if write {
		s, err = o.open(ctx, env, false)
	} else {
		s, err = o.openRead(ctx, env)
	}
	if err != nil {
		return part, nil, err
	}
	part, ok := s.(T)
	if !ok {
		s.Close()
		return part, nil, fmt.Errorf("this store keeps no %s", what)
	}
	return part, s, nil
}

// openRemote opens the team's store that lore serve at url keeps, with
// the token remoteOptions finds. http:// beyond loopback needs
// LORE_INSECURE=1.
func openRemote(env transcript.Env, url string) (lore.Store, error) {
	o, err := remoteOptions(env)
	if err != nil {
		return nil, err
	}
	return remote.Open(url, o)
}

// remoteOptions are a server's client's options, from the environment:
// the token is LORE_TOKEN, else the file $LORE_HOME/token a person wrote
// (an agent started from a desktop may not see the shell's variables),
// readable by its owner only.
func remoteOptions(env transcript.Env) (remote.Options, error) {
	o := remote.Options{
		Token:    strings.TrimSpace(getenv(env, "LORE_TOKEN")),
		Insecure: strings.TrimSpace(getenv(env, "LORE_INSECURE")) == "1",
	}
	home := loreHome(env)
	if o.Token != "" || home == "" {
		return o, nil
	}
	p := filepath.Join(home, "token")
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return o, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return o, fmt.Errorf("%s holds a lore serve token and others can read it: chmod 600 %s", p, p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return o, err
	}
	o.Token = strings.TrimSpace(string(b))
	return o, nil
}

// isPostgresURL reports whether p names a PostgreSQL database rather than
// a file.
func isPostgresURL(p string) bool {
	return strings.HasPrefix(p, "postgres://") || strings.HasPrefix(p, "postgresql://")
}

// storeName is how output names the store at p: a database's URL
// without its password.
func storeName(p string) string {
	if isPostgresURL(p) {
		return postgres.Redact(p)
	}
	return p
}

// missing reports whether there is no store at p yet: never for a
// server's, which answers for itself, nor a database's (its team's
// schema is made as it is opened).
func missing(p string) bool {
	if remote.IsURL(p) || isPostgresURL(p) {
		return false
	}
	_, err := os.Stat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// local refuses a store that is a server's, for what needs the store on
// this machine (needs: "lore harvest works on a store on this machine");
// instead says what to do.
func (o *storeOptions) local(env transcript.Env, needs, instead string) error {
	p, err := o.storePath(env)
	if err != nil {
		return err
	}
	if remote.IsURL(p) {
		return fmt.Errorf("%s, not on lore serve at %s: %s", needs, p, instead)
	}
	return nil
}

// existing fails when there is no store at p.
func existing(p string) error {
	if missing(p) {
		return fmt.Errorf("no knowledge store at %s yet: lore add or lore import creates it", p)
	}
	return nil
}

// openRead opens an existing store for reading only, so that a command
// that only reads works on a store in a read-only file or folder and
// changes nothing.
func (o *storeOptions) openRead(ctx context.Context, env transcript.Env) (lore.Store, error) {
	p, err := o.storePath(env)
	if err != nil {
		return nil, err
	}
	if remote.IsURL(p) {
		return openRemote(env, p)
	}
	if err := existing(p); err != nil {
		return nil, err
	}
	return o.openStore(ctx, p, true)
}

// tempStore opens a new store in a temporary folder named with prefix,
// which goes when the store is closed.
func (o *storeOptions) tempStore(ctx context.Context, prefix string) (lore.Store, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	st, err := o.openStore(ctx, filepath.Join(dir, "lore.db"), false)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return removeOnClose{st, dir}, nil
}

// removeOnClose is a store whose folder goes when it is closed.
type removeOnClose struct {
	lore.Store
	dir string
}

func (r removeOnClose) Close() error {
	err := r.Store.Close()
	os.RemoveAll(r.dir)
	return err
}

// storeError turns an invalid-input error from the store into a usage
// error (exit 2); others pass through.
func storeError(err error) error {
	if lore.ErrorCode(err) == lore.EINVALID {
		return usageError{err}
	}
	return err
}
