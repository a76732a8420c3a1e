package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/internal/servetest"
	"github.com/lorehq/lore/postgres"
)

var tokenLine = regexp.MustCompile(`^lore_[a-z2-7]{52}$`)

// TestServeToken: create prints the token once, on its last line; the
// store keeps no secret; list never shows one; revoke takes an id's start.
func TestServeToken(t *testing.T) {
	home := t.TempDir()
	store := filepath.Join(home, "team.db")
	r := runLore(t, home, "serve", "token", "create", "--store", store, "--team", "acme", "--scope", "write", "--name", "ci")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !tokenLine.MatchString(lines[1]) || !strings.Contains(lines[0], "team acme") {
		t.Fatalf("token create: exit %d, %q %q", r.code, r.stdout, r.err)
	}
	secret := lines[1]
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret[5:]) {
		t.Error("the store keeps the token's secret")
	}
	r = runLore(t, home, "serve", "token", "create", "--store", store, "--team", "beta", "--scope", "read", "--json")
	var made struct{ ID, Team, Scope, Token string }
	if err := json.Unmarshal([]byte(r.stdout), &made); err != nil || made.Team != "beta" || made.Scope != "read" || !tokenLine.MatchString(made.Token) {
		t.Fatalf("token create --json: %q (%v)", r.stdout, err)
	}

	r = runLore(t, home, "serve", "token", "list", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "acme") || !strings.Contains(r.stdout, "beta") || strings.Contains(r.stdout, "lore_") {
		t.Errorf("token list: %q", r.stdout)
	}
	r = runLore(t, home, "serve", "token", "list", "--store", store, "--team", "beta", "--json")
	var listed struct{ ID, Team string }
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || listed.ID != made.ID || strings.Count(r.stdout, "\n") != 1 || strings.Contains(r.stdout, "lore_") {
		t.Errorf("token list --team beta --json: %q", r.stdout)
	}

	r = runLore(t, home, "serve", "token", "revoke", "--store", store, made.ID[:6])
	if r.code != 0 || !strings.Contains(r.stdout, "revoked "+made.ID) {
		t.Errorf("token revoke: exit %d %q %q", r.code, r.stdout, r.err)
	}
	r = runLore(t, home, "serve", "token", "list", "--store", store, "--team", "beta", "--json")
	if !strings.Contains(r.stdout, `"revoked":"`) {
		t.Errorf("revoked token listed as %q", r.stdout)
	}
	if r := runLore(t, home, "serve", "token", "revoke", "--store", store, "ffffffffffff"); r.code != 1 {
		t.Errorf("revoke unknown: exit %d %q", r.code, r.err)
	}
	for _, args := range [][]string{
		{"serve", "token", "create", "--store", store, "--team", "Acme", "--scope", "read"},
		{"serve", "token", "create", "--store", store, "--team", "acme", "--scope", "admin"},
		{"serve", "token", "create", "--store", store, "--scope", "read"},
		{"serve", "token", "revoke", "--store", store, "zz"},
		{"serve", "token", "list", "--store", store, "--team", "../x"},
		{"serve", "--store", store, "--tls-cert", "cert.pem"},
		{"serve", "--store", store, "--upload-limit", "lots"},
		{"serve", "tokens"},
	} {
		if r := runLore(t, home, args...); r.code != 2 {
			t.Errorf("lore %v: exit %d, want 2 (%q)", args, r.code, r.err)
		}
	}
}

// TestServeBadCertificate: a certificate that does not load is an error
// before anything listens.
func TestServeBadCertificate(t *testing.T) {
	home := t.TempDir()
	cert := filepath.Join(home, "cert.pem")
	os.WriteFile(cert, []byte("not a certificate"), 0o600)
	r := runLore(t, home, "serve", "--store", filepath.Join(home, "lore.db"), "--tls-cert", cert, "--tls-key", cert)
	if r.code != 1 || !strings.Contains(r.err, "TLS certificate") || strings.Contains(r.err, "listening") {
		t.Errorf("serve with a bad certificate: exit %d, %q", r.code, r.err)
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"1024": 1024, "64MiB": 64 << 20, "2GiB": 2 << 30, "8KiB": 8 << 10, "0": -1, "-5": -1, "x": -1, "MiB": -1} {
		got, err := parseSize(s)
		if want < 0 && err == nil || want >= 0 && got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

// TestServeWarnsBeyondLoopback: serving every interface without TLS
// warns on stderr; on loopback it does not.
func TestServeWarnsBeyondLoopback(t *testing.T) {
	for addr, warn := range map[string]bool{"0.0.0.0:0": true, "127.0.0.1:0": false} {
		ios, _, _, errOut := iostreams.Test()
		fac := newFactory(ios, testEnv(t.TempDir(), nil))
		open := fac.OpenTeams
		fac.OpenTeams = func(_ context.Context, p string) (lore.Teams, error) { return open(context.Background(), p) }
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // stop as soon as it listens
		code := run(ctx, fac, []string{"serve", "--store", filepath.Join(t.TempDir(), "lore.db"), "--addr", addr})
		if code != 0 || strings.Contains(errOut.String(), "without TLS") != warn || !strings.Contains(errOut.String(), "listening on http://") {
			t.Errorf("serve --addr %s: exit %d, stderr %q; want a warning: %v", addr, code, errOut.String(), warn)
		}
	}
}

// TestServeBinary runs the real binary: a token made, lore serve on a
// free port, a request with the token, SIGTERM, exit 0.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore and starts it")
	}
	dir := t.TempDir()
	serveBinary(t, buildLore(t), filepath.Join(dir, "lore.db"), "acme", nil)
}

