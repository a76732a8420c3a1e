package fixguard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/gittest"
)

const configBefore = `package config

import "strings"

// Parse reads key=value lines.
func Parse(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		key, value, _ := strings.Cut(line, "=")
		out[key] = value
	}
	return out, nil
}
`

const configFixed = `package config

import (
	"errors"
	"strings"
)

var errEmptyKey = errors.New("config: empty key")

// Parse reads key=value lines.
func Parse(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		key, value, _ := strings.Cut(line, "=")
		if strings.TrimSpace(key) == "" {
			return nil, errEmptyKey
		}
		out[key] = value
	}
	return out, nil
}
`

const configTest = `package config

import "testing"

func TestParse(t *testing.T) {
	if _, err := Parse("a=b"); err != nil {
		t.Fatal(err)
	}
}
`

const configTestFixed = configTest + `
func TestEmptyKey(t *testing.T) {
	if _, err := Parse("=b"); err == nil {
		t.Fatal("an empty key was taken")
	}
}
`

// fixedRepo is a history with a fix: a parser, then "fix: crash on empty
// key" with its test, then an unrelated commit.
func fixedRepo(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t)
	r.Write("config/config.go", configBefore)
	r.Write("config/config_test.go", configTest)
	r.Write("README.md", "# config\n")
	r.Commit("add the config parser")
	r.Write("config/config.go", configFixed)
	r.Write("config/config_test.go", configTestFixed)
	r.Write("go.sum", "example.com/x v1.0.0 h1:abc=\n")
	fix := r.Commit("fix: crash on empty key\n\nFixes #12")
	r.Write("README.md", "# config\n\nParses key=value lines.\n")
	r.Commit("docs: say what it parses")
	return r, fix
}

