package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

const defaultOpenAIURL = "https://api.openai.com/v1"

// How the schema is given to an OpenAI-compatible server, from the best;
// a server that rejects one is given the next.
const (
	formatSchema = iota // response_format json_schema
	formatObject        // response_format json_object, the schema in the system prompt
	formatNone          // the schema in the system prompt only
)

// openAI talks to an OpenAI-compatible chat completions API.
type openAI struct {
	api     api
	base    string
	shown   string // base as Name shows it
	model   string
	timeout time.Duration
	// quirks is what the server turned out not to take; it only ever
	// learns more, so concurrent calls agree after a few answers.
	quirks atomic.Pointer[quirks]
}

type quirks struct {
	format        int  // formatSchema, formatObject or formatNone
	maxCompletion bool // wants max_completion_tokens for max_tokens (OpenAI's reasoning models)
	noTemperature bool // takes only its default temperature (the same models)
}

var _ Client = (*openAI)(nil)

func newOpenAI(base string, opts Options) (*openAI, error) {
	base, shown, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	if opts.Model == "" {
		return nil, errors.New("--model is required for openai (e.g. --model llama3.1 for Ollama)")
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	if u, _ := url.Parse(base); key == "" && u.Host == "api.openai.com" {
		return nil, errors.New("openai needs an API key: set OPENAI_API_KEY")
	}
	if key != "" {
		if err := checkKeyTransport(base, "OPENAI_API_KEY", opts); err != nil {
			return nil, err
		}
		opts.HTTPClient = keyClient(opts.HTTPClient, "OPENAI_API_KEY", opts)
	}
	c := &openAI{
		api:  api{name: "openai", keyVar: "OPENAI_API_KEY", key: key, client: opts.HTTPClient, retries: opts.MaxRetries, sleep: opts.Sleep},
		base: base, shown: shown, model: opts.Model, timeout: opts.Timeout,
	}
	c.quirks.Store(&quirks{})
	return c, nil
}

func (c *openAI) Name() string { return fmt.Sprintf("openai:%s (%s)", c.shown, c.model) }

// Complete posts to /chat/completions. A 400 answer that names a
// parameter the server does not take (response_format, max_tokens,
// temperature) is retried without it, and the client remembers.
func (c *openAI) Complete(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	header := http.Header{"Content-Type": {"application/json"}}
	if c.api.key != "" {
		header.Set("Authorization", "Bearer "+c.api.key)
	}
	for {
		q := c.quirks.Load()
		body, err := c.body(req, q)
		if err != nil {
			return Response{}, err
		}
		var out struct {
			Choices []struct {
				Message      struct{ Content string } // null reads as ""
				FinishReason string                   `json:"finish_reason"`
			}
			Usage struct {
				PromptTokens     int64 `json:"prompt_tokens"`
				CompletionTokens int64 `json:"completion_tokens"`
			}
		}
		err = c.api.post(ctx, c.base+"/chat/completions", header, body, &out)
		var status *statusError
		if errors.As(err, &status) && (status.status == 400 || status.status == 422) && c.learn(q, req, status.body) {
			continue
		}
		if err != nil {
			return Response{}, err
		}
		if len(out.Choices) == 0 {
			return Response{}, errors.New("openai: answer has no choices")
		}
		return Response{
			Text:         out.Choices[0].Message.Content,
			InputTokens:  out.Usage.PromptTokens,
			OutputTokens: out.Usage.CompletionTokens,
			Truncated:    out.Choices[0].FinishReason == "length",
		}, nil
	}
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (c *openAI) body(req Request, q *quirks) (map[string]any, error) {
	system := req.System
	if len(req.Schema) > 0 && q.format != formatSchema {
		var err error
		if system, err = req.instructions(); err != nil {
			return nil, err
		}
	}
	var messages []message
	if system != "" {
		messages = append(messages, message{"system", system})
	}
	body := map[string]any{"model": c.model, "messages": append(messages, message{"user", req.Prompt})}
	if q.maxCompletion {
		body["max_completion_tokens"] = req.maxTokens()
	} else {
		body["max_tokens"] = req.maxTokens()
	}
	if !q.noTemperature {
		body["temperature"] = 0
	}
	if len(req.Schema) > 0 {
		switch q.format {
		case formatSchema:
			body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{
				"name": req.schemaName(), "schema": req.Schema, "strict": false}}
		case formatObject:
			body["response_format"] = map[string]string{"type": "json_object"}
		}
	}
	return body, nil
}

// learn reads an answer refusing the request q made for a parameter the
// server does not take, and drops it from this call and later ones. It
// says false when the answer names nothing it can drop.
func (c *openAI) learn(q *quirks, req Request, answer string) bool {
	next := *q
	answer = strings.ToLower(answer)
	switch {
	case len(req.Schema) > 0 && q.format < formatNone &&
		(strings.Contains(answer, "response_format") || strings.Contains(answer, "json_schema")):
		next.format++
	case !q.maxCompletion && strings.Contains(answer, "max_completion_tokens"):
		next.maxCompletion = true
	case !q.noTemperature && strings.Contains(answer, "temperature") &&
		(strings.Contains(answer, "unsupported") || strings.Contains(answer, "not support")):
		next.noTemperature = true
	default:
		return false
	}
	// Another call may have learnt first; then this one retries with what it learnt.
	c.quirks.CompareAndSwap(q, &next)
	return true
}
