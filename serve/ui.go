package serve

import (
	"html/template"
	"net/http"
	"strings"
	"sync"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/web"
)

// apiPath reports whether a path is the API's (JSON, a bearer token in
// each request) rather than the web view's (pages, a signed-in browser).
func apiPath(p string) bool {
	return p == "/v1" || strings.HasPrefix(p, "/v1/") || p == "/healthz" || p == "/metrics"
}

// ui is the web view (package web) of the team a browser signed in to
// with a bearer token: the token is kept in an HttpOnly, SameSite=Strict
// cookie, and each request is authorised with it as an API request is;
// a write token may promote, retire and edit, a read token only reads.
type ui struct {
	s      *Server
	static http.Handler // the style sheet: no secret, and the sign-in page wants it

	mu    sync.Mutex
	views map[string]http.Handler // by token id
}

func newUI(s *Server) *ui {
	return &ui{s: s, static: web.New(nil, web.Options{}), views: map[string]http.Handler{}}
}

var signinPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · lore</title><link rel="stylesheet" href="/static/style.css"></head>
<body><main id="main">
<h1>Sign in to lore serve</h1>
{{if .}}<p role="alert">{{.}}</p>{{end}}
<form method="post" action="/signin">
<p><label for="token">Token</label> <input id="token" name="token" type="password" autocomplete="off" required autofocus></p>
<p>A token of your team (<code>lore serve token create --team T --scope read|write</code> prints one on the server).
A read token shows the knowledge; a write token may also promote, retire and edit.</p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>
`))

func (u *ui) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/static/"):
		u.static.ServeHTTP(w, r)
	case r.URL.Path == "/signin" && r.Method == http.MethodGet:
		u.signin(w, http.StatusOK, "")
	case r.URL.Path == "/signin" && r.Method == http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		secret := strings.TrimSpace(r.PostFormValue("token"))
		if _, err := u.s.tokenOf(r.Context(), secret, lore.ScopeRead); err != nil {
			u.signin(w, http.StatusUnauthorized, "That token is unknown or revoked.")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: web.CookieName(r), Value: secret, Path: "/", HttpOnly: true,
			Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	case r.URL.Path == "/signout" && r.Method == http.MethodPost:
		http.SetCookie(w, &http.Cookie{Name: web.CookieName(r), Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
			Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
	default:
		u.page(w, r)
	}
}

// page answers from the web view of the signed-in token's team; a
// browser not signed in is sent to sign in.
func (u *ui) page(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(web.CookieName(r))
	if err != nil || c.Value == "" {
		u.unsigned(w, r, "")
		return
	}
	tok, err := u.s.tokenOf(r.Context(), c.Value, lore.ScopeRead)
	if err != nil {
		u.unsigned(w, r, "The token this browser signed in with is unknown or revoked: sign in again.")
		return
	}
	requestInfo(r.Context()).team = tok.Team
	st, err := u.s.teams.Team(r.Context(), tok.Team)
	if err != nil {
		u.s.log.Error("open team", "team", tok.Team, "error", err.Error())
		http.Error(w, "the team's store could not be opened; the server's log says why", http.StatusInternalServerError)
		return
	}
	u.view(tok, st).ServeHTTP(w, r)
}

// unsigned sends a browser to the sign-in page; a form sent without a
// session is refused.
func (u *ui) unsigned(w http.ResponseWriter, r *http.Request, why string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		u.signin(w, http.StatusUnauthorized, "Sign in first.")
		return
	}
	if why != "" {
		u.signin(w, http.StatusUnauthorized, why)
		return
	}
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

func (u *ui) signin(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	signinPage.Execute(w, msg)
}

// view is the web view of a token's team, kept while the server runs; a
// team's store is the server's, opened once.
func (u *ui) view(tok lore.Token, st lore.Store) http.Handler {
	u.mu.Lock()
	defer u.mu.Unlock()
	if v := u.views[tok.ID]; v != nil {
		return v
	}
	by := tok.Name
	if by == "" {
		by = "token " + tok.ID
	}
	v := web.New(st, web.Options{Writes: tok.Scope.Allows(lore.ScopeWrite), By: by + " via lore serve", Log: u.s.log})
	u.views[tok.ID] = v
	return v
}
