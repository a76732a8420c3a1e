package tokens

import "math"

// noRank marks a pair of parts that is not a token.
const noRank = math.MaxUint32

// smallPiece is the longest piece merged on the stack by a quadratic scan;
// longer ones, rare outside long runs of punctuation or base64, go
// through a heap so that a megabyte of "=" still counts in n log n.
const smallPiece = 64

// countPiece is the number of tokens byte-pair encoding makes of p: one
// when p is a token, else what is left after merging, again and again,
// the adjacent pair of parts that makes the lowest-ranked token, the
// leftmost of equals first.
func (v *vocab) countPiece(p string) int {
	if len(p) == 1 {
		return 1 // every byte is a token
	}
	if _, ok := v.rank(p); ok {
		return 1
	}
	if len(p) <= smallPiece {
		return v.mergeSmall(p)
	}
	return v.mergeLarge(p)
}

// pairRank is the rank of p[a:b], or noRank.
func (v *vocab) pairRank(p string, a, b int) uint32 {
	if r, ok := v.rank(p[a:b]); ok {
		return r
	}
	return noRank
}

func (v *vocab) mergeSmall(p string) int {
	// Part k is p[start[k]:start[k+1]]; ranks[k] is the rank of parts k
	// and k+1 together.
	var start [smallPiece + 1]uint8
	var ranks [smallPiece]uint32
	n := len(p) // parts
	for k := range n {
		start[k] = uint8(k)
	}
	start[n] = uint8(n)
	for k := range n - 1 {
		ranks[k] = v.pairRank(p, k, k+2)
	}
	ranks[n-1] = noRank
	for n > 1 {
		best, at := uint32(noRank), -1
		for k, r := range ranks[:n-1] {
			if r < best {
				best, at = r, k
			}
		}
		if at < 0 {
			break
		}
		// Part at+1 joins part at.
		copy(start[at+1:n], start[at+2:n+1])
		copy(ranks[at+1:n-1], ranks[at+2:n])
		n--
		ranks[n-1] = noRank
		if at+1 < n {
			ranks[at] = v.pairRank(p, int(start[at]), int(start[at+2]))
		} else {
			ranks[at] = noRank
		}
		if at > 0 {
			ranks[at-1] = v.pairRank(p, int(start[at-1]), int(start[at+1]))
		}
	}
	return n
}

// mergeLarge merges as mergeSmall does, the parts in a linked list and
// the candidate pairs in a min-heap keyed by rank, then offset. An entry
// whose pair has since changed is skipped when it comes up: a part's pair
// only grows, so its rank never comes back to an old value.
func (v *vocab) mergeLarge(p string) int {
	n := len(p)
	next := make([]int32, n+1) // the start of the part after the one at i
	prev := make([]int32, n+1)
	ranks := make([]uint32, n) // the rank of the part at i with the next
	h := make(pairHeap, 0, n)
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
		ranks[i] = noRank
		if i+2 <= n {
			if r := v.pairRank(p, i, i+2); r != noRank {
				ranks[i] = r
				h = append(h, uint64(r)<<32|uint64(i))
			}
		}
	}
	next[n], prev[n] = -1, int32(n-1)
	h.init()
	parts := n
	for len(h) > 0 {
		top := h.pop()
		i, r := int32(top), uint32(top>>32)
		if ranks[i] != r {
			continue
		}
		j := next[i]
		k := next[j]
		next[i], prev[k] = k, i
		ranks[j] = noRank
		parts--
		for _, a := range [2]int32{i, prev[i]} {
			if a < 0 {
				continue
			}
			ranks[a] = noRank
			if b := next[next[a]]; next[a] < int32(n) && b >= 0 {
				ranks[a] = v.pairRank(p, int(a), int(b))
				if ranks[a] != noRank {
					h.push(uint64(ranks[a])<<32 | uint64(a))
				}
			}
		}
	}
	return parts
}

// pairHeap is a binary min-heap of rank<<32 | offset, which orders by
// rank, then by offset.
type pairHeap []uint64

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

func (h *pairHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
