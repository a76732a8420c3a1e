package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/iostreams"
)

// TestUIAddr: lore ui refuses an address beyond loopback, before it
// opens anything.
func TestUIAddr(t *testing.T) {
	home := t.TempDir()
	for _, addr := range []string{"0.0.0.0:0", ":7078", "192.168.1.4:80", "example.com:80"} {
		r := runLore(t, home, "ui", "--addr", addr, "--store", filepath.Join(home, "lore.db"))
		if r.code != 2 || !strings.Contains(r.err, "not a loopback address") {
			t.Errorf("lore ui --addr %s: exit %d, %q; want 2", addr, r.code, r.err)
		}
	}
	if r := runLore(t, home, "ui", "--store", "https://lore.acme.dev"); r.code != 1 || !strings.Contains(r.err, "on this machine") {
		t.Errorf("lore ui on a server's store: exit %d, %q; want 1", r.code, r.err)
	}
}

// TestUIRun: lore ui prints an address with its token, opens nothing,
// serves the pages to a browser that visited it, refuses one that did
// not, and stops with exit 0 when its context ends.
func TestUIRun(t *testing.T) {
	home := t.TempDir()
	ios, _, _, errOut := iostreams.Test()
	pr, pw := io.Pipe()
	ios.Out = pw
	fac := newFactory(ios, testEnv(home, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, fac, []string{"ui", "--store", filepath.Join(home, "lore.db")})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("lore ui printed no address: %q", errOut.String())
	}
	url := sc.Text()
	go io.Copy(io.Discard, pr)
	base, token, ok := strings.Cut(url, "/?token=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || len(token) < 32 {
		t.Fatalf("lore ui printed %q; want http://127.0.0.1:PORT/?token=…", url)
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token: %d, want 401", resp.StatusCode)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	for _, path := range []string{"/?token=" + token, "/sessions", "/dashboard"} {
		resp, err := browser.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s signed in: %d", path, resp.StatusCode)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(errOut.String(), "stopped") {
			t.Errorf("lore ui after its context ended: exit %d, %q", code, errOut.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("lore ui did not stop")
	}
}
