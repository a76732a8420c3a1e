package fixguard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

func TestInstallHook(t *testing.T) {
	ctx := context.Background()
	for _, hook := range Hooks {
		t.Run(hook, func(t *testing.T) {
			r := gittest.New(t)
			repo := open(t, r)
			p, changed, err := InstallHook(ctx, repo, hook, "'/opt/lore'")
			if err != nil || !changed {
				t.Fatalf("install: %v, %v", changed, err)
			}
			if want := filepath.Join(r.Dir, ".git", "hooks", hook); p != want {
				t.Errorf("hook at %s, want %s", p, want)
			}
			b, _ := os.ReadFile(p)
			if !strings.HasPrefix(string(b), "#!/bin/sh\n"+hookBegin) || !strings.Contains(string(b), "'/opt/lore' guard check") {
				t.Errorf("hook:\n%s", b)
			}
			if fi, _ := os.Stat(p); fi.Mode()&0o111 == 0 {
				t.Errorf("hook mode %v is not executable", fi.Mode())
			}
			if _, changed, _ := InstallHook(ctx, repo, hook, "'/opt/lore'"); changed {
				t.Error("a second install changed the hook")
			}
			if _, changed, err := UninstallHook(ctx, repo, hook); err != nil || !changed {
				t.Fatalf("uninstall: %v, %v", changed, err)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("the hook lore made is still there: %v", err)
			}
		})
	}
}

// TestInstallHookKeepsTheirs: a hook of the user's own keeps every line
// through install and uninstall, and the check runs before its exit.
func TestInstallHookKeepsTheirs(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	repo := open(t, r)
	p := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
	theirs := "#!/bin/bash\nmake lint\nexit 0\n"
	if err := os.WriteFile(p, []byte(theirs), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := InstallHook(ctx, repo, "pre-commit", "lore"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(b), "#!/bin/bash\n"+hookBegin) || !strings.HasSuffix(string(b), hookEnd+"\nmake lint\nexit 0\n") {
		t.Errorf("hook after install:\n%s", b)
	}
	if _, _, err := UninstallHook(ctx, repo, "pre-commit"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != theirs {
		t.Errorf("hook after uninstall:\n%s\nwant it as it was:\n%s", b, theirs)
	}
}

// TestPrePushHook runs the pre-push hook as git would, with a stand-in
// for lore that records what it was asked and fails on one commit.
func TestPrePushHook(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	repo := open(t, r)
	log := filepath.Join(t.TempDir(), "calls")
	fake := filepath.Join(t.TempDir(), "lore")
	script := "#!/bin/sh\necho \"$@\" >> " + log + "\n[ \"$3\" = bad ] && exit 1\nexit 0\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p, _, err := InstallHook(ctx, repo, "pre-push", fake)
	if err != nil {
		t.Fatal(err)
	}
	// After the block, the rest of the hook still reads the refs.
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("cat > "+log+".rest\n")...), 0o755)
	zeros := strings.Repeat("0", 40)
	run := func(stdin string) error {
		cmd := execHook(p, r.Dir, stdin)
		return cmd.Run()
	}
	if err := run("refs/heads/main good refs/heads/main " + zeros + "\nrefs/heads/x " + zeros + " refs/heads/x abc\n"); err != nil {
		t.Errorf("a push of a good commit failed: %v", err)
	}
	calls, _ := os.ReadFile(log)
	if string(calls) != "guard scan\nguard check good\n" {
		t.Errorf("lore was called %q, want a scan, then a check of the pushed commit (a deleted branch is not checked)", calls)
	}
	if rest, _ := os.ReadFile(log + ".rest"); !strings.Contains(string(rest), "refs/heads/main good") {
		t.Errorf("the rest of the hook read %q, want the refs", rest)
	}
	if err := run("refs/heads/main bad refs/heads/main " + zeros + "\n"); err == nil {
		t.Error("a push of a commit the check fails passed")
	}
}

func execHook(p, dir, stdin string) *exec.Cmd {
	cmd := exec.Command(p, "origin", "https://example.com/r.git")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}
