package improve

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// ignoreTerm makes the process deaf to SIGTERM, as a loop stuck where it
// does not look at its context.
func ignoreTerm() { signal.Ignore(syscall.SIGTERM) }
