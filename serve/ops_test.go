package serve

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// syncBuffer is a log the server's goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLog: a JSON line per request, with its route, status and team,
// and never the token or the body.
func TestLog(t *testing.T) {
	var log syncBuffer
	e := newEnv(t, Options{Log: slog.New(slog.NewJSONHandler(&log, nil))})
	w := e.token("acme", lore.ScopeWrite)
	e.add(w, NewItem{Text: "The walrus queue keeps messages for 7 days", Category: "fact"})
	e.do("GET", "/v1/search?q=walrus", "lore_"+strings.Repeat("b", 52), nil)
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(lines), log.String())
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["route"] != "POST /v1/items" || first["status"] != 200.0 || first["team"] != "acme" || first["duration_ms"] == nil {
		t.Errorf("log line %v", first)
	}
	if second["status"] != 401.0 || second["team"] != nil {
		t.Errorf("log line of a refused request %v", second)
	}
	for _, secret := range []string{w, w[5:], strings.Repeat("b", 52), "walrus"} {
		if strings.Contains(log.String(), secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, Options{})
	w := e.token("acme", lore.ScopeWrite)
	e.add(w, NewItem{Text: "The walrus queue keeps messages for 7 days", Category: "fact"},
		NewItem{Text: "The yak cache may be stale for a minute", Category: "fact", Status: "candidate"})
	e.do("GET", "/v1/search?q=walrus", w, nil)
	e.do("GET", "/v1/search?q=walrus", "", nil)
	e.do("GET", "/v1/nope", "", nil)
	status, b := e.do("GET", "/metrics", "", nil)
	if status != http.StatusOK {
		t.Fatalf("metrics: %d", status)
	}
	m := string(b)
	for _, want := range []string{
		`lore_http_requests_total{route="POST /v1/items",status="200"} 1`,
		`lore_http_requests_total{route="GET /v1/search",status="200"} 1`,
		`lore_http_requests_total{route="GET /v1/search",status="401"} 1`,
		`lore_http_requests_total{route="unrouted",status="404"} 1`,
		`lore_http_request_duration_seconds_bucket{route="GET /v1/search",le="+Inf"} 2`,
		`lore_http_request_duration_seconds_count{route="GET /v1/search"} 2`,
		`# TYPE lore_http_request_duration_seconds histogram`,
		`lore_items{status="active"} 1`,
		`lore_items{status="candidate"} 1`,
		`lore_uploads_queued 0`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "acme") {
		t.Error("the metrics name a team")
	}
}

// TestRecover: a handler that panics is answered with a JSON 500, and
// the server goes on.
func TestRecover(t *testing.T) {
	e := newEnv(t, Options{})
	e.srv.mux.HandleFunc("GET /v1/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	e.wantError("GET", "/v1/panic", "", nil, http.StatusInternalServerError, codeInternal)
	e.call("GET", "/healthz", "", nil, nil, http.StatusOK)
}

// TestShutdown: once asked to stop, Serve takes no new request and lets
// the one in flight finish.
func TestShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h, ListenOptions{Shutdown: 5 * time.Second}) }()
	type answer struct {
		body string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{string(b), err}
	}()
	<-started
	cancel()
	a := <-got
	if a.err != nil || a.body != "finished" {
		t.Errorf("the request in flight: %q, %v; want it finished", a.body, a.err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil after a graceful stop", err)
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/slow"); err == nil {
		t.Error("a request after the stop was answered")
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7077": true, "localhost:7077": true, "[::1]:7077": true, "127.0.0.2:1": true,
		":7077": false, "0.0.0.0:7077": false, "10.0.0.5:7077": false, "[::]:7077": false, "lore.acme.dev:443": false, "nonsense": false,
	} {
		if Loopback(addr) != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, !want, want)
		}
	}
}

// TestServeTLS: with a certificate and key, Serve speaks HTTPS.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, e.srv, ListenOptions{TLSCert: certFile, TLSKey: keyFile}) }()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get("https://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Errorf("healthz over TLS: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	if resp, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil && resp.StatusCode == http.StatusOK {
		t.Error("plain HTTP answered on the TLS port")
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve = %v", err)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir, and
// returns their paths and a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lore test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
