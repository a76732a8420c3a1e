package boot

import (
	"fmt"
	"math"
	"testing"
)

// TestHeldOut: a session's id decides alike every time; over many ids the
// share held out is the one asked for; 0 holds none out, 1 all.
func TestHeldOut(t *testing.T) {
	for _, share := range []float64{0.1, 0.5} {
		held := 0
		const n = 20000
		for i := range n {
			id := fmt.Sprintf("claude-code:%08x-session", i*2654435761)
			h := HeldOut(id, share)
			if h != HeldOut(id, share) {
				t.Fatalf("%s: two answers", id)
			}
			if h {
				held++
			}
		}
		// Three standard deviations of a binomial share.
		if got, sd := float64(held)/n, math.Sqrt(share*(1-share)/n); math.Abs(got-share) > 3*sd {
			t.Errorf("share %v: %v held out", share, got)
		}
	}
	if HeldOut("claude-code:x", 0) || !HeldOut("claude-code:x", 1) || HeldOut("", -1) {
		t.Error("0 must hold none out, 1 all")
	}
}
