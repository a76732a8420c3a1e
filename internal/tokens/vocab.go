package tokens

import (
	"errors"
	"fmt"
	"math/bits"
)

// A vocab finds the rank of a token's bytes. The tokens stay in the
// embedded file they were read from; the lookup is an open-addressing
// table of uint32 slots built when the vocabulary is first needed, which
// takes a few milliseconds where a Go map of 200,000 strings takes tens.
type vocab struct {
	data string // the embedded file: the tokens' bytes, in rank order

	// toks holds, for each rank, where its token is in data: the offset
	// shifted left by 8, or-ed with the length. A length of 0 is a rank
	// with no token.
	toks []uint32

	// slots hold the rank plus one in their low rankBits, so that 0 is an
	// empty slot, and tagBits more of the token's hash above, so that a
	// probe rarely compares bytes of a token it is not looking for. A
	// token's home slot is the top bits of its hash: see hash.
	slots []uint32
	mask  uint64
	shift uint // 64 minus the bits of a slot's index
}

const (
	rankBits = 18 // o200k has 199,998 ranks
	rankMask = 1<<rankBits - 1
	tagBits  = 32 - rankBits
	maxLen   = 255 // a token's length must fit in the low byte of toks
)

// newVocab reads a file written by gen/main.go: the number of ranks as a
// uvarint, then each rank's token as a uvarint length and its bytes.
func newVocab(data string) (*vocab, error) {
	n, off, err := uvarint(data, 0)
	if err != nil {
		return nil, fmt.Errorf("read the number of tokens: %w", err)
	}
	switch {
	case n == 0:
		return nil, errors.New("no tokens")
	case n >= rankMask:
		return nil, fmt.Errorf("%d tokens: at most %d fit", n, rankMask-1)
	case len(data) >= 1<<24:
		return nil, fmt.Errorf("%d bytes: offsets past 16 MiB do not fit", len(data))
	}
	// At least twice as many slots as tokens keeps probes short.
	size := uint64(1) << bits.Len64(2*n-1)
	v := &vocab{data: data, toks: make([]uint32, n), slots: make([]uint32, size), mask: size - 1,
		shift: uint(64 - bits.Len64(size-1))}
	// Inserting each token as it is read left most of the load waiting on
	// cache misses: the table is bigger than the caches, and a probe loop
	// that branches on each load keeps few misses in flight. Hashing a
	// batch first, then inserting it in a tight loop, overlaps them.
	var batch [256]uint64 // home slot<<32 | slot value
	nb := 0
	flush := func() {
		for _, k := range batch[:nb] {
			i := k >> 32
			for v.slots[i] != 0 {
				i = (i + 1) & v.mask
			}
			v.slots[i] = uint32(k)
		}
		nb = 0
	}
	for r := range uint32(n) {
		var l uint64
		if off < len(data) && data[off] < 0x80 {
			l = uint64(data[off]) // every length but 128's, in one byte
			off++
		} else if l, off, err = uvarint(data, off); err != nil {
			return nil, fmt.Errorf("read the length of token %d: %w", r, err)
		}
		if l > maxLen || uint64(len(data)-off) < l {
			return nil, fmt.Errorf("token %d: %d bytes do not fit", r, l)
		}
		if l == 0 {
			continue
		}
		v.toks[r] = uint32(off)<<8 | uint32(l)
		home, tag := v.place(hash(data[off : off+int(l)]))
		batch[nb] = home<<32 | uint64(tag<<rankBits|(r+1))
		nb++
		if nb == len(batch) {
			flush()
		}
		off += int(l)
	}
	flush()
	if off != len(data) {
		return nil, fmt.Errorf("%d bytes after the last token", len(data)-off)
	}
	return v, nil
}

// rank is the rank of the token whose bytes are s; ok is false when s is
// not a token.
func (v *vocab) rank(s string) (r uint32, ok bool) {
	home, tag := v.place(hash(s))
	for i := home; ; i = (i + 1) & v.mask {
		slot := v.slots[i]
		if slot == 0 {
			return 0, false
		}
		if slot>>rankBits != tag {
			continue
		}
		r = slot&rankMask - 1
		t := v.toks[r]
		if int(t&0xff) == len(s) && v.data[t>>8:t>>8+t&0xff] == s {
			return r, true
		}
	}
}

// place is the home slot and the tag of a token with hash h.
func (v *vocab) place(h uint64) (home uint64, tag uint32) {
	return h >> v.shift, uint32(h>>(v.shift-tagBits)) & (1<<tagBits - 1)
}

func uvarint(s string, off int) (uint64, int, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if off >= len(s) {
			return 0, off, fmt.Errorf("truncated at byte %d", off)
		}
		b := s[off]
		off++
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, off, nil
		}
	}
	return 0, off, fmt.Errorf("overlong number at byte %d", off)
}

// hash mixes s eight bytes at a time, ending with a multiply, whose top
// bits depend on every bit of the input: the table takes its index and tag
// from there, so one multiply is enough for the short strings most tokens
// are. It needs no seed: the table is built from a fixed vocabulary, not
// from what a user types.
func hash(s string) uint64 {
	const (
		k0 = 0x9e3779b97f4a7c15 // 2^64 divided by the golden ratio
		k1 = 0xbf58476d1ce4e5b9
	)
	n := len(s)
	h := uint64(n) * k0
	for t := s; len(t) > 8; t = t[8:] {
		h = bits.RotateLeft64((h^le64(t))*k1, 31)
	}
	// The last one to eight bytes, with loads that overlap rather than a
	// loop.
	var w uint64
	switch {
	case n >= 8:
		w = le64(s[n-8:])
	case n >= 4:
		w = uint64(le32(s)) | uint64(le32(s[n-4:]))<<32
	case n > 0:
		w = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	return (h ^ w) * k1
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
