package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/serve"
	"github.com/lorehq/lore/transcript"
)

type serveOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	openTeams   func(ctx context.Context, path string) (lore.Teams, error)
	Addr        string
	TLSCert     string
	TLSKey      string
	UploadLimit string
	Workers     int
}

const serveStoreHelp = `The store is the file --store names, as for every command ($LORE_STORE, else
$LORE_HOME/lore.db): it is the store of the team "default" and keeps the tokens;
each other team's store is a file of its own beside it, STORE.teams/TEAM.db,
created on first use. Uploaded transcripts are kept, redacted, in STORE until
harvested. With a PostgreSQL database (--store postgres://user:password@host/db)
each team's store is a schema of its own (team_TEAM), the tokens and uploaded
transcripts are in the schema lore_admin, and several lore serve may share it:
their workers share the harvest, and none harvests an upload another holds.`

func newServeCmd(fac *factory, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions(), openTeams: fac.OpenTeams}
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--store PATH] [--tls-cert F --tls-key F]",
		Short: "Serve a team's store over an HTTP JSON API",
		Long: `Serve the knowledge store over an HTTP JSON API, for a team: search, boot
contexts, the notes lore's hooks hand over, items (get, list, add, promote,
retire, edit), transcript uploads (redacted on arrival, queued, and harvested
by --workers workers), harvest status and measure. docs/api.md describes every route.

Every request under /v1 carries a bearer token (lore serve token create makes
one), and is answered from the store of the token's team, and no other. A read
token searches and reads; a write token also adds, reviews and uploads.
/healthz and /metrics (Prometheus text) need none.

It listens on 127.0.0.1:7077 unless --addr says otherwise, and says where on
standard error, then logs a JSON line per request there (never a token or a
body). Beyond this machine, give --tls-cert and --tls-key: without them lore
serve warns, as tokens would cross the network in the clear. On interrupt or
SIGTERM it stops taking requests and claiming uploads, lets those in flight and
the harvests under way finish (for up to 10 seconds) and exits 0; an upload
whose harvest was cut short is harvested by the next server to claim it.

` + serveStoreHelp,
		Example: `  lore serve token create --team acme --scope write --name ci
  lore serve
  lore serve --addr 0.0.0.0:7077 --tls-cert cert.pem --tls-key key.pem
  curl -H "Authorization: Bearer $LORE_TOKEN" 'http://127.0.0.1:7077/v1/search?q=flaky+test'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown serve command %q; see lore serve --help", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if (opts.TLSCert == "") != (opts.TLSKey == "") {
				return usagef("--tls-cert and --tls-key go together")
			}
			if opts.Workers < 1 {
				return usagef("--workers %d: want 1 or more", opts.Workers)
			}
			if _, err := parseSize(opts.UploadLimit); err != nil {
				return usagef("--upload-limit %q: %v", opts.UploadLimit, err)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:7077", "the address to listen on, host:port (port 0: any free port)")
	f.StringVar(&opts.TLSCert, "tls-cert", "", "serve HTTPS with this certificate (PEM), with --tls-key")
	f.StringVar(&opts.TLSKey, "tls-key", "", "the certificate's private key (PEM)")
	f.IntVar(&opts.Workers, "workers", serve.DefaultWorkers, "how many uploads this server harvests at once")
	f.StringVar(&opts.UploadLimit, "upload-limit", "64MiB", "the largest transcript an upload may send: bytes, or with KiB, MiB or GiB")
	opts.addFlag(cmd)
	cmd.AddCommand(newServeTokenCmd(fac))
	return cmd
}

// parseSize reads a size in bytes: a number, or one with KiB, MiB or GiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = n, m
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("want a size such as 67108864 or 64MiB")
	}
	return n * mult, nil
}

func serveRun(ctx context.Context, opts *serveOptions) error {
	p, err := opts.storePath(opts.Env)
	if err != nil {
		return err
	}
	if remote.IsURL(p) {
		return usagef("lore serve keeps the team's store on this machine, not at %s: pass --store PATH", p)
	}
	limit, _ := parseSize(opts.UploadLimit)
	secure := opts.TLSCert != ""
	if secure {
		// Refused before listening, not on the first handshake.
		if _, err := tls.LoadX509KeyPair(opts.TLSCert, opts.TLSKey); err != nil {
			return fmt.Errorf("load the TLS certificate: %w", err)
		}
	}
	teams, err := opts.openTeams(ctx, p)
	if err != nil {
		return err
	}
	defer teams.Close()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(opts.IO.ErrOut, nil))
	srv, err := serve.New(teams, serve.Options{UploadLimit: limit, Workers: opts.Workers, Log: log})
	if err != nil {
		ln.Close()
		return err
	}
	scheme := "http"
	if secure {
		scheme = "https"
	}
	if !secure && !serve.Loopback(opts.Addr) {
		fmt.Fprintf(opts.IO.ErrOut, "lore serve: warning: serving %s beyond this machine without TLS: tokens and knowledge cross the network in the clear; give --tls-cert and --tls-key\n", opts.Addr)
	}
	fmt.Fprintf(opts.IO.ErrOut, "lore serve: listening on %s://%s (store %s)\n", scheme, ln.Addr(), storeName(p))
	// The workers stop claiming when the requests stop being taken, and
	// have as long as the requests in flight to finish what they hold.
	wctx, stopWork := context.WithCancel(ctx)
	worked, stopped := make(chan struct{}), make(chan struct{})
	go func() { srv.Work(wctx); close(worked) }()
	go func() {
		defer close(stopped)
		<-wctx.Done()
		select {
		case <-worked:
		case <-time.After(serveShutdown):
			// Left to the next server that claims it, once its lease passes.
			fmt.Fprintln(opts.IO.ErrOut, "lore serve: a harvest under way did not finish; another server will harvest its upload")
		}
	}()
	err = serve.Serve(ctx, ln, srv, serve.ListenOptions{TLSCert: opts.TLSCert, TLSKey: opts.TLSKey, Shutdown: serveShutdown, Log: log})
	stopWork()
	<-stopped
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, "lore serve: stopped")
	return nil
}

// serveShutdown is how long lore serve lets requests in flight finish
// once it is asked to stop; main waits a little longer (signalGraceOf).
const serveShutdown = serve.DefaultShutdown
