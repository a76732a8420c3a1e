package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// DefaultShutdown is how long requests in flight have to finish once
// the server is asked to stop.
const DefaultShutdown = 10 * time.Second

// ListenOptions say how Serve serves.
type ListenOptions struct {
	// TLSCert and TLSKey are PEM files; with both, Serve speaks HTTPS.
	TLSCert, TLSKey string
	// Shutdown is how long requests in flight have to finish once ctx is
	// done; 0 is DefaultShutdown.
	Shutdown time.Duration
	// Log takes the HTTP server's own errors (a bad TLS handshake); nil
	// discards them.
	Log *slog.Logger
}

// Serve serves h on ln until ctx is done, then stops taking requests
// and lets those in flight finish, for up to o.Shutdown, before it
// returns. It returns nil after such a stop.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ListenOptions) error {
	if o.Shutdown <= 0 {
		o.Shutdown = DefaultShutdown
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := &http.Server{
		Handler: h,
		// No ReadTimeout: an upload of many megabytes on a slow link
		// takes its time; a client that sends no headers does not.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() {
		if o.TLSCert != "" || o.TLSKey != "" {
			errc <- srv.ServeTLS(ln, o.TLSCert, o.TLSKey)
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.Shutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("stop: requests still in flight after %s: %w", o.Shutdown, err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Loopback reports whether addr (host:port) listens on this machine
// only: a loopback address or localhost. An empty host listens on every
// interface.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
