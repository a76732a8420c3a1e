package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/serve"
	"github.com/lorehq/lore/transcript"
	"github.com/lorehq/lore/web"
)

type uiOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Addr string
	Open bool
	// openURL opens the page in a browser (--open); tests replace it.
	openURL func(ctx context.Context, goos, url string) error
}

func newUICmd(fac *factory, runF func(context.Context, *uiOptions) error) *cobra.Command {
	opts := &uiOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions(), openURL: openBrowser}
	cmd := &cobra.Command{
		Use:   "ui [--addr 127.0.0.1:0] [--store PATH] [--open]",
		Short: "Browse and review the knowledge in a web browser, on this machine",
		Long: `Serve the web view of the store on this machine: the knowledge, with search,
filters and the candidates waiting for review; each item with its evidence and
history, and buttons to promote, retire, restore and edit it (recorded on the
item as by "$USER via web", screened as lore edit screens); the sessions lore
knows, each with its messages (secrets redacted); the measure dashboard; the
journal and where lore improve stands.

It listens on a loopback address only (--addr; port 0 is any free port) and
prints the address to open on standard output, with a session token: the first
visit signs the browser in with a cookie, and a request without it is refused,
so another user of this machine cannot read or change the store. The token is
new at every start. Nothing opens unless --open says so. On interrupt or
SIGTERM it lets the requests in flight finish and exits 0.

` + storeHelp,
		Example: `  lore ui
  lore ui --open
  lore ui --addr 127.0.0.1:7078 --store ./team.db`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !serve.Loopback(opts.Addr) {
				return usagef("--addr %s is not a loopback address: lore ui serves this machine only (127.0.0.1, ::1 or localhost)", opts.Addr)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return uiRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "the loopback address to listen on, host:port (port 0: any free port)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the page in the default browser")
	opts.addFlag(cmd)
	return cmd
}

func uiRun(ctx context.Context, opts *uiOptions) error {
	// The sessions pages read transcripts on this machine, by the paths
	// the harvest records of a local store hold.
	if err := opts.local(opts.Env, "lore ui shows a store on this machine", "pass --store PATH"); err != nil {
		return err
	}
	st, err := opts.open(ctx, opts.Env, false)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	secret := make([]byte, 24)
	rand.Read(secret) // never fails (crypto/rand)
	token := hex.EncodeToString(secret)
	h := web.New(st, web.Options{
		Token: token, Writes: true, By: reviewer(opts.Env, "web"), ImproveDir: opts.Env.Cwd,
		Sessions: func(ctx context.Context) ([]*lore.Session, error) {
			// Quietly: lore sessions is where a reader's problems are told.
			sc, err := findSessions(ctx, scanOptions{IO: &iostreams.IOStreams{In: opts.IO.In, Out: io.Discard, ErrOut: io.Discard}, Env: opts.Env})
			if err != nil {
				return nil, err
			}
			return sc.Sessions, nil
		},
	})
	url := fmt.Sprintf("http://%s/?token=%s", ln.Addr(), token)
	fmt.Fprintln(opts.IO.Out, url)
	if opts.Open {
		if err := opts.openURL(ctx, opts.Env.GOOS, url); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "lore ui: could not open a browser (%v); open the address above\n", err)
		}
	}
	if err := serve.Serve(ctx, ln, h, serve.ListenOptions{Shutdown: serveShutdown}); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, "lore ui: stopped")
	return nil
}

// openBrowser opens url in the default browser of the system goos names.
func openBrowser(ctx context.Context, goos, url string) error {
	var cmd *exec.Cmd
	switch goos {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", url)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // the opener exits once it has handed the address over
	return nil
}
