//go:build unix

package transcript

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestDefaultLocationsReadOnlyTheUsersOwn: in an agent's default location
// a transcript, or a folder of them, that another user owns or can write
// is passed over, and so is a whole location in such a folder; the same
// files named by the user are read.
func TestDefaultLocationsReadOnlyTheUsersOwn(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "claude", "v1_sidechain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	put := func(rel string, mode os.FileMode) string {
		p := filepath.Join(projects, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, src, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := put("own/a.jsonl", 0o600)
	put("own/writable.jsonl", 0o666)
	put("shared/b.jsonl", 0o600)
	if err := os.Chmod(filepath.Join(projects, "shared"), 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		theirs := put("own/theirs.jsonl", 0o600)
		if err := os.Chown(theirs, 12345, 12345); err != nil {
			t.Fatal(err)
		}
	}
	// An OpenHands store in a folder anyone may write, as
	// /tmp/openhands_file_store is made.
	open := filepath.Join(home, "open")
	if err := os.MkdirAll(filepath.Join(open, "conversations"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: home, GOOS: "linux", Getenv: func(k string) string {
		if k == "OPENHANDS_CONVERSATIONS_DIR" {
			return filepath.Join(open, "conversations")
		}
		return ""
	}}

	var paths []string
	for _, r := range DefaultRoots(env) {
		switch r.Path {
		case projects:
			if !r.Exists || r.Distrusted != "" {
				t.Errorf("%s: Exists %v, Distrusted %q; want it read", r.Path, r.Exists, r.Distrusted)
			}
		case filepath.Join(open, "conversations"):
			if r.Exists || r.Distrusted == "" {
				t.Errorf("%s: Exists %v, Distrusted %q; want it passed over", r.Path, r.Exists, r.Distrusted)
			}
		}
		if r.Exists {
			paths = append(paths, r.Path)
		}
	}
	res, err := Scan(context.Background(), paths, Options{NoGit: true, Defaults: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := inputPaths(DefaultInputs(paths)); len(got) != 1 || got[0] != own {
		t.Errorf("default inputs = %v; want only %s", got, own)
	}
	if len(res.Sessions) == 0 || len(res.Problems) != 0 {
		t.Errorf("default scan: %d sessions, problems %v; want the user's own, quietly", len(res.Sessions), res.Problems)
	}
	// Named by the user, every file is read as given.
	named := inputPaths(Inputs([]string{projects}))
	if want := 3; os.Getuid() == 0 && len(named) != want+1 || os.Getuid() != 0 && len(named) != want {
		t.Errorf("named inputs = %v; want every transcript", named)
	}
}

func inputPaths(ins []Input, _ []Problem) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.Path)
	}
	sort.Strings(out)
	return out
}