// TestServePostgres: lore serve on a PostgreSQL database, as a team lead
// runs it (LORE_TEST_PG_URL), and a machine whose store is that server:
// what the machine adds, the server keeps in the team's schema.
func TestServePostgres(t *testing.T) {
	url := os.Getenv("LORE_TEST_PG_URL")
	if url == "" {
		t.Skip("set LORE_TEST_PG_URL=postgres://… to run the PostgreSQL tests (.ci/run does)")
	}
	if testing.Short() {
		t.Skip("builds lore and starts it")
	}
	team := fmt.Sprintf("serve-test-%x", rand.Uint64())
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{postgres.Schema(team)}.Sanitize()+` CASCADE`)
		conn.Exec(ctx, `DELETE FROM `+postgres.AdminSchema+`.tokens WHERE team = $1`, team)
		conn.Exec(ctx, `DELETE FROM `+postgres.AdminSchema+`.uploads WHERE team = $1`, team)
	})
	bin := buildLore(t)
	serveBinary(t, bin, url, team, func(base, token string) {
		home := t.TempDir()
		env := append(os.Environ(), "LORE_HOME="+home, "LORE_STORE="+base, "LORE_TOKEN="+token)
		add := exec.Command(bin, "add", "Pushing to main returns HTTP 405: open a pull request", "-c", "pitfall", "--repo", "acme/api")
		add.Env = env
		if out, err := add.CombinedOutput(); err != nil {
			t.Fatalf("lore add through the server: %v\n%s", err, out)
		}
		search := exec.Command(bin, "search", "why does pushing to main fail?")
		search.Env = env
		if out, err := search.CombinedOutput(); err != nil || !strings.Contains(string(out), "HTTP 405") {
			t.Errorf("lore search through the server: %v\n%s", err, out)
		}
		st, err := postgres.Open(context.Background(), url, postgres.Options{Team: team})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if n, err := st.Count(context.Background(), lore.Filter{AnyStatus: true}); err != nil || n != 2 {
			t.Errorf("the team's schema holds %d items (%v), want the 2 added", n, err)
		}
		// The web view of the same server, signed in with the token.
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		resp, err := browser.PostForm(base+"/signin", neturl.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Pushing to main returns HTTP 405") {
			t.Errorf("the web view on PostgreSQL: %d\n%s", resp.StatusCode, page)
		}
		// A second lore serve on the same database: sessions pushed to
		// either are harvested by a worker of either, once.
		serveBinary(t, bin, url, team, func(other, _ string) { pushToTwo(t, bin, url, team, []string{base, other}, token) })
	})
}

// pushToTwo pushes 6 sessions to each of two servers on the database at
// pgURL, waits for their workers to harvest them, and checks that each
// was harvested once.
func pushToTwo(t *testing.T, bin, pgURL, team string, servers []string, token string) {
	t.Helper()
	for i, base := range servers {
		dir := t.TempDir()
		for j := range 6 {
			writePushSession(t, dir, fmt.Sprintf("0b6c1a52-6f0e-4c7e-9b1a-%06d%06d", i, j), fmt.Sprintf("Fix %d of server %d.", j, i))
		}
		push := exec.Command(bin, "push", dir, "--json")
		push.Env = append(os.Environ(), "LORE_HOME="+t.TempDir(), "LORE_STORE="+base, "LORE_TOKEN="+token)
		if out, err := push.Output(); err != nil || !strings.Contains(string(out), `"sent":6,`) {
			t.Fatalf("lore push to %s: %v\n%s", base, err, out)
		}
	}
	teams, err := postgres.OpenTeams(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer teams.Close()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ups, err := teams.Uploads(ctx, team, 100)
		if err != nil {
			t.Fatal(err)
		}
		done, workers := 0, map[string]int{}
		for _, u := range ups {
			if u.State == lore.UploadHarvested || u.State == lore.UploadFailed {
				done++
				workers[u.Worker]++
				if u.State == lore.UploadFailed || u.Attempts != 1 {
					t.Errorf("upload %s: %s after %d attempts %s", u.ID, u.State, u.Attempts, u.Error)
				}
			}
		}
		if len(ups) == 12 && done == 12 {
			t.Logf("harvested by %v", workers)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d uploads harvested after 30 s", done, len(ups))
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, err := teams.Team(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	st.Harvests(ctx, func(h lore.Harvest) error { per[h.Session]++; return nil })
	if len(per) != 12 {
		t.Errorf("%d sessions harvested, want 12", len(per))
	}
	for s, n := range per {
		if n != 1 {
			t.Errorf("session %s has %d harvest records", s, n)
		}
	}
}

// serveBinary creates a write token of team in store, starts lore serve
// on it on a free port, adds an item with the token, and hands the address
// and token to then (when not nil); it is stopped with SIGTERM when the
// test ends, and must exit 0.
func serveBinary(t *testing.T, bin, store, team string, then func(url, token string)) {
	home := t.TempDir()
	env := append(os.Environ(), "LORE_HOME="+home)
	create := exec.Command(bin, "serve", "token", "create", "--store", store, "--team", team, "--scope", "write")
	create.Env = env
	out, err := create.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	token := lines[len(lines)-1]

	url, head := servetest.Process(t, bin, env, "--store", store, "--addr", "127.0.0.1:0")
	for _, l := range head {
		if strings.Contains(l, "lore:lore@") {
			t.Errorf("lore serve printed the database's password: %s", l)
		}
	}
	req, _ := http.NewRequest("POST", url+"/v1/items", strings.NewReader(`{"items":[{"text":"The walrus queue keeps messages for 7 days","category":"fact"}]}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// A second server on the same store finds it there.
	if resp.StatusCode != http.StatusOK || !regexp.MustCompile(`"action":"(created|unchanged)"`).Match(b) {
		t.Errorf("add: %d %s", resp.StatusCode, b)
	}
	if then != nil {
		then(url, token)
	}
}
