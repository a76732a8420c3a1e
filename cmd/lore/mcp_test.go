package main

import (
	"bufio"
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

// startMCP starts lore with args (lore mcp) in a process of this test
// binary, with env added to its environment, and connects a client to
// it; the buffer gets what it writes on standard error.
func startMCP(t *testing.T, env []string, args ...string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMCPProcessHelper$")
	cmd.Env = append(append(os.Environ(), mcpArgsEnv+"="+string(b)), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, stderr.String())
	}
	return cs, &stderr
}

// toolNames lists the tools a server offers, in order.
func toolNames(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	return strings.Join(names, " ")
}

func TestMCPOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "sub", "lore.db") // not there yet: lore mcp creates it
	cs, stderr := startMCP(t, nil, "mcp", "--store", store, "--agent", "codex")
	if info := cs.InitializeResult().ServerInfo; info.Name != "lore" || info.Version == "" {
		t.Errorf("server info %+v", info)
	}
	if got := toolNames(t, cs); got != "boot_context journal_log journal_similar record_knowledge search_knowledge" {
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
	return mcpInProcessEnv(ctx, t, transcript.HostEnv(), args...)
}

// mcpInProcessEnv is mcpInProcess in the environment env (its home,
// variables and working folder).
func mcpInProcessEnv(ctx context.Context, t *testing.T, env transcript.Env, args ...string) (*mcp.ClientSession, <-chan int, *bytes.Buffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut bytes.Buffer
	ios := &iostreams.IOStreams{In: inR, Out: outW, ErrOut: &errOut}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, newFactory(ios, env), args)
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
	for _, args := range [][]string{{"mcp", "--agent", "windsurf"}, {"mcp", "extra"}, {"mcp", "--bogus"}} {
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

// TestMCPAnswersBadInput sends lore mcp, in one session, every kind of
// line a broken or hostile client can send. Each is answered with the
// JSON-RPC error for it (or, for a notification or a response, not at
// all), and the session goes on: the last call still gets its result.
func TestMCPAnswersBadInput(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut bytes.Buffer
	ios := &iostreams.IOStreams{In: inR, Out: outW, ErrOut: &errOut}
	store := filepath.Join(t.TempDir(), "lore.db")
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), newFactory(ios, transcript.HostEnv()), []string{"mcp", "--store", store})
		outW.Close()
	}()
	defer func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("lore mcp did not stop when its input closed")
		}
	}()
	answers := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			answers <- append([]byte(nil), sc.Bytes()...)
		}
		close(answers)
	}()
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	send := func(line string) {
		t.Helper()
		sent := make(chan error, 1)
		go func() { _, err := io.WriteString(inW, line+"\n"); sent <- err }()
		select {
		case err := <-sent:
			if err != nil {
				t.Fatalf("send %q: %v", line, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("send %q: lore mcp does not read its input", line)
		}
	}
	next := func(after string) answer {
		t.Helper()
		select {
		case b, ok := <-answers:
			if !ok {
				t.Fatalf("after %q: lore mcp closed its output (stderr %q)", after, errOut.String())
			}
			var a answer
			if err := json.Unmarshal(b, &a); err != nil {
				t.Fatalf("after %q: answer is not JSON: %q", after, b)
			}
			return a
		case <-time.After(10 * time.Second):
			t.Fatalf("after %q: no answer in 10s (stderr %q)", after, errOut.String())
		}
		return answer{}
	}
	// expect sends line and checks the answer: the result of call id,
	// or an error with code (id "null" when the line has none to echo).
	expect := func(line, id string, code int) {
		t.Helper()
		send(line)
		a := next(line)
		if string(a.ID) != id {
			t.Errorf("%q: answer's id %s, want %s", line, a.ID, id)
		}
		switch {
		case code == 0 && (a.Error != nil || a.Result == nil):
			t.Errorf("%q: want a result, got error %+v", line, a.Error)
		case code != 0 && (a.Error == nil || a.Error.Code != code):
			t.Errorf("%q: want error %d, got %+v %s", line, code, a.Error, a.Result)
		}
	}
	const (
		parseError     = -32700
		invalidRequest = -32600
	)
	expect(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"v0"}}}`, "1", 0)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range []struct {
		line string
		id   string // the id the error answer carries; "" for no answer
		code int
	}{
		{"not json at all", "null", parseError},
		{`[1,2]`, "null", invalidRequest},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, "null", invalidRequest},
		{`[]`, "null", invalidRequest},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, "3", invalidRequest},
		{`{"id":4,"method":"ping"}`, "4", invalidRequest},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", invalidRequest},
		{`{"jsonrpc":"2.0","id":[5],"method":"ping"}`, "null", invalidRequest},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", invalidRequest},
		{"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"pi\x00ng\"}", "null", parseError},
		{"\x00", "null", parseError},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/li`, "null", parseError},
		// A message cut between tokens is not completed by the next line.
		{`{"jsonrpc":"2.0","id":20,"method":"tools/list",`, "null", parseError},
		{`"params":{}}`, "null", parseError},
		{`{"jsonrpc":"2.0","id":8,"method":"ping"} {"jsonrpc":"2.0","id":9,"method":"ping"}`, "null", parseError},
		{`{"jsonrpc":"2.0","id":10,"method":5}`, "10", invalidRequest},
		{`{"jsonrpc":"2.0","id":"eleven"}`, `"eleven"`, invalidRequest},
		{`"ping"`, "null", invalidRequest},
		{`42`, "null", invalidRequest},
		{`{"jsonrpc":"1.0","method":"notifications/initialized"}`, "null", invalidRequest},
		// A valid notification, a response to nothing and a broken
		// response are not answered.
		{`{"jsonrpc":"2.0","method":"notifications/bogus"}`, "", 0},
		{`{"jsonrpc":"2.0","id":99,"result":{}}`, "", 0},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, "", 0},
		{`{"jsonrpc":"2.0","id":{"a":1},"result":{}}`, "", 0},
		{"", "", 0},
		// Valid requests the server cannot serve get the SDK's own errors.
		{`{"jsonrpc":"2.0","id":12,"method":"no/such"}`, "12", -32601},
		{`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":"x"}`, "13", -32602},
	} {
		if c.id == "" {
			send(c.line)
			continue
		}
		expect(c.line, c.id, c.code)
	}
	// The line after a truncated one is a request of its own.
	expect(`{"jsonrpc":"2.0","id":14,"method":"tools/list"}`, "14", 0)
	expect(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"search_knowledge","arguments":{"query":"go test"}}}`, `"last"`, 0)
}
