// Command lore reads the transcripts coding agents leave behind and turns
// what they learned into knowledge for the next session.
//
// Exit codes: 0 ok, 1 failure, 2 usage (a wrong flag or argument).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

// signalGrace is how long lore may take to stop after SIGINT or SIGTERM.
const signalGrace = 3 * time.Second

// signalGraceOf is how long lore run with args may take to stop after a
// signal: lore serve lets the requests in flight finish first.
func signalGraceOf(args []string) time.Duration {
	if len(args) > 0 && args[0] == "serve" {
		return serveShutdown + signalGrace
	}
	return signalGrace
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go exitAfterSignal(ctx, stop, finished, signalGraceOf(os.Args[1:]), os.Stderr, os.Exit)
	code := run(ctx, newFactory(iostreams.System(), transcript.HostEnv()), os.Args[1:])
	close(finished)
	stop()
	os.Exit(code)
}

// exitAfterSignal makes a signal stop lore even where work does not watch
// ctx (a read stuck in the kernel, on a hung network file system): once
// the signal has cancelled ctx, the signal's own handling is restored, so
// a second one ends lore at once, and lore exits by itself when the run
// has not finished within grace. A store write cut short is rolled back
// by SQLite, as after a kill.
func exitAfterSignal(ctx context.Context, stop func(), finished <-chan struct{}, grace time.Duration, stderr io.Writer, exit func(int)) {
	select {
	case <-finished:
		return
	case <-ctx.Done():
	}
	stop()
	select {
	case <-finished:
	case <-time.After(grace):
		fmt.Fprintf(stderr, "lore: stopped by a signal before finishing (waited %s)\n", grace)
		exit(1)
	}
}
