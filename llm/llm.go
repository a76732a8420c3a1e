package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults for Request and Options fields left zero.
const (
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultMaxTokens      = 4096
	DefaultTimeout        = 5 * time.Minute // local models are slow
	DefaultMaxRetries     = 4
)

// Request is one completion.
type Request struct {
	System     string          // system prompt
	Prompt     string          // user message
	Schema     json.RawMessage // optional JSON schema (an object) the answer must follow
	SchemaName string          // the schema's name, which OpenAI requires; "" is "answer"
	MaxTokens  int             // most tokens to answer with; 0 is DefaultMaxTokens
}

// Response is what the model answered.
type Response struct {
	Text string
	// Tokens as the API reports them, 0 when it does not. exec: estimates,
	// a token for every 4 bytes of stdin and of stdout.
	InputTokens, OutputTokens int64
	// Truncated is set when the answer stopped at MaxTokens, so a broken
	// JSON answer is known to be cut short rather than wrong.
	Truncated bool
}

// ErrAuth is in the error of a request the API refused for its key
// (401 or 403): missing, wrong, or without access to the model. Every
// other request would be refused too.
var ErrAuth = errors.New("the API refused the key")

// ErrUnreachable is in the error of a request no server answered: the
// connection was refused, or the host's name is not known. Retrying does
// not help, and every other request would meet the same.
var ErrUnreachable = errors.New("no server answers there")

// Client completes prompts.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
	// Name says which API or command and model, e.g.
	// "openai:http://localhost:11434/v1 (llama3.1)". It never holds a key.
	Name() string
}

// Options configure New.
type Options struct {
	// Model to ask for: required by openai, DefaultAnthropicModel for
	// anthropic when empty. exec does not pass it on unless COMMAND
	// contains {model}, which is replaced by it.
	Model string
	// APIKey; "" reads OPENAI_API_KEY for openai (optional for local
	// servers: no Authorization header is sent without one) or
	// ANTHROPIC_API_KEY for anthropic (required).
	APIKey string
	// HTTPClient for the HTTP APIs; nil is http.DefaultClient.
	HTTPClient *http.Client
	// Env is added to the environment exec commands inherit from this
	// process; harvest sets LORE_HARVEST=1 so that agent hooks do not loop.
	Env []string
	// Timeout bounds one Complete call, retries included; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxRetries of a request that met a rate limit, an overloaded or
	// failing server or a network error; 0 is DefaultMaxRetries and a
	// negative number is none.
	MaxRetries int
	// AllowHTTP lets a key go to a server that is not on this machine over
	// plain http, which anyone on the way can read; without it (or
	// LORE_LLM_ALLOW_HTTP=1) New refuses such a client. Servers on this
	// machine (localhost, 127.0.0.0/8, ::1) take plain http regardless.
	AllowHTTP bool
	// Sleep waits d before a retry, returning early with an error when ctx
	// is done; nil waits on a timer. Tests make it instant.
	Sleep func(ctx context.Context, d time.Duration) error
}

// New returns the client that spec names (see the package comment).
func New(spec string, opts Options) (Client, error) {
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	scheme, rest, hasRest := strings.Cut(strings.TrimSpace(spec), ":")
	switch scheme {
	case "openai":
		if !hasRest {
			rest = defaultOpenAIURL
		}
		return newOpenAI(rest, opts)
	case "anthropic":
		if !hasRest {
			rest = defaultAnthropicURL
		}
		return newAnthropic(rest, opts)
	case "exec":
		return newExec(rest, opts)
	}
	return nil, fmt.Errorf("unknown --llm %q: want openai:URL, anthropic[:URL] or exec:COMMAND", spec)
}

// allowHTTPEnv set to 1 is Options.AllowHTTP for a run.
const allowHTTPEnv = "LORE_LLM_ALLOW_HTTP"

// checkKeyTransport refuses to send the key held in keyVar to base over
// plain http when base is not on this machine, unless allowed: a key
// sent in the clear to a host on a network is a key given away.
func checkKeyTransport(base, keyVar string, opts Options) error {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || loopback(u.Hostname()) || opts.AllowHTTP || os.Getenv(allowHTTPEnv) == "1" {
		return nil
	}
	return fmt.Errorf("refusing to send %s over plain http to %s: use https, or set %s=1 if the network is yours", keyVar, u.Host, allowHTTPEnv)
}

// keyClient is c, refusing as checkKeyTransport does a redirect that
// would carry the key over plain http off this machine: Go forwards a
// header such as Anthropic's x-api-key to wherever a 307 or 308 points.
func keyClient(c *http.Client, keyVar string, opts Options) *http.Client {
	kc := *c
	next := c.CheckRedirect
	kc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := checkKeyTransport(req.URL.String(), keyVar, opts); err != nil {
			return fmt.Errorf("redirected: %w", err)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &kc
}

// loopback reports whether host names this machine: localhost (and its
// subdomains, which resolve to it), 127.0.0.0/8 or ::1.
func loopback(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// parseBase checks the base URL of an HTTP API and returns it without a
// trailing slash, and in the form safe to show.
func parseBase(s string) (base, shown string, err error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("bad URL %q in --llm: want http:// or https://, a host and a path, e.g. openai:http://localhost:11434/v1", s)
	}
	return strings.TrimRight(s, "/"), strings.TrimRight(u.Redacted(), "/"), nil
}

const schemaPrompt = "Answer with JSON only, no prose and no code fences, following this JSON schema:\n"

// instructions is the system prompt, told about the schema for the APIs
// that cannot be given one.
func (r Request) instructions() (string, error) {
	if len(r.Schema) == 0 {
		return r.System, nil
	}
	var schema bytes.Buffer
	if err := json.Compact(&schema, r.Schema); err != nil {
		return "", fmt.Errorf("request schema: %w", err)
	}
	return strings.TrimSpace(r.System + "\n\n" + schemaPrompt + schema.String()), nil
}

func (r Request) maxTokens() int {
	if r.MaxTokens > 0 {
		return r.MaxTokens
	}
	return DefaultMaxTokens
}

func (r Request) schemaName() string {
	if r.SchemaName != "" {
		return r.SchemaName
	}
	return "answer"
}

// withTimeout bounds a call, so that running out of time says how long
// was waited rather than "context deadline exceeded".
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("no answer within %v: %w", d, context.DeadlineExceeded))
}

// sleep is the default Options.Sleep.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
