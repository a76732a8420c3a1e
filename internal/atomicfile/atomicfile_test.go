package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b.txt")
	if err := WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o640 {
		t.Errorf("%q, %v", b, fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("%d files left in the folder, want 1", len(entries))
	}
	// A folder where the file should be: an error, nothing left behind.
	if err := WriteFile(filepath.Dir(p), []byte("x"), 0o600); err == nil {
		t.Error("replacing a folder worked")
	}
}

func TestResolveLink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var → /private/var
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "dotfiles", "settings.json")
	link := filepath.Join(dir, "settings.json")
	if err := WriteFile(real, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	missing := filepath.Join(dir, "none.json")
	for _, tt := range []struct{ p, want string }{
		{link, real},
		{real, real},
		{missing, missing},
	} {
		if got := ResolveLink(tt.p); got != tt.want {
			t.Errorf("ResolveLink(%s) = %s, want %s", tt.p, got, tt.want)
		}
	}
	// Writing where the link points keeps the link.
	if err := WriteFile(ResolveLink(link), []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
	if b, _ := os.ReadFile(real); string(b) != "two" {
		t.Errorf("the file the link points at holds %q", b)
	}
}

// TestFolderMode: a folder WriteFile creates is as private as the file.
func TestFolderMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	old := umask(0o022)
	defer umask(old)
	for perm, want := range map[os.FileMode]os.FileMode{0o600: 0o700, 0o644: 0o755, 0o640: 0o750} {
		p := filepath.Join(t.TempDir(), "new", "f")
		if err := WriteFile(p, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("file %v: folder %v, want %v", perm, got, want)
		}
	}
}
