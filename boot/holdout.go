package boot

import (
	"hash/fnv"
	"math/rand/v2"
)

// HeldOut reports whether a session is held out: its context is built
// and recorded but not handed over, so that measure can compare the
// sessions that got their notes with those that did not (a holdout makes
// the comparison causal: which sessions go without is chance, not
// choice). share is the part of sessions held out, from 0 to 1. A
// session with an id is held out or not by its id alone, so that every
// hook of one session decides alike; one without is drawn at random.
func HeldOut(session string, share float64) bool {
	switch {
	case share <= 0:
		return false
	case share >= 1:
		return true
	case session == "":
		return rand.Float64() < share
	}
	h := fnv.New64a()
	h.Write([]byte(session))
	// The top 53 bits of the hash as a fraction in [0, 1).
	return float64(h.Sum64()>>11)/(1<<53) < share
}
