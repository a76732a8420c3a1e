package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/internal/claudehook"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/sqlite"
	"github.com/lorehq/lore/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runLoreStdin is runLore with standard input and environment variables.
func runLoreStdin(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	return runIn(t, testEnv(t.TempDir(), env), stdin, nil, args...)
}

// bootStore makes a store with a note for acme/api and a global one.
func bootStore(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lore.db")
	for _, args := range [][]string{
		{"add", "Pushing to main fails with HTTP 405; open a pull request.", "-c", "pitfall", "--repo", "acme/api"},
		{"add", "The Edit tool fails until the file is read.", "-c", "tool-quirk", "--agent", "claude-code"},
		{"add", "apply_patch needs exact context lines.", "-c", "tool-quirk", "--agent", "codex"},
	} {
		if r := runLore(t, "", append(args, "--store", p)...); r.code != 0 {
			t.Fatalf("%v: %s", args, r.err)
		}
	}
	return p
}

func boots(t *testing.T, store string) []lore.Boot {
	t.Helper()
	st, err := sqlite.Open(context.Background(), store, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var bs []lore.Boot
	st.Boots(context.Background(), time.Time{}, func(b lore.Boot) error { bs = append(bs, b); return nil })
	return bs
}

func TestBootFormats(t *testing.T) {
	store := bootStore(t)
	r := runLore(t, "", "boot", "--repo", "acme/api", "--agent", "claude-code", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 405") || !strings.Contains(r.stdout, "Edit tool") || strings.Contains(r.stdout, "apply_patch") {
		t.Fatalf("boot: exit %d\n%s%s", r.code, r.stdout, r.err)
	}
	r = runLore(t, "", "boot", "--repo", "acme/api", "--json", "--budget", "500", "--task", "push", "--store", store)
	var c struct {
		Context string `json:"context"`
		Tokens  int    `json:"tokens"`
		Budget  int    `json:"budget"`
		Items   []struct {
			ID, Text, Category, Repo string
			Confidence, Score        float64
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || c.Budget != 500 || c.Tokens == 0 || c.Tokens > 500 ||
		len(c.Items) != 1 || c.Items[0].Repo != "acme/api" || c.Items[0].Score == 0 {
		t.Errorf("boot --json: %v\n%s", err, r.stdout)
	}
	if bs := boots(t, store); len(bs) != 2 || bs[1].Task != "push" || len(bs[1].Items) != 1 || bs[1].Tokens != c.Tokens {
		t.Errorf("boot records: %+v", bs)
	}
}

func TestBootClaudeHook(t *testing.T) {
	store := bootStore(t)
	dir := filepath.Join(t.TempDir(), "api") // not a git folder: the repo is its name
	os.MkdirAll(dir, 0o755)
	in := `{"session_id":"5c0375b4","transcript_path":"/x.jsonl","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`
	r := runLoreStdin(t, nil, in, "boot", "--format", "claude-hook", "--store", store)
	var out claudehook.SessionStartOutput
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.HookSpecificOutput.HookEventName != "SessionStart" ||
		!strings.Contains(out.HookSpecificOutput.AdditionalContext, "Edit tool") {
		t.Fatalf("hook: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	if bs := boots(t, store); len(bs) != 1 || bs[0].Session != "claude-code:5c0375b4" || bs[0].Repo != "api" || bs[0].Agent != "claude-code" {
		t.Errorf("the hook's boot record: %+v", bs)
	}
	// Fails open: a damaged store, or lore's own session, gives an empty
	// context and exit 0.
	bad := filepath.Join(t.TempDir(), "lore.db")
	os.WriteFile(bad, []byte("this is not a database, not even close to one....................................................."), 0o600)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"damaged store", nil, []string{"--store", bad}},
		{"lore's own session", map[string]string{"LORE_HARVEST": "1"}, []string{"--store", store}},
		{"garbage input", nil, []string{"--store", store}},
	} {
		stdin := in
		if tc.name == "garbage input" {
			stdin = "{not json"
		}
		r := runLoreStdin(t, tc.env, stdin, append([]string{"boot", "--format", "claude-hook"}, tc.args...)...)
		out = claudehook.SessionStartOutput{}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.HookSpecificOutput.AdditionalContext != "" ||
			out.HookSpecificOutput.HookEventName != "SessionStart" {
			t.Errorf("%s: exit %d, %q, %q", tc.name, r.code, r.stdout, r.err)
		}
	}
}

func TestBootUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"boot", "--format", "xml"},
		{"boot", "--repo", "a/b", "--cwd", "."},
		{"boot", "--tokenizer", "p50k"},
		{"boot", "--budget", "-5"},
		{"boot", "--min-confidence", "2"},
		{"boot", "--agent", "windsurf"},
		{"boot", "--json", "--format", "md"},
		{"boot", "extra"},
	} {
		if r := runLore(t, "", args...); r.code != 2 || !strings.HasPrefix(r.err, "lore: ") {
			t.Errorf("lore %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.err)
		}
	}
}

