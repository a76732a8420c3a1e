package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// runHooks runs lore in-process as runLore does, with env as the machine
// and exe as the path of the running lore.
func runHooks(t *testing.T, env transcript.Env, exe string, args ...string) result {
	t.Helper()
	oldEnv, oldExe := hostEnv, loreExecutable
	hostEnv = func() transcript.Env { return env }
	loreExecutable = func() (string, error) { return exe, nil }
	defer func() { hostEnv, loreExecutable = oldEnv, oldExe }()
	ios, _, out, errOut := iostreams.Test()
	code := run(context.Background(), ios, args)
	return result{code, out.String(), errOut.String()}
}

func hooksEnv(t *testing.T) transcript.Env {
	home := t.TempDir()
	return transcript.Env{Home: home, GOOS: "linux", Cwd: home, Getenv: func(string) string { return "" }}
}

const testLore = "/opt/lore/bin/lore"

type hooksReport struct {
	File    string       `json:"file"`
	Changed bool         `json:"changed"`
	Backup  string       `json:"backup"`
	Hooks   []hookChange `json:"hooks"`
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

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return m
}

func TestHooksInstallIntoNoFile(t *testing.T) {
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	if rep.File != file || !rep.Changed || rep.Backup != "" || actions(rep) != "SessionStart=added SessionEnd=added" {
		t.Fatalf("report %+v", rep)
	}
	b, _ := os.ReadFile(file)
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/lore/bin/lore boot --format claude-hook",
            "timeout": 5
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/lore/bin/lore harvest --from-hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`
	if string(b) != want {
		t.Errorf("settings.json:\n%s\nwant:\n%s", b, want)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(file + ".lore-backup"); err == nil {
		t.Error("a backup of a file that was not there")
	}
}

// A settings file as users have them: other settings, other hooks, even
// another SessionStart hook, and characters encoding/json would escape.
const otherSettings = `{
  "model": "opus",
  "env": {"FOO": "<bar> & baz", "BIG": 12345678901234567890},
  "permissions": {"allow": ["Bash(go test:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh", "timeout": 3}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
    ]
  },
  "statusLine": {"type": "command", "command": "status.sh"},
  "zzz": null
}`

func TestHooksInstallKeepsOtherSettings(t *testing.T) {
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(otherSettings), 0o640)

	r := runHooks(t, env, testLore, "hooks", "install", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "SessionStart: added") || !strings.Contains(r.stdout, file+".lore-backup") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.err)
	}
	b, _ := os.ReadFile(file)
	got := readJSON(t, file)
	var orig map[string]any
	json.Unmarshal([]byte(otherSettings), &orig)

	// Everything but hooks is as it was, and so are the other hooks.
	hooks := got["hooks"].(map[string]any)
	origHooks := orig["hooks"].(map[string]any)
	for k, v := range orig {
		if k != "hooks" && !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s changed: %v → %v", k, v, got[k])
		}
	}
	if !reflect.DeepEqual(hooks["PreToolUse"], origHooks["PreToolUse"]) {
		t.Errorf("PreToolUse changed: %v", hooks["PreToolUse"])
	}
	start := hooks["SessionStart"].([]any)
	if len(start) != 2 || !reflect.DeepEqual(start[0], origHooks["SessionStart"].([]any)[0]) {
		t.Errorf("SessionStart: %v", start)
	}
	// Bytes encoding/json would change are written as they were read.
	for _, s := range []string{`"<bar> & baz"`, `12345678901234567890`, `"zzz": null`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("%s not kept:\n%s", s, b)
		}
	}
	// Top-level keys keep their order; hooks' events too, new ones last.
	order := []string{`"model"`, `"env"`, `"permissions"`, `"hooks"`, `"PreToolUse"`, `"SessionStart"`, `"SessionEnd"`, `"statusLine"`, `"zzz"`}
	last := -1
	for _, k := range order {
		i := strings.Index(string(b), k)
		if i < last {
			t.Errorf("%s out of order:\n%s", k, b)
		}
		last = i
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 as before", fi.Mode().Perm())
	}
	backup, _ := os.ReadFile(file + ".lore-backup")
	if string(backup) != otherSettings {
		t.Errorf("backup differs from the old file:\n%s", backup)
	}
}

func TestHooksInstallTwiceIsIdempotent(t *testing.T) {
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(otherSettings), 0o644)
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	first, _ := os.ReadFile(file)
	os.Remove(file + ".lore-backup")

	rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	if rep.Changed || actions(rep) != "SessionStart=already there SessionEnd=already there" {
		t.Errorf("second install: %+v", rep)
	}
	second, _ := os.ReadFile(file)
	if string(first) != string(second) {
		t.Errorf("second install changed the file:\n%s", second)
	}
	if _, err := os.Stat(file + ".lore-backup"); err == nil {
		t.Error("second install made a backup though nothing changed")
	}
	got := readJSON(t, file)
	if n := len(got["hooks"].(map[string]any)["SessionEnd"].([]any)); n != 1 {
		t.Errorf("%d SessionEnd groups, want 1", n)
	}
}

func TestHooksInstallAfterLoreMoved(t *testing.T) {
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	// An old install, with a timeout the user raised, beside another hook
	// in the same group; and a second stray copy.
	old := `{"hooks": {
  "SessionStart": [{"matcher": "", "hooks": [
    {"type": "command", "command": "echo hi"},
    {"type": "command", "command": "/usr/local/bin/lore boot --format claude-hook", "timeout": 9}]}],
  "SessionEnd": [
    {"hooks": [{"type": "command", "command": "lore harvest --from-hook"}]},
    {"hooks": [{"type": "command", "command": "'/old place/lore' harvest --from-hook"}]}]
}}`
	os.WriteFile(file, []byte(old), 0o600)
	moved := "/home/me/go bin/lore"
	rep := hooksJSON(t, runHooks(t, env, moved, "hooks", "install", "claude", "--json"))
	if !rep.Changed || actions(rep) != "SessionStart=replaced SessionEnd=replaced" || len(rep.Hooks[1].Previous) != 2 {
		t.Fatalf("report %+v", rep)
	}
	var got struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(file)
	json.Unmarshal(b, &got)
	start, end := got.Hooks["SessionStart"], got.Hooks["SessionEnd"]
	if len(start) != 1 || len(start[0].Hooks) != 2 || start[0].Hooks[0].Command != "echo hi" ||
		start[0].Hooks[1].Command != "'/home/me/go bin/lore' boot --format claude-hook" || start[0].Hooks[1].Timeout != 9 {
		t.Errorf("SessionStart: %+v", start)
	}
	if len(end) != 1 || len(end[0].Hooks) != 1 || end[0].Hooks[0].Command != "'/home/me/go bin/lore' harvest --from-hook" || end[0].Hooks[0].Timeout != 10 {
		t.Errorf("SessionEnd: %+v", end)
	}
	// The quoted path is recognised as lore's on the next install.
	rep = hooksJSON(t, runHooks(t, env, moved, "hooks", "install", "claude", "--json"))
	if rep.Changed {
		t.Errorf("install after install: %+v", rep)
	}
}

func TestHooksUninstall(t *testing.T) {
	env := hooksEnv(t)
	file := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(otherSettings), 0o644)
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))

	// Uninstalling needs no installed lore: it runs from go run too.
	rep := hooksJSON(t, runHooks(t, env, "/tmp/go-build1/b001/exe/lore", "hooks", "uninstall", "claude", "--json"))
	if !rep.Changed || actions(rep) != "SessionStart=removed SessionEnd=removed" {
		t.Fatalf("report %+v", rep)
	}
	got := readJSON(t, file)
	var orig map[string]any
	json.Unmarshal([]byte(otherSettings), &orig)
	if !reflect.DeepEqual(got, orig) {
		t.Errorf("after install and uninstall:\n%v\nwant\n%v", got, orig)
	}
	rep = hooksJSON(t, runHooks(t, env, testLore, "hooks", "uninstall", "claude", "--json"))
	if rep.Changed || actions(rep) != "SessionStart=not there SessionEnd=not there" {
		t.Errorf("second uninstall: %+v", rep)
	}

	// Lore's hooks alone: uninstall leaves no empty hooks object behind,
	// but an event list that was empty before stays.
	os.WriteFile(file, []byte(`{"model": "x", "hooks": {"Stop": []}}`), 0o644)
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "uninstall", "claude", "--json"))
	if b, _ := os.ReadFile(file); string(b) != "{\n  \"model\": \"x\",\n  \"hooks\": {\n    \"Stop\": []\n  }\n}" {
		t.Errorf("got %q", b)
	}
	os.WriteFile(file, []byte(`{"model": "x"}`), 0o644)
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json"))
	hooksJSON(t, runHooks(t, env, testLore, "hooks", "uninstall", "claude", "--json"))
	if b, _ := os.ReadFile(file); string(b) != "{\n  \"model\": \"x\"\n}" {
		t.Errorf("got %q", b)
	}
	// No file: nothing to do, nothing created.
	env = hooksEnv(t)
	rep = hooksJSON(t, runHooks(t, env, testLore, "hooks", "uninstall", "claude", "--json"))
	if rep.Changed {
		t.Errorf("uninstall without a file: %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".claude")); err == nil {
		t.Error("uninstall created ~/.claude")
	}
}

func TestHooksMalformedSettings(t *testing.T) {
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

func TestHooksRefusesGoRun(t *testing.T) {
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
	if want := filepath.Join(env.Cwd, ".claude", "settings.json"); rep.File != want || !rep.Changed {
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

func TestHooksRecognisesLore(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/lore boot --format claude-hook":           true,
		"lore boot --format claude-hook":                          true,
		"'/a b/lore' boot --format claude-hook":                   true,
		`"C:\Users\me\go\bin\lore.exe" boot --format claude-hook`: true,
		"/usr/bin/folklore boot --format claude-hook":             false,
		"/usr/bin/lore boot --format claude-hook --repo x":        false,
		"echo lore boot --format claude-hook":                     false,
		"/usr/bin/lore harvest --from-hook":                       false,
	} {
		if got := isLoreHook(cmd, bootHookArgs); got != want {
			t.Errorf("isLoreHook(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// Whatever settings file lore accepts, installing gives valid JSON that a
// second install leaves alone, and uninstalling leaves none of lore's hooks.
func FuzzHooksSettings(f *testing.F) {
	for _, s := range []string{"", "{}", otherSettings, `{"hooks": null}`, `{"hooks": {"SessionStart": [1, {"hooks": "x"}, {"hooks": [2]}]}}`,
		`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "lore harvest --from-hook"}]}]}}`} {
		f.Add(s)
	}
	commands := map[string]string{"SessionStart": testLore + " " + bootHookArgs, "SessionEnd": testLore + " " + harvestHookArgs}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := parseSettings([]byte(s))
		if err != nil {
			return
		}
		if _, err := doc.install(commands); err != nil {
			return
		}
		out, err := doc.marshal([]byte(s))
		if err != nil || !json.Valid(out) {
			t.Fatalf("install gave %q (%v)", out, err)
		}
		doc, err = parseSettings(out)
		if err != nil {
			t.Fatal(err)
		}
		changes, err := doc.install(commands)
		if err != nil || changes[0].Action != "already there" || changes[1].Action != "already there" {
			t.Fatalf("second install on %q: %+v %v", out, changes, err)
		}
		if _, err := doc.uninstall(); err != nil {
			t.Fatal(err)
		}
		out, _ = doc.marshal(out)
		doc, _ = parseSettings(out)
		changes, _ = doc.uninstall()
		if changes[0].Action != "not there" || changes[1].Action != "not there" {
			t.Fatalf("lore's hooks left in %q", out)
		}
	})
}

// TestHooksProjectByName installs into a project's settings, which are
// shared with everyone who clones it: the hooks call lore by name, and
// the user hears when their own PATH would not run this lore.
func TestHooksProjectByName(t *testing.T) {
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
	// A user's own settings still name this binary by its path.
	rep := hooksJSON(t, runHooks(t, env, testLore, "hooks", "install", "claude", "--json", "--dry-run"))
	if len(rep.Hooks) == 0 || !strings.HasPrefix(rep.Hooks[0].Command, testLore+" ") {
		t.Errorf("user settings: %+v, want %s", rep.Hooks, testLore)
	}
}
