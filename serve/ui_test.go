package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// browser is a person's browser on the server: it keeps cookies and does
// not follow redirects, so that a test sees them.
type browser struct {
	t *testing.T
	e *env
	c *http.Client
}

func newBrowser(t *testing.T, e *env) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) get(path string) (int, string, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.e.url + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

func (b *browser) post(path string, form url.Values) (int, string, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(b.e.url+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// TestWebView: lore serve shows a team's knowledge to a browser signed in
// with one of the team's tokens, and nothing of another team's; a write
// token may promote with the page's CSRF token, a read token may not,
// and a revoked token signs the browser out.
func TestWebView(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Options{})
	add := func(team, text string) string {
		st, err := e.teams.Team(ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Add(ctx, []lore.Item{{Text: text, Category: lore.CategoryPitfall, Repo: "acme/api", Confidence: 0.5,
			Status: lore.StatusCandidate, Evidence: []lore.Evidence{{Session: "s1", Position: 1}}, FirstSeen: time.Now()}})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].ID
	}
	mine := add("acme", "`make deploy` needs VPN access to reach the registry")
	theirs := add("umbrella", "`make release` signs with the hardware key in the safe")
	write, read := e.token("acme", lore.ScopeWrite), e.token("acme", lore.ScopeRead)

	b := newBrowser(t, e)
	if code, loc, _ := b.get("/"); code != http.StatusSeeOther || loc != "/signin" {
		t.Fatalf("GET / signed out: %d to %q, want 303 to /signin", code, loc)
	}
	if code, _, _ := b.get("/static/style.css"); code != http.StatusOK {
		t.Errorf("the style sheet: %d", code)
	}
	if code, _, page := b.post("/signin", url.Values{"token": {"lore_" + strings.Repeat("a", 52)}}); code != http.StatusUnauthorized ||
		!strings.Contains(page, "unknown or revoked") {
		t.Errorf("sign in with a wrong token: %d\n%s", code, page)
	}
	if code, loc, _ := b.post("/signin", url.Values{"token": {write}}); code != http.StatusSeeOther || loc != "/" {
		t.Fatalf("sign in: %d to %q", code, loc)
	}
	code, _, page := b.get("/?status=candidate")
	if code != http.StatusOK || !strings.Contains(page, "needs VPN access") || strings.Contains(page, "hardware key") {
		t.Errorf("the candidates page: %d, want acme's item and not umbrella's:\n%s", code, page)
	}
	if code, _, _ := b.get("/items/" + theirs); code != http.StatusNotFound {
		t.Errorf("another team's item: %d, want 404", code)
	}
	code, _, page = b.get("/items/" + mine)
	m := csrfField.FindStringSubmatch(page)
	if code != http.StatusOK || m == nil {
		t.Fatalf("the item page: %d, no CSRF token:\n%s", code, page)
	}
	if code, _, _ := b.post("/items/"+mine+"/promote", url.Values{}); code != http.StatusForbidden {
		t.Errorf("promote without the CSRF token: %d, want 403", code)
	}
	if code, _, _ := b.post("/items/"+mine+"/promote", url.Values{"csrf": {m[1]}}); code >= 400 {
		t.Errorf("promote: %d", code)
	}
	st, _ := e.teams.Team(ctx, "acme")
	it, err := st.Item(ctx, mine)
	if err != nil || it.Status != lore.StatusActive || len(it.Reviews) != 1 || !strings.Contains(it.Reviews[0].By, "acme-write") {
		t.Errorf("after promote: %+v, %v; want active, decided by the token's name", it, err)
	}

	r := newBrowser(t, e)
	r.post("/signin", url.Values{"token": {read}})
	if code, _, page := r.get("/items/" + mine); code != http.StatusOK || strings.Contains(page, `id="retire"`) {
		t.Errorf("the item page for a read token: %d, offers to retire:\n%s", code, page)
	}
	if code, _, _ := r.post("/items/"+mine+"/retire", url.Values{"csrf": {m[1]}}); code != http.StatusForbidden {
		t.Errorf("retire with a read token: %d, want 403", code)
	}

	toks, err := e.teams.ListTokens(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Scope == lore.ScopeWrite {
			if _, err := e.teams.RevokeToken(ctx, tok.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if code, _, page := b.get("/"); code != http.StatusUnauthorized || !strings.Contains(page, "sign in again") {
		t.Errorf("a revoked token's browser: %d\n%s", code, page)
	}
	if code, loc, _ := b.post("/signout", nil); code != http.StatusSeeOther || loc != "/signin" {
		t.Errorf("sign out: %d to %q", code, loc)
	}
}
