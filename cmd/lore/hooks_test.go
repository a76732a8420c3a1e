package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/transcript"
)

// The settings editor itself is tested in internal/claudehook; these test
// the commands: their flags, which file and which lore they choose, what
// they print and how they exit.

// runHooks runs lore in-process as runLore does, with env as the machine
// and exe as the path of the running lore.
func runHooks(t *testing.T, env transcript.Env, exe string, args ...string) result {
	t.Helper()
	return runIn(t, env, "", func(f *factory) {
		f.Executable = func() (string, error) { return exe, nil }
	}, args...)
}

func hooksEnv(t *testing.T) transcript.Env {
	return testEnv(t.TempDir(), nil)
}

const testLore = "/opt/lore/bin/lore"

type hooksReport struct {
	File    string              `json:"file"`
	Changed bool                `json:"changed"`
	DryRun  bool                `json:"dry_run"`
	Backup  string              `json:"backup"`
	Hooks   []claudehook.Change `json:"hooks"`
}

func hooksJSON(t *testing.T, r result) hooksReport {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.err)
	}
	var rep hooksReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON: %q", r.stdout)
	}
	return rep
}

func actions(rep hooksReport) string {
	var a []string
	for _, h := range rep.Hooks {
		a = append(a, h.Event+"="+h.Action)
	}
	return strings.Join(a, " ")
}

func TestHooksInstallIntoNoFile(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	r := runHooks(t, env, testLore, "hooks", "install", "claude", "--json")
	rep := hooksJSON(t, r)
	if rep.File != file || !rep.Changed || rep.Backup != "" || actions(rep) != "SessionStart=added SessionEnd=added PreToolUse=added PostToolUseFailure=added" {
		t.Fatalf("report %+v", rep)
	}
	want := `{"file":"` + file + `","changed":true,"hooks":[` +
		`{"event":"SessionStart","command":"/opt/lore/bin/lore boot --format claude-hook","action":"added"},` +
		`{"event":"SessionEnd","command":"/opt/lore/bin/lore harvest --from-hook","action":"added"},` +
		`{"event":"PreToolUse","command":"/opt/lore/bin/lore recall --before-tool","action":"added"},` +
		`{"event":"PostToolUseFailure","command":"/opt/lore/bin/lore recall --after-tool","action":"added"}]}` + "\n"
	if r.stdout != want {
		t.Errorf("--json:\n%s\nwant:\n%s", r.stdout, want)
	}
	got := readSettings(t, file)
	for event, args := range map[string]string{"SessionStart": claudehook.BootArgs, "SessionEnd": claudehook.HarvestArgs,
		"PreToolUse": claudehook.BeforeToolArgs, "PostToolUseFailure": claudehook.AfterToolArgs} {
		if cmds := got[event]; len(cmds) != 1 || cmds[0] != testLore+" "+args {
			t.Errorf("%s: %q", event, cmds)
		}
	}
}

// readSettings reads the hooks' commands of a settings file, by event.
func readSettings(t *testing.T, file string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, b)
	}
	cmds := map[string][]string{}
	for event, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				cmds[event] = append(cmds[event], h.Command)
			}
		}
	}
	return cmds
}

