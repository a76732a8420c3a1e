package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfig: lore config set writes the settings file, get and path
// read it; the settings give the store, boot's defaults (a flag wins) and
// the sessions left alone; a damaged file is one line naming it; an
// unknown key or a wrong value is a usage error.
func TestConfig(t *testing.T) {
	home := t.TempDir()
	lore := func(args ...string) result { return runLore(t, home, args...) }
	if r := lore("config", "path"); r.code != 0 || strings.TrimSpace(r.stdout) != filepath.Join(home, ".lore", "config.toml") {
		t.Fatalf("config path: %q %q", r.stdout, r.err)
	}
	store := filepath.Join(t.TempDir(), "team.db")
	for _, kv := range [][]string{{"store", store}, {"boot.budget", "120"}, {"sessions.exclude_agents", "codex, gemini-cli"}} {
		if r := lore("config", "set", kv[0], kv[1]); r.code != 0 {
			t.Fatalf("config set %v: exit %d, %s", kv, r.code, r.err)
		}
	}
	if r := lore("config", "get", "sessions.exclude_agents"); strings.TrimSpace(r.stdout) != "codex,gemini-cli" {
		t.Errorf("config get: %q", r.stdout)
	}
	if fi, err := os.Stat(filepath.Join(home, ".lore", "config.toml")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the settings file: %v", err)
	}
	// The store the settings name.
	if r := lore("add", "`make test` runs the tests.", "--category", "fact"); r.code != 0 {
		t.Fatalf("add: %s", r.err)
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("add did not use the settings' store: %v", err)
	}
	// Boot's budget from the settings; a flag wins.
	if r := lore("boot", "--json"); !strings.Contains(r.stdout, `"budget":120`) {
		t.Errorf("boot with the settings' budget: %q", r.stdout)
	}
	if r := lore("boot", "--json", "--budget", "300"); !strings.Contains(r.stdout, `"budget":300`) {
		t.Errorf("boot --budget 300: %q", r.stdout)
	}
	// The agents left alone are not listed.
	dir := fixtures(t)
	if r := runLore(t, home, "sessions", dir, "--json"); r.code != 0 || r.stdout == "" || strings.Contains(r.stdout, `"agent":"codex"`) {
		t.Errorf("sessions with codex excluded: exit %d, %q", r.code, r.stdout)
	}
	if r := lore("config", "set", "sessions.exclude_agents", "claude-code"); r.code != 0 {
		t.Fatal(r.err)
	}
	if r := runLore(t, home, "sessions", dir, "--json"); strings.Contains(r.stdout, `"agent":"claude-code"`) {
		t.Errorf("sessions with claude-code excluded: %q", r.stdout)
	}
	for _, bad := range [][]string{{"config", "set", "boot.colour", "x"}, {"config", "set", "boot.budget", "many"},
		{"config", "set", "boot.holdout", "2"}, {"config", "set", "sessions.exclude_agents", "windsurf"}, {"config", "get", "nope"}} {
		if r := lore(bad...); r.code != 2 {
			t.Errorf("%v: exit %d, %q; want a usage error", bad, r.code, r.err)
		}
	}
	os.WriteFile(filepath.Join(home, ".lore", "config.toml"), []byte("[boot\nbudget = \n"), 0o600)
	if r := lore("list"); r.code != 1 || !strings.Contains(r.err, "config.toml") || strings.Count(r.err, "\n") != 1 {
		t.Errorf("a damaged settings file: exit %d, %q", r.code, r.err)
	}
	os.WriteFile(filepath.Join(home, ".lore", "config.toml"), []byte("budjet = 3\n"), 0o600)
	if r := lore("list"); r.code != 1 || !strings.Contains(r.err, "unknown key budjet") {
		t.Errorf("an unknown key in the file: exit %d, %q", r.code, r.err)
	}
}

func TestGlobHolds(t *testing.T) {
	for _, tt := range []struct {
		glob, path string
		want       bool
	}{
		{"/home/ann/cron/*", "/home/ann/cron/s1.jsonl", true},
		{"/home/ann/cron", "/home/ann/cron/deep/s1.jsonl", true},
		{"/home/ann/cron/*", "/home/ann/work/s1.jsonl", false},
	} {
		if got := globHolds(tt.glob, tt.path); got != tt.want {
			t.Errorf("globHolds(%q, %q) = %v", tt.glob, tt.path, got)
		}
	}
}

// TestConfigPaths: the settings' extra paths are looked in when no PATH
// is given, and their excluded paths left alone.
func TestConfigPaths(t *testing.T) {
	home := t.TempDir()
	dir := fixtures(t)
	if r := runLore(t, home, "config", "set", "sessions.extra_paths", dir); r.code != 0 {
		t.Fatal(r.err)
	}
	all := runLore(t, home, "sessions", "--json")
	if all.code != 0 || !strings.Contains(all.stdout, "v1_sidechain.jsonl") {
		t.Fatalf("sessions with an extra path: exit %d, %q %q", all.code, all.stdout, all.err)
	}
	if r := runLore(t, home, "config", "set", "sessions.exclude_paths", filepath.Join(dir, "v1_*")); r.code != 0 {
		t.Fatal(r.err)
	}
	if r := runLore(t, home, "sessions", "--json"); r.code != 0 || strings.Contains(r.stdout, "v1_sidechain.jsonl") || r.stdout == "" {
		t.Errorf("sessions with v1_* excluded: exit %d, %q", r.code, r.stdout)
	}
}
