package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// result is what one lore invocation did.
type result struct {
	code        int
	stdout, err string
}

// runLore runs the command line in-process with a home folder of its own, so
// that no transcript of the machine running the tests is read.
func runLore(t *testing.T, home string, args ...string) result {
	t.Helper()
	if home == "" {
		home = t.TempDir()
	}
	return runIn(t, testEnv(home, nil), "", nil, args...)
}

// testEnv is a Linux machine with home as its home and current folder, and
// env as its environment variables.
func testEnv(home string, env map[string]string) transcript.Env {
	return transcript.Env{Home: home, GOOS: "linux", Cwd: home, Getenv: func(k string) string { return env[k] }}
}

// runIn runs the command line in-process on the machine env, with stdin
// as standard input. change, when not nil, changes the factory first.
func runIn(t *testing.T, env transcript.Env, stdin string, change func(*factory), args ...string) result {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	fac := newFactory(ios, env)
	if change != nil {
		change(fac)
	}
	code := run(context.Background(), fac, args)
	return result{code, out.String(), errOut.String()}
}

// fixtures copies the transcript package's Claude Code fixtures into a
// fresh folder and returns it.
func fixtures(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("..", "..", "transcript", "testdata", "claude")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestVersion(t *testing.T) {
	r := runLore(t, "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "lore ") {
		t.Fatalf("lore version: %+v", r)
	}
	line := r.stdout
	r = runLore(t, "", "version", "--json")
	var v map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v["version"] == "" {
		t.Fatalf("lore version --json: %q (%v)", r.stdout, err)
	}
	if _, ok := v["commit"]; !ok {
		t.Errorf("lore version --json has no commit: %q", r.stdout)
	}
	// As in gh and git.
	for _, flag := range []string{"--version", "-v"} {
		if r := runLore(t, "", flag); r.code != 0 || r.stdout != line {
			t.Errorf("lore %s: exit %d, %q; want lore version's %q", flag, r.code, r.stdout, line)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	dir := fixtures(t)
	for _, args := range [][]string{
		{"sessions", "--bogus"},
		{"sessions", "--agent", "windsurf"},
		{"sessions", "--since", "last week"},
		{"nosuchcommand"},
		{"sessions", "show"},
		{"sessions", "show", "a", "b"},
		{"sample", dir, "--format", "xml"},
		{"sample", dir, "--json", "--format", "paths"},
		{"sample", dir, "--top-percent", "150"},
		{"sample", dir, "--count", "-1"},
		{"version", "extra"},
	} {
		r := runLore(t, "", args...)
		if r.code != 2 {
			t.Errorf("lore %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), r.code, r.err)
		}
		if !strings.HasPrefix(r.err, "lore: ") || strings.Count(r.err, "\n") > 2 {
			t.Errorf("lore %s: stderr %q, want a short error", strings.Join(args, " "), r.err)
		}
	}
}

func TestSessionsNothingFound(t *testing.T) {
	home := t.TempDir()
	r := runLore(t, home, "sessions")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.err, "lore looked in") || !strings.Contains(r.err, filepath.Join(home, ".claude", "projects")) {
		t.Errorf("stderr does not say where lore looked: %q", r.err)
	}
}

func TestSessionsDiscoversDefaultLocation(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	os.MkdirAll(filepath.Dir(projects), 0o755)
	if err := os.Rename(fixtures(t), projects); err != nil {
		t.Fatal(err)
	}
	r := runLore(t, home, "sessions", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if n := strings.Count(r.stdout, "\n"); n != 4 {
		t.Errorf("got %d sessions, want 4:\n%s", n, r.stdout)
	}
}

func TestSessionsJSONFields(t *testing.T) {
	r := runLore(t, "", "sessions", "--json", fixtures(t))
	if r.code != 0 || r.err != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4", len(lines))
	}
	want := strings.Fields(`id agent path repo cwd branch model started_at ended_at messages user_messages
		assistant_messages tool_calls tool_errors input_tokens output_tokens cache_read_tokens cache_write_tokens outcome warnings`)
	sort.Strings(want)
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		var got []string
		for k := range m {
			got = append(got, k)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("fields %v, want exactly %v", got, want)
		}
		if m["id"] == "claude-code:0b6c1a52-6f0e-4c7e-9b1a-1f2e3d4c5b6a" {
			if m["messages"] != 3.0 || m["tool_calls"] != 2.0 || m["tool_errors"] != 1.0 || m["outcome"] != "success" ||
				m["started_at"] != "2025-09-03T10:00:00.000Z" || m["repo"] != "proj" || m["output_tokens"] != 88.0 {
				t.Errorf("wrong values: %v", m)
			}
		}
	}
	// Newest first.
	var first map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	if first["id"] != "claude-code:5d1e0c55-2b7e-4f0e-9d7a-2f6c3b1e8a10" {
		t.Errorf("first listed %v, want the newest session", first["id"])
	}
}

func TestSessionsProblemsAndExitCodes(t *testing.T) {
	dir := fixtures(t)
	junk := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(junk, []byte(`{"level":"info"}`+"\n"), 0o644)

	// A bad file beside good ones: reported, and the run goes on.
	r := runLore(t, "", "sessions", junk, dir)
	if r.code != 0 || strings.Count(r.stdout, "claude-code:") != 4 {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.HasPrefix(r.err, junk+": not a transcript") || strings.Count(r.err, "\n") != 1 {
		t.Errorf("stderr %q, want one line about %s", r.err, junk)
	}
	// Nothing readable in the given paths: exit 1.
	r = runLore(t, "", "sessions", junk)
	if r.code != 1 {
		t.Errorf("only junk: exit %d, want 1", r.code)
	}
	r = runLore(t, "", "sessions", filepath.Join(dir, "missing.jsonl"))
	if r.code != 1 || !strings.Contains(r.err, "no such file") {
		t.Errorf("missing path: exit %d, stderr %q", r.code, r.err)
	}
}

func TestSessionsTableAndFilters(t *testing.T) {
	dir := fixtures(t)
	r := runLore(t, "", "sessions", dir)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "STARTED") || strings.Count(r.stdout, "\n") != 5 {
		t.Fatalf("table: exit %d\n%s", r.code, r.stdout)
	}
	r = runLore(t, "", "sessions", dir, "--since", "2026-01-01", "--json")
	if n := strings.Count(r.stdout, "\n"); n != 1 {
		t.Errorf("--since kept %d sessions, want 1", n)
	}
	r = runLore(t, "", "sessions", dir, "--agent", "codex", "--json")
	if r.code != 0 || r.stdout != "" {
		t.Errorf("--agent codex: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestSessionsShow(t *testing.T) {
	dir := fixtures(t)
	file := filepath.Join(dir, "v1_sidechain.jsonl")
	byPath := runLore(t, "", "sessions", "show", file)
	if byPath.code != 0 || !strings.Contains(byPath.stdout, "#0 user") || !strings.Contains(byPath.stdout, "→ Task [toolu_task]") ||
		!strings.Contains(byPath.stdout, "[toolu_grep] error: grep: bad regex") {
		t.Fatalf("show by path: exit %d\n%s%s", byPath.code, byPath.stdout, byPath.err)
	}
	// By an id prefix, looked up under --in.
	byID := runLore(t, "", "sessions", "show", "claude-code:0b6c1a52", "--in", dir)
	if byID.code != 0 || byID.stdout != byPath.stdout {
		t.Errorf("show by id differs from show by path (exit %d):\n%s", byID.code, byID.stdout)
	}
	// By a native id prefix, as JSON.
	r := runLore(t, "", "sessions", "show", "0b6c1a52", "--in", dir, "--json")
	var d struct {
		ID         string `json:"id"`
		Messages   int    `json:"messages"`
		Transcript []struct {
			Index       int    `json:"index"`
			Role        string `json:"role"`
			ToolResults []struct {
				CallID  string `json:"call_id"`
				IsError bool   `json:"is_error"`
			} `json:"tool_results"`
		} `json:"transcript"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("show --json: %v\n%s", err, r.stdout)
	}
	if d.ID != "claude-code:0b6c1a52-6f0e-4c7e-9b1a-1f2e3d4c5b6a" || d.Messages != 3 || len(d.Transcript) < 6 {
		t.Errorf("show --json: id %s, %d messages, %d transcript entries", d.ID, d.Messages, len(d.Transcript))
	}
	// An id that matches nothing is a failure, an ambiguous one a usage error.
	if r := runLore(t, "", "sessions", "show", "nope", "--in", dir); r.code != 1 {
		t.Errorf("unknown id: exit %d", r.code)
	}
	if r := runLore(t, "", "sessions", "show", "claude-code:", "--in", dir); r.code != 2 || !strings.Contains(r.err, "matches 4 sessions") {
		t.Errorf("ambiguous id: exit %d, %q", r.code, r.err)
	}
}

func TestShowCutsLongTexts(t *testing.T) {
	long := strings.Repeat("line\n", 100)
	line := `{"type":"user","sessionId":"s1","uuid":"a","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":` + jsonString(long) + `}}`
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(path, []byte(line+"\n"), 0o644)
	short := runLore(t, "", "sessions", "show", path)
	full := runLore(t, "", "sessions", "show", path, "--full")
	if !strings.Contains(short.stdout, "88 more lines") || strings.Count(full.stdout, "line\n") != 100 {
		t.Errorf("cut: %q\nfull has %d lines", short.stdout, strings.Count(full.stdout, "line\n"))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestSample(t *testing.T) {
	dir := fixtures(t)
	r := runLore(t, "", "sample", dir, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	type entry struct {
		Path      string         `json:"path"`
		ID        string         `json:"id"`
		Agent     string         `json:"agent"`
		Score     int            `json:"score"`
		Breakdown map[string]int `json:"breakdown"`
		Messages  int            `json:"messages"`
		Repos     []string       `json:"repos"`
		IsFailure bool           `json:"is_failure"`
	}
	// A list: one object per line, as sessions, search and list print.
	var list []entry
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var e entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("sample --json: line %q: %v", line, err)
		}
		list = append(list, e)
	}
	if len(list) != 4 {
		t.Fatalf("sample --json: %d entries\n%s", len(list), r.stdout)
	}
	for i, e := range list {
		sum := 0
		for _, k := range []string{"recency", "length", "repo_unique", "outcome", "tool_calls"} {
			v, ok := e.Breakdown[k]
			if !ok {
				t.Fatalf("breakdown lacks %s: %v", k, e.Breakdown)
			}
			sum += v
		}
		if sum != e.Score || e.Path == "" || e.Agent != "claude-code" {
			t.Errorf("entry %d: %+v", i, e)
		}
		if i > 0 && list[i-1].Score < e.Score {
			t.Errorf("not best first: %d then %d", list[i-1].Score, e.Score)
		}
		if e.IsFailure != (e.Breakdown["outcome"] == 3) {
			t.Errorf("is_failure %v with outcome points %d", e.IsFailure, e.Breakdown["outcome"])
		}
	}
	// All fixtures share the repository "proj": exactly one is its oldest.
	unique := 0
	for _, e := range list {
		if e.Breakdown["repo_unique"] == 5 {
			unique++
		}
	}
	if unique != 1 {
		t.Errorf("%d sessions scored as their repository's oldest, want 1", unique)
	}

	r = runLore(t, "", "sample", dir, "--count", "2", "--format", "paths")
	paths := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(paths) != 2 || paths[0] != list[0].Path {
		t.Errorf("--format paths --count 2: %q", r.stdout)
	}
	out := filepath.Join(t.TempDir(), "s.json")
	r = runLore(t, "", "sample", dir, "--top-percent", "50", "--json", "--output", out)
	b, _ := os.ReadFile(out)
	if r.code != 0 || r.stdout != "" || strings.Count(string(b), `"path"`) != 2 {
		t.Errorf("--top-percent 50 --output: exit %d, stdout %q, file %s", r.code, r.stdout, b)
	}
	if fi, err := os.Stat(out); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("--output file mode %v; want 0600, as it names the user's sessions", fi.Mode().Perm())
	}
}

// lore sessions show never prints a secret unless asked with --raw.
func TestShowRedactsSecrets(t *testing.T) {
	secrets := []string{
		"ghp_" + strings.Repeat("a1B2", 9),
		"AKIAIOSFODNN7EXAMPLE",
		"sk-ant-api03-" + strings.Repeat("xY9_", 20),
		"hunter2hunter2",
	}
	user := `export GITHUB_TOKEN=` + secrets[0] + ` and key ` + secrets[1]
	tool := `postgres://admin:` + secrets[3] + `@db.internal:5432/app and ANTHROPIC_API_KEY=` + secrets[2]
	lines := []string{
		`{"type":"user","sessionId":"s1","uuid":"a","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":` + jsonString(user) + `}}`,
		`{"type":"assistant","sessionId":"s1","uuid":"b","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","role":"assistant","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + jsonString("curl -H 'Authorization: Bearer "+secrets[0]+"'") + `}}]},"requestId":"r"}`,
		`{"type":"user","sessionId":"s1","uuid":"c","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + jsonString(tool) + `}]}}`,
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	for _, args := range [][]string{{"sessions", "show", path}, {"sessions", "show", path, "--json"}, {"sessions", "show", path, "--full"}} {
		r := runLore(t, "", args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d %s", args, r.code, r.err)
		}
		for _, sec := range secrets {
			if strings.Contains(r.stdout, sec) {
				t.Errorf("%v prints %s", args, sec)
			}
		}
		if !strings.Contains(r.stdout, "[REDACTED:") {
			t.Errorf("%v: no redaction marker in\n%s", args, r.stdout)
		}
	}
	raw := runLore(t, "", "sessions", "show", path, "--raw", "--full")
	for _, sec := range secrets {
		if !strings.Contains(raw.stdout, sec) {
			t.Errorf("--raw hides %s", sec)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	day, _ := time.ParseInLocation("2006-01-02", "2026-01-01", time.Local)
	for in, want := range map[string]time.Time{
		"2026-01-01":           day,
		"2026-05-01T09:00:00Z": time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC),
		"12h":                  now.Add(-12 * time.Hour),
		"7d":                   now.AddDate(0, 0, -7),
		"2w":                   now.AddDate(0, 0, -14),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"last week", "7", "d", "-3d", "7y", "2026-13-01"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q): no error", bad)
		}
	}
}