func scanned(t *testing.T, repo *Repo) []lore.FixGuard {
	t.Helper()
	res, err := Scan(context.Background(), repo, ScanOptions{Repo: "acme/config"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Guards
}

func TestScanFindsTheFix(t *testing.T) {
	r, fix := fixedRepo(t)
	gs := scanned(t, open(t, r))
	if len(gs) != 1 {
		t.Fatalf("guards = %+v, want one", gs)
	}
	g := gs[0]
	if g.Commit != fix || g.Why != WhyConventional || g.Subject != "fix: crash on empty key" || g.Repo != "acme/config" {
		t.Errorf("guard = %+v", g)
	}
	var texts []string
	for _, l := range g.Lines {
		texts = append(texts, l.Text)
		if l.File != "config/config.go" {
			t.Errorf("line of %s guarded: %q", l.File, l.Text)
		}
	}
	want := []string{`var errEmptyKey = errors.New("config: empty key")`, `if strings.TrimSpace(key) == "" {`, `return nil, errEmptyKey`}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("guarded lines:\n%s\nwant (no import, no brace, no go.sum):\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if len(g.Tests) != 1 || g.Tests[0].Name != "TestEmptyKey" || !g.Tests[0].Added || g.Tests[0].File != "config/config_test.go" {
		t.Errorf("tests = %+v, want TestEmptyKey added", g.Tests)
	}
	if strings.Join(g.Files, ",") != "config/config.go,config/config_test.go,go.sum" {
		t.Errorf("files = %v", g.Files)
	}
}

func checked(t *testing.T, repo *Repo, gs []lore.FixGuard, tg Target) *CheckResult {
	t.Helper()
	res, err := Check(context.Background(), repo, gs, tg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCheckUndone builds a history with a fix, undoes it in each way a
// fix is lost, and moves it in ways that keep it.
func TestCheckUndone(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *gittest.Repo, fix string)
		alarm  bool
		// deleted and skipped are whether the alarm names the test as
		// deleted or skipped; missing, whether it names lines.
		missing, deleted, skipped bool
	}{
		{"nothing", func(r *gittest.Repo, fix string) {}, false, false, false, false},
		{"revert", func(r *gittest.Repo, fix string) { r.Git("revert", "--no-edit", fix) }, true, true, true, false},
		{"refactor drops the lines", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", strings.Replace(configBefore, "out[key] = value", "out[strings.TrimSpace(key)] = value", 1))
			r.Commit("refactor: trim keys")
		}, true, true, false, false},
		{"test deleted", func(r *gittest.Repo, fix string) {
			r.Write("config/config_test.go", configTest)
			r.Commit("tests: remove a slow test")
		}, true, false, true, false},
		{"test skipped", func(r *gittest.Repo, fix string) {
			r.Write("config/config_test.go", strings.Replace(configTestFixed, `Parse("=b")`, "t.Skip(\"flaky\")\n\tif _, err := Parse(\"=b\")", 1))
			r.Commit("tests: skip a flaky test")
		}, true, false, false, true},
		{"renamed and re-indented", func(r *gittest.Repo, fix string) {
			r.Git("mv", "config/config.go", "config/settings.go")
			r.Git("mv", "config/config_test.go", "config/settings_test.go")
			moved := strings.ReplaceAll(configFixed, "\t\t", "\t\t\t")
			r.Write("config/settings.go", moved)
			r.Commit("rename config.go to settings.go")
		}, false, false, false, false},
		{"test renamed", func(r *gittest.Repo, fix string) {
			r.Write("config/config_test.go", strings.Replace(configTestFixed, "TestEmptyKey", "TestParseRejectsEmptyKeys", 1))
			r.Commit("tests: a clearer name")
		}, false, false, false, false},
		{"reformatted", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", strings.NewReplacer(`strings.TrimSpace(key) == ""`, `strings.TrimSpace( key )==""`,
				"return nil, errEmptyKey", "return nil,errEmptyKey").Replace(configFixed))
			r.Commit("format")
		}, false, false, false, false},
		{"moved to another package", func(r *gittest.Repo, fix string) {
			r.Git("mv", "config", "internal")
			r.Commit("move config under internal")
		}, false, false, false, false},
		{"the package removed", func(r *gittest.Repo, fix string) {
			r.Git("rm", "-q", "-r", "config")
			r.Write("main.go", "package main\n\nfunc main() {}\n")
			r.Commit("remove the config package: configuration moved to flags")
		}, false, false, false, false},
		{"refactor with an override", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", configBefore)
			r.Commit("refactor: keys are checked by the caller now\n\nGuard-Override: " + fix[:10] + " the caller checks keys")
		}, false, false, false, false},
		{"Supersedes", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", configBefore)
			r.Write("config/config_test.go", configTest)
			r.Commit("validate keys in the loader\n\nSupersedes " + fix)
		}, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, fix := fixedRepo(t)
			repo := open(t, r)
			gs := scanned(t, repo)
			tt.change(r, fix)
			res := checked(t, repo, gs, Target{})
			if got := len(res.Alarms) > 0; got != tt.alarm {
				t.Fatalf("alarms = %+v, want an alarm: %v", res.Alarms, tt.alarm)
			}
			if !tt.alarm {
				return
			}
			a := res.Alarms[0]
			if a.Guard.Commit != fix {
				t.Errorf("alarm of %s, want the fix %s", a.Guard.Commit, fix)
			}
			if (len(a.Missing) > 0) != tt.missing || (len(a.DeletedTests) > 0) != tt.deleted || (len(a.SkippedTests) > 0) != tt.skipped {
				t.Errorf("alarm: missing %v, deleted tests %v, skipped tests %v; want %v %v %v",
					a.Missing, a.DeletedTests, a.SkippedTests, tt.missing, tt.deleted, tt.skipped)
			}
		})
	}
}

// TestCheckStagedAndWorktree: an undoing not yet committed is seen in the
// tree it is in, and not in the commit.
func TestCheckStagedAndWorktree(t *testing.T) {
	r, _ := fixedRepo(t)
	repo := open(t, r)
	gs := scanned(t, repo)
	r.Write("config/config.go", configBefore)
	if res := checked(t, repo, gs, Target{Worktree: true}); len(res.Alarms) != 1 {
		t.Errorf("work tree: %d alarms, want 1", len(res.Alarms))
	}
	if res := checked(t, repo, gs, Target{Staged: true}); len(res.Alarms) != 0 {
		t.Errorf("staged before git add: %d alarms, want 0", len(res.Alarms))
	}
	r.Git("add", "-A")
	if res := checked(t, repo, gs, Target{Staged: true}); len(res.Alarms) != 1 {
		t.Errorf("staged: %d alarms, want 1", len(res.Alarms))
	}
	if res := checked(t, repo, gs, Target{}); len(res.Alarms) != 0 {
		t.Errorf("HEAD: %d alarms, want 0", len(res.Alarms))
	}
}

// TestCheckBeforeTheFix: a commit from before the fix is not held to it.
func TestCheckBeforeTheFix(t *testing.T) {
	r, fix := fixedRepo(t)
	repo := open(t, r)
	gs := scanned(t, repo)
	res := checked(t, repo, gs, Target{Rev: fix + "^"})
	if res.Guards != 0 || len(res.Alarms) != 0 {
		t.Errorf("before the fix: %d guards, %d alarms; want none", res.Guards, len(res.Alarms))
	}
}

