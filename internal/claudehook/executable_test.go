package claudehook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckInstalled(t *testing.T) {
	for _, tt := range []struct {
		exe string
		ok  bool
	}{
		{"/tmp/go-build3391/b001/exe/lore", false},
		{filepath.Join(os.TempDir(), "lore-build", "lore"), false},
		{`C:/Users/me/AppData/Local/Temp/go-build1/b001/exe/lore.exe`, false},
		{"/opt/lore/bin/lore", true},
		{"/home/me/go/bin/lore", true},
	} {
		err := CheckInstalled(tt.exe)
		if (err == nil) != tt.ok {
			t.Errorf("CheckInstalled(%s) = %v, want ok %v", tt.exe, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "go install github.com/lorehq/lore/cmd/lore@latest") {
			t.Errorf("%s: %v does not say how to install lore", tt.exe, err)
		}
	}
}

func TestProjectNote(t *testing.T) {
	home := t.TempDir()
	bin, other, plain := filepath.Join(home, "bin"), filepath.Join(home, "other"), filepath.Join(home, "plain")
	for _, d := range []string{bin, other, plain} {
		os.MkdirAll(d, 0o755)
	}
	for _, d := range []string{bin, other} {
		if err := os.WriteFile(filepath.Join(d, "lore"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Not executable: PATH would not run it.
	os.WriteFile(filepath.Join(plain, "lore"), []byte("#!/bin/sh\n"), 0o644)
	exe := filepath.Join(bin, "lore")
	sep := string(filepath.ListSeparator)
	for _, tt := range []struct {
		path, goos, note string // note: what it must say, "" for nothing
	}{
		{"", "linux", "PATH has no lore"},
		{plain, "linux", "PATH has no lore"},
		{other + sep + bin, "linux", "PATH finds at " + filepath.Join(other, "lore")},
		{sep + plain + sep + bin + sep + other, "linux", ""},
		{bin + sep + other, "linux", ""},
		{bin, "windows", "PATH has no lore"}, // lore.exe there
	} {
		note := ProjectNote(tt.path, tt.goos, exe)
		if tt.note == "" && note != "" || tt.note != "" && !strings.Contains(note, tt.note) {
			t.Errorf("PATH %q on %s: %q, want %q", tt.path, tt.goos, note, tt.note)
		}
	}
}
