package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

const guardedBefore = `package config

import "strings"

func Parse(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		key, value, _ := strings.Cut(line, "=")
		out[key] = value
	}
	return out
}
`

const guardedFixed = `package config

import "strings"

func Parse(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		key, value, _ := strings.Cut(line, "=")
		if strings.TrimSpace(key) == "" {
			continue // a line without a key is a comment
		}
		out[key] = value
	}
	return out
}
`

const guardedTest = `package config

import "testing"

func TestParse(t *testing.T) {}
`

const guardedTestFixed = guardedTest + `
func TestEmptyKeySkipped(t *testing.T) {
	if len(Parse("=b")) != 0 {
		t.Fatal("an empty key was kept")
	}
}
`

// guardRepo is a repository with one fix, scanned into a store of the
// test's own; lore runs in the repository.
func guardRepo(t *testing.T) (*gittest.Repo, string, func(args ...string) result) {
	r := gittest.New(t)
	r.Write("config/config.go", guardedBefore)
	r.Write("config/config_test.go", guardedTest)
	r.Write("go.mod", "module example.com/config\n\ngo 1.21\n")
	r.Commit("add the parser")
	r.Write("config/config.go", guardedFixed)
	r.Write("config/config_test.go", guardedTestFixed)
	fix := r.Commit("fix: skip lines without a key")
	store := filepath.Join(t.TempDir(), "lore.db")
	lore := func(args ...string) result {
		t.Helper()
		env := testEnv(t.TempDir(), nil)
		env.Cwd = r.Dir
		args = append(args, "--store", store)
		if args[0] == "guard" {
			args = append(args, "--name", "acme/config")
		}
		return runIn(t, env, "", nil, args...)
	}
	if res := lore("guard", "scan"); res.code != 0 || !strings.Contains(res.stdout, "1 fixes guarded") {
		t.Fatalf("scan: %+v", res)
	}
	return r, fix, lore
}

func TestGuardCommands(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *gittest.Repo, fix string)
		code   int
		says   []string
	}{
		{"untouched", func(r *gittest.Repo, fix string) {}, 0, []string{"ok: commit", "none of the 1 guarded fixes of acme/config"}},
		{"revert", func(r *gittest.Repo, fix string) { r.Git("revert", "--no-edit", fix) }, 1, []string{
			"undoes 1 guarded fix of acme/config", `"fix: skip lines without a key"`, "config/config.go:",
			`- if strings.TrimSpace(key) == "" {`, "its test TestEmptyKeySkipped (config/config_test.go) is deleted",
			"Guard-Override: " + "FIX" + " <reason>"}},
		{"refactor", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", guardedBefore)
			r.Commit("refactor: one loop")
		}, 1, []string{"2 of its 2 lines are gone, not moved", "config/config.go:", "changed by: ", " refactor: one loop"}},
		{"test deleted", func(r *gittest.Repo, fix string) {
			r.Write("config/config_test.go", guardedTest)
			r.Commit("drop a test")
		}, 1, []string{"its test TestEmptyKeySkipped (config/config_test.go) is deleted"}},
		{"renamed", func(r *gittest.Repo, fix string) {
			r.Git("mv", "config", "settings")
			r.Commit("rename the package")
		}, 0, []string{"ok: commit"}},
		{"overridden", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", guardedBefore)
			r.Commit("keys are checked by the loader\n\nGuard-Override: " + fix[:12] + " the loader checks keys")
		}, 0, []string{"1 let go by a later commit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, fix, lore := guardRepo(t)
			tt.change(r, fix)
			res := lore("guard", "check")
			if res.code != tt.code {
				t.Fatalf("check exited %d, want %d\n%s%s", res.code, tt.code, res.stdout, res.err)
			}
			for _, s := range tt.says {
				s = strings.ReplaceAll(s, "FIX", fix[:12])
				if !strings.Contains(res.stdout, s) {
					t.Errorf("check does not say %q:\n%s", s, res.stdout)
				}
			}
			js := lore("guard", "check", "--json")
			var rep struct {
				OK     bool `json:"ok"`
				Alarms []struct {
					Guard struct{ Commit string } `json:"guard"`
				} `json:"alarms"`
			}
			if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil || js.code != tt.code || rep.OK != (tt.code == 0) {
				t.Errorf("check --json: %v, exit %d, %+v\n%s", err, js.code, rep, js.stdout)
			}
			if tt.code == 1 && (len(rep.Alarms) != 1 || rep.Alarms[0].Guard.Commit != fix) {
				t.Errorf("check --json alarms = %+v, want the fix's", rep.Alarms)
			}
		})
	}
}