// TestCheckStale: a fix undone by an earlier commit is that commit's
// alarm, not every later one's; --all reports it still.
func TestCheckStale(t *testing.T) {
	r, fix := fixedRepo(t)
	repo := open(t, r)
	gs := scanned(t, repo)
	r.Write("config/config.go", configBefore)
	undo := r.Commit("refactor: simpler parser")
	r.Write("README.md", "# config\n\nmore\n")
	later := r.Commit("docs: more")
	if res := checked(t, repo, gs, Target{Rev: undo}); len(res.Alarms) != 1 || res.Stale != 0 {
		t.Errorf("the undoing commit: %d alarms, %d stale; want 1, 0", len(res.Alarms), res.Stale)
	} else if c := res.Alarms[0].Changes; len(c) != 1 || c[0] != undo[:12]+" refactor: simpler parser" {
		t.Errorf("changes = %q, want the undoing commit", c)
	}
	res := checked(t, repo, gs, Target{Rev: later})
	if len(res.Alarms) != 0 || res.Stale != 1 || res.Base != undo {
		t.Errorf("a later commit: %d alarms, %d stale, base %s; want 0, 1, %s", len(res.Alarms), res.Stale, res.Base, undo)
	}
	if res := checked(t, repo, gs, Target{Rev: later, All: true}); len(res.Alarms) != 1 || res.Alarms[0].Guard.Commit != fix {
		t.Errorf("--all: %+v, want the fix's alarm", res.Alarms)
	}
	if res := checked(t, repo, gs, Target{Rev: later, Base: fix}); len(res.Alarms) != 1 {
		t.Errorf("since the fix: %d alarms, want 1", len(res.Alarms))
	}
}

// TestCheckCreatedFile: deleting a file the fix created undoes the fix
// (a revert does that); deleting one it only changed retires its lines.
func TestCheckCreatedFile(t *testing.T) {
	r := gittest.New(t)
	r.Write("load/load.go", "package load\n\nfunc Load(p string) ([]byte, error) { return os.ReadFile(p) }\n")
	r.Commit("add the loader")
	r.Write("load/limit.go", "package load\n\nconst maxConfigBytes = 1 << 20\n\nfunc tooBig(n int64) bool { return n > maxConfigBytes }\n")
	fix := r.Commit("fix: refuse configuration files over 1 MiB")
	repo := open(t, r)
	gs := scanned(t, repo)
	if len(gs) != 1 || len(gs[0].Created) != 1 || gs[0].Created[0] != "load/limit.go" {
		t.Fatalf("guards = %+v, want the fix with the file it created", gs)
	}
	r.Git("revert", "--no-edit", fix)
	if res := checked(t, repo, gs, Target{}); len(res.Alarms) != 1 {
		t.Errorf("a revert deleting the file the fix created: %d alarms, want 1", len(res.Alarms))
	}
}

// TestScanLines: what a fix's guard keeps of its lines, and what it
// leaves: version bumps, re-indented lines, comments, generated files.
func TestScanLines(t *testing.T) {
	r := gittest.New(t)
	r.Write("client.go", "package client\n\nconst userAgent = \"client/1.2.3\"\n\nvar timeout = retryAfter(30)\n\nfunc get() { call(timeout) }\n")
	r.Write("api.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage client\n\nvar fileDescriptor = []byte{1, 2}\n")
	r.Commit("add the client")
	r.Write("client.go", "package client\n\nconst userAgent = \"client/1.2.4\"\n\nvar timeout = retryAfter(60)\n\nfunc get() {\n\t// retry once more\n\tcall(timeout)\n\tcall(timeout + extraDelay)\n}\n")
	r.Write("api.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage client\n\nvar fileDescriptor = []byte{1, 2, 3}\n")
	r.Commit("fix: time out later")
	gs := scanned(t, open(t, r))
	if len(gs) != 1 {
		t.Fatalf("guards = %+v", gs)
	}
	var texts []string
	for _, l := range gs[0].Lines {
		texts = append(texts, l.Text)
	}
	want := "var timeout = retryAfter(60)|call(timeout + extraDelay)"
	if got := strings.Join(texts, "|"); got != want {
		t.Errorf("guarded lines %q, want %q (no version bump, comment, re-indented line or generated file)", got, want)
	}
}

func TestNormBytes(t *testing.T) {
	for _, l := range []string{"", "  a  b\t c ", "\tif x == \"\" {", "x\u00a0 y", "only"} {
		if got := string(normBytes(nil, []byte(l))); got != norm(l) {
			t.Errorf("normBytes(%q) = %q, want %q", l, got, norm(l))
		}
	}
}

