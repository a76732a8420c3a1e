package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date passed", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"huge", http.Header{"Retry-After": {"99999999999"}}, 24 * time.Hour},
		{"nonsense", http.Header{"Retry-After": {"soon"}}, 0},
		{"openai tokens exhausted", http.Header{
			"X-Ratelimit-Remaining-Requests": {"12"}, "X-Ratelimit-Reset-Requests": {"1m0s"},
			"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"1.5s"},
		}, 1500 * time.Millisecond},
		{"openai both exhausted", http.Header{
			"X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"6m0s"},
			"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"20ms"},
		}, 6 * time.Minute},
		{"openai not exhausted", http.Header{"X-Ratelimit-Remaining-Tokens": {"5"}, "X-Ratelimit-Reset-Tokens": {"2s"}}, 0},
		{"openai odd reset", http.Header{"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"2 days"}}, 0},
		{"retry-after wins", http.Header{"Retry-After": {"3"}, "X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"9s"}}, 3 * time.Second},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("%s: retryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	for attempt, want := range []time.Duration{1, 2, 4, 8, 16, 30, 30, 30} {
		want *= time.Second
		for range 20 {
			if got := backoff(attempt); got < want/2 || got >= want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v)", attempt, got, want/2, want)
			}
		}
	}
	if got := backoff(200); got > maxDelay {
		t.Errorf("backoff(200) = %v", got)
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"Invalid model","type":"invalid_request_error","param":"model"}}`, "invalid_request_error: Invalid model"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error: Overloaded"},
		{`{"error":{"code":400,"message":"bad\nthing"}}`, "bad thing"},
		{`{"error":"model \"x\" not found, try pulling it first"}`, `model "x" not found, try pulling it first`},
		{"<html>\n<body>502 Bad Gateway</body>\n</html>\n", "<html> <body>502 Bad Gateway</body> </html>"},
		{`{"detail":"Not Found"}`, `{"detail":"Not Found"}`},
		{"", ""},
		{strings.Repeat("é", 400), strings.Repeat("é", 150) + "…"},
	}
	for _, tt := range tests {
		if got := errorMessage(tt.body); got != tt.want {
			t.Errorf("errorMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func FuzzErrorMessage(f *testing.F) {
	f.Add(`{"error":{"message":"m","type":"t"}}`)
	f.Add(`{"error":"m"}`)
	f.Add(`{"error":{"message":"` + strings.Repeat("x ", 300) + `"}}`)
	f.Add("plain\ntext")
	f.Fuzz(func(t *testing.T, body string) {
		msg := errorMessage(body)
		if len(msg) > maxMessage+len("…") || strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("errorMessage(%q) = %q: too long or more than one line", body, msg)
		}
		if utf8.ValidString(body) && !utf8.ValidString(msg) {
			t.Fatalf("errorMessage(%q) = %q: cut inside a character", body, msg)
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	f.Add("120", "1.5s")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", "6m0s")
	f.Fuzz(func(t *testing.T, after, reset string) {
		h := http.Header{"Retry-After": {after}, "X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {reset}}
		if d := retryAfter(h, time.Now()); d < 0 {
			t.Fatalf("retryAfter(%q, %q) = %v", after, reset, d)
		}
	})
}

// TestUnreachableNotRetried: a server that refuses the connection, or a
// host whose name is not known, is not asked again: the error says so
// (ErrUnreachable) and names the URL, after one attempt.
func TestUnreachableNotRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	slept := 0
	c, err := New("openai:http://"+addr+"/v1", Options{Model: "m", MaxRetries: 5,
		Sleep: func(context.Context, time.Duration) error { slept++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), Request{Prompt: "hi"})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "http://"+addr+"/v1/chat/completions") || slept != 0 {
		t.Errorf("error %v after %d waits; want ErrUnreachable naming the URL, at once", err, slept)
	}
}
