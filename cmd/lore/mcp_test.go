package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/mcpserver"
	"github.com/lorehq/lore/transcript"
)

// mcpArgsEnv makes TestMCPProcessHelper run lore with these arguments (a
// JSON list) on the process's own standard streams. TestMain's
// LORE_TEST_MAIN_ARGS cannot serve: it reads standard input to the end
// before running lore.
const mcpArgsEnv = "LORE_TEST_MCP_ARGS"

// TestMCPProcessHelper is lore mcp when the test binary is started as a
// server by TestMCPOverStdio; otherwise it does nothing.
func TestMCPProcessHelper(t *testing.T) {
	v := os.Getenv(mcpArgsEnv)
	if v == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(v), &args); err != nil {
		os.Exit(3)
	}
	os.Exit(run(context.Background(), newFactory(iostreams.System(), transcript.HostEnv()), args))
}

func TestMCPOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "sub", "lore.db") // not there yet: lore mcp creates it
	args, _ := json.Marshal([]string{"mcp", "--store", store, "--agent", "codex"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestMCPProcessHelper$")
	cmd.Env = append(os.Environ(), mcpArgsEnv+"="+string(args))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, stderr.String())
	}
	if info := cs.InitializeResult().ServerInfo; info.Name != "lore" || info.Version == "" {
		t.Errorf("server info %+v", info)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "boot_context record_knowledge search_knowledge" {
		t.Errorf("tools %q", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "record_knowledge", Arguments: map[string]any{
		"text": "go test ./... needs CGO_ENABLED=0 on the CI image", "category": "pitfall", "repo": "acme/api", "confidence": 0.9,
	}})
	if err != nil || res.IsError {
		t.Fatalf("record_knowledge: %v %+v", err, res)
	}
	// An agent's record is a candidate, found by a search that asks for
	// candidates and handed out by boot only once sessions confirm it.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_knowledge", Arguments: map[string]any{"query": "CGO_ENABLED", "include_candidates": true}})
	if err != nil || res.IsError {
		t.Fatalf("search_knowledge: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "CGO_ENABLED=0") {
		t.Errorf("search does not find the recorded item:\n%s", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "boot_context", Arguments: map[string]any{"repo": "acme/api", "task": "fix CI"}})
	if err != nil || res.IsError {
		t.Fatalf("boot_context: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, "CGO_ENABLED=0") {
		t.Errorf("boot context holds a recorded candidate:\n%s", text)
	}

	// Closing its input stops the server, and it exits 0 well before
	// the transport would send SIGTERM.
	start := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v (stderr %q)", err, stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("lore mcp took %s to stop after its input closed", d)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("store not created: %v", err)
	}
}

// mcpInProcess runs lore mcp in-process on pipes and returns a client's
// session with it, and what the command returned once it is done.
func mcpInProcess(ctx context.Context, t *testing.T, args ...string) (*mcp.ClientSession, <-chan int, *bytes.Buffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut bytes.Buffer
	ios := &iostreams.IOStreams{In: inR, Out: outW, ErrOut: &errOut}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, newFactory(ios, transcript.HostEnv()), args)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, errOut.String())
	}
	return cs, done, &errOut
}

func TestMCPStopsWhenInputCloses(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lore.db")
	cs, done, errOut := mcpInProcess(context.Background(), t, "mcp", "--store", store)
	var out mcpserver.SearchOutput
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_knowledge", Arguments: map[string]any{"query": `"a": (b)`}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || out.Hits == nil || len(out.Hits) != 0 {
		t.Errorf("search of an empty store: %s", b)
	}
	cs.Close()
	select {
	case code := <-done:
		if code != 0 || errOut.Len() > 0 {
			t.Errorf("exit %d, stderr %q", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lore mcp did not stop when its input closed")
	}
}

func TestMCPStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, done, errOut := mcpInProcess(ctx, t, "mcp", "--store", filepath.Join(t.TempDir(), "lore.db"))
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after interrupt, want 0; stderr %q", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lore mcp did not stop when interrupted")
	}
}

func TestMCPCommandLine(t *testing.T) {
	r := runLore(t, "", "mcp", "--help")
	for _, want := range []string{
		"claude mcp add", "-- lore mcp", // Claude Code
		"~/.codex/config.toml", "[mcp_servers.lore]", `command = "lore"`, `args = ["mcp"`, // Codex CLI
		"settings.json", `"mcpServers"`, // Gemini CLI
		"search_knowledge", "boot_context", "record_knowledge",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lore mcp --help does not say %q", want)
		}
	}
	for _, args := range [][]string{{"mcp", "--agent", "cursor"}, {"mcp", "extra"}, {"mcp", "--bogus"}} {
		if r := runLore(t, "", args...); r.code != 2 {
			t.Errorf("lore %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), r.code, r.err)
		}
	}
	var got *mcpOptions
	cmd := newMCPCmd(&factory{}, func(_ context.Context, o *mcpOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--store", "/tmp/x.db", "--agent", "gemini-cli"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Store != "/tmp/x.db" || got.Agent != "gemini-cli" {
		t.Errorf("options %+v", got)
	}
}
