package prune

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// randomNodes makes sessions with random times, ends and parent links,
// cycles and links to sessions that are not there included.
func randomNodes(seed uint64, n int) []*node {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	nodes := make([]*node, n)
	for i := range nodes {
		nd := &node{id: fmt.Sprintf("s%03d", i)}
		if rng.IntN(20) > 0 { // one in twenty has no time at all
			nd.started = base.Add(time.Duration(rng.IntN(300*24)) * time.Hour)
			nd.startedRaw = float64(nd.started.Unix())
			if rng.IntN(3) > 0 {
				nd.last = nd.started.Add(time.Duration(rng.IntN(48)) * time.Hour)
				nd.lastRaw = float64(nd.last.Unix())
				nd.messages = 1 + rng.IntN(30)
			}
		}
		if rng.IntN(2) == 0 {
			nd.ended = true
			nd.endedAt = nd.started.Add(time.Duration(rng.IntN(72)) * time.Hour)
		}
		switch r := rng.IntN(10); {
		case r < 4 && i > 0:
			nd.parent = fmt.Sprintf("s%03d", rng.IntN(i)) // an earlier session
		case r == 4:
			nd.parent = fmt.Sprintf("s%03d", rng.IntN(n)) // anywhere: cycles, itself
		case r == 5:
			nd.parent = "gone"
		}
		nodes[i] = nd
	}
	return nodes
}

// FuzzChoose checks the plan's promises over random session graphs: a
// session moves only with every session below it, and after them; what
// moves is dated and ended (or closed as leaked by this plan); a leaked
// session was open and idle past the threshold; the age rule takes every
// session it may; the cap is met unless what stays cannot move.
func FuzzChoose(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1000} {
		f.Add(s, uint8(60), uint16(100), uint8(10), uint16(0))
		f.Add(s, uint8(200), uint16(20), uint8(2), uint16(30))
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, archiveDays uint16, leakDays uint8, maxSessions uint16) {
		nodes := randomNodes(seed, int(n))
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		leakAfter := time.Duration(int(leakDays)+1) * 24 * time.Hour
		archiveAfter := time.Duration(int(archiveDays)+1) * 24 * time.Hour
		wasOpen := map[*node]bool{}
		for _, nd := range nodes {
			wasOpen[nd] = !nd.ended
		}
		p := choose(nodes, now, leakAfter, archiveAfter, int(maxSessions))

		position := map[*node]int{}
		for i, nd := range p.archive {
			if _, twice := position[nd]; twice {
				t.Fatalf("%s planned twice", nd.id)
			}
			position[nd] = i
		}
		for _, nd := range p.leaked {
			if !wasOpen[nd] || now.Sub(nd.activity()) <= leakAfter {
				t.Errorf("%s closed as leaked: open %t, idle %v", nd.id, wasOpen[nd], now.Sub(nd.activity()))
			}
		}
		for _, nd := range nodes {
			if wasOpen[nd] && !nd.leaked && !nd.activity().IsZero() && now.Sub(nd.activity()) > leakAfter {
				t.Errorf("%s is open and idle %v but not closed", nd.id, now.Sub(nd.activity()))
			}
		}
		for nd, i := range position {
			if !nd.ended || nd.activity().IsZero() {
				t.Errorf("%s moves, but it is open or undated", nd.id)
			}
			for _, c := range nd.children {
				j, ok := position[c]
				if !ok || j > i {
					t.Errorf("%s moves at %d, its child %s at %d (planned %t)", nd.id, i, c.id, j, ok)
				}
			}
		}
		// Every closed subtree older than the cutoff moves by age.
		cutoff := now.Add(-archiveAfter)
		for _, nd := range nodes {
			if nd.closed && nd.key.Before(cutoff) {
				if i, ok := position[nd]; !ok || i >= p.byAge {
					t.Errorf("%s: closed and idle since %v, not archived by age", nd.id, nd.key)
				}
			}
		}
		left := len(nodes) - len(p.archive)
		if maxSessions > 0 && left > int(maxSessions) {
			movable := 0
			for _, nd := range nodes {
				if _, ok := position[nd]; !ok && nd.closed {
					movable++
				}
			}
			if movable > 0 || p.capShort != left-int(maxSessions) {
				t.Errorf("%d sessions stay over a cap of %d, %d of them could move; cap short %d", left, maxSessions, movable, p.capShort)
			}
		}
	})
}
