package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	maxAnswer  = 16 << 20 // bytes read of an answer, from an API or a command
	firstDelay = time.Second
	maxDelay   = 30 * time.Second
	maxMessage = 300 // bytes of an API's error message kept in an error
)

// api is what the HTTP clients share: a JSON POST that retries what is
// worth retrying and turns an error answer into one readable line.
type api struct {
	name    string // "openai" or "anthropic", which starts every error
	keyVar  string // the environment variable holding the key, named when it is refused
	key     string // never shown: scrubbed from what the server says
	client  *http.Client
	retries int
	sleep   func(context.Context, time.Duration) error
}

// statusError is an answer with an error status.
type statusError struct {
	api    string
	status int
	msg    string // the API's message, one line, short
	body   string // the whole answer, for clients that read it for hints
	hint   string
}

func (e *statusError) Error() string {
	s := fmt.Sprintf("%s: %d", e.api, e.status)
	if text := http.StatusText(e.status); text != "" {
		s += " " + text
	}
	if e.msg != "" {
		s += ": " + e.msg
	}
	if e.hint != "" {
		s += " (" + e.hint + ")"
	}
	return s
}

// Unwrap makes a refused key ErrAuth.
func (e *statusError) Unwrap() error {
	if e.status == http.StatusUnauthorized || e.status == http.StatusForbidden {
		return ErrAuth
	}
	return nil
}

// post sends in as JSON to url and decodes a 2xx answer into out.
func (a *api) post(ctx context.Context, url string, header http.Header, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", a.name, err)
	}
	for attempt := 0; ; attempt++ {
		retry, wait, err := a.try(ctx, url, header, body, out)
		if !retry || a.retries == 0 {
			return err
		}
		if attempt == a.retries {
			return fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
		}
		if wait <= 0 {
			wait = backoff(attempt)
		}
		if a.sleep(ctx, wait) != nil {
			return fmt.Errorf("%s: %w (while waiting to retry after: %v)", a.name, context.Cause(ctx), err)
		}
	}
}

// try makes one request. It says whether the error is worth a retry and
// how long the server asked to wait first (0 when it did not say).
func (a *api) try(ctx context.Context, url string, header http.Header, body []byte, out any) (retry bool, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return false, 0, fmt.Errorf("%s: %w", a.name, err)
	}
	req.Header = header.Clone()
	resp, err := a.client.Do(req)
	if err == nil {
		defer resp.Body.Close()
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, 0, fmt.Errorf("%s: %w", a.name, context.Cause(ctx))
		}
		if unreachable(err) {
			return false, 0, fmt.Errorf("%s: %s: %w (%v)", a.name, url, ErrUnreachable, err)
		}
		return true, 0, fmt.Errorf("%s: %w", a.name, err)
	}
	if resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(body, out); err != nil {
			return false, 0, fmt.Errorf("%s: decode answer: %w", a.name, err)
		}
		return false, 0, nil
	}
	e := a.statusError(resp.StatusCode, body)
	switch resp.StatusCode {
	case 429, 500, 502, 503, 504, 529: // 529: Anthropic is overloaded
		return true, retryAfter(resp.Header, time.Now()), e
	}
	return false, 0, e
}

func (a *api) statusError(status int, body []byte) *statusError {
	raw := string(body)
	if a.key != "" {
		raw = strings.ReplaceAll(raw, a.key, "[key]")
	}
	e := &statusError{api: a.name, status: status, body: raw, msg: errorMessage(raw)}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		e.hint = "set " + a.keyVar + " to a valid key"
	}
	return e
}

// errorMessage finds the message in an error answer, OpenAI's
// {"error":{"message"}}, Anthropic's {"error":{"type","message"}} or
// {"error":"…"} as some servers send, and otherwise takes the text as it
// is, on one line and cut short.
func errorMessage(body string) string {
	var answer struct {
		Error json.RawMessage `json:"error"`
	}
	var detail struct{ Type, Message string }
	var text string
	msg := body
	if json.Unmarshal([]byte(body), &answer) == nil && answer.Error != nil {
		switch {
		case json.Unmarshal(answer.Error, &detail) == nil && detail.Message != "":
			msg = detail.Message
			if detail.Type != "" {
				msg = detail.Type + ": " + msg
			}
		case json.Unmarshal(answer.Error, &text) == nil && text != "":
			msg = text
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "…"
	}
	return msg
}

// retryAfter is how long a server asked to wait: Retry-After in seconds or
// as a date, or else OpenAI's x-ratelimit-reset-* of an exhausted limit
// when it is a plain duration such as "1.5s" or "6m0s".
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(min(s, 24*60*60)) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0)
		}
	}
	var wait time.Duration
	for _, limit := range []string{"requests", "tokens"} {
		if h.Get("X-Ratelimit-Remaining-"+limit) != "0" {
			continue
		}
		if d, err := time.ParseDuration(h.Get("X-Ratelimit-Reset-" + limit)); err == nil {
			wait = max(wait, d)
		}
	}
	return wait
}

// backoff is the wait before retry attempt+1 when the server did not say:
// doubling from firstDelay up to maxDelay, less up to a half at random so
// that workers that failed together do not retry together.
func backoff(attempt int) time.Duration {
	d := maxDelay
	if attempt < 5 {
		d = min(firstDelay<<attempt, maxDelay)
	}
	return d/2 + rand.N(d/2)
}

// unreachable reports whether a request's error says no server is there
// to ask: the connection refused, the host's name unknown. A timeout or a
// reset connection may pass, and is retried.
func unreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}
