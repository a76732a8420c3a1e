package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const knowledgeSchema = `{"type":"object","properties":{"items":{"type":"array"}},"required":["items"]}`

// chatRequest is what a fake server reads of a chat completions request.
type chatRequest struct {
	Model               string
	Messages            []message
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	ResponseFormat      *struct {
		Type       string
		JSONSchema *struct {
			Name   string
			Schema json.RawMessage
			Strict *bool
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (r chatRequest) format() string {
	if r.ResponseFormat == nil {
		return "none"
	}
	return r.ResponseFormat.Type
}

// chatAnswer is a chat completions answer.
func chatAnswer(content string, prompt, completion int) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		c, prompt, completion, prompt+completion)
}

// fakeOpenAI serves /v1/chat/completions with handle, which gets the
// decoded request; it fails the test on any other path or method.
func fakeOpenAI(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, req chatRequest)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("decode request: %v", err)
		}
		handle(w, r, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newTestClient(t *testing.T, spec string, opts Options) Client {
	t.Helper()
	c, err := New(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOpenAIRequestAndAnswer(t *testing.T) {
	srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, req chatRequest) {
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			t.Errorf("Authorization = %q", got)
		}
		want := []message{{"system", "Extract knowledge."}, {"user", "transcript"}}
		if req.Model != "llama3.1" || !slices.Equal(req.Messages, want) {
			t.Errorf("model %q, messages %q", req.Model, req.Messages)
		}
		if req.MaxTokens == nil || *req.MaxTokens != DefaultMaxTokens || req.MaxCompletionTokens != nil {
			t.Errorf("max_tokens = %v, max_completion_tokens = %v", req.MaxTokens, req.MaxCompletionTokens)
		}
		if req.Temperature == nil || *req.Temperature != 0 {
			t.Errorf("temperature = %v, want 0", req.Temperature)
		}
		f := req.ResponseFormat
		if f == nil || f.Type != "json_schema" || f.JSONSchema == nil || f.JSONSchema.Name != "knowledge" ||
			string(f.JSONSchema.Schema) != knowledgeSchema || f.JSONSchema.Strict == nil || *f.JSONSchema.Strict {
			t.Errorf("response_format = %+v", f)
		}
		io.WriteString(w, chatAnswer(`{"items":[]}`, 120, 7))
	})
	c := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "llama3.1", APIKey: "sk-test"})
	resp, err := c.Complete(context.Background(), Request{
		System: "Extract knowledge.", Prompt: "transcript",
		Schema: json.RawMessage(knowledgeSchema), SchemaName: "knowledge",
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Response{Text: `{"items":[]}`, InputTokens: 120, OutputTokens: 7}); resp != want {
		t.Errorf("Complete = %+v, want %+v", resp, want)
	}
}

