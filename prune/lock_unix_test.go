//go:build unix

package prune_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/hermesdb"
)

// TestPruneWhileAnotherRuns holds an archive's lock as a running prune
// would: a second prune and a restore are refused and change nothing.
// Run at once, each would delete from the archive the sessions it found
// in both places, which the other was moving: both copies gone.
func TestPruneWhileAnotherRuns(t *testing.T) {
	ctx := context.Background()
	path, sum := generate(t, hermesdb.Options{Version: 11, Migrated: true, Sessions: 40, MessagesPerSession: 4, Seed: 3})
	opts := pruneOptions(filepath.Dir(path), newest(sum).Add(365*24*time.Hour))
	f, err := os.OpenFile(opts.Archive+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	hash := fileHash(t, path)
	_, err = prune.Run(ctx, path, opts)
	if err == nil || !strings.Contains(err.Error(), "another lore prune") {
		t.Fatalf("prune while another holds the archive: %v", err)
	}
	if fileHash(t, path) != hash {
		t.Error("the refused prune changed the database")
	}
	for _, p := range []string{opts.Archive, opts.Backup} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the refused prune made %s", p)
		}
	}
	// A dry run only reads: it goes on.
	dry := opts
	dry.DryRun = true
	if _, err := prune.Run(ctx, path, dry); err != nil {
		t.Errorf("dry run while another prune runs: %v", err)
	}
	f.Close()
	res, err := prune.Run(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Archived == 0 {
		t.Fatalf("nothing archived once the lock was free: %+v", res)
	}
	// Restore takes the same lock.
	f, err = os.OpenFile(opts.Archive+".lock", os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if _, err := prune.Restore(ctx, path, opts.Archive, []string{sum.SessionList[0].ID}); err == nil || !strings.Contains(err.Error(), "another lore prune") {
		t.Errorf("restore while another holds the archive: %v", err)
	}
}
