package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/gittest"
	"github.com/lorehq/lore/internal/servetest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teamServer is lore serve in-process, with a write token of the team
// acme.
type teamServer struct {
	*servetest.Server
	token string
}

func newTeamServer(t *testing.T) *teamServer {
	s := servetest.Start(t, nil)
	return &teamServer{s, s.Token("acme", lore.ScopeWrite)}
}

// env is a machine whose store is the server's.
func (s *teamServer) env() map[string]string {
	return map[string]string{"LORE_STORE": s.URL, "LORE_TOKEN": s.token}
}

// store is the team's store on the server.
func (s *teamServer) store(t *testing.T) lore.Store { return s.Store("acme") }

// TestRemoteStore: add, search, list, show, promote, boot and the tool
// hooks work on the server's store; what needs a local store says so.
func TestRemoteStore(t *testing.T) {
	s := newTeamServer(t)
	env := s.env()
	dir := filepath.Join(t.TempDir(), "api")
	os.MkdirAll(dir, 0o755)
	pitfall := "`git push origin main` fails with `remote: error: GH006: Protected branch update failed`; push a branch and open a pull request."
	r := runLoreStdin(t, env, "", "add", pitfall, "-c", "pitfall", "--repo", "api", "--json")
	var added lore.Item
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &added) != nil || added.ID == "" {
		t.Fatalf("add: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if it, err := s.store(t).Item(context.Background(), added.ID); err != nil || it.Text != pitfall {
		t.Fatalf("the server's store has %+v (%v), want the item added", it, err)
	}
	r = runLoreStdin(t, env, "", "add", "The walrus queue keeps messages for 7 days", "-c", "fact", "--repo", "api", "--status", "candidate", "--json")
	var candidate lore.Item
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &candidate) != nil {
		t.Fatalf("add a candidate: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if r := runLoreStdin(t, env, "", "search", "protected branch", "--repo", "api"); r.code != 0 || !strings.Contains(r.stdout, "GH006") {
		t.Errorf("search: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if r := runLoreStdin(t, env, "", "list", "--status", "any"); r.code != 0 || !strings.Contains(r.stdout, added.ID[:8]) || !strings.Contains(r.stdout, candidate.ID[:8]) {
		t.Errorf("list: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if r := runLoreStdin(t, env, "", "show", added.ID[:8]); r.code != 0 || !strings.Contains(r.stdout, "GH006") {
		t.Errorf("show: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if r := runLoreStdin(t, env, "", "show", "abcdef12"); r.code != 1 || !strings.Contains(r.err, "abcdef12") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Errorf("show a missing item: exit %d %q", r.code, r.err)
	}
	if r := runLoreStdin(t, env, "", "promote", candidate.ID[:8]); r.code != 0 {
		t.Errorf("promote: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if it, _ := s.store(t).Item(context.Background(), candidate.ID); it.Status != lore.StatusActive {
		t.Errorf("promoted item is %s on the server", it.Status)
	}
	r = runLoreStdin(t, env, "", "boot", "--repo", "api", "--task", "push the walrus fix", "--session", "claude-code:b1")
	if r.code != 0 || !strings.Contains(r.stdout, "walrus") || !strings.Contains(r.stdout, "GH006") {
		t.Errorf("boot: exit %d %q %q", r.code, r.stdout, r.err)
	}
	r = runLoreStdin(t, env, preToolUse(dir, "git push origin main"), "recall", "--before-tool")
	if r.code != 0 {
		t.Fatalf("recall: exit %d %q", r.code, r.err)
	}
	if event, note := hookContext(t, r.stdout); event != "PreToolUse" || !strings.Contains(note, "GH006") {
		t.Errorf("recall: %s %q", event, note)
	}
	var kinds []string
	s.store(t).Boots(context.Background(), lore.Boot{}.At, func(b lore.Boot) error { kinds = append(kinds, b.Session+" "+b.Kind); return nil })
	if strings.Join(kinds, ",") != "claude-code:b1 ,claude-code:s1 before-tool" {
		t.Errorf("the server recorded boots %q", kinds)
	}
	// Told once: the same session asks again and is told nothing.
	if r := runLoreStdin(t, env, preToolUse(dir, "git push origin main"), "recall", "--before-tool"); r.code != 0 || r.stdout != "" {
		t.Errorf("recall again: exit %d %q", r.code, r.stdout)
	}
	if r := runLoreStdin(t, env, "", "measure", "--json"); r.code != 0 || !strings.Contains(r.stdout, "{") {
		t.Errorf("measure: exit %d %q %q", r.code, r.stdout, r.err)
	}

	if r := runLoreStdin(t, env, "", "edit", candidate.ID, "--text", "The walrus queue keeps messages for 14 days"); r.code != 0 {
		t.Errorf("edit: exit %d %q", r.code, r.err)
	}
	if it, _ := s.store(t).Item(context.Background(), candidate.ID); !strings.Contains(it.Text, "14 days") {
		t.Errorf("edited item on the server: %q", it.Text)
	}
	out := t.TempDir()
	if r := runLoreStdin(t, env, "", "export", out); r.code != 0 {
		t.Errorf("export: exit %d %q", r.code, r.err)
	}
	exported := false
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			exported = exported || strings.Contains(string(b), "14 days")
		}
		return err
	})
	if !exported {
		t.Error("the export holds no edited item")
	}
	if r := runLoreStdin(t, env, "", "forget", "--session", "claude-code:s1"); r.code != 1 || !strings.Contains(r.err, "run it on the server") {
		t.Errorf("forget: exit %d %q", r.code, r.err)
	}
	r = runLoreStdin(t, env, "", "status", "--json")
	var status statusReport
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &status) != nil || !status.Store.Remote || status.Store.Items["active"] != 2 {
		t.Errorf("status: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if r := runLoreStdin(t, env, "", "doctor"); !strings.Contains(r.stdout, "ok    store          lore serve at "+s.URL+" answers: 2 active items") {
		t.Errorf("doctor: %q", r.stdout)
	}

	// What needs the store on this machine says so, in a line.
	for _, args := range [][]string{
		{"harvest", t.TempDir()},
		{"journal", "stats"},
	} {
		r := runLoreStdin(t, env, "", args...)
		if r.code == 0 || !strings.Contains(r.err, "not on lore serve") || strings.Contains(r.err, s.token) {
			t.Errorf("%v: exit %d %q", args, r.code, r.err)
		}
	}
	// Guards stay on this machine: lore guard list says so; the check git's
	// hook runs lets the commit go on, with a note.
	repo := gittest.New(t)
	repo.Write("a.go", "package a\n")
	repo.Commit("first")
	if r := runLoreStdin(t, env, "", "guard", "list", "--repo", repo.Dir); r.code != 1 || !strings.Contains(r.err, "not on lore serve") {
		t.Errorf("guard list: exit %d %q", r.code, r.err)
	}
	if r := runLoreStdin(t, env, "", "guard", "check", "--repo", repo.Dir); r.code != 0 || !strings.Contains(r.err, "nothing checked") {
		t.Errorf("guard check: exit %d %q", r.code, r.err)
	}
	if r := runLoreStdin(t, env, "", "serve"); r.code != 2 || !strings.Contains(r.err, "--store PATH") {
		t.Errorf("serve: exit %d %q", r.code, r.err)
	}
	if r := runLoreStdin(t, env, "", "harvest", t.TempDir()); !strings.Contains(r.err, "lore push") {
		t.Errorf("harvest: %q, want it to point to lore push", r.err)
	}
	// A refused token says what to do, and never shows itself.
	bad := map[string]string{"LORE_STORE": s.URL, "LORE_TOKEN": "lore_" + strings.Repeat("a", 52)}
	if r := runLoreStdin(t, bad, "", "search", "walrus"); r.code != 1 || !strings.Contains(r.err, "lore serve token create") || strings.Contains(r.err, "aaaa") {
		t.Errorf("bad token: exit %d %q", r.code, r.err)
	}
	if r := runLoreStdin(t, map[string]string{"LORE_STORE": s.URL}, "", "search", "walrus"); r.code == 0 || !strings.Contains(r.err, "LORE_TOKEN is missing") {
		t.Errorf("no token: exit %d %q", r.code, r.err)
	}
}

// TestRemoteHooksFailOpen: with the server gone, the hooks hand over
// nothing and exit 0.
func TestRemoteHooksFailOpen(t *testing.T) {
	s := newTeamServer(t)
	env := s.env()
	dir := filepath.Join(t.TempDir(), "api")
	os.MkdirAll(dir, 0o755)
	if r := runLoreStdin(t, env, "", "add", "`git push origin main` fails with GH006 protected branch", "-c", "pitfall", "--repo", "api"); r.code != 0 {
		t.Fatalf("add: %q", r.err)
	}
	s.Stop()
	for name, run := range map[string]func() result{
		"before-tool": func() result {
			return runLoreStdin(t, env, preToolUse(dir, "git push origin main"), "recall", "--before-tool")
		},
		"after-tool": func() result {
			return runLoreStdin(t, env, postToolUseFailure(dir, "git push origin main", "GH006 protected branch"), "recall", "--after-tool")
		},
	} {
		if r := run(); r.code != 0 || r.stdout != "" || strings.Contains(r.err, s.token) {
			t.Errorf("%s with the server down: exit %d, %q, %q; want nothing, exit 0", name, r.code, r.stdout, r.err)
		}
	}
	start := `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`
	r := runLoreStdin(t, env, start, "boot", "--format", "claude-hook")
	var out struct {
		Hook struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if r.code != 0 || (r.stdout != "" && (json.Unmarshal([]byte(r.stdout), &out) != nil || out.Hook.Context != "")) {
		t.Errorf("boot hook with the server down: exit %d, %q, %q; want no context, exit 0", r.code, r.stdout, r.err)
	}
}

// TestRemoteMCP: lore mcp with a team's server for a store records,
// searches and boots through it; it offers no journal, which the server
// does not keep.
func TestRemoteMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	s := newTeamServer(t)
	ctx := context.Background()
	cs, _ := startMCP(t, []string{"LORE_STORE=" + s.URL, "LORE_TOKEN=" + s.token, "LORE_HOME=" + t.TempDir()}, "mcp", "--agent", "codex")
	defer cs.Close()
	if got := toolNames(t, cs); got != "boot_context record_knowledge search_knowledge" {
		t.Errorf("tools %q", got)
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s: %s", name, text)
		}
		return text
	}
	call("record_knowledge", map[string]any{"text": "go test ./... needs CGO_ENABLED=0 on the CI image", "category": "pitfall", "repo": "acme/api", "confidence": 0.9})
	if n, _ := s.store(t).Count(ctx, lore.Filter{Statuses: []lore.Status{lore.StatusCandidate}}); n != 1 {
		t.Errorf("the server's store has %d candidates, want the one recorded", n)
	}
	if text := call("search_knowledge", map[string]any{"query": "CGO_ENABLED", "include_candidates": true}); !strings.Contains(text, "CGO_ENABLED=0") {
		t.Errorf("search does not find the recorded item:\n%s", text)
	}
	if r := runLoreStdin(t, s.env(), "", "add", "CI images are rebuilt every Monday", "-c", "fact", "--repo", "acme/api"); r.code != 0 {
		t.Fatal(r.err)
	}
	if text := call("boot_context", map[string]any{"repo": "acme/api", "task": "fix CI"}); !strings.Contains(text, "rebuilt every Monday") {
		t.Errorf("boot_context:\n%s", text)
	}
}

