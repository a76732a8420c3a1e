package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/sqlite"
)

// countingStores opens real stores through the factory and keeps count of
// those not closed yet.
type countingStores struct {
	mu     sync.Mutex
	opened int
	open   int
}

func (c *countingStores) openStore(ctx context.Context, path string, readOnly bool) (lore.Store, error) {
	st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: readOnly})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opened++
	c.open++
	return countedStore{st, c}, nil
}

// countedStore is a store whose Close is counted.
type countedStore struct {
	lore.Store
	c *countingStores
}

func (s countedStore) Close() error {
	s.c.mu.Lock()
	s.c.open--
	s.c.mu.Unlock()
	return s.Store.Close()
}

// Every command opens its store through the factory, and closes it.
func TestCommandsCloseTheirStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "lore.db")
	claude := filepath.Join("..", "..", "transcript", "testdata", "claude")
	var id string
	for _, args := range [][]string{
		{"add", "Pushing to main fails with HTTP 405; open a pull request.", "-c", "pitfall", "--repo", "acme/api"},
		{"search", "pull request"},
		{"show", "ID"},
		{"export", filepath.Join(dir, "export")},
		{"import", filepath.Join(dir, "export")},
		{"boot", "--repo", "acme/api"},
		{"context", "write", filepath.Join(dir, "AGENTS.md"), "--repo", "acme/api"},
		{"harvest", claude},
		{"harvest", claude, "--dry-run"},
		{"measure", claude},
		{"dashboard", claude, "--out", filepath.Join(dir, "dash")},
		{"forget", "ID"},
	} {
		for i, a := range args {
			if a == "ID" {
				args[i] = id
			}
		}
		var stores countingStores
		r := runIn(t, testEnv(dir, nil), "", func(f *factory) { f.OpenStore = stores.openStore }, append(args, "--store", store)...)
		if r.code != 0 {
			t.Fatalf("lore %s: exit %d, %s", strings.Join(args, " "), r.code, r.err)
		}
		if args[0] == "add" {
			id = strings.TrimSpace(r.stdout)
		}
		if stores.opened == 0 || stores.open != 0 {
			t.Errorf("lore %s: opened %d stores, %d left open", strings.Join(args, " "), stores.opened, stores.open)
		}
	}
}

// A hook whose store cannot be opened still answers, with no notes.
func TestBootHookStoreFails(t *testing.T) {
	t.Parallel()
	store := bootStore(t)
	failing := func(f *factory) {
		f.OpenStore = func(context.Context, string, bool) (lore.Store, error) { return nil, errors.New("disk on fire") }
	}
	r := runIn(t, testEnv(t.TempDir(), nil), `{"session_id":"x"}`, failing, "boot", "--format", "claude-hook", "--store", store)
	want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}` + "\n"
	if r.code != 0 || r.stdout != want || r.err != "lore boot: disk on fire (the session starts without notes)\n" {
		t.Errorf("exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	if r := runIn(t, testEnv(t.TempDir(), nil), "", failing, "search", "x", "--store", store); r.code != 1 || r.err != "lore: disk on fire\n" {
		t.Errorf("search: exit %d, %q", r.code, r.err)
	}
}