// TestAgentAlias: claude is accepted wherever claude-code is.
func TestAgentAlias(t *testing.T) {
	dir := fixtures(t)
	a := runLore(t, "", "sessions", dir, "--agent", "claude", "--json")
	b := runLore(t, "", "sessions", dir, "--agent", "claude-code", "--json")
	if a.code != 0 || a.stdout == "" || a.stdout != b.stdout {
		t.Errorf("--agent claude: exit %d, %d bytes; --agent claude-code gives %d bytes", a.code, len(a.stdout), len(b.stdout))
	}
	if r := runLore(t, "", "sessions", dir, "--since", "10000d", "--json"); r.code != 0 || r.stdout == "" {
		t.Errorf("--since 10000d: exit %d, %q", r.code, r.err)
	}
}

// TestHelpGroupsAndCompletion: lore --help lists the commands in groups,
// completion among them; completion completes the values of --agent,
// --category and --status.
func TestHelpGroupsAndCompletion(t *testing.T) {
	r := runLore(t, "", "--help")
	for _, want := range []string{"Read what agents left behind:", "Hand it to agents:\n  boot", "completion"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lore --help lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Additional Commands") {
		t.Errorf("a command is in no group:\n%s", r.stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "sessions", "--agent", ""}, "claude-code\n"},
		{[]string{"__complete", "list", "--status", ""}, "candidate\n"},
		{[]string{"__complete", "search", "x", "--category", ""}, "tool-quirk\n"},
	} {
		if r := runLore(t, "", tt.args...); r.code != 0 || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("lore %v: exit %d, %q", tt.args, r.code, r.stdout)
		}
	}
	if r := runLore(t, "", "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("lore completion bash: exit %d", r.code)
	}
	// Item ids, from the store, with the start of their text.
	home := t.TempDir()
	r = runLore(t, home, "add", "`make test` runs the tests.", "--category", "fact", "--json")
	var it struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &it); err != nil || it.ID == "" {
		t.Fatalf("add: %q", r.stdout)
	}
	for _, cmd := range []string{"show", "promote", "edit", "forget"} {
		r := runLore(t, home, "__complete", cmd, it.ID[:3])
		if r.code != 0 || !strings.Contains(r.stdout, it.ID+"\t`make test` runs the tests.") {
			t.Errorf("lore __complete %s %s: %q", cmd, it.ID[:3], r.stdout)
		}
	}
}