func TestGuardScanPitfall(t *testing.T) {
	_, fix, lore := guardRepo(t)
	res := lore("list", "--status", "candidate", "--repo", "acme/config", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, "`config/config.go`, `config/config_test.go` carry the fix "+fix[:12]) {
		t.Errorf("the fix's pitfall is not a candidate of the repository:\n%s%s", res.stdout, res.err)
	}
}

func TestGuardCheckTrees(t *testing.T) {
	r, _, lore := guardRepo(t)
	r.Write("config/config.go", guardedBefore)
	if res := lore("guard", "check", "--worktree"); res.code != 1 || !strings.Contains(res.stdout, "the work tree undoes 1 guarded fix") {
		t.Errorf("--worktree: %+v", res)
	}
	if res := lore("guard", "check", "--staged"); res.code != 0 {
		t.Errorf("--staged before git add: %+v", res)
	}
	r.Git("add", "-A")
	if res := lore("guard", "check", "--staged"); res.code != 1 {
		t.Errorf("--staged: %+v", res)
	}
	if res := lore("guard", "check", "HEAD", "--staged"); res.code != 2 {
		t.Errorf("a revision and --staged: exit %d, want 2", res.code)
	}
	if res := lore("guard", "check", "nosuchrev"); res.code != 1 || !strings.Contains(res.err, "nosuchrev: no such commit") {
		t.Errorf("an unknown revision: %+v", res)
	}
}

func TestGuardTestCommand(t *testing.T) {
	r, fix, lore := guardRepo(t)
	res := lore("guard", "test", "--fix", fix[:8], "--run", "grep -q TrimSpace config/config.go")
	if res.code != 0 || !strings.Contains(res.stdout, "proven") {
		t.Fatalf("guard test: %+v", res)
	}
	res = lore("guard", "scan", "--json")
	if !strings.Contains(res.stdout, `"proof":"proven"`) {
		t.Errorf("a scan run again lost the proof:\n%s", res.stdout)
	}
	if res := lore("guard", "test", "--fix", fix[:8], "--run", "true"); res.code != 1 || !strings.Contains(res.stdout, "not proven") {
		t.Errorf("a command that passes on the parent: %+v", res)
	}
	if res := lore("guard", "test", "--fix", "HEAD~1"); res.code != 1 || !strings.Contains(res.err, "no guard of") {
		t.Errorf("a commit that is no fix: %+v", res)
	}
	if res := lore("guard", "test"); res.code != 2 {
		t.Errorf("no --fix: exit %d, want 2", res.code)
	}
	if s := r.Git("status", "--porcelain"); s != "" {
		t.Errorf("the repository changed:\n%s", s)
	}
}

func TestGuardNotARepository(t *testing.T) {
	dir := t.TempDir()
	env := testEnv(t.TempDir(), nil)
	env.Cwd = dir
	res := runIn(t, env, "", nil, "guard", "scan", "--store", filepath.Join(t.TempDir(), "lore.db"))
	if res.code != 1 || !strings.Contains(res.err, "is not in a git repository") || strings.Count(strings.TrimSpace(res.err), "\n") > 0 {
		t.Errorf("scan outside a repository: %+v, want one line", res)
	}
}