// With no store yet, boot says lore has no notes, in every format, and
// creates nothing.
func TestBootNoStoreYet(t *testing.T) {
	store := filepath.Join(t.TempDir(), "none", "lore.db")
	r := runLore(t, "", "boot", "--store", store)
	if r.code != 0 || r.stdout != boot.EmptyText || r.err != "" {
		t.Errorf("boot with no store: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	r = runLore(t, "", "boot", "--json", "--budget", "700", "--store", store)
	var c boot.Context
	if err := json.Unmarshal([]byte(r.stdout), &c); r.code != 0 || err != nil || c.Text != boot.EmptyText || c.Tokens == 0 ||
		c.Budget != 700 || c.Items == nil || !strings.Contains(r.stdout, `"items":[]`) {
		t.Errorf("boot --json with no store: exit %d, %v, %s", r.code, err, r.stdout)
	}
	r = runLoreStdin(t, nil, `{"session_id":"x","cwd":"/tmp"}`, "boot", "--format", "claude-hook", "--store", store)
	var out claudehook.SessionStartOutput
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.HookSpecificOutput.AdditionalContext != boot.EmptyText {
		t.Errorf("hook with no store: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("boot created a store")
	}
	// An empty store says the same.
	empty := filepath.Join(t.TempDir(), "lore.db")
	st, err := sqlite.Open(context.Background(), empty, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if r := runLore(t, "", "boot", "--store", empty); r.code != 0 || r.stdout != boot.EmptyText {
		t.Errorf("boot with an empty store: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
}

// The hook reads one JSON value: Claude Code, or anything else, may keep
// standard input open after writing it, and the context must not wait for
// the end of input (until the deadline empties it).
func TestBootHookInputKeptOpen(t *testing.T) {
	store := bootStore(t)
	dir := filepath.Join(t.TempDir(), "api")
	os.MkdirAll(dir, 0o755)
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"session_id":"5c0375b4","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}` + "\n"))
	ios, _, out, errOut := iostreams.Test()
	ios.In = pr
	begin := time.Now()
	code := run(context.Background(), newFactory(ios, testEnv(t.TempDir(), nil)), []string{"boot", "--format", "claude-hook", "--store", store})
	var got claudehook.SessionStartOutput
	if code != 0 || json.Unmarshal(out.Bytes(), &got) != nil || !strings.Contains(got.HookSpecificOutput.AdditionalContext, "Edit tool") {
		t.Errorf("exit %d, %q, %q", code, out, errOut)
	}
	if d := time.Since(begin); d > hookDeadline/2 {
		t.Errorf("the hook took %s with its input left open", d)
	}
	if bs := boots(t, store); len(bs) != 1 || bs[0].Session != "claude-code:5c0375b4" {
		t.Errorf("boot records: %+v", bs)
	}
}

// As a hook, boot fails open on wrong flags and arguments too: an empty
// context in valid hook JSON, the error on standard error, exit 0.
func TestBootHookBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--budget", "-3"},
		{"--budget", "lots"},
		{"--min-confidence", "2"},
		{"--tokenizer", "p50k"},
		{"--agent", "windsurf"},
		{"--repo", "a/b", "--cwd", "."},
		{"--json"},
		{"--no-such-flag"},
		{"extra"},
	} {
		for _, hookFirst := range []bool{true, false} {
			full := append([]string{"boot"}, args...)
			if hookFirst {
				full = append([]string{"boot", "--format", "claude-hook"}, args...)
			} else {
				full = append(full, "--format=claude-hook")
			}
			r := runLoreStdin(t, nil, `{"session_id":"x"}`, full...)
			var out claudehook.SessionStartOutput
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.HookSpecificOutput.HookEventName != "SessionStart" ||
				out.HookSpecificOutput.AdditionalContext != "" || !strings.HasPrefix(r.err, "lore boot: ") || strings.Count(r.err, "\n") != 1 {
				t.Errorf("lore %s: exit %d, %q, %q", strings.Join(full, " "), r.code, r.stdout, r.err)
			}
		}
	}
	// The same flags without the hook format are usage errors.
	if r := runLore(t, "", "boot", "--budget", "-3"); r.code != 2 || r.stdout != "" {
		t.Errorf("boot --budget -3: exit %d, %q", r.code, r.stdout)
	}
}

// TestHarvestFromHook starts lore harvest --from-hook as Claude Code's
// SessionEnd hook does and waits for the detached harvest to store the
// session.
func TestHarvestFromHook(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	src := filepath.Join("..", "..", "transcript", "testdata", "claude", "v1_sidechain.jsonl")
	sessions, err := transcript.Read(context.Background(), src, transcript.Options{NoGit: true})
	if err != nil || len(sessions) != 1 {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "lore.db")
	var started []string
	// The harvest it starts is this test binary, running lore (TestMain).
	startTestBinary := func(f *factory) {
		f.SelfCommand = func(args ...string) (*exec.Cmd, error) {
			started = args
			b, _ := json.Marshal([][]string{args})
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), mainArgsEnv+"="+string(b))
			return cmd, nil
		}
	}
	in := `{"session_id":"x","transcript_path":"` + src + `","cwd":"/tmp","hook_event_name":"SessionEnd","reason":"exit"}`
	begin := time.Now()
	r := runIn(t, testEnv(t.TempDir(), nil), in, startTestBinary, "harvest", "--from-hook", "--store", store)
	if r.code != 0 || r.stdout != "" || len(started) == 0 || started[1] != src {
		t.Fatalf("exit %d, %q, %q, started %v", r.code, r.stdout, r.err, started)
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("the hook took %s: it must not wait for the harvest", d)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := sqlite.Open(context.Background(), store, sqlite.Options{})
		if err == nil {
			_, ok, _ := st.Harvested(context.Background(), sessions[0].ID, "rules")
			st.Close()
			if ok {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(filepath.Dir(store), "hook-harvest.log"))
			t.Fatalf("the background harvest did not record the session within 30 s; its log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Every line of the log says when, and for which session.
	log, _ := os.ReadFile(filepath.Join(filepath.Dir(store), "hook-harvest.log"))
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	if len(lines) < 2 {
		t.Errorf("the log: %q; want its run's first line and the harvest's", log)
	}
	for _, line := range lines {
		at, rest, _ := strings.Cut(line, " ")
		if _, err := time.Parse(time.RFC3339, at); err != nil || !strings.Contains(rest, "claude-code:") {
			t.Errorf("a line of the log without its time or session: %q", line)
		}
	}
	// Under LORE_HARVEST, nothing starts.
	started = nil
	r = runIn(t, testEnv(t.TempDir(), map[string]string{"LORE_HARVEST": "1"}), in, startTestBinary, "harvest", "--from-hook", "--store", store)
	if r.code != 0 || started != nil {
		t.Errorf("inside lore's own harvest: exit %d, started %v", r.code, started)
	}
}

// --cwd . names the repository lore runs in (README: lore boot --cwd .),
// found from its git remote, not a repository called ".".
func TestBootCwdRelative(t *testing.T) {
	store := bootStore(t)
	home := t.TempDir()
	repo := filepath.Join(home, "src", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "internal"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/acme/api.git\n"), 0o644)
	env := testEnv(home, nil)
	env.Cwd = filepath.Join(repo, "internal")
	for _, dir := range []string{".", ".."} {
		if r := runIn(t, env, "", nil, "boot", "--cwd", dir, "--store", store); r.code != 0 || !strings.Contains(r.stdout, "HTTP 405") {
			t.Errorf("boot --cwd %s: exit %d, %q, %q", dir, r.code, r.stdout, r.err)
		}
	}
	if bs := boots(t, store); len(bs) != 2 || bs[0].Repo != "acme/api" || bs[1].Repo != "acme/api" {
		t.Errorf("boot records: %+v", bs)
	}
}

// TestBootBudgetTooSmall asks for a context in fewer tokens than its
// header: nothing on standard output, and a note saying why on standard
// error.
func TestBootBudgetTooSmall(t *testing.T) {
	store := bootStore(t)
	r := runLore(t, "", "boot", "--store", store, "--repo", "acme/api", "--budget", "20")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.err, "no context fits in 20 tokens") {
		t.Errorf("budget 20: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
	r = runLore(t, "", "boot", "--store", store, "--repo", "acme/api", "--budget", "2000")
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 405") || r.err != "" {
		t.Errorf("budget 2000: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
}

// locationFactsCheckout makes a store with two location facts of
// acme/api, "`Load` is defined in `store/load.go`" and "`Save` is defined
// in `store/save.go`", and a checkout of acme/api whose working tree
// defines Load only; env's folder is the checkout.
func locationFactsCheckout(t *testing.T) (store string, env transcript.Env, repo string) {
	store = bootStore(t)
	for _, text := range []string{"`Load` is defined in `store/load.go`.", "`Save` is defined in `store/save.go`."} {
		if r := runLore(t, "", "add", text, "-c", "fact", "--repo", "acme/api", "--store", store); r.code != 0 {
			t.Fatal(r.err)
		}
	}
	home := t.TempDir()
	repo = filepath.Join(home, "src", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "store"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/acme/api.git\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "store", "load.go"), []byte("package store\n\nfunc Load() {}\n"), 0o644)
	env = testEnv(home, nil)
	env.Cwd = repo
	return store, env, repo
}

// boot --cwd in a checkout of the repository does not hand out a location
// fact whose file no longer defines the symbol; boot --repo, which has no
// working tree to look at, does.
func TestBootChecksLocationFacts(t *testing.T) {
	store, env, repo := locationFactsCheckout(t)
	r := runIn(t, env, "", nil, "boot", "--cwd", ".", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "`Load` is defined") || strings.Contains(r.stdout, "`Save` is defined") {
		t.Errorf("boot --cwd in the checkout: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	r = runIn(t, env, "", nil, "boot", "--repo", "acme/api", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "`Save` is defined") {
		t.Errorf("boot --repo: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	// lore context write in the checkout checks them the same way.
	agents := filepath.Join(repo, "AGENTS.md")
	if r = runIn(t, env, "", nil, "context", "write", agents, "--store", store); r.code != 0 {
		t.Fatalf("context write: exit %d, %q", r.code, r.err)
	}
	if b, _ := os.ReadFile(agents); !strings.Contains(string(b), "`Load` is defined") || strings.Contains(string(b), "`Save` is defined") {
		t.Errorf("context write in the checkout wrote:\n%s", b)
	}
}

// MCP boot_context, served from a checkout of the repository it is asked
// about, checks location facts against the working tree as boot --cwd
// does; asked about another repository, it has no tree to check.
func TestMCPBootChecksLocationFacts(t *testing.T) {
	store, env, _ := locationFactsCheckout(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, done, _ := mcpInProcessEnv(ctx, t, env, "mcp", "--store", store)
	defer func() { cs.Close(); <-done }()
	text := func(args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boot_context", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("boot_context %v: %v %+v", args, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	if got := text(map[string]any{}); !strings.Contains(got, "`Load` is defined") || strings.Contains(got, "`Save` is defined") {
		t.Errorf("boot_context in the checkout: %s", got)
	}
	if got := text(map[string]any{"repo": "acme/other"}); strings.Contains(got, "is defined") {
		t.Errorf("boot_context for another repository: %s", got)
	}
}
