package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAnthropicRequestAndAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		for k, want := range map[string]string{"X-Api-Key": "ant-test", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"} {
			if got := r.Header.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		var req struct {
			Model       string
			MaxTokens   int `json:"max_tokens"`
			System      string
			Messages    []message
			Temperature *float64
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
		}
		if req.Model != DefaultAnthropicModel || req.MaxTokens != 2000 || req.Temperature == nil || *req.Temperature != 0 {
			t.Errorf("request = %+v", req)
		}
		if want := "Extract.\n\n" + schemaPrompt + knowledgeSchema; req.System != want {
			t.Errorf("system = %q, want %q", req.System, want)
		}
		if !slices.Equal(req.Messages, []message{{"user", "transcript"}}) {
			t.Errorf("messages = %q", req.Messages)
		}
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"{\"items\":"},{"type":"text","text":"[]}"}],
			"stop_reason":"end_turn","usage":{"input_tokens":50,"output_tokens":9}}`)
	}))
	defer srv.Close()
	c := newTestClient(t, "anthropic:"+srv.URL, Options{APIKey: "ant-test"})
	resp, err := c.Complete(context.Background(), Request{System: "Extract.", Prompt: "transcript", Schema: json.RawMessage(knowledgeSchema), MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Response{Text: `{"items":[]}`, InputTokens: 50, OutputTokens: 9}); resp != want {
		t.Errorf("Complete = %+v, want %+v", resp, want)
	}
}

func TestAnthropicTruncated(t *testing.T) {
	srv, _ := scripted(t, step{200, nil, `{"content":[{"type":"text","text":"{\"items\":[{"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":10}}`})
	resp, err := newTestClient(t, "anthropic:"+srv.URL, Options{APIKey: "k"}).Complete(context.Background(), Request{Prompt: "p"})
	if err != nil || !resp.Truncated {
		t.Errorf("Complete = %+v, %v; want Truncated", resp, err)
	}
}

func TestAnthropicOverloaded(t *testing.T) {
	overloaded := step{529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	ok := step{200, nil, `{"content":[{"type":"text","text":"fine"}],"usage":{"input_tokens":1,"output_tokens":1}}`}
	srv, n := scripted(t, overloaded, overloaded, ok)
	var s sleeps
	resp, err := newTestClient(t, "anthropic:"+srv.URL, Options{APIKey: "k", Sleep: s.sleep}).Complete(context.Background(), Request{Prompt: "p"})
	if err != nil || resp.Text != "fine" {
		t.Fatalf("Complete = %+v, %v", resp, err)
	}
	if n.Load() != 3 || len(s.waits()) != 2 {
		t.Errorf("%d requests, waits %v; want 3 and 2", n.Load(), s.waits())
	}

	srv, _ = scripted(t, overloaded)
	_, err = newTestClient(t, "anthropic:"+srv.URL, Options{APIKey: "k", MaxRetries: 1, Sleep: s.sleep}).Complete(context.Background(), Request{Prompt: "p"})
	if want := "anthropic: 529: overloaded_error: Overloaded (gave up after 2 attempts)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestAnthropicRefusedKey(t *testing.T) {
	const key = "sk-ant-api03-secret"
	for _, status := range []int{401, 403} {
		srv, n := scripted(t, step{status, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + key + `"}}`})
		_, err := newTestClient(t, "anthropic:"+srv.URL, Options{APIKey: key, Sleep: func(context.Context, time.Duration) error { return nil }}).
			Complete(context.Background(), Request{Prompt: "p"})
		if err == nil || !strings.Contains(err.Error(), "authentication_error") || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY to a valid key") {
			t.Errorf("%d: err = %v", status, err)
		}
		if err != nil && strings.Contains(err.Error(), key) {
			t.Errorf("%d: error shows the key: %v", status, err)
		}
		if !errors.Is(err, ErrAuth) {
			t.Errorf("%d: err = %v, not ErrAuth", status, err)
		}
		if n.Load() != 1 {
			t.Errorf("%d: retried", status)
		}
	}
}
