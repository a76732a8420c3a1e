package archive

import "encoding/binary"

// cover returns up to size bytes of the samples' most repeated segments,
// chosen as zstd's own trainer chooses them (FastCOVER): a segment scores
// the sum of how often each distinct 8-byte string in it occurs across
// the samples; the data is cut into epochs, each pass takes the best
// segment of every epoch, and a chosen segment's strings score nothing
// afterwards, so that later segments bring something new. The first
// segments chosen end up last, where offsets to them are shortest.
func cover(samples [][]byte, size int) []byte {
	const (
		d = 8 // bytes per string
		// k, the segment length, is long enough to take a system
		// prompt in few pieces: rows of sessions with a 10 KB prompt
		// compressed 64× with it and 31× with 256-byte segments, and
		// messages no worse.
		k      = 1024
		window = k - d + 1 // strings in a segment
	)
	var data []byte
	for _, s := range samples {
		data = append(data, s...)
	}
	if len(data) < k || size < k {
		return nil
	}
	n := len(data) - d + 1 // strings in data
	hashes := make([]uint32, n)
	for i := range hashes {
		hashes[i] = coverHash(data[i:])
	}
	freq := make([]uint32, 1<<coverBits)
	at := 0
	for _, s := range samples {
		// A string may not span two samples.
		for i := at; i+d <= at+len(s); i++ {
			freq[hashes[i]]++
		}
		at += len(s)
	}

	epochs := max(1, size/k/4)
	epochSize := n / epochs
	if epochSize < 10*k {
		epochs = max(1, n/(10*k))
		epochSize = n / epochs
	}
	dict := make([]byte, size)
	tail := size
	active := make([]uint16, 1<<coverBits) // how often each hash is in the window
	for idle := 0; tail > 0 && idle < epochs; {
		for e := 0; e < epochs && tail > 0; e++ {
			begin, end := e*epochSize, min((e+1)*epochSize, n)
			best, bestScore, score := -1, uint64(0), uint64(0)
			for i := begin; i < end; i++ {
				h := hashes[i]
				if active[h] == 0 {
					score += uint64(freq[h])
				}
				active[h]++
				if i-begin >= window {
					o := hashes[i-window]
					if active[o]--; active[o] == 0 {
						score -= uint64(freq[o])
					}
				}
				if score > bestScore {
					bestScore, best = score, max(begin, i-window+1)
				}
			}
			for i := max(begin, end-window); i < end; i++ {
				active[hashes[i]] = 0
			}
			if bestScore == 0 {
				idle++
				continue
			}
			idle = 0
			// The segment, without strings nobody repeats at its ends.
			lo, hi := best, min(best+window, n) // strings [lo, hi)
			for lo < hi && freq[hashes[lo]] == 0 {
				lo++
			}
			for hi > lo && freq[hashes[hi-1]] == 0 {
				hi--
			}
			for i := lo; i < hi; i++ {
				freq[hashes[i]] = 0
			}
			seg := data[lo : hi-1+d]
			m := min(len(seg), tail)
			tail -= m
			copy(dict[tail:], seg[len(seg)-m:])
		}
	}
	return dict[tail:]
}

const coverBits = 20

func coverHash(b []byte) uint32 {
	return uint32((binary.LittleEndian.Uint64(b) * 0xcf1bbcdcb7a56463) >> (64 - coverBits))
}
