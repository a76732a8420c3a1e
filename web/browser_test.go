package web

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/testenv"
)

// TestBrowser drives a headless Chromium through the web view as a
// person would: sign in with lore ui's address, search the candidates,
// open one, promote it and see it active, open the session it came from
// at its message, and open the dashboard; at a desktop's width and a
// phone's; then by keyboard, and in the dark scheme. It fails on any console message, script error or CSP report,
// and on a page wider than the window. Screenshots go to
// LORE_TEST_ARTIFACTS when it is set, else to a temporary folder.
//
// It speaks the DevTools protocol over --remote-debugging-pipe (JSON
// messages on file descriptors 3 and 4, each ended by a NUL byte): the
// standard library is enough for that, where chromedp would be a new
// dependency and a websocket needs a client of its own.
func TestBrowser(t *testing.T) {
	browser := testenv.Browser(t)
	f := newFixture(t)
	srv := httptest.NewServer(New(f.store, Options{Token: testToken, Writes: true}))
	defer srv.Close()
	shots := os.Getenv("LORE_TEST_ARTIFACTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	p := startTab(ctx, t, browser)

	for _, width := range []int{1280, 390} {
		p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
		shot := func(name string) {
			t.Helper()
			p.checkLayout(name)
			p.screenshot(filepath.Join(shots, fmt.Sprintf("%s-%d.png", name, width)))
		}
		p.navigate(srv.URL + "/?token=" + testToken)
		if got := p.eval(`location.pathname + location.search`); got != "/" {
			t.Fatalf("after signing in the browser is at %v, want / without the token", got)
		}
		shot("knowledge")
		if width != 1280 {
			// The phone's pass reads the pages the desktop's changed.
			p.navigate(srv.URL + "/items/" + f.candidate)
			shot("item")
			p.navigate(srv.URL + "/sessions/" + session + "#m3")
			shot("session")
			p.navigate(srv.URL + "/dashboard")
			shot("dashboard")
			continue
		}

		// Search the candidates for the one the session taught.
		p.act(`document.querySelector('#q').value = 'pull request';
			document.querySelector('select[name=status]').value = 'candidate';
			document.querySelector('form[role=search]').requestSubmit()`)
		if got := p.eval(`document.querySelector('ol.items a.text').textContent`); got != "Pushing to main returns HTTP 405: open a pull request" {
			t.Fatalf("the search's first hit is %v", got)
		}
		shot("search")
		p.act(`document.querySelector('ol.items a.text').click()`)
		if got := p.eval(`location.pathname`); got != "/items/"+f.candidate {
			t.Fatalf("the hit's link led to %v", got)
		}
		if got := p.eval(`document.querySelector('#status').textContent`); got != "candidate" {
			t.Fatalf("the item page says %v, want candidate", got)
		}
		p.act(`document.querySelector('#promote').click()`)
		if got := p.eval(`document.querySelector('#status').textContent`); got != "active" {
			t.Errorf("after promote the page says %v, want active", got)
		}
		if it, err := f.store.Item(ctx, f.candidate); err != nil || it.Status != lore.StatusActive {
			t.Errorf("after promote the store has %s (%v), want active", it.Status, err)
		}
		shot("item")
		p.act(`document.querySelector('ul.evidence a').click()`)
		if got := p.eval(`location.pathname + location.hash`); got != "/sessions/"+session+"#m3" {
			t.Fatalf("the evidence link led to %v", got)
		}
		if got := p.eval(`document.querySelector('#m3 .body').textContent`); !strings.Contains(fmt.Sprint(got), "HTTP 405") {
			t.Errorf("message 3 of the session reads %v", got)
		}
		if got := p.eval(`document.body.textContent.includes('ghp_')`); got != false {
			t.Error("the session page shows the token")
		}
		shot("session")
		p.act(`document.querySelector('a[href="/dashboard"]').click()`)
		if got := p.eval(`document.querySelector('iframe').contentDocument.querySelectorAll('svg').length > 0`); got != true {
			t.Error("the dashboard's frame has no chart")
		}
		shot("dashboard")
	}

	// By keyboard: the first Tab reaches the skip link, and Enter on it
	// moves to the page's content.
	p.navigate(srv.URL + "/items/" + f.candidate)
	p.key("Tab", 9)
	if got := p.eval(`document.activeElement.textContent`); got != "Skip to content" {
		t.Errorf("the first Tab reaches %v, want the skip link", got)
	}
	// Dark, as the system asks.
	p.call("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}})
	if got := p.eval(`getComputedStyle(document.body).backgroundColor`); got != "rgb(22, 24, 27)" {
		t.Errorf("in the dark scheme the page's background is %v", got)
	}
	p.checkLayout("dark item")
	p.screenshot(filepath.Join(shots, "item-dark-390.png"))

	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.problems {
		t.Errorf("browser: %s", m)
	}
	t.Logf("screenshots in %s", shots)
}

// tab is one tab of a Chromium driven over the DevTools protocol.
type tab struct {
	t       *testing.T
	ctx     context.Context
	w       io.Writer
	session string

	mu       sync.Mutex
	next     int
	waiting  map[int]chan cdpMessage
	loads    chan struct{}
	problems []string // console messages, exceptions, log entries
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startTab starts the browser and opens a tab in it.
func startTab(ctx context.Context, t *testing.T, browser string) *tab {
	t.Helper()
	toBrowser, ours, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // its fds 3 and 4
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	t.Cleanup(func() {
		ours.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("browser's log:\n%s", stderr.String())
		}
	})
	p := &tab{t: t, ctx: ctx, w: ours, waiting: map[int]chan cdpMessage{}, loads: make(chan struct{}, 16)}
	go p.read(theirs)
	var target struct{ TargetID string }
	p.decode(p.send("", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var attached struct{ SessionID string }
	p.decode(p.send("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &attached)
	p.session = attached.SessionID
	for _, domain := range []string{"Page", "Runtime", "Log"} {
		p.call(domain+".enable", nil)
	}
	return p
}

// read takes the browser's messages: answers go to their callers, events
// of the tab are noted.
func (p *tab) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(b[:len(b)-1], &m) != nil {
			continue
		}
		p.mu.Lock()
		if ch, ok := p.waiting[m.ID]; ok && m.ID != 0 {
			delete(p.waiting, m.ID)
			ch <- m
		}
		switch m.Method {
		case "Page.loadEventFired":
			select {
			case p.loads <- struct{}{}:
			default:
			}
		case "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded":
			p.problems = append(p.problems, m.Method+" "+string(m.Params))
		}
		p.mu.Unlock()
	}
}

// send sends a command (to the tab when session is set) and returns its
// result.
func (p *tab) send(session, method string, params any) json.RawMessage {
	p.t.Helper()
	p.mu.Lock()
	p.next++
	id := p.next
	ch := make(chan cdpMessage, 1)
	p.waiting[id] = ch
	p.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.w.Write(append(msg, 0)); err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			p.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	case <-p.ctx.Done():
		p.t.Fatalf("%s: no answer: %v", method, p.ctx.Err())
	}
	return nil
}

func (p *tab) call(method string, params any) json.RawMessage {
	return p.send(p.session, method, params)
}

func (p *tab) decode(raw json.RawMessage, v any) {
	p.t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		p.t.Fatalf("decode %s: %v", raw, err)
	}
}

// eval returns the value of a JavaScript expression in the tab.
func (p *tab) eval(expr string) any {
	p.t.Helper()
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	p.decode(p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
	if r.ExceptionDetails != nil {
		p.t.Fatalf("%s: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

// act runs a script that leads to another page, and waits for it to load.
func (p *tab) act(script string) {
	p.t.Helper()
	p.drainLoads()
	p.eval(script)
	p.waitLoad()
}

func (p *tab) navigate(url string) {
	p.t.Helper()
	p.drainLoads()
	p.call("Page.navigate", map[string]any{"url": url})
	p.waitLoad()
}

func (p *tab) drainLoads() {
	for {
		select {
		case <-p.loads:
		default:
			return
		}
	}
}

func (p *tab) waitLoad() {
	p.t.Helper()
	select {
	case <-p.loads:
	case <-p.ctx.Done():
		p.t.Fatalf("the page did not load: %v", p.ctx.Err())
	}
}

// key presses and releases a key.
func (p *tab) key(name string, code int) {
	p.t.Helper()
	for _, typ := range []string{"keyDown", "keyUp"} {
		p.call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": name, "code": name, "windowsVirtualKeyCode": code})
	}
}

// checkLayout fails when the page is wider than the window: an element
// overflows the viewport; it names the widest offenders.
func (p *tab) checkLayout(name string) {
	p.t.Helper()
	got := p.eval(`(() => {
		const w = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth <= w) return "";
		return [...document.querySelectorAll('body *')]
			.filter(e => e.getBoundingClientRect().right > w + 1)
			.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ' + Math.round(e.getBoundingClientRect().right) + 'px')
			.join(', ') + ' beyond ' + w + 'px';
	})()`)
	if got != "" {
		p.t.Errorf("%s overflows the viewport: %v", name, got)
	}
}

func (p *tab) screenshot(path string) {
	p.t.Helper()
	var r struct{ Data string }
	p.decode(p.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}), &r)
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(b) < 1000 {
		p.t.Fatalf("screenshot %s: %d bytes, %v", path, len(b), err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}