// TestCheckVersionsAndConditionalSkips: a pinned version bumped keeps a
// fix that pinned it, and a test skipped on one platform is not skipped.
func TestCheckVersionsAndConditionalSkips(t *testing.T) {
	r := gittest.New(t)
	r.Write("Dockerfile", "FROM node:20\nRUN npm install -g some-acp\n")
	r.Write("tests/test_grep.py", "def test_plain():\n    assert grep('a') == ['a']\n")
	r.Commit("add the image")
	r.Write("Dockerfile", "FROM node:20\nRUN npm install -g some-acp@0.11.1\n")
	r.Write("tests/test_grep.py", "def test_plain():\n    assert grep('a') == ['a']\n\ndef test_grep_falls_back():\n    assert grep('b', fallback=True) == ['b']\n")
	r.Commit("fix: pin some-acp, a newer one breaks the handshake")
	repo := open(t, r)
	gs := scanned(t, repo)
	r.Write("Dockerfile", "FROM node:20\nRUN npm install -g some-acp@0.15.0\n")
	r.Write("tests/test_grep.py", "import sys\nimport pytest\n\ndef test_plain():\n    assert grep('a') == ['a']\n\n@pytest.mark.skipif(sys.platform == 'win32', reason='no grep')\ndef test_grep_falls_back():\n    assert grep('b', fallback=True) == ['b']\n")
	r.Commit("bump some-acp; skip the grep test on Windows")
	if res := checked(t, repo, gs, Target{}); len(res.Alarms) != 0 {
		t.Errorf("a version bump and a skip on one platform: %+v, want no alarm", res.Alarms)
	}
	r.Write("Dockerfile", "FROM node:20\nRUN npm install -g some-acp\n")
	r.Write("tests/test_grep.py", "import pytest\n\ndef test_plain():\n    assert grep('a') == ['a']\n\n@pytest.mark.skip\ndef test_grep_falls_back():\n    assert grep('b', fallback=True) == ['b']\n")
	r.Commit("unpin")
	res := checked(t, repo, gs, Target{})
	if len(res.Alarms) != 1 || len(res.Alarms[0].Missing) != 1 || len(res.Alarms[0].SkippedTests) != 1 {
		t.Errorf("the pin dropped and the test skipped: %+v, want both in one alarm", res.Alarms)
	}
}

// envCopies holds copies of two of the fix's three lines, there before
// the fix, as a repository's other code often does.
const envCopies = `package config

import (
	"errors"
	"os"
	"strings"
)

var errEmptyKey2 = errors.New("env: empty key")

// FromEnv reads KEY=value pairs.
func FromEnv() (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		key, value, _ := strings.Cut(kv, "=")
		if strings.TrimSpace(key) == "" {
			return nil, errEmptyKey
		}
		out[key] = value
	}
	return out, nil
}
`

// TestCheckCopiesElsewhere: a fix whose lines also stand in another file
// is undone when a change takes them out of the fix's file and puts them
// nowhere else; moving them keeps it.
func TestCheckCopiesElsewhere(t *testing.T) {
	history := func(t *testing.T) (*gittest.Repo, string) {
		r := gittest.New(t)
		r.Write("config/config.go", configBefore)
		r.Write("config/env.go", envCopies)
		r.Commit("add the config parser")
		r.Write("config/config.go", configFixed)
		fix := r.Commit("fix: crash on empty key")
		r.Write("README.md", "# config\n")
		r.Commit("docs: a readme")
		return r, fix
	}
	for _, tt := range []struct {
		name   string
		change func(r *gittest.Repo, fix string)
		tree   Target
		alarm  bool
	}{
		{"reverted", func(r *gittest.Repo, fix string) { r.Git("revert", "--no-edit", fix) }, Target{}, true},
		{"reverted in the work tree", func(r *gittest.Repo, fix string) { r.Write("config/config.go", configBefore) }, Target{Worktree: true}, true},
		{"the file renamed", func(r *gittest.Repo, fix string) {
			r.Git("mv", "config/config.go", "config/parse.go")
			r.Commit("rename")
		}, Target{}, false},
		{"the check moved to another file", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", configBefore)
			r.Write("config/check.go", "package config\n\nimport (\n\t\"errors\"\n\t\"strings\"\n)\n\n"+
				"var errEmptyKey = errors.New(\"config: empty key\")\n\nfunc check(key string) error {\n"+
				"\tif strings.TrimSpace(key) == \"\" {\n\t\treturn nil, errEmptyKey\n\t}\n\treturn nil\n}\n")
			r.Commit("refactor: the key check in its own file")
		}, Target{}, false},
		{"the copies gathered into one file", func(r *gittest.Repo, fix string) {
			r.Write("config/config.go", configBefore)
			r.Write("config/env.go", strings.NewReplacer("\t\tif strings.TrimSpace(key) == \"\" {\n\t\t\treturn nil, errEmptyKey\n\t\t}\n",
				"\t\tif err := check(key); err != nil {\n\t\t\treturn nil, err\n\t\t}\n").Replace(envCopies))
			r.Write("config/check.go", "package config\n\nimport (\n\t\"errors\"\n\t\"strings\"\n)\n\n"+
				"var errEmptyKey = errors.New(\"config: empty key\")\n\nfunc check(key string) error {\n"+
				"\tif strings.TrimSpace(key) == \"\" {\n\t\treturn nil, errEmptyKey\n\t}\n\treturn nil\n}\n")
			r.Commit("refactor: one key check for both")
		}, Target{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, fix := history(t)
			repo := open(t, r)
			gs := scanned(t, repo)
			if len(gs) != 1 || len(gs[0].Lines) != 3 {
				t.Fatalf("guards %+v: want the fix with its 3 lines", gs)
			}
			tt.change(r, fix)
			res := checked(t, repo, gs, tt.tree)
			if got := len(res.Alarms) > 0; got != tt.alarm {
				t.Fatalf("alarms %+v, want an alarm: %v", res.Alarms, tt.alarm)
			}
			if tt.alarm && len(res.Alarms[0].Missing) != 3 {
				t.Errorf("missing %v, want the 3 lines", res.Alarms[0].Missing)
			}
		})
	}
}

