package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

const (
	defaultAnthropicURL = "https://api.anthropic.com"
	anthropicVersion    = "2023-06-01"
)

// anthropic talks to Anthropic's messages API.
type anthropic struct {
	api     api
	base    string
	shown   string // base as Name shows it
	model   string
	timeout time.Duration
}

var _ Client = (*anthropic)(nil)

func newAnthropic(base string, opts Options) (*anthropic, error) {
	base, shown, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv("ANTHROPIC_API_KEY")
	}
	if key == "" {
		return nil, errors.New("anthropic needs an API key: set ANTHROPIC_API_KEY")
	}
	if err := checkKeyTransport(base, "ANTHROPIC_API_KEY", opts); err != nil {
		return nil, err
	}
	opts.HTTPClient = keyClient(opts.HTTPClient, "ANTHROPIC_API_KEY", opts)
	model := opts.Model
	if model == "" {
		model = DefaultAnthropicModel
	}
	return &anthropic{
		api:  api{name: "anthropic", keyVar: "ANTHROPIC_API_KEY", key: key, client: opts.HTTPClient, retries: opts.MaxRetries, sleep: opts.Sleep},
		base: base, shown: shown, model: model, timeout: opts.Timeout,
	}, nil
}

func (c *anthropic) Name() string { return fmt.Sprintf("anthropic:%s (%s)", c.shown, c.model) }

// Complete posts to /v1/messages. The API takes no schema, so the system
// prompt asks for JSON following it.
func (c *anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	system, err := req.instructions()
	if err != nil {
		return Response{}, err
	}
	body := map[string]any{
		"model":       c.model,
		"max_tokens":  req.maxTokens(),
		"temperature": 0,
		"messages":    []message{{"user", req.Prompt}},
	}
	if system != "" {
		body["system"] = system
	}
	header := http.Header{}
	header.Set("X-Api-Key", c.api.key)
	header.Set("Anthropic-Version", anthropicVersion)
	header.Set("Content-Type", "application/json")
	var out struct {
		Content []struct {
			Type string
			Text string
		}
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
		}
	}
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	if err := c.api.post(ctx, c.base+"/v1/messages", header, body, &out); err != nil {
		return Response{}, err
	}
	var text strings.Builder
	for _, block := range out.Content {
		if block.Type == "text" {
			text.WriteString(block.Text)
		}
	}
	return Response{
		Text:         text.String(),
		InputTokens:  out.Usage.InputTokens,
		OutputTokens: out.Usage.OutputTokens,
		Truncated:    out.StopReason == "max_tokens",
	}, nil
}