func TestGuardInstallCommand(t *testing.T) {
	r := gittest.New(t)
	env := testEnv(t.TempDir(), nil)
	env.Cwd = r.Dir
	install := func(args ...string) result {
		return runIn(t, env, "", func(f *factory) {
			f.Executable = func() (string, error) { return "/opt/lore/bin/lore", nil }
		}, args...)
	}
	hook := filepath.Join(r.Dir, ".git", "hooks", "pre-commit")
	if res := install("guard", "install", "--hook", "pre-commit"); res.code != 0 || !strings.Contains(res.stdout, "added lore guard check to "+hook) {
		t.Fatalf("install: %+v", res)
	}
	if b, _ := os.ReadFile(hook); !strings.Contains(string(b), "\n/opt/lore/bin/lore guard check --staged || exit 1\n") {
		t.Errorf("hook:\n%s", b)
	}
	if res := install("guard", "uninstall", "--hook", "pre-commit"); res.code != 0 || !strings.Contains(res.stdout, "removed lore guard from") {
		t.Errorf("uninstall: %+v", res)
	}
	if res := install("guard", "install", "--hook", "post-merge"); res.code != 2 {
		t.Errorf("an unknown hook: exit %d, want 2", res.code)
	}
}

func TestGuardScanSince(t *testing.T) {
	_, _, lore := guardRepo(t)
	if res := lore("guard", "scan", "--since", "HEAD~1"); res.code != 0 || !strings.Contains(res.stdout, "1 commits read, 1 fixes guarded") {
		t.Errorf("--since HEAD~1: %+v", res)
	}
	if res := lore("guard", "scan", "--since", "2090-01-01"); res.code != 0 || !strings.Contains(res.stdout, "0 commits read, 0 fixes guarded") {
		t.Errorf("--since a day to come: %+v", res)
	}
	if res := lore("guard", "scan", "--since", "nosuchrev"); res.code != 1 || !strings.Contains(res.err, "--since: nosuchrev: no such commit") {
		t.Errorf("--since an unknown revision: %+v", res)
	}
}

func TestGuardList(t *testing.T) {
	_, fix, lore := guardRepo(t)
	res := lore("guard", "list")
	if res.code != 0 || !strings.Contains(res.stdout, fix[:12]+"  2026-01-01  fix:") || !strings.Contains(res.stdout, "(2 lines, 1 tests, untested)") {
		t.Errorf("list: %+v", res)
	}
	res = lore("guard", "list", "--json")
	var g struct {
		Commit string `json:"commit"`
		Lines  []struct{ File, Text string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &g); err != nil || g.Commit != fix || len(g.Lines) != 2 {
		t.Errorf("list --json: %v, %+v\n%s", err, g, res.stdout)
	}
}

// TestGuardScanProve proves the fix's own Go test: it fails on the
// parent and passes on the fix.
func TestGuardScanProve(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	_, fix, lore := guardRepo(t)
	res := lore("guard", "scan", "--prove", "--jobs", "1")
	if res.code != 0 || !strings.Contains(res.stdout, fix[:12]+"  proven  (go test -count=1 -run '^(TestEmptyKeySkipped)$' ./config)") {
		t.Fatalf("scan --prove: %+v", res)
	}
	if res := lore("guard", "list"); !strings.Contains(res.stdout, "proven)") {
		t.Errorf("the proof is not kept: %s", res.stdout)
	}
	if res := lore("guard", "scan", "--jobs", "0"); res.code != 2 {
		t.Errorf("--jobs 0: exit %d, want 2", res.code)
	}
}

// TestGuardCheckWithoutStore: before any scan there is no store; the
// check lets the change through and says how to guard the fixes.
func TestGuardCheckWithoutStore(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("add a")
	env := testEnv(t.TempDir(), nil)
	env.Cwd = r.Dir
	res := runIn(t, env, "", nil, "guard", "check", "--staged", "--store", filepath.Join(t.TempDir(), "none.db"))
	if res.code != 0 || !strings.Contains(res.err, "lore guard scan finds its fixes") {
		t.Errorf("check without a store: %+v", res)
	}
}
