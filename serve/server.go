package serve

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// Limits and defaults.
const (
	// MaxJSON caps the body of a request that carries JSON.
	MaxJSON = 1 << 20
	// DefaultUploadLimit caps an uploaded transcript unless
	// Options.UploadLimit says otherwise.
	DefaultUploadLimit = 64 << 20
)

// Options configure a server.
type Options struct {
	// UploadLimit caps an uploaded transcript, in bytes; 0 is
	// DefaultUploadLimit.
	UploadLimit int64
	// Workers is how many uploads the server harvests at once, when
	// Work runs; 0 is DefaultWorkers.
	Workers int
	// Lease is how long a worker holds an upload; 0 is DefaultLease.
	Lease time.Duration
	// Log takes a line per request; nil discards them.
	Log *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Server answers the API's requests. It is an http.Handler.
type Server struct {
	teams   lore.Teams
	opts    Options
	log     *slog.Logger
	mux     *http.ServeMux
	metrics *metrics
	ui      http.Handler
	uploads *Uploads
}

// New returns a server over teams, which keep the uploads' queue too.
// The caller runs Work to harvest the uploads, and closes teams after
// the server has stopped.
func New(teams lore.Teams, opts Options) (*Server, error) {
	queue, ok := teams.(lore.UploadQueue)
	if !ok {
		return nil, fmt.Errorf("%T keeps no queue of uploads", teams)
	}
	if opts.UploadLimit <= 0 {
		opts.UploadLimit = DefaultUploadLimit
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{teams: teams, opts: opts, log: log, mux: http.NewServeMux(), metrics: newMetrics(),
		uploads: NewUploads(teams, queue, QueueOptions{Workers: opts.Workers, Lease: opts.Lease, Now: opts.Now, Log: log})}
	s.routes()
	s.ui = newUI(s)
	return s, nil
}

// Work harvests uploaded transcripts, those sent to any server on the
// same queue, until ctx is done; then it lets the harvests under way
// finish (each for up to the lease) and returns.
func (s *Server) Work(ctx context.Context) { s.uploads.Work(ctx) }

// routes lists the API. The patterns are also the route label of the
// metrics and logs.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	s.handle("GET /v1/search", lore.ScopeRead, 0, s.search)
	s.handle("GET /v1/boot", lore.ScopeRead, 0, s.boot)
	s.handle("POST /v1/recall/before-tool", lore.ScopeRead, MaxJSON, s.beforeTool)
	s.handle("POST /v1/recall/after-tool", lore.ScopeRead, MaxJSON, s.afterTool)
	s.handle("GET /v1/items", lore.ScopeRead, 0, s.listItems)
	s.handle("GET /v1/items/{id}", lore.ScopeRead, 0, s.getItem)
	s.handle("POST /v1/items", lore.ScopeWrite, MaxJSON, s.addItems)
	s.handle("POST /v1/items/{id}/promote", lore.ScopeWrite, MaxJSON, s.review(lore.ReviewPromote))
	s.handle("POST /v1/items/{id}/retire", lore.ScopeWrite, MaxJSON, s.review(lore.ReviewRetire))
	s.handle("POST /v1/items/{id}/edit", lore.ScopeWrite, MaxJSON, s.review(lore.ReviewEdit))
	s.handle("POST /v1/items/{id}/keep", lore.ScopeWrite, MaxJSON, s.review(lore.ReviewKeep))
	s.handle("POST /v1/items/{id}/supersede", lore.ScopeWrite, MaxJSON, s.supersede)
	s.handle("POST /v1/sessions", lore.ScopeWrite, -1, s.upload)
	s.handle("GET /v1/harvest", lore.ScopeRead, 0, s.harvestStatus)
	s.handle("GET /v1/measure", lore.ScopeRead, 0, s.measure)
	// A lore.Store over the API, for lore on another machine (store.go).
	s.handle("POST /v1/query/searches", lore.ScopeRead, MaxJSON, s.searches)
	s.handle("POST /v1/query/items", lore.ScopeRead, MaxJSON, s.queryItems)
	s.handle("POST /v1/query/best", lore.ScopeRead, MaxJSON, s.best)
	s.handle("POST /v1/query/count", lore.ScopeRead, MaxJSON, s.count)
	s.handle("POST /v1/query/recall", lore.ScopeRead, MaxJSON, s.recallItems)
	s.handle("POST /v1/query/episodes", lore.ScopeRead, MaxJSON, s.episodes)
	s.handle("GET /v1/boots", lore.ScopeRead, 0, s.boots)
	s.handle("POST /v1/boots", lore.ScopeRead, MaxJSON, s.recordBootRoute)
	s.handle("GET /v1/harvests", lore.ScopeRead, 0, s.harvests)
	s.handle("GET /v1/harvested", lore.ScopeRead, 0, s.harvested)
}

// call is what a handler of the API is given: the request's token and
// its team's store.
type call struct {
	token lore.Token
	store lore.Store
	r     *http.Request
}

// handler answers one route: a value to write as JSON (or a response
// that writes itself), or an error.
type handler func(ctx context.Context, c *call) (any, error)

// response is a handler's answer that is not JSON of 200.
type response interface {
	write(w http.ResponseWriter)
}

// handle registers a route of the API: bearer token of scope at least
// need, a body of at most limit bytes (0 for none, -1 for the upload
// limit).
func (s *Server) handle(pattern string, need lore.TokenScope, limit int64, h handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		info := requestInfo(r.Context())
		tok, err := s.authorize(r, need)
		if err != nil {
			writeError(w, s.log, err)
			return
		}
		info.team = tok.Team
		st, err := s.teams.Team(r.Context(), tok.Team)
		if err != nil {
			writeError(w, s.log, fmt.Errorf("open team %s: %w", tok.Team, err))
			return
		}
		switch limit {
		case 0:
			r.Body = http.MaxBytesReader(w, r.Body, 0)
		case -1:
			r.Body = http.MaxBytesReader(w, r.Body, s.opts.UploadLimit)
		default:
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		v, err := h(r.Context(), &call{token: tok, store: st, r: r})
		if err != nil {
			writeError(w, s.log, err)
			return
		}
		if resp, ok := v.(response); ok {
			resp.write(w)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// authorize finds the request's bearer token and checks it allows need.
// The team a request is for comes from its token and nothing else.
func (s *Server) authorize(r *http.Request, need lore.TokenScope) (lore.Token, error) {
	auth := r.Header.Get("Authorization")
	scheme, secret, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(secret) == "" {
		return lore.Token{}, &apiError{http.StatusUnauthorized, codeUnauthorized,
			"no bearer token: send Authorization: Bearer lore_… (lore serve token create makes one)"}
	}
	return s.tokenOf(r.Context(), strings.TrimSpace(secret), need)
}

// tokenOf returns the token whose secret this is, when it is valid and
// allows need.
func (s *Server) tokenOf(ctx context.Context, secret string, need lore.TokenScope) (lore.Token, error) {
	hash := lore.HashToken(secret)
	tok, err := s.teams.TokenByHash(ctx, hash)
	if lore.ErrorCode(err) == lore.ENOTFOUND {
		return lore.Token{}, errBadToken
	}
	if err != nil {
		return lore.Token{}, fmt.Errorf("look the token up: %w", err)
	}
	// The store found the token by its hash, through an index; the id it
	// gives back is the hash's start (lore.Token), compared again here in
	// constant time, so that a store that matched loosely (a prefix, a
	// collation) lets no other token through.
	if want := hex.EncodeToString(hash[:6]); subtle.ConstantTimeCompare([]byte(tok.ID), []byte(want)) != 1 {
		return lore.Token{}, errBadToken
	}
	if !tok.Revoked.IsZero() {
		return lore.Token{}, &apiError{http.StatusUnauthorized, codeUnauthorized, "the token was revoked"}
	}
	if !tok.Scope.Allows(need) {
		return lore.Token{}, &apiError{http.StatusForbidden, codeForbidden,
			fmt.Sprintf("the token's scope is %s; this needs a %s token", tok.Scope, need)}
	}
	return tok, nil
}

// info is what the log line of a request says beyond its route.
type info struct{ team string }

type infoKey struct{}

func requestInfo(ctx context.Context) *info {
	if i, ok := ctx.Value(infoKey{}).(*info); ok {
		return i
	}
	return &info{}
}

// ServeHTTP answers a request: a route of the API, or a JSON error for
// a path or method it does not know. A handler that panics is answered
// with a 500; the server goes on.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var h http.Handler = s.mux
	_, route := s.mux.Handler(r)
	if !apiPath(r.URL.Path) {
		h, route = s.ui, "ui" // a person's browser: the web view (ui.go)
	} else if route == "" {
		// Not a route: the mux's own answer (404, 405 with Allow, a
		// redirect to the cleaned path), as JSON.
		h = http.HandlerFunc(s.notRouted)
		route = "unrouted"
	}
	i := &info{}
	r = r.WithContext(context.WithValue(r.Context(), infoKey{}, i))
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("handler panicked", "route", route, "panic", fmt.Sprint(p))
			if sw.status == 0 {
				writeJSON(sw, http.StatusInternalServerError, errorBody{"internal error; the server's log says more", codeInternal})
			}
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		d := time.Since(start)
		s.metrics.observe(route, status, d)
		attrs := []any{"method", r.Method, "route", route, "status", status, "duration_ms", float64(d.Microseconds()) / 1000,
			"bytes", sw.bytes}
		if i.team != "" {
			attrs = append(attrs, "team", i.team)
		}
		s.log.Info("request", attrs...)
	}()
	h.ServeHTTP(sw, r)
}

// notRouted answers a request no route takes with the status the mux
// gives it, as a JSON error.
func (s *Server) notRouted(w http.ResponseWriter, r *http.Request) {
	rec := &headerRecorder{header: http.Header{}}
	s.mux.ServeHTTP(rec, r)
	for _, k := range []string{"Allow", "Location"} {
		if v := rec.header.Get(k); v != "" {
			w.Header().Set(k, v)
		}
	}
	switch rec.status {
	case http.StatusMethodNotAllowed:
		writeJSON(w, rec.status, errorBody{fmt.Sprintf("%s is not allowed on %q (allowed: %s)", r.Method, r.URL.Path, rec.header.Get("Allow")), codeMethod})
	case http.StatusNotFound, 0:
		writeJSON(w, http.StatusNotFound, errorBody{fmt.Sprintf("no route %s %q; docs/api.md lists them", r.Method, r.URL.Path), codeNotFound})
	default:
		writeJSON(w, rec.status, errorBody{fmt.Sprintf("%s %q: see %s", r.Method, r.URL.Path, rec.header.Get("Location")), "redirect"})
	}
}

// headerRecorder keeps the status and headers a handler writes, and
// drops its body.
type headerRecorder struct {
	header http.Header
	status int
}

func (h *headerRecorder) Header() http.Header         { return h.header }
func (h *headerRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerRecorder) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

// statusWriter keeps the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeJSON writes v as the response, one line of JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // the client has gone if it fails: nothing to tell it
}

// decodeJSON reads a request's body, one JSON value, into v; fields v
// does not have are refused, so a misspelt one is not silently dropped.
func decodeJSON(body io.Reader, v any) error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			return err
		case errors.Is(err, io.EOF):
			return invalidf("the body is empty: want a JSON object")
		}
		return invalidf("malformed JSON: %s", oneLine(err.Error()))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		return invalidf("malformed JSON: more than one value in the body")
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
