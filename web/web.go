package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// Options configure the web view.
type Options struct {
	// Token, when set, is the session token lore ui prints in its URL: a
	// visit with ?token=TOKEN sets a cookie, and a request without that
	// cookie is answered 401. Empty, the caller authenticates requests
	// before they reach the handler.
	Token string
	// Writes allows the actions on an item: promote, retire, restore
	// and edit. Without it the view is for reading.
	Writes bool
	// By names who decides, in an item's history; empty is "web" (lore ui
	// says "$USER via web", as the commands say "$USER via lore promote").
	By string
	// Sessions are the sessions the dashboard measures; nil measures
	// none, and the dashboard shows what the store alone says.
	Sessions func(ctx context.Context) ([]*lore.Session, error)
	// ImproveDir is a folder in the repository lore improve runs on;
	// empty, the improve page says it has none.
	ImproveDir string
	// Log takes errors the pages could not show; nil discards them.
	Log *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// maxForm caps the body of a POST: a form with an item's text.
const maxForm = 64 << 10

// CookieName is the cookie that holds the session of a browser (lore ui's
// token, or lore serve's bearer token once signed in). A browser
// sends a host's cookies to each of its ports, so the name has the port
// in it: two lore ui on one machine do not sign each other out.
func CookieName(r *http.Request) string {
	_, port, _ := net.SplitHostPort(r.Host)
	return "lore_session_" + port
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// view answers the web view's requests.
type view struct {
	store lore.Store
	opts  Options
	log   *slog.Logger
	mux   *http.ServeMux
	pages map[string]*template.Template
	// csrfKey signs each session's CSRF token; it is new at every start,
	// so a page from an earlier run cannot post.
	csrfKey []byte
	dash    dashboardCache
	listed  listedCache
}

// New returns the web view of store, one team's. The caller closes store
// after the handler has stopped.
func New(store lore.Store, opts Options) http.Handler {
	if opts.By == "" {
		opts.By = "web"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key := make([]byte, 32)
	rand.Read(key) // never fails (crypto/rand)
	v := &view{store: store, opts: opts, log: log, mux: http.NewServeMux(), pages: parsePages(), csrfKey: key}
	static, _ := fs.Sub(staticFS, "static")
	v.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	v.mux.HandleFunc("GET /{$}", v.knowledge)
	v.mux.HandleFunc("GET /items/{id}", v.item)
	v.mux.HandleFunc("POST /items/{id}/{action}", v.act)
	v.mux.HandleFunc("GET /sessions", v.sessions)
	v.mux.HandleFunc("GET /sessions/{id}", v.session)
	v.mux.HandleFunc("GET /dashboard", v.dashboard)
	v.mux.HandleFunc("GET /dashboard/frame", v.dashboardFrame)
	v.mux.HandleFunc("GET /journal", v.journal)
	v.mux.HandleFunc("GET /improve", v.improve)
	v.mux.HandleFunc("POST /improve/{n}/{action}", v.decideChange)
	v.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		v.fail(w, r, lore.Errorf(lore.ENOTFOUND, "no page %s", r.URL.Path))
	})
	return v
}

// ServeHTTP checks the session and, on a POST, its CSRF token, then
// answers from the page's handler.
func (v *view) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script anywhere; styles from this server only (the dashboard's
	// frame sets its own, for its inline style).
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-src 'self'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if strings.HasPrefix(r.URL.Path, "/static/") && r.Method == http.MethodGet {
		v.mux.ServeHTTP(w, r) // the style sheet is no secret, and the 401 page wants it
		return
	}
	if v.opts.Token != "" {
		if t := r.URL.Query().Get("token"); t != "" {
			v.login(w, r, t)
			return
		}
		c, err := r.Cookie(CookieName(r))
		if err != nil || !equal(c.Value, v.opts.Token) {
			v.render(w, r, http.StatusUnauthorized, "message", "Not signed in", message{
				Heading: "Open the address lore ui printed",
				Text:    "This page needs the session token in the address lore ui printed when it started (http://127.0.0.1:…/?token=…). Open that address; it signs this browser in until lore ui stops.",
			})
			return
		}
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if !equal(r.PostFormValue("csrf"), v.csrf(r)) {
			v.render(w, r, http.StatusForbidden, "message", "Forbidden", message{
				Heading: "The form's token is missing or stale",
				Text:    "Reload the page and try again: a form is accepted only from a page this server gave this browser.",
			})
			return
		}
		if !v.opts.Writes {
			v.fail(w, r, errReadOnly)
			return
		}
	}
	v.mux.ServeHTTP(w, r)
}

var errReadOnly = &httpError{http.StatusForbidden, "this view is read-only: it takes no actions"}

// login takes the token of lore ui's URL: a right one sets the session
// cookie and sends the browser to the same address without it, so that
// the token stays out of its history and of links.
func (v *view) login(w http.ResponseWriter, r *http.Request, token string) {
	if !equal(token, v.opts.Token) {
		v.render(w, r, http.StatusUnauthorized, "message", "Not signed in", message{
			Heading: "That token is not this server's",
			Text:    "Open the address the running lore ui printed; a token of an earlier run no longer works.",
		})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName(r), Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	u := *r.URL
	q := u.Query()
	q.Del("token")
	u.RawQuery = q.Encode()
	u.Scheme, u.Host = "", ""
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
}

// csrf is the CSRF token of the request's session: its cookie signed
// with this run's key.
func (v *view) csrf(r *http.Request) string {
	session := ""
	if c, err := r.Cookie(CookieName(r)); err == nil {
		session = c.Value
	}
	m := hmac.New(sha256.New, v.csrfKey)
	m.Write([]byte(session))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// httpError is an error with the status to answer it with.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// status maps an error onto the status of its page.
func status(err error) int {
	var he *httpError
	if errors.As(err, &he) {
		return he.status
	}
	switch lore.ErrorCode(err) {
	case lore.ENOTFOUND:
		return http.StatusNotFound
	case lore.EINVALID:
		return http.StatusBadRequest
	case lore.ECONFLICT:
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// fail answers with a page saying what went wrong; the log has the
// details of an error of the server's own.
func (v *view) fail(w http.ResponseWriter, r *http.Request, err error) {
	st := status(err)
	text := err.Error()
	if st == http.StatusInternalServerError {
		v.log.Error("page", "path", r.URL.Path, "err", err)
		text = "Something went wrong on the server; its log says more."
	}
	v.render(w, r, st, "message", http.StatusText(st), message{Heading: http.StatusText(st), Text: text})
}

// message is the body of a page that only says something.
type message struct{ Heading, Text string }

// page is what every template is given.
type page struct {
	Title  string
	Nav    string // the section the page is in, for the menu
	CSRF   string
	Writes bool
	Body   any
}

func (v *view) render(w http.ResponseWriter, r *http.Request, status int, name, title string, body any) {
	t := v.pages[name]
	nav := name
	switch name {
	case "item":
		nav = "knowledge"
	case "session":
		nav = "sessions"
	}
	p := page{Title: title, Nav: nav, CSRF: v.csrf(r), Writes: v.opts.Writes, Body: body}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", p); err != nil {
		v.log.Error("render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered; the server's log says why", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	fmt.Fprint(w, b.String())
}

var funcs = template.FuncMap{
	"conf": func(c float64) string { return fmt.Sprintf("%.2f", c) },
	"day": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.Local().Format("2006-01-02")
	},
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.Local().Format("2006-01-02 15:04")
	},
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"short":    func(id string) string { return id[:min(len(id), 12)] },
	"scope":    scopeOf,
	"list":     func(xs ...int) []int { return xs },
	"outcomes": func() []string { return lore.AttemptOutcomes },
}

// scopeOf says an item's scope in words.
func scopeOf(repo, agent string) string {
	switch {
	case repo != "" && agent != "":
		return repo + " · " + agent
	case repo != "":
		return repo
	case agent != "":
		return agent
	}
	return "global"
}

// parsePages parses each page's template with the layout it fills in.
func parsePages() map[string]*template.Template {
	layout := template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		pages[name] = template.Must(template.Must(layout.Clone()).ParseFS(templateFS, n))
	}
	return pages
}