// What install, a second install, a dry run and uninstall print, for
// people.
func TestHooksText(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"model": "opus"}`), 0o644)
	applies := "Claude Code reads hooks when a session starts: the change applies from the next session.\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"install", "claude", "--dry-run"}, file + "\n" +
			"  SessionStart: would be added: /opt/lore/bin/lore boot --format claude-hook\n" +
			"  SessionEnd: would be added: /opt/lore/bin/lore harvest --from-hook\n" +
			"  PreToolUse: would be added: /opt/lore/bin/lore recall --before-tool\n" +
			"  PostToolUseFailure: would be added: /opt/lore/bin/lore recall --after-tool\n" +
			"dry run: nothing changed\n"},
		{[]string{"install", "claude"}, file + "\n" +
			"  SessionStart: added: /opt/lore/bin/lore boot --format claude-hook\n" +
			"  SessionEnd: added: /opt/lore/bin/lore harvest --from-hook\n" +
			"  PreToolUse: added: /opt/lore/bin/lore recall --before-tool\n" +
			"  PostToolUseFailure: added: /opt/lore/bin/lore recall --after-tool\n" +
			"previous file kept as " + file + ".lore-backup\n" + applies},
		{[]string{"install", "claude"}, file + "\n" +
			"  SessionStart: already there: /opt/lore/bin/lore boot --format claude-hook\n" +
			"  SessionEnd: already there: /opt/lore/bin/lore harvest --from-hook\n" +
			"  PreToolUse: already there: /opt/lore/bin/lore recall --before-tool\n" +
			"  PostToolUseFailure: already there: /opt/lore/bin/lore recall --after-tool\n"},
		{[]string{"uninstall", "claude", "--dry-run"}, file + "\n" +
			"  SessionStart: would be removed: /opt/lore/bin/lore boot --format claude-hook\n" +
			"  SessionEnd: would be removed: /opt/lore/bin/lore harvest --from-hook\n" +
			"  PreToolUse: would be removed: /opt/lore/bin/lore recall --before-tool\n" +
			"  PostToolUseFailure: would be removed: /opt/lore/bin/lore recall --after-tool\n" +
			"dry run: nothing changed\n"},
		{[]string{"uninstall", "claude"}, file + "\n" +
			"  SessionStart: removed: /opt/lore/bin/lore boot --format claude-hook\n" +
			"  SessionEnd: removed: /opt/lore/bin/lore harvest --from-hook\n" +
			"  PreToolUse: removed: /opt/lore/bin/lore recall --before-tool\n" +
			"  PostToolUseFailure: removed: /opt/lore/bin/lore recall --after-tool\n" +
			"previous file kept as " + file + ".lore-backup\n" + applies},
		{[]string{"uninstall", "claude"}, file + "\n" +
			"  SessionStart: not there\n" +
			"  SessionEnd: not there\n" +
			"  PreToolUse: not there\n" +
			"  PostToolUseFailure: not there\n"},
	} {
		r := runHooks(t, env, testLore, append([]string{"hooks"}, tt.args...)...)
		if r.code != 0 || r.stdout != tt.want || r.err != "" {
			t.Errorf("lore hooks %s: exit %d\n%s%s\nwant:\n%s", strings.Join(tt.args, " "), r.code, r.stdout, r.err, tt.want)
		}
	}
	// Replacing says what was there.
	os.WriteFile(file, []byte(`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "/old/lore harvest --from-hook"}]}]}}`), 0o644)
	r := runHooks(t, env, testLore, "hooks", "install", "claude")
	if !strings.Contains(r.stdout, "  SessionEnd: replaced: /opt/lore/bin/lore harvest --from-hook\n    (was /old/lore harvest --from-hook)\n") {
		t.Errorf("replace:\n%s", r.stdout)
	}
}

// Uninstalling needs no installed lore: it runs from go run too.
func TestHooksUninstallFromGoRun(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	rep := hooksJSON(t, runHooks(t, env, "/tmp/go-build1/b001/exe/lore", "hooks", "uninstall", "claude", "--json"))
	if !rep.Changed || actions(rep) != "SessionStart=removed SessionEnd=removed PreToolUse=removed PostToolUseFailure=removed" || rep.Hooks[0].Previous[0] != testLore+" "+claudehook.BootArgs {
		t.Fatalf("report %+v", rep)
	}
	if got := readSettings(t, file); len(got) != 0 {
		t.Errorf("left: %v", got)
	}
}

func TestHooksMalformedSettings(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	for _, bad := range []string{
		"{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n",
		`["not", "an", "object"]`,
		`{"hooks": []}`,
		`{"hooks": {"SessionEnd": {"type": "command"}}}`,
	} {
		os.WriteFile(file, []byte(bad), 0o644)
		for _, verb := range []string{"install", "uninstall"} {
			r := runHooks(t, env, testLore, "hooks", verb, "claude")
			if r.code != 1 || !strings.HasPrefix(r.err, "lore: "+file+": ") || strings.Count(r.err, "\n") != 1 {
				t.Errorf("%s %q: exit %d, stderr %q", verb, bad, r.code, r.err)
			}
			if b, _ := os.ReadFile(file); string(b) != bad {
				t.Errorf("%s %q changed the file", verb, bad)
			}
		}
	}
	os.WriteFile(file, []byte("{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n"), 0o644)
	r := runHooks(t, env, testLore, "hooks", "install", "claude")
	if !strings.Contains(r.err, "line 3, column 13") {
		t.Errorf("no position in %q", r.err)
	}
	if _, err := os.Stat(file + ".lore-backup"); err == nil {
		t.Error("backup written for a file that was not changed")
	}
}

// Settings that turn every hook off are installed into all the same, with
// a note saying lore's hooks will not run.
func TestHooksDisableAllHooksNote(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"disableAllHooks": true}`), 0o644)
	r := runHooks(t, env, testLore, "hooks", "install", "claude", "--json")
	if rep := hooksJSON(t, r); !rep.Changed || r.err != "note: "+file+" sets disableAllHooks, so Claude Code runs no hooks, lore's included\n" {
		t.Errorf("install: %+v, stderr %q", rep, r.err)
	}
	if r := runHooks(t, env, testLore, "hooks", "uninstall", "claude"); r.code != 0 || r.err != "" {
		t.Errorf("uninstall: exit %d, stderr %q", r.code, r.err)
	}
}

