package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	tests := []struct {
		spec    string
		opts    Options
		name    string // Name() of the client, or
		wantErr string // the error
	}{
		{spec: "openai:http://localhost:11434/v1", opts: Options{Model: "llama3.1"}, name: "openai:http://localhost:11434/v1 (llama3.1)"},
		{spec: " openai:http://localhost:11434/v1/ ", opts: Options{Model: "llama3.1"}, name: "openai:http://localhost:11434/v1 (llama3.1)"},
		{spec: "openai:https://user:secret@proxy.example/v1", opts: Options{Model: "m"}, name: "openai:https://user:xxxxx@proxy.example/v1 (m)"},
		{spec: "openai", opts: Options{Model: "gpt-4.1", APIKey: "sk-x"}, name: "openai:https://api.openai.com/v1 (gpt-4.1)"},
		{spec: "openai", opts: Options{Model: "gpt-4.1"}, wantErr: "openai needs an API key: set OPENAI_API_KEY"},
		{spec: "openai:http://localhost:11434/v1", wantErr: "--model is required for openai (e.g. --model llama3.1 for Ollama)"},
		{spec: "openai:localhost:11434/v1", opts: Options{Model: "m"}, wantErr: `bad URL "localhost:11434/v1" in --llm`},
		{spec: "openai:", opts: Options{Model: "m"}, wantErr: `bad URL "" in --llm`},
		{spec: "openai:ftp://host/v1", opts: Options{Model: "m"}, wantErr: `bad URL "ftp://host/v1" in --llm`},
		{spec: "anthropic", opts: Options{APIKey: "k"}, name: "anthropic:https://api.anthropic.com (" + DefaultAnthropicModel + ")"},
		{spec: "anthropic:http://proxy:8080/", opts: Options{APIKey: "k", Model: "claude-opus-4-1", AllowHTTP: true}, name: "anthropic:http://proxy:8080 (claude-opus-4-1)"},
		{spec: "anthropic:http://proxy:8080/", opts: Options{APIKey: "k"}, wantErr: "refusing to send ANTHROPIC_API_KEY over plain http to proxy:8080: use https, or set LORE_LLM_ALLOW_HTTP=1"},
		{spec: "anthropic", wantErr: "anthropic needs an API key: set ANTHROPIC_API_KEY"},
		{spec: "anthropic:/v1", opts: Options{APIKey: "k"}, wantErr: `bad URL "/v1" in --llm`},
		{spec: "exec:sh -c 'echo hi'", name: "exec:sh -c 'echo hi'"},
		{spec: "exec:sh -c {model}", opts: Options{Model: "qwen3"}, name: "exec:sh -c qwen3"},
		{spec: "exec:sh -c {model}", wantErr: `--model is required: the command "sh -c {model}" has {model}`},
		{spec: "exec:", wantErr: "--llm exec: needs a command, e.g. exec:claude -p"},
		{spec: "exec:  ", wantErr: "--llm exec: needs a command"},
		{spec: "exec", wantErr: "--llm exec: needs a command"},
		{spec: `exec:sh -c "echo`, wantErr: `--llm exec:sh -c "echo: unterminated double quote`},
		{spec: "exec:no-such-command-for-lore-tests -p", wantErr: "exec: no-such-command-for-lore-tests not found in PATH"},
		{spec: "exec:./no/such/file", wantErr: "no such file or directory"},
		{spec: "", wantErr: `unknown --llm "": want openai:URL, anthropic[:URL] or exec:COMMAND`},
		{spec: "gemini", wantErr: `unknown --llm "gemini": want openai:URL, anthropic[:URL] or exec:COMMAND`},
		{spec: "http://localhost:11434/v1", wantErr: `unknown --llm "http://localhost:11434/v1"`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := New(tt.spec, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New(%q) = %v, want error containing %q", tt.spec, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.spec, err)
			}
			if got := c.Name(); got != tt.name {
				t.Errorf("Name() = %q, want %q", got, tt.name)
			}
		})
	}
}