// TestCheckCopiesInTheFile: a fix whose lines stand elsewhere in its own
// file too (toml's e954445: "Reject duplicate arrays") is undone when a
// change takes the fix's copies out.
func TestCheckCopiesInTheFile(t *testing.T) {
	other := "\n// Check reads one key.\nfunc Check(key string) error {\n\tif strings.TrimSpace(key) == \"\" {\n\t\treturn nil, errEmptyKey\n\t}\n\treturn nil\n}\n"
	r := gittest.New(t)
	r.Write("config/config.go", strings.Replace(configBefore, `import "strings"`, "import (\n\t\"errors\"\n\t\"strings\"\n)\n\nvar errEmptyKey = errors.New(\"config: empty key\")", 1)+other)
	r.Commit("add the config parser")
	r.Write("config/config.go", configFixed+other)
	fix := r.Commit("fix: crash on empty key")
	repo := open(t, r)
	gs := scanned(t, repo)
	if len(gs) != 1 {
		t.Fatalf("guards %+v, want the fix", gs)
	}
	r.Git("revert", "--no-edit", fix)
	if res := checked(t, repo, gs, Target{}); len(res.Alarms) != 1 {
		t.Errorf("the revert: alarms %+v, want the fix", res.Alarms)
	}
}

// TestRebaseTree: the base's state rebased from the staged tree's or the
// work tree's is the state read from the base, whatever the change
// staged, left unstaged, deleted or added untracked.
func TestRebaseTree(t *testing.T) {
	ctx := context.Background()
	for _, staged := range []bool{false, true} {
		r, _ := fixedRepo(t)
		repo := open(t, r)
		gs := scanned(t, repo)
		r.Write("config/config.go", configBefore)                                                  // the fix undone
		r.Write("config/extra.go", "package config\n\nfunc x() {\n\treturn nil, errEmptyKey\n}\n") // a copy, untracked or staged
		r.Git("rm", "-q", "config/config_test.go")
		if staged {
			r.Git("add", "-A")
		}
		head := r.Git("rev-parse", "HEAD")
		now, err := readState(ctx, repo, gs, Target{Staged: staged, Worktree: !staged}, head)
		if err != nil {
			t.Fatal(err)
		}
		rebased, err := now.rebaseTree(ctx, repo, head, staged)
		if err != nil {
			t.Fatal(err)
		}
		read, err := readState(ctx, repo, gs, Target{Rev: head}, head)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rebased.where) != fmt.Sprint(read.where) {
			t.Errorf("staged %v: rebased %v, read %v", staged, rebased.where, read.where)
		}
		if fmt.Sprint(now.where) == fmt.Sprint(read.where) {
			t.Errorf("staged %v: the change changed nothing the test can see", staged)
		}
		for p := range read.files {
			if !rebased.files[p] {
				t.Errorf("staged %v: %s is in the base but not rebased", staged, p)
			}
		}
		if rebased.files["config/extra.go"] {
			t.Errorf("staged %v: the new file is in the rebased base", staged)
		}
	}
}