func TestHooksRefusesGoRun(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	for _, exe := range []string{"/tmp/go-build3391/b001/exe/lore", filepath.Join(os.TempDir(), "lore-build", "lore")} {
		r := runHooks(t, env, exe, "hooks", "install", "claude")
		if r.code != 1 || !strings.Contains(r.err, "go install github.com/lorehq/lore/cmd/lore@latest") || strings.Count(r.err, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", exe, r.code, r.err)
		}
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".claude")); err == nil {
		t.Error("a refused install wrote something")
	}
}

func TestHooksProjectAndConfigDir(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	repo := filepath.Join(env.Home, "src", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "internal", "db"), 0o755)
	env.Cwd = filepath.Join(repo, "internal", "db")
	rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--project", "--json"))
	if want := filepath.Join(repo, ".claude", "settings.json"); rep.File != want {
		t.Errorf("--project in a repository wrote %s, want %s", rep.File, want)
	}
	// Outside a repository: the current folder.
	env.Cwd = filepath.Join(env.Home, "scratch")
	os.MkdirAll(env.Cwd, 0o755)
	rep = hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--project", "--json", "--dry-run"))
	if want := filepath.Join(env.Cwd, ".claude", "settings.json"); rep.File != want || !rep.Changed || !rep.DryRun {
		t.Errorf("--project outside a repository: %+v, want %s", rep, want)
	}
	if _, err := os.Stat(rep.File); err == nil {
		t.Error("--dry-run wrote the file")
	}
	// CLAUDE_CONFIG_DIR moves the user's settings.
	dir := t.TempDir()
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return dir
		}
		return ""
	}
	rep = hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	if rep.File != filepath.Join(dir, "settings.json") {
		t.Errorf("with CLAUDE_CONFIG_DIR: %s", rep.File)
	}
}