// TestKeyOverPlainHTTP: a key goes over plain http only to this machine,
// or when the user says the network is theirs; a client without a key
// sends none and may use any server.
func TestKeyOverPlainHTTP(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv(allowHTTPEnv, "")
	tests := []struct {
		spec    string
		key     string
		allow   bool
		env     string
		refused bool
	}{
		{spec: "openai:http://localhost:11434/v1", key: "sk-planted-1234"},
		{spec: "openai:http://LOCALHOST.:11434/v1", key: "sk-planted-1234"},
		{spec: "openai:http://ollama.localhost:11434/v1", key: "sk-planted-1234"},
		{spec: "openai:http://127.0.0.1:8000/v1", key: "sk-planted-1234"},
		{spec: "openai:http://127.8.9.10/v1", key: "sk-planted-1234"},
		{spec: "openai:http://[::1]:8000/v1", key: "sk-planted-1234"},
		{spec: "openai:http://[::ffff:127.0.0.1]:8000/v1", key: "sk-planted-1234"},
		{spec: "openai:https://llm.example/v1", key: "sk-planted-1234"},
		{spec: "openai:http://llm.example/v1", key: ""}, // no key, nothing to leak
		{spec: "openai:http://llm.example/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:http://10.0.0.5:8000/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:http://[fe80::1]:8000/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:http://0.0.0.0:8000/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:http://127.0.0.1.nip.io/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:http://localhost.example/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:HTTP://llm.example/v1", key: "sk-planted-1234", refused: true},
		{spec: "openai:http://llm.example/v1", key: "sk-planted-1234", allow: true},
		{spec: "openai:http://llm.example/v1", key: "sk-planted-1234", env: "1"},
		{spec: "anthropic:http://proxy.example:8080", key: "ant-planted-5678", refused: true},
		{spec: "anthropic:http://127.0.0.1:8080", key: "ant-planted-5678"},
		{spec: "anthropic:http://proxy.example:8080", key: "ant-planted-5678", env: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Setenv(allowHTTPEnv, tt.env)
			_, err := New(tt.spec, Options{Model: "m", APIKey: tt.key, AllowHTTP: tt.allow})
			if tt.refused {
				if err == nil || !strings.Contains(err.Error(), "refusing to send") || !strings.Contains(err.Error(), allowHTTPEnv) {
					t.Fatalf("New(%q) = %v, want a refusal naming %s", tt.spec, err, allowHTTPEnv)
				}
				if strings.Contains(err.Error(), tt.key) {
					t.Errorf("the refusal shows the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.spec, err)
			}
		})
	}
}

func TestNewReadsKeysFromEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_API_KEY", "ant-from-env")
	o, err := New("openai", Options{Model: "gpt-4.1"})
	if err != nil {
		t.Fatal(err)
	}
	if key := o.(*openAI).api.key; key != "sk-from-env" {
		t.Errorf("openai key = %q", key)
	}
	a, err := New("anthropic", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if key := a.(*anthropic).api.key; key != "ant-from-env" {
		t.Errorf("anthropic key = %q", key)
	}
	if a, _ := New("anthropic", Options{APIKey: "given"}); a.(*anthropic).api.key != "given" {
		t.Error("Options.APIKey does not win over the environment")
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		line    string
		want    []string
		wantErr string
	}{
		{line: "claude -p", want: []string{"claude", "-p"}},
		{line: "  codex   exec\t- ", want: []string{"codex", "exec", "-"}},
		{line: `sh -c 'echo "hi there" | tr a-z A-Z'`, want: []string{"sh", "-c", `echo "hi there" | tr a-z A-Z`}},
		{line: `say "a \"quoted\" \\ word" 'it'\''s'`, want: []string{"say", `a "quoted" \ word`, "it's"}},
		{line: `a"b"'c'd`, want: []string{"abcd"}},
		{line: `"" ''`, want: []string{"", ""}},
		{line: `two\ words $HOME *`, want: []string{"two words", "$HOME", "*"}},
		{line: `"keep \n as is"`, want: []string{`keep \n as is`}},
		{line: `trailing\`, want: []string{`trailing\`}},
		{line: "", want: nil},
		{line: `it's`, wantErr: "unterminated single quote"},
		{line: `say "hi`, wantErr: "unterminated double quote"},
	}
	for _, tt := range tests {
		got, err := splitCommand(tt.line)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("splitCommand(%q) error = %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// shellQuote quotes s for splitCommand as for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"claude -p", `sh -c 'a "b" c'`, `a\ b "c \" d" 'e'\''f'`, `"`, `'`, `\`, "codex exec -"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitCommand(line)
		if err != nil {
			return
		}
		// Words quoted back as a shell would quote them split into the same words.
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellQuote(w)
		}
		again, err := splitCommand(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("split %q = %q; quoted back and split again = %q, %v", line, words, again, err)
		}
	})
}

func TestRequestInstructions(t *testing.T) {
	got, err := Request{System: "Extract facts.", Schema: json.RawMessage("{\n  \"type\": \"object\"\n}")}.instructions()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Extract facts.\n\n" + schemaPrompt + `{"type":"object"}`; got != want {
		t.Errorf("instructions = %q, want %q", got, want)
	}
	if got, _ := (Request{System: "plain"}).instructions(); got != "plain" {
		t.Errorf("without a schema, instructions = %q", got)
	}
	if _, err := (Request{Schema: json.RawMessage("{bad")}).instructions(); err == nil || !strings.HasPrefix(err.Error(), "request schema: ") {
		t.Errorf("bad schema: err = %v", err)
	}
}

// sleeps records the waits before retries and makes them instant.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d)
}

func TestMain(m *testing.M) {
	if mode := os.Getenv("LLM_TEST_HELPER"); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helperSpec is an exec spec that runs this test binary as helper in mode
// (see helper, in exec_test.go), followed by args.
func helperSpec(t *testing.T, args string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.Abs(self)
	return strings.TrimSpace("exec:" + shellQuote(self) + " " + args)
}

// TestKeyNotRedirectedOverPlainHTTP: a server that redirects a request to
// plain http off this machine does not get the key sent there; one that
// redirects on this machine is followed.
func TestKeyNotRedirectedOverPlainHTTP(t *testing.T) {
	t.Setenv(allowHTTPEnv, "")
	var answered int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/away/"):
			w.Header().Set("Location", "http://llm.example"+strings.TrimPrefix(r.URL.Path, "/away"))
			w.WriteHeader(http.StatusTemporaryRedirect)
		case strings.HasPrefix(r.URL.Path, "/here/"):
			w.Header().Set("Location", strings.TrimPrefix(r.URL.Path, "/here"))
			w.WriteHeader(http.StatusPermanentRedirect)
		default:
			answered++
			w.Header().Set("Content-Type", "application/json")
			if strings.HasSuffix(r.URL.Path, "/messages") {
				io.WriteString(w, `{"content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
				return
			}
			io.WriteString(w, `{"choices":[{"message":{"content":"{}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)
		}
	}))
	defer srv.Close()
	tests := []struct {
		spec    string
		refused bool
	}{
		{"openai:" + srv.URL + "/away/v1", true},
		{"anthropic:" + srv.URL + "/away", true},
		{"openai:" + srv.URL + "/here/v1", false},
		{"anthropic:" + srv.URL + "/here", false},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := New(tt.spec, Options{Model: "m", APIKey: "sk-planted-1234", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			before := answered
			_, err = c.Complete(context.Background(), Request{Prompt: "hi"})
			if tt.refused {
				if err == nil || !strings.Contains(err.Error(), "refusing to send") {
					t.Errorf("Complete = %v, want the redirect refused", err)
				}
				return
			}
			if err != nil || answered != before+1 {
				t.Errorf("Complete = %v (answered %d), want the redirect followed", err, answered-before)
			}
		})
	}
}
