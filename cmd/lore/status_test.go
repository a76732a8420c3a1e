package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/transcript"
)

// statusJSON is lore status --json as a user's script reads it.
type statusJSON struct {
	Store struct {
		Path              string         `json:"path"`
		Exists            bool           `json:"exists"`
		Bytes             int64          `json:"bytes"`
		Items             map[string]int `json:"items"`
		SessionsHarvested int            `json:"sessions_harvested"`
		LastHarvest       *string        `json:"last_harvest"`
		Error             string         `json:"error"`
	} `json:"store"`
	Agents []struct {
		Agent       string   `json:"agent"`
		Transcripts int      `json:"transcripts"`
		Paths       []string `json:"paths"`
	} `json:"agents"`
	Hooks []struct {
		Agent     string `json:"agent"`
		File      string `json:"file"`
		Installed bool   `json:"installed"`
		Hooks     []struct {
			Event   string `json:"event"`
			Command string `json:"command"`
		} `json:"hooks"`
		Missing []string `json:"missing"`
	} `json:"hooks"`
	Context []struct {
		File  string `json:"file"`
		Block bool   `json:"block"`
	} `json:"context_files"`
	HookLog struct {
		Path     string   `json:"path"`
		Exists   bool     `json:"exists"`
		Modified *string  `json:"modified"`
		Tail     []string `json:"tail"`
		Errors   []string `json:"errors"`
	} `json:"hook_log"`
	Next struct {
		Command string `json:"command"`
		Why     string `json:"why"`
	} `json:"next"`
}

func parseStatus(t *testing.T, r result) statusJSON {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("lore status --json: exit %d: %s%s", r.code, r.stdout, r.err)
	}
	var s statusJSON
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("not one JSON line (%v): %q", err, r.stdout)
	}
	return s
}

type doctorJSON struct {
	OK     bool          `json:"ok"`
	Checks []doctorCheck `json:"checks"`
}

func parseDoctor(t *testing.T, r result) doctorJSON {
	t.Helper()
	var d doctorJSON
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("not JSON (%v): %q (stderr %q)", err, r.stdout, r.err)
	}
	if want := map[bool]int{true: 0, false: 1}[d.OK]; r.code != want {
		t.Errorf("lore doctor: ok %t, exit %d", d.OK, r.code)
	}
	return d
}

func (d doctorJSON) check(t *testing.T, name string) doctorCheck {
	t.Helper()
	for _, c := range d.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, d.Checks)
	return doctorCheck{}
}

// machine is a fake home with a lore binary in its bin folder, on PATH.
type machine struct {
	env transcript.Env
	exe string
}

// Its temporary folder is elsewhere, so that its lore is not taken for a
// go run build: tests using it cannot run in parallel.
func newMachine(t *testing.T) machine {
	home := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	bin := filepath.Join(home, "bin")
	exe := filepath.Join(bin, "lore")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return machine{testEnv(home, map[string]string{"PATH": bin}), exe}
}

func (m machine) run(t *testing.T, args ...string) result {
	t.Helper()
	return runIn(t, m.env, "", func(f *factory) {
		f.Executable = func() (string, error) { return m.exe, nil }
	}, args...)
}

// withSessions copies the Claude Code fixtures where Claude Code writes
// transcripts, and returns how many transcripts that is.
func (m machine) withSessions(t *testing.T) int {
	t.Helper()
	src := fixtures(t)
	dst := filepath.Join(m.env.Home, ".claude", "projects")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, dst); err != nil {
		t.Fatal(err)
	}
	ins, _ := transcript.Inputs([]string{dst})
	return len(ins)
}

