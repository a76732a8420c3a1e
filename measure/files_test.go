package measure

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestDashboardIsPrivate: the dashboard names the user's repositories and
// sessions, so its files are 0600 and the folder it creates 0700.
func TestDashboardIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	dir := filepath.Join(t.TempDir(), "dash")
	if err := WriteDashboard(dir, Metrics{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", fi.Mode().Perm())
	}
	for _, name := range []string{DashboardMarkdown, DashboardJSON, DashboardHTML} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want mode 0600", name, fi.Mode().Perm(), err)
		}
	}
}
