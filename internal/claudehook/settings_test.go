package claudehook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const testLore = "/opt/lore/bin/lore"

// settingsFile is a settings file of one test's own, holding data unless
// data is "".
func settingsFile(t *testing.T, data string, perm os.FileMode) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if data != "" {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(data), perm); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

func actions(res Result) string {
	var a []string
	for _, h := range res.Hooks {
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

func TestInstallIntoNoFile(t *testing.T) {
	t.Parallel()
	file := settingsFile(t, "", 0)
	res, err := Install(file, Commands(testLore), false)
	if err != nil || res.File != file || !res.Changed || res.Backup != "" || res.HooksDisabled ||
		actions(res) != "SessionStart=added SessionEnd=added PreToolUse=added PostToolUseFailure=added" {
		t.Fatalf("%+v, %v", res, err)
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
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/lore/bin/lore recall --before-tool",
            "timeout": 5
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/lore/bin/lore recall --after-tool",
            "timeout": 5
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

func TestInstallKeepsOtherSettings(t *testing.T) {
	t.Parallel()
	file := settingsFile(t, otherSettings, 0o640)
	res, err := Install(file, Commands(testLore), false)
	if err != nil || !res.Changed || res.Backup != file+".lore-backup" || actions(res) != "SessionStart=added SessionEnd=added PreToolUse=added PostToolUseFailure=added" {
		t.Fatalf("%+v, %v", res, err)
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
	// The user's own PreToolUse hook stays first, as it was; lore's
	// comes after it.
	pre := hooks["PreToolUse"].([]any)
	lore := fmtJSON(pre[len(pre)-1])
	if len(pre) != 2 || !reflect.DeepEqual(pre[0], origHooks["PreToolUse"].([]any)[0]) ||
		!strings.Contains(lore, testLore+" "+BeforeToolArgs) || !strings.Contains(lore, `"matcher":"Bash"`) {
		t.Errorf("PreToolUse: %v", pre)
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
	order := []string{`"model"`, `"env"`, `"permissions"`, `"hooks"`, `"PreToolUse"`, `"SessionStart"`, `"SessionEnd"`, `"PostToolUseFailure"`, `"statusLine"`, `"zzz"`}
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

func TestInstallTwiceIsIdempotent(t *testing.T) {
	t.Parallel()
	file := settingsFile(t, otherSettings, 0o644)
	if _, err := Install(file, Commands(testLore), false); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(file)
	os.Remove(file + ".lore-backup")

	res, err := Install(file, Commands(testLore), false)
	if err != nil || res.Changed || res.Backup != "" || actions(res) != "SessionStart=already there SessionEnd=already there PreToolUse=already there PostToolUseFailure=already there" {
		t.Errorf("second install: %+v, %v", res, err)
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

func TestInstallAfterLoreMoved(t *testing.T) {
	t.Parallel()
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
	file := settingsFile(t, old, 0o600)
	moved := Commands(ShellQuote("/home/me/go bin/lore"))
	res, err := Install(file, moved, false)
	// The tool hooks, which that lore did not have, are added.
	if err != nil || !res.Changed || actions(res) != "SessionStart=replaced SessionEnd=replaced PreToolUse=added PostToolUseFailure=added" ||
		len(res.Hooks[1].Previous) != 2 {
		t.Fatalf("%+v, %v", res, err)
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
	if res, err = Install(file, moved, false); err != nil || res.Changed {
		t.Errorf("install after install: %+v, %v", res, err)
	}
}

func TestUninstall(t *testing.T) {
	t.Parallel()
	file := settingsFile(t, otherSettings, 0o644)
	if _, err := Install(file, Commands(testLore), false); err != nil {
		t.Fatal(err)
	}
	res, err := Uninstall(file, false)
	if err != nil || !res.Changed || res.Backup != file+".lore-backup" ||
		actions(res) != "SessionStart=removed SessionEnd=removed PreToolUse=removed PostToolUseFailure=removed" ||
		!reflect.DeepEqual(res.Hooks[0].Previous, []string{testLore + " " + BootArgs}) {
		t.Fatalf("%+v, %v", res, err)
	}
	got := readJSON(t, file)
	var orig map[string]any
	json.Unmarshal([]byte(otherSettings), &orig)
	if !reflect.DeepEqual(got, orig) {
		t.Errorf("after install and uninstall:\n%v\nwant\n%v", got, orig)
	}
	res, err = Uninstall(file, false)
	if err != nil || res.Changed || actions(res) != "SessionStart=not there SessionEnd=not there PreToolUse=not there PostToolUseFailure=not there" {
		t.Errorf("second uninstall: %+v, %v", res, err)
	}

	for _, tt := range []struct{ name, before, after string }{
		// Lore's hooks alone: uninstall leaves no empty hooks object behind,
		// but an event list that was empty before stays.
		{"an empty list of another event", `{"model": "x", "hooks": {"Stop": []}}`, "{\n  \"model\": \"x\",\n  \"hooks\": {\n    \"Stop\": []\n  }\n}"},
		{"no hooks before", `{"model": "x"}`, "{\n  \"model\": \"x\"\n}"},
	} {
		os.WriteFile(file, []byte(tt.before), 0o644)
		if _, err := Install(file, Commands(testLore), false); err != nil {
			t.Fatal(err)
		}
		if _, err := Uninstall(file, false); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(file); string(b) != tt.after {
			t.Errorf("%s: got %q, want %q", tt.name, b, tt.after)
		}
	}
	// No file: nothing to do, nothing created.
	none := settingsFile(t, "", 0)
	if res, err := Uninstall(none, false); err != nil || res.Changed {
		t.Errorf("uninstall without a file: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Dir(none)); err == nil {
		t.Error("uninstall created the settings folder")
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, settings string
		edit           func(file string) (Result, error)
		want           string
	}{
		{"install, no file", "", func(f string) (Result, error) { return Install(f, Commands(testLore), true) }, "SessionStart=added SessionEnd=added PreToolUse=added PostToolUseFailure=added"},
		{"install", otherSettings, func(f string) (Result, error) { return Install(f, Commands(testLore), true) }, "SessionStart=added SessionEnd=added PreToolUse=added PostToolUseFailure=added"},
		{"uninstall", `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "lore harvest --from-hook"}]}]}}`,
			func(f string) (Result, error) { return Uninstall(f, true) }, "SessionStart=not there SessionEnd=removed PreToolUse=not there PostToolUseFailure=not there"},
	} {
		file := settingsFile(t, tt.settings, 0o644)
		res, err := tt.edit(file)
		if err != nil || !res.Changed || res.Backup != "" || actions(res) != tt.want {
			t.Errorf("%s: %+v, %v", tt.name, res, err)
		}
		b, err := os.ReadFile(file)
		if tt.settings == "" && err == nil || tt.settings != "" && string(b) != tt.settings {
			t.Errorf("%s: the dry run wrote %q", tt.name, b)
		}
		if _, err := os.Stat(file + ".lore-backup"); err == nil {
			t.Errorf("%s: the dry run made a backup", tt.name)
		}
	}
}

// A settings file that is a symbolic link is written where it points, and
// the link stays.
func TestInstallThroughLink(t *testing.T) {
	t.Parallel()
	real := settingsFile(t, `{"model": "x"}`, 0o644)
	file := filepath.Join(t.TempDir(), "settings.json")
	if err := os.Symlink(real, file); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	res, err := Install(file, Commands(testLore), false)
	if err != nil || res.File != file || !res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	if fi, err := os.Lstat(file); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), BootArgs) {
		t.Errorf("the linked file: %s", b)
	}
}

func TestHooksDisabled(t *testing.T) {
	t.Parallel()
	for settings, want := range map[string]bool{
		`{"disableAllHooks": true}`:  true,
		`{"disableAllHooks": false}`: false,
		`{"model": "x"}`:             false,
	} {
		res, err := Install(settingsFile(t, settings, 0o644), Commands(testLore), true)
		if err != nil || res.HooksDisabled != want {
			t.Errorf("%s: HooksDisabled %v (%v), want %v", settings, res.HooksDisabled, err, want)
		}
	}
}

func TestMalformedSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ settings, err string }{
		{"{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n", "invalid JSON at line 3, column 13: "},
		{`["not", "an", "object"]`, "the settings are not a JSON object; nothing changed"},
		{`{"hooks": []}`, `"hooks" is not a JSON object; nothing changed`},
		{`{"hooks": {"SessionEnd": {"type": "command"}}}`, `"hooks.SessionEnd" is not a JSON array; nothing changed`},
	} {
		file := settingsFile(t, tt.settings, 0o644)
		for verb, edit := range map[string]func() (Result, error){
			"install":   func() (Result, error) { return Install(file, Commands(testLore), false) },
			"uninstall": func() (Result, error) { return Uninstall(file, false) },
		} {
			_, err := edit()
			if err == nil || !strings.HasPrefix(err.Error(), file+": ") || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s %q: %v, want %q", verb, tt.settings, err, tt.err)
			}
			if b, _ := os.ReadFile(file); string(b) != tt.settings {
				t.Errorf("%s %q changed the file", verb, tt.settings)
			}
			if _, err := os.Stat(file + ".lore-backup"); err == nil {
				t.Errorf("%s %q: backup written for a file that was not changed", verb, tt.settings)
			}
		}
	}
}

func TestIsLoreHook(t *testing.T) {
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
		if got := isLoreHook(cmd, BootArgs); got != want {
			t.Errorf("isLoreHook(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for p, want := range map[string]string{
		"/opt/lore/bin/lore":       "/opt/lore/bin/lore",
		"/home/me/go bin/lore":     "'/home/me/go bin/lore'",
		"/home/o'brien/bin/lore":   `'/home/o'\''brien/bin/lore'`,
		`C:\Users\me\lore.exe`:     `'C:\Users\me\lore.exe'`,
		"/a/$HOME/lore":            "'/a/$HOME/lore'",
		"":                         "''",
		"/x/lore-1.2+dev@%,=:_.go": "/x/lore-1.2+dev@%,=:_.go",
	} {
		got := ShellQuote(p)
		if got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", p, got, want)
		}
		// What is quoted is still lore's hook.
		if filepath.Base(p) == "lore" && !isLoreHook(got+" "+BootArgs, BootArgs) {
			t.Errorf("%s is not recognised as lore's", got)
		}
	}
}

// Whatever settings file lore accepts, installing gives valid JSON that a
// second install leaves alone, and uninstalling leaves none of lore's hooks.
func FuzzSettings(f *testing.F) {
	for _, s := range []string{"", "{}", otherSettings, `{"hooks": null}`, `{"hooks": {"SessionStart": [1, {"hooks": "x"}, {"hooks": [2]}]}}`,
		`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "lore harvest --from-hook"}]}]}}`} {
		f.Add(s)
	}
	commands := Commands(testLore)
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := parseSettings([]byte(s))
		if err != nil {
			return
		}
		if _, err := doc.install(Claude, commands); err != nil {
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
		changes, err := doc.install(Claude, commands)
		if err != nil || changes[0].Action != AlreadyThere || changes[1].Action != AlreadyThere {
			t.Fatalf("second install on %q: %+v %v", out, changes, err)
		}
		if _, err := doc.uninstall(Claude); err != nil {
			t.Fatal(err)
		}
		out, _ = doc.marshal(out)
		doc, _ = parseSettings(out)
		changes, _ = doc.uninstall(Claude)
		if changes[0].Action != NotThere || changes[1].Action != NotThere {
			t.Fatalf("lore's hooks left in %q", out)
		}
	})
}

// A settings file is written back as Claude Code writes it: two-space
// indent, and its byte order mark and final newline as they were.
func TestInstallKeepsBOMAndFinalNewline(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, before, start, end string }{
		{"newline", "{\"model\": \"x\"}\n", "{\n  \"model\": \"x\",\n", "}\n"},
		{"no newline", `{"model": "x"}`, "{\n  \"model\": \"x\",\n", "\n}"},
		{"byte order mark", "\xef\xbb\xbf{\"model\": \"x\"}\n", "\xef\xbb\xbf{\n  \"model\": \"x\",\n", "}\n"},
		{"empty", "  \n", "{\n  \"hooks\": {\n", "}\n"},
	} {
		file := settingsFile(t, tt.before, 0o644)
		if _, err := Install(file, Commands(testLore), false); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b, _ := os.ReadFile(file)
		if !strings.HasPrefix(string(b), tt.start) || !strings.HasSuffix(string(b), tt.end) || strings.HasSuffix(tt.end, "}") && strings.HasSuffix(string(b), "\n") {
			t.Errorf("%s: %q", tt.name, b)
		}
	}
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// An install made before lore had its tool hooks gains them, once; the
// hooks it had stay as they were, and uninstall takes all four out.
func TestInstallAddsToolHooksToAnOldInstall(t *testing.T) {
	t.Parallel()
	old := `{"hooks": {
  "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "/opt/lore/bin/lore boot --format claude-hook", "timeout": 5}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "/opt/lore/bin/lore harvest --from-hook", "timeout": 10}]}],
  "PostToolUseFailure": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "notify.sh"}]}]
}}`
	file := settingsFile(t, old, 0o600)
	res, err := Install(file, Commands(testLore), false)
	if err != nil || !res.Changed || actions(res) != "SessionStart=already there SessionEnd=already there PreToolUse=added PostToolUseFailure=added" {
		t.Fatalf("%+v, %v", res, err)
	}
	if res, err = Install(file, Commands(testLore), false); err != nil || res.Changed {
		t.Errorf("install again: %+v, %v", res, err)
	}
	got := readJSON(t, file)
	failure := got["hooks"].(map[string]any)["PostToolUseFailure"].([]any)
	if len(failure) != 2 || !strings.Contains(fmtJSON(failure[0]), "notify.sh") || !strings.Contains(fmtJSON(failure[1]), AfterToolArgs) {
		t.Errorf("PostToolUseFailure: %v", failure)
	}
	if res, err = Uninstall(file, false); err != nil || actions(res) != "SessionStart=removed SessionEnd=removed PreToolUse=removed PostToolUseFailure=removed" {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	hooks := readJSON(t, file)["hooks"].(map[string]any)
	if len(hooks) != 1 || !strings.Contains(fmtJSON(hooks["PostToolUseFailure"]), "notify.sh") {
		t.Errorf("after uninstall: %v, want the user's PostToolUseFailure hook alone", hooks)
	}
}