// installHooks installs lore's Claude Code hooks as the lore at prog, a
// path, which need not be there.
func (m machine) installHooks(t *testing.T, prog string) string {
	t.Helper()
	r := runHooks(t, m.env, "/opt/lore/bin/lore", "hooks", "install", "claude")
	if r.code != 0 {
		t.Fatalf("hooks install: %d %s", r.code, r.err)
	}
	file := filepath.Join(m.env.Home, ".claude", "settings.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(b), "/opt/lore/bin/lore", prog)), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestStatusWithoutStore(t *testing.T) {
	m := newMachine(t)
	r := m.run(t, "status")
	if r.code != 0 || r.err != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	for _, want := range []string{"store     ~/.lore/lore.db: none yet", "sessions  no agent transcripts",
		"claude        not installed", "next      lore sessions PATH: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	s := parseStatus(t, m.run(t, "status", "--json"))
	if s.Store.Exists || s.Store.Path != filepath.Join(m.env.Home, ".lore", "lore.db") || s.Store.LastHarvest != nil || s.HookLog.Exists {
		t.Errorf("store %+v, hook log %+v", s.Store, s.HookLog)
	}
	if _, err := os.Stat(filepath.Join(m.env.Home, ".lore")); err == nil {
		t.Error("lore status made the store's folder")
	}

	// With sessions to harvest, the next step is the harvest.
	n := m.withSessions(t)
	s = parseStatus(t, m.run(t, "status", "--json"))
	if len(s.Agents) != 1 || s.Agents[0].Agent != "claude-code" || s.Agents[0].Transcripts != n || n == 0 {
		t.Errorf("agents %+v, want claude-code with %d transcripts", s.Agents, n)
	}
	if s.Next.Command != "lore harvest" {
		t.Errorf("next %+v, want lore harvest", s.Next)
	}

	for _, args := range [][]string{{"status", "now"}, {"doctor", "--fix"}, {"status", "--json=maybe"}} {
		if r := m.run(t, args...); r.code != 2 {
			t.Errorf("lore %s: exit %d, want 2 (usage)", strings.Join(args, " "), r.code)
		}
	}

	d := parseDoctor(t, m.run(t, "doctor", "--json"))
	if c := d.check(t, "store"); c.OK || !strings.Contains(c.Fix, "lore harvest") {
		t.Errorf("doctor without a store: %+v", c)
	}
	if c := d.check(t, "store folder"); !c.OK {
		t.Errorf("a store folder yet to be made fails: %+v", c)
	}
}

func TestStatusAndDoctorWithStoreAndHooks(t *testing.T) {
	m := newMachine(t)
	n := m.withSessions(t)
	if r := m.run(t, "harvest"); r.code != 0 {
		t.Fatalf("harvest: %d %s", r.code, r.err)
	}
	file := m.installHooks(t, m.exe)
	agents := filepath.Join(m.env.Home, "AGENTS.md")
	if r := m.run(t, "context", "write", agents); r.code != 0 {
		t.Fatalf("context write: %s", r.err)
	}
	log := filepath.Join(m.env.Home, ".lore", "hook-harvest.log")
	if err := os.WriteFile(log, []byte("1 sessions: 1 harvested, 0 unchanged or lore's own; 0 errors (sessions or transcripts that could not be read or harvested)\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	s := parseStatus(t, m.run(t, "status", "--json"))
	items := 0
	for _, k := range []string{"active", "candidate", "superseded", "retired"} {
		c, ok := s.Store.Items[k]
		if !ok {
			t.Errorf("items lack %q: %v", k, s.Store.Items)
		}
		items += c
	}
	if !s.Store.Exists || s.Store.Bytes == 0 || items == 0 || s.Store.SessionsHarvested == 0 || s.Store.LastHarvest == nil {
		t.Errorf("store %+v", s.Store)
	}
	if len(s.Agents) != 1 || s.Agents[0].Transcripts != n {
		t.Errorf("agents %+v", s.Agents)
	}
	if len(s.Hooks) != 2 || s.Hooks[0].Agent != "claude" || s.Hooks[0].File != file || !s.Hooks[0].Installed || len(s.Hooks[0].Hooks) != 4 ||
		s.Hooks[1].Agent != "gemini" || s.Hooks[1].Installed || len(s.Hooks[1].Missing) != 1 {
		t.Errorf("hooks %+v", s.Hooks)
	}
	if len(s.Context) != 1 || s.Context[0].File != agents || !s.Context[0].Block {
		t.Errorf("context files %+v", s.Context)
	}
	if !s.HookLog.Exists || s.HookLog.Modified == nil || len(s.HookLog.Tail) != 1 || len(s.HookLog.Errors) != 0 {
		t.Errorf("hook log %+v", s.HookLog)
	}
	if s.Store.Items["candidate"] > 0 && s.Next.Command != "lore review" {
		t.Errorf("next %+v with candidates waiting", s.Next)
	}

	r := m.run(t, "status")
	for _, want := range []string{"claude        installed (4 hooks), running " + m.exe, "~/AGENTS.md: lore block",
		"hook log  ~/.lore/hook-harvest.log, last written ", "harvested, the last at "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}

	d := parseDoctor(t, m.run(t, "doctor", "--json"))
	if !d.OK {
		t.Errorf("doctor fails on a sound machine: %+v", d.Checks)
	}
	for _, name := range []string{"store", "store folder", "hooks claude", "hooks gemini", "lore on PATH", "hook log"} {
		if c := d.check(t, name); !c.OK || c.Fix != "" || c.Detail == "" {
			t.Errorf("check %+v", c)
		}
	}
	if c := d.check(t, "lore on PATH"); !strings.Contains(c.Detail, "the lore running now") {
		t.Errorf("lore on PATH: %+v", c)
	}
	r = m.run(t, "doctor")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "all checks pass\n") {
		t.Errorf("doctor: exit %d\n%s%s", r.code, r.stdout, r.err)
	}

	// Another lore on PATH than the one running fails, naming both.
	other := m
	other.exe = filepath.Join(m.env.Home, "other-lore")
	if err := os.WriteFile(other.exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d = parseDoctor(t, other.run(t, "doctor", "--json"))
	if c := d.check(t, "lore on PATH"); c.OK || !strings.Contains(c.Detail, other.exe) || c.Fix == "" {
		t.Errorf("another lore on PATH: %+v", c)
	}
}

func TestDoctorHookMissingBinary(t *testing.T) {
	m := newMachine(t)
	gone := filepath.Join(m.env.Home, "old", "lore")
	m.installHooks(t, gone)
	r := m.run(t, "doctor")
	if r.code != 1 || r.err != "" {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	if !strings.Contains(r.stdout, "FAIL  hooks claude   the hooks run "+gone+", which is not there\n") ||
		!strings.Contains(r.stdout, "fix: lore hooks install claude") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
	d := parseDoctor(t, m.run(t, "doctor", "--json"))
	if c := d.check(t, "hooks claude"); c.OK || !strings.HasPrefix(c.Fix, "lore hooks install claude") {
		t.Errorf("check %+v", c)
	}

	// There but not executable.
	if err := os.MkdirAll(filepath.Dir(gone), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gone, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d = parseDoctor(t, m.run(t, "doctor", "--json"))
	if c := d.check(t, "hooks claude"); c.OK || !strings.Contains(c.Detail, "not executable") {
		t.Errorf("check %+v", c)
	}

	// Status shows which lore the hooks run.
	if s := parseStatus(t, m.run(t, "status", "--json")); !s.Hooks[0].Installed || !strings.HasPrefix(s.Hooks[0].Hooks[0].Command, gone+" ") {
		t.Errorf("status hooks %+v", s.Hooks)
	}
}

func TestDoctorPartlyInstalledHooks(t *testing.T) {
	m := newMachine(t)
	file := filepath.Join(m.env.Home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks":{"SessionStart":[{"matcher":"","hooks":[{"type":"command","command":"` + m.exe + ` boot --format claude-hook"}]}]}}`
	if err := os.WriteFile(file, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	d := parseDoctor(t, m.run(t, "doctor", "--json"))
	c := d.check(t, "hooks claude")
	if c.OK || !strings.Contains(c.Detail, "SessionEnd, PreToolUse, PostToolUseFailure") || c.Fix != "lore hooks install claude" {
		t.Errorf("check %+v", c)
	}
	if err := os.WriteFile(file, []byte(`{"hooks": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	d = parseDoctor(t, m.run(t, "doctor", "--json"))
	if c := d.check(t, "hooks claude"); c.OK || !strings.Contains(c.Detail, "invalid JSON") {
		t.Errorf("broken settings: %+v", c)
	}
	if r := m.run(t, "status"); r.code != 0 || !strings.Contains(r.stdout, "unreadable: ") {
		t.Errorf("status on broken settings: exit %d\n%s", r.code, r.stdout)
	}
}

func TestDoctorDamagedStore(t *testing.T) {
	m := newMachine(t)
	for i := range 40 {
		if r := m.run(t, "add", strings.Repeat("word ", i%7+3)+"number "+string(rune('a'+i%26))+" of the build", "-c", "fact", "--repo", "acme/api"); r.code != 0 {
			t.Fatalf("add: %s", r.err)
		}
	}
	store := filepath.Join(m.env.Home, ".lore", "lore.db")
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(data); i++ {
		data[i] ^= 0x5A
	}
	if err := os.WriteFile(store, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r := m.run(t, "doctor")
	if r.code != 1 {
		t.Errorf("exit %d", r.code)
	}
	var line string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "FAIL  store ") {
			line = l
		}
	}
	if !strings.Contains(line, "damaged") {
		t.Errorf("no one line saying the store is damaged:\n%s", r.stdout)
	}
	d := parseDoctor(t, m.run(t, "doctor", "--json"))
	if c := d.check(t, "store"); c.OK || strings.Contains(c.Detail, "\n") || c.Fix == "" {
		t.Errorf("check %+v", c)
	}
	s := parseStatus(t, m.run(t, "status", "--json"))
	if s.Store.Error == "" || s.Next.Command != "lore doctor" {
		t.Errorf("status on a damaged store: %+v, next %+v", s.Store, s.Next)
	}
}

func TestDoctorStoreFolderOpen(t *testing.T) {
	m := newMachine(t)
	if r := m.run(t, "add", "make check runs the linters", "-c", "fact"); r.code != 0 {
		t.Fatal(r.err)
	}
	dir := filepath.Join(m.env.Home, ".lore")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	d := parseDoctor(t, m.run(t, "doctor", "--json"))
	if c := d.check(t, "store folder"); c.OK || c.Fix != "chmod 700 "+dir {
		t.Errorf("check %+v", c)
	}
}

func TestHookLogErrors(t *testing.T) {
	const clean = "2 sessions: 2 harvested, 0 unchanged or lore's own; 0 errors (sessions or transcripts that could not be read or harvested)"
	const failed = "3 sessions: 2 harvested, 0 unchanged or lore's own; 1 errors (sessions or transcripts that could not be read or harvested)"
	const stored = "items stored: 1 new, 0 merged, 0 superseded; 0 refused as instructions, 0 held as candidates; 0 secrets redacted"
	const took = "0.1 s, 9.0 KiB of transcripts read"
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"clean", []string{clean, stored, took}, nil},
		{"an error, then a clean run", []string{"/x/t.jsonl: unexpected EOF", failed, stored, took, clean, stored, took}, nil},
		{"a clean run, then an error", []string{clean, stored, took, "/x/t.jsonl: unexpected EOF", failed, stored, took},
			[]string{"/x/t.jsonl: unexpected EOF", failed}},
		{"lore's own error", []string{clean, "lore: open store /s/lore.db: the store file is damaged"}, []string{"lore: open store /s/lore.db: the store file is damaged"}},
		// As the hook's harvests write it: every line with its time and
		// session, a first line for each run, the store and the next step
		// after the summary.
		{"stamped", []string{
			"2026-11-28T17:55:02Z claude-code:s1: harvest of /x/a.jsonl started",
			"2026-11-28T17:55:03Z claude-code:s1: " + clean, "2026-11-28T17:55:03Z claude-code:s1: " + stored,
			"2026-11-28T17:55:03Z claude-code:s1: the store: /s/lore.db", "2026-11-28T17:55:03Z claude-code:s1: next: lore list",
			"2026-11-28T18:01:00Z claude-code:s2: harvest of /x/t.jsonl started",
			"2026-11-28T18:01:01Z claude-code:s2: /x/t.jsonl: unexpected EOF",
			"2026-11-28T18:01:01Z claude-code:s2: " + failed, "2026-11-28T18:01:01Z claude-code:s2: " + stored},
			[]string{"/x/t.jsonl: unexpected EOF", failed}},
	} {
		got := logErrors(c.lines)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