func TestOpenAIWithoutKeyOrSchema(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, req chatRequest) {
		if _, ok := r.Header["Authorization"]; ok {
			t.Error("Authorization sent without a key")
		}
		if req.ResponseFormat != nil || len(req.Messages) != 1 || req.Messages[0].Role != "user" || *req.MaxTokens != 100 {
			t.Errorf("request = %+v", req)
		}
		// Some servers send null content, and a cut-off answer ends for "length".
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"length"}]}`)
	})
	c := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "m"})
	resp, err := c.Complete(context.Background(), Request{Prompt: "hi", MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Response{Truncated: true}); resp != want {
		t.Errorf("Complete = %+v, want %+v", resp, want)
	}
}

func TestOpenAIBadAnswers(t *testing.T) {
	for body, want := range map[string]string{
		`{"choices":[]}`: "openai: answer has no choices",
		`not json`:       "openai: decode answer: ",
	} {
		srv := fakeOpenAI(t, func(w http.ResponseWriter, _ *http.Request, _ chatRequest) { io.WriteString(w, body) })
		_, err := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "m"}).Complete(context.Background(), Request{Prompt: "hi"})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("answer %s: err = %v, want %q", body, err, want)
		}
	}
}

// TestOpenAIFallsBackFromJSONSchema is a server that takes no json_schema
// (older llama.cpp, vLLM), or no response_format at all.
func TestOpenAIFallsBackFromJSONSchema(t *testing.T) {
	tests := []struct {
		name    string
		accepts []string // response formats the server takes
		want    []string // formats of the requests the first and second Complete send
	}{
		{"json_object", []string{"json_object", "none"}, []string{"json_schema", "json_object", "json_object"}},
		{"none", []string{"none"}, []string{"json_schema", "json_object", "none", "none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, req chatRequest) {
				mu.Lock()
				got = append(got, req.format())
				mu.Unlock()
				if !slices.Contains(tt.accepts, req.format()) {
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `{"error":{"code":400,"message":"response_format type %s is not supported","type":"invalid_request_error"}}`, req.format())
					return
				}
				if req.format() != "json_schema" && !strings.Contains(req.Messages[0].Content, schemaPrompt+knowledgeSchema) {
					t.Errorf("without json_schema the system prompt does not carry the schema: %q", req.Messages[0].Content)
				}
				io.WriteString(w, chatAnswer(`{"items":[]}`, 1, 1))
			})
			c := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "m"})
			for range 2 {
				resp, err := c.Complete(context.Background(), Request{System: "s", Prompt: "p", Schema: json.RawMessage(knowledgeSchema)})
				if err != nil || resp.Text != `{"items":[]}` {
					t.Fatalf("Complete = %+v, %v", resp, err)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("response formats sent = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOpenAIReasoningModel is a server that, like OpenAI's reasoning
// models, wants max_completion_tokens and its own temperature.
func TestOpenAIReasoningModel(t *testing.T) {
	var calls atomic.Int32
	srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, req chatRequest) {
		calls.Add(1)
		switch {
		case req.MaxTokens != nil:
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`)
		case req.Temperature != nil:
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`)
		default:
			io.WriteString(w, chatAnswer("ok", 1, 1))
		}
	})
	c := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "gpt-5"})
	for range 2 {
		if resp, err := c.Complete(context.Background(), Request{Prompt: "p"}); err != nil || resp.Text != "ok" {
			t.Fatalf("Complete = %+v, %v", resp, err)
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("%d requests, want 4: two refused, then one a call", n)
	}
}

func TestOpenAIFallbackIsSafeForConcurrentUse(t *testing.T) {
	srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, req chatRequest) {
		if req.format() == "json_schema" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"json_schema not supported"}}`)
			return
		}
		io.WriteString(w, chatAnswer("{}", 1, 1))
	})
	c := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "m"})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), Request{Prompt: "p", Schema: json.RawMessage(knowledgeSchema)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// step is one answer of a scripted server.
type step struct {
	status int
	header http.Header
	body   string
}

// scripted answers the nth request with steps[n], and every request after
// the last with the last step.
func scripted(t *testing.T, steps ...step) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := steps[min(int(n.Add(1))-1, len(steps)-1)]
		for k, v := range s.header {
			w.Header()[k] = v
		}
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestOpenAIRetries(t *testing.T) {
	ok := step{200, nil, chatAnswer("done", 3, 2)}
	busy := step{503, nil, `{"error":{"message":"server busy"}}`}
	tests := []struct {
		name      string
		steps     []step
		retries   int
		requests  int32
		waits     []time.Duration // exact waits, or
		backoffs  int             // this many random backoffs
		wantErr   string
		permanent bool
	}{
		{name: "429 retry-after", steps: []step{{429, http.Header{"Retry-After": {"2"}}, `{"error":{"message":"Rate limit reached"}}`}, ok},
			requests: 2, waits: []time.Duration{2 * time.Second}},
		{name: "429 openai reset", steps: []step{{429, http.Header{"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"750ms"}}, ""}, ok},
			requests: 2, waits: []time.Duration{750 * time.Millisecond}},
		{name: "500 then 503", steps: []step{{500, nil, "oops"}, busy, ok}, requests: 3, backoffs: 2},
		{name: "502 504", steps: []step{{502, nil, ""}, {504, nil, ""}, ok}, requests: 3, backoffs: 2},
		{name: "exhausted", steps: []step{busy}, retries: 2, requests: 3, backoffs: 2,
			wantErr: "openai: 503 Service Unavailable: server busy (gave up after 3 attempts)"},
		{name: "no retries", steps: []step{busy}, retries: -1, requests: 1,
			wantErr: "openai: 503 Service Unavailable: server busy"},
		{name: "400 fails at once", steps: []step{{400, nil, `{"error":{"message":"model 'x' not found","type":"invalid_request_error"}}`}},
			requests: 1, wantErr: "openai: 400 Bad Request: invalid_request_error: model 'x' not found"},
		{name: "404 fails at once", steps: []step{{404, nil, "404 page not found\n"}},
			requests: 1, wantErr: "openai: 404 Not Found: 404 page not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := scripted(t, tt.steps...)
			var s sleeps
			c := newTestClient(t, "openai:"+srv.URL, Options{Model: "m", MaxRetries: tt.retries, Sleep: s.sleep})
			resp, err := c.Complete(context.Background(), Request{Prompt: "p"})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || resp.Text != "done" {
				t.Errorf("Complete = %+v, %v", resp, err)
			}
			if got := n.Load(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			waits := s.waits()
			if tt.waits != nil && !slices.Equal(waits, tt.waits) {
				t.Errorf("waits = %v, want %v", waits, tt.waits)
			}
			if tt.waits == nil && len(waits) != tt.backoffs {
				t.Errorf("waits = %v, want %d", waits, tt.backoffs)
			}
			for i, w := range waits {
				if tt.waits == nil && (w < firstDelay<<i/2 || w >= firstDelay<<i) {
					t.Errorf("wait %d = %v, not a backoff", i, w)
				}
			}
		})
	}
}

// TestOpenAIRetriesNetworkErrors: a connection the server drops before
// answering is retried (a refused one is not: TestUnreachableNotRetried).
func TestOpenAIRetriesNetworkErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // dropped before any answer
		}
	}()
	url := "http://" + ln.Addr().String()
	var s sleeps
	c := newTestClient(t, "openai:"+url, Options{Model: "m", MaxRetries: 2, Sleep: s.sleep})
	_, err = c.Complete(context.Background(), Request{Prompt: "p"})
	if err == nil || !strings.HasPrefix(err.Error(), "openai: Post ") || !strings.HasSuffix(err.Error(), "(gave up after 3 attempts)") {
		t.Errorf("err = %v", err)
	}
	if len(s.waits()) != 2 {
		t.Errorf("waits = %v, want 2", s.waits())
	}
}

func TestOpenAIUnauthorized(t *testing.T) {
	const key = "sk-proj-secret-0123456789"
	srv, _ := scripted(t, step{401, nil, `{"error":{"message":"Incorrect API key provided: ` + key + `.","type":"invalid_request_error","code":"invalid_api_key"}}`})
	c := newTestClient(t, "openai:"+srv.URL, Options{Model: "m", APIKey: key})
	_, err := c.Complete(context.Background(), Request{Prompt: "p"})
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized") || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err = %v, want a 401 naming OPENAI_API_KEY", err)
	}
	if !errors.Is(err, ErrAuth) {
		t.Errorf("err = %v, not ErrAuth", err)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("error shows the key: %v", err)
	}
}

func TestOpenAICancelledDuringBackoff(t *testing.T) {
	seen := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusServiceUnavailable)
		select {
		case seen <- struct{}{}:
		default:
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-seen
		time.Sleep(100 * time.Millisecond) // for the client to read the answer and start waiting
		cancel()
	}()
	c := newTestClient(t, "openai:"+srv.URL, Options{Model: "m"}) // the real sleep
	start := time.Now()
	_, err := c.Complete(ctx, Request{Prompt: "p"})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "503") {
		t.Errorf("err = %v, want context.Canceled, saying what was being retried", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v", d)
	}
}

func TestOpenAITimeout(t *testing.T) {
	srv := fakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, _ chatRequest) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	c := newTestClient(t, "openai:"+srv.URL+"/v1", Options{Model: "m", Timeout: 50 * time.Millisecond})
	start := time.Now()
	_, err := c.Complete(context.Background(), Request{Prompt: "p"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "openai: no answer within 50ms") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v", d)
	}
}