func TestHooksUsage(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	for _, args := range [][]string{
		{"hooks", "install"},
		{"hooks", "install", "codex"},
		{"hooks", "uninstall", "claude", "extra"},
		{"hooks", "frobnicate"},
		{"hooks", "install", "claude", "--bogus"},
	} {
		r := runHooks(t, env, testLore, args...)
		if r.code != 2 || !strings.HasPrefix(r.err, "lore: ") || strings.Count(r.err, "\n") > 2 {
			t.Errorf("lore %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.err)
		}
	}
	if r := runHooks(t, env, testLore, "hooks", "install", "--help"); r.code != 0 || !strings.Contains(r.stdout, "SessionStart") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
}

// TestHooksProjectByName installs into a project's settings, which are
// shared with everyone who clones it: the hooks call lore by name, and
// the user hears when their own PATH would not run this lore.
func TestHooksProjectByName(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	os.MkdirAll(filepath.Join(env.Home, ".git"), 0o755)
	bin, other := filepath.Join(env.Home, "bin"), filepath.Join(env.Home, "other")
	for _, d := range []string{bin, other} {
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, "lore"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(bin, "lore")
	for _, tt := range []struct {
		path, note string // note: what stderr must say, "" for nothing
	}{
		{"", "PATH has no lore"},
		{other + string(filepath.ListSeparator) + bin, "PATH finds at " + filepath.Join(other, "lore")},
		{bin + string(filepath.ListSeparator) + other, ""},
	} {
		env.Getenv = func(k string) string {
			if k == "PATH" {
				return tt.path
			}
			return ""
		}
		r := runHooks(t, env, exe, "hooks", "install", "claude", "--project", "--json", "--dry-run")
		rep := hooksJSON(t, r)
		for _, h := range rep.Hooks {
			if !strings.HasPrefix(h.Command, "lore ") {
				t.Errorf("PATH %q: %s hook %q, want lore by name", tt.path, h.Event, h.Command)
			}
		}
		if tt.note == "" && r.err != "" || tt.note != "" && !strings.Contains(r.err, tt.note) {
			t.Errorf("PATH %q: stderr %q, want %q", tt.path, r.err, tt.note)
		}
	}
	// A user's own settings still name this binary by its path, quoted
	// when the shell needs it.
	rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json", "--dry-run"))
	if len(rep.Hooks) == 0 || !strings.HasPrefix(rep.Hooks[0].Command, testLore+" ") {
		t.Errorf("user settings: %+v, want %s", rep.Hooks, testLore)
	}
	rep = hooksJSON(t, runHooks(t, env, "/home/me/go bin/lore", "hooks", "install", "claude", "--json", "--dry-run"))
	if len(rep.Hooks) == 0 || rep.Hooks[0].Command != "'/home/me/go bin/lore' "+claudehook.BootArgs {
		t.Errorf("a path with a space: %+v", rep.Hooks)
	}
}

// lore hooks install gemini adds lore's AfterTool hook to Gemini CLI's
// settings (in $GEMINI_CLI_HOME when set), and uninstall takes it out.
func TestHooksGemini(t *testing.T) {
	t.Parallel()
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".gemini", "settings.json")
	rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "gemini", "--json"))
	if rep.File != file || !rep.Changed || actions(rep) != "AfterTool=added" || rep.Hooks[0].Command != testLore+" "+claudehook.AfterToolArgs {
		t.Fatalf("install: %+v", rep)
	}
	if got := readSettings(t, file); len(got) != 1 || len(got["AfterTool"]) != 1 {
		t.Errorf("settings: %v", got)
	}
	if rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "gemini-cli", "--json")); rep.Changed {
		t.Errorf("install again: %+v", rep)
	}
	// Claude Code's settings are not touched.
	if _, err := os.Stat(filepath.Join(env.Home, ".claude")); err == nil {
		t.Error("install gemini wrote Claude Code's settings")
	}
	r := runHooks(t, env, testLore, "hooks", "uninstall", "gemini")
	if r.code != 0 || !strings.Contains(r.stdout, "AfterTool: removed") || !strings.Contains(r.stdout, "Gemini CLI reads hooks") {
		t.Errorf("uninstall: exit %d\n%s%s", r.code, r.stdout, r.err)
	}
	if got := readSettings(t, file); len(got) != 0 {
		t.Errorf("left: %v", got)
	}
	env.Getenv = func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return "/ci/job"
		}
		return ""
	}
	if rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "gemini", "--dry-run", "--json")); rep.File != "/ci/job/.gemini/settings.json" {
		t.Errorf("with GEMINI_CLI_HOME: %s", rep.File)
	}
}
