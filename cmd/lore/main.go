// Command lore reads the transcripts coding agents leave behind and turns
// what they learned into knowledge for the next session.
//
// Exit codes: 0 ok, 1 failure, 2 usage (a wrong flag or argument).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, newFactory(iostreams.System(), transcript.HostEnv()), os.Args[1:])
	stop()
	os.Exit(code)
}