// TestRemoteTokenFile: without LORE_TOKEN, lore reads the token from
// $LORE_HOME/token when only its owner can read it, and refuses one
// others can read.
func TestRemoteTokenFile(t *testing.T) {
	s := newTeamServer(t)
	home := t.TempDir()
	env := testEnv(home, map[string]string{"LORE_STORE": s.URL})
	if r := runIn(t, env, "", nil, "search", "anything"); r.code == 0 || !strings.Contains(r.err, "LORE_TOKEN") {
		t.Errorf("no token anywhere: exit %d %q", r.code, r.err)
	}
	file := filepath.Join(home, ".lore", "token")
	os.MkdirAll(filepath.Dir(file), 0o700)
	if err := os.WriteFile(file, []byte(s.token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, env, "", nil, "search", "anything"); r.code != 1 || !strings.Contains(r.err, "chmod 600") || strings.Contains(r.err, s.token) {
		t.Errorf("a token file others can read: exit %d %q", r.code, r.err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, env, "", nil, "add", "The walrus queue keeps messages for 7 days", "-c", "fact"); r.code != 0 {
		t.Errorf("with the token file: exit %d %q", r.code, r.err)
	}
	if n, err := s.store(t).Count(context.Background(), lore.Filter{AnyStatus: true}); err != nil || n != 1 {
		t.Errorf("the server holds %d items (%v), want the one added", n, err)
	}
}
