package prune

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestArchiveLock takes an archive's lock twice: the second is refused,
// naming the holder, until the first lets go.
func TestArchiveLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "state-archive.db")
	first, err := lockArchive(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + ".lock"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, %v; want mode 0600", fi, err)
	}
	if _, err := lockArchive(path); err == nil {
		t.Fatal("a second lock was taken while the first was held")
	} else if !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), path) {
		t.Errorf("refusal %q does not name the holder and the archive", err)
	}
	if err := first.unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := lockArchive(path)
	if err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	again.unlock()
}
