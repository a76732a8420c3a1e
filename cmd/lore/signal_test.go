package main

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestExitAfterSignal: a run that does not watch its context (a read
// blocked in the kernel) still ends soon after a signal, with exit 1 and
// a line on stderr; a run that finishes in time is not cut short, and
// nothing happens without a signal.
func TestExitAfterSignal(t *testing.T) {
	tests := []struct {
		name     string
		signal   bool
		finishes bool
		wantExit bool
	}{
		{"signal, run stuck", true, false, true},
		{"signal, run finishes", true, true, false},
		{"no signal", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			finished := make(chan struct{})
			stopped := make(chan struct{})
			exited := make(chan int, 1)
			var stderr bytes.Buffer
			returned := make(chan struct{})
			go func() {
				exitAfterSignal(ctx, func() { close(stopped) }, finished, 50*time.Millisecond, &stderr, func(code int) { exited <- code })
				close(returned)
			}()
			if tt.signal {
				cancel()
				select {
				case <-stopped:
				case <-time.After(5 * time.Second):
					t.Fatal("the signal's own handling was not restored")
				}
			}
			if tt.finishes {
				close(finished)
			}
			select {
			case code := <-exited:
				if !tt.wantExit || code != 1 || stderr.Len() == 0 {
					t.Fatalf("exit(%d), stderr %q; want exit %v", code, stderr.String(), tt.wantExit)
				}
			case <-returned:
				if tt.wantExit {
					t.Fatal("returned without exiting")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("neither exited nor returned")
			}
		})
	}
}

// TestSignalGraceOf: lore serve is given the time to finish the requests
// in flight before a signal ends it; every other command the usual grace.
func TestSignalGraceOf(t *testing.T) {
	if g := signalGraceOf([]string{"serve", "--addr", ":0"}); g <= serveShutdown {
		t.Errorf("lore serve's grace %s, want more than its shutdown %s", g, serveShutdown)
	}
	for _, args := range [][]string{nil, {"harvest"}, {"search", "serve"}} {
		if g := signalGraceOf(args); g != signalGrace {
			t.Errorf("grace of %v = %s, want %s", args, g, signalGrace)
		}
	}
}
