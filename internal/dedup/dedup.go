// Package dedup tells whether two item texts say the same thing in nearly
// the same words: MinHash signatures over word shingles for finding
// candidates fast, exact Jaccard similarity for deciding.
package dedup

import (
	"slices"
	"strings"
	"unicode"
)

// Threshold is the Jaccard similarity of two texts' shingle sets at or
// above which they are near-duplicates.
//
// Shingles are the words and the pairs of neighbouring words, after
// lower-casing, dropping stop words and light stemming, so "Run the tests
// before pushing" and "run tests before you push." have the same
// shingles. At 0.6, inserting or changing one word in a sentence of five
// or more content words still merges; two sentences on one topic in
// different words do not. Texts with a different set of specific tokens
// (anything with a digit, a path, a flag or an identifier: "go 1.25" and
// "go 1.26"; and negations: "not", "never") are never near-duplicates,
// whatever their similarity.
const Threshold = 0.6

// Hashes is the length of a MinHash signature, split into Bands bands of
// Rows values; two texts become candidates when all values of one band
// agree. With 4 bands of 1 row, a pair at similarity 0.6 is found with
// probability 1 − (1 − 0.6)⁴ = 0.97, at 0.8 with 0.998, and texts with
// the same shingles always. One row per band keeps the keys few (each is
// written and looked up for every item added); it also makes unrelated
// texts that share a common word share a key, so a store keeps every
// item under each of its keys and verifies candidates by Similarity.
const (
	Bands  = 4
	Rows   = 1
	Hashes = Bands * Rows
)

// Fingerprint is what dedup keeps of a text.
type Fingerprint struct {
	// Shingles is the sorted set of shingle hashes.
	Shingles []uint64
	// Specific hashes the sorted set of specific tokens.
	Specific uint64
	MinHash  [Hashes]uint64
}

// hashString is stable across processes: stored band keys must not
// change between runs, so it cannot use a random maphash seed.
func hashString(s string) uint64 {
	// FNV-1a, 64 bit.
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

// mix is the splitmix64 finaliser: it spreads the bits of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Of computes the fingerprint of a normalised text (see lore.NormalizeText).
func Of(norm string) Fingerprint {
	words, specific := tokens(norm)
	var f Fingerprint
	f.Shingles = make([]uint64, 0, 2*len(words))
	prev := uint64(0)
	for i, w := range words {
		h := hashString(w)
		f.Shingles = append(f.Shingles, h)
		if i > 0 {
			// A pair hashes its words' hashes, in order.
			f.Shingles = append(f.Shingles, mix(prev*0x9e3779b97f4a7c15^h))
		}
		prev = h
	}
	slices.Sort(f.Shingles)
	f.Shingles = slices.Compact(f.Shingles)
	slices.Sort(specific)
	f.Specific = hashString(strings.Join(slices.Compact(specific), "\x00"))
	for i := range f.MinHash {
		f.MinHash[i] = ^uint64(0)
	}
	for _, s := range f.Shingles {
		for i := range f.MinHash {
			if v := mix(s ^ permutations[i]); v < f.MinHash[i] {
				f.MinHash[i] = v
			}
		}
	}
	return f
}

// permutations are the constants that make Hashes independent hash
// functions out of one; fixed, so signatures are stable across processes.
var permutations = func() (p [Hashes]uint64) {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range p {
		x += 0x9e3779b97f4a7c15
		p[i] = mix(x)
	}
	return p
}()

// BandKeys returns one key per band, salted with the scope (category,
// repo, agent) and the specific tokens, so that only texts that may merge
// share a key. Keys are positive, to fit a signed 64-bit column.
func (f Fingerprint) BandKeys(scope string) [Bands]int64 {
	base := hashString(scope) ^ f.Specific
	var keys [Bands]int64
	for b := range keys {
		h := base
		for r := range Rows {
			h = mix(h ^ f.MinHash[b*Rows+r] ^ uint64(b)<<56)
		}
		keys[b] = int64(h >> 1)
	}
	return keys
}

// Similarity is the Jaccard similarity of two fingerprints' shingle sets;
// texts whose specific tokens differ have similarity 0.
func Similarity(a, b Fingerprint) float64 {
	if a.Specific != b.Specific {
		return 0
	}
	if len(a.Shingles) == 0 && len(b.Shingles) == 0 {
		return 1
	}
	inter, i, j := 0, 0, 0
	for i < len(a.Shingles) && j < len(b.Shingles) {
		switch {
		case a.Shingles[i] == b.Shingles[j]:
			inter++
			i++
			j++
		case a.Shingles[i] < b.Shingles[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a.Shingles)+len(b.Shingles)-inter)
}

// Near reports whether two fingerprints are near-duplicates.
func Near(a, b Fingerprint) bool { return Similarity(a, b) >= Threshold }

// tokens splits a normalised text into content words (stop words dropped,
// stemmed) and specific tokens (which also count as words).
func tokens(norm string) (words, specific []string) {
	for _, raw := range strings.Fields(norm) {
		t := strings.TrimFunc(raw, trimmable)
		if t == "" {
			continue
		}
		if isSpecific(t) || negations[t] {
			specific = append(specific, t)
			words = append(words, t)
			continue
		}
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			w = strings.Trim(w, "'")
			if w == "" || stopWords[w] {
				continue
			}
			words = append(words, Stem(w))
		}
	}
	return words, specific
}

// trimmable is punctuation around a word that is not part of it.
func trimmable(r rune) bool {
	switch r {
	case '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', ':', '!', '?', '"', '\'', '.':
		return true
	}
	return unicode.IsPunct(r) && r != '-' && r != '_' && r != '/' && r != '~' && r != '$' && r != '@'
}

// isSpecific reports whether a token names something exact: a number or
// version, a path, a flag, an identifier, an address.
func isSpecific(t string) bool {
	if t[0] == '-' || t[0] == '~' || t[0] == '$' || t[0] == '.' {
		return len(t) > 1
	}
	for i, r := range t {
		switch {
		case unicode.IsDigit(r), r == '/', r == '\\', r == '_', r == '=', r == '@', r == ':':
			return true
		case r == '.' && i > 0 && i < len(t)-1:
			return true
		}
	}
	return false
}

// Stem strips the commonest English inflections, enough that "fails",
// "failed" and "failing" meet; it is not a full Porter stemmer, and only
// decides merging (search uses the store's own stemmer).
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		return undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		return undouble(w[:n-2])
	case n > 4 && strings.HasSuffix(w, "es") && (strings.ContainsAny(w[n-3:n-2], "sxz") || w[n-4:n-2] == "sh" || w[n-4:n-2] == "ch"):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:n-1]
	}
	return w
}

// undouble turns "stopp" (from "stopped") into "stop", and leaves "e"
// endings to be dropped alike: "pushed" → "push", "used" → "us" and
// "uses" → "use" do not meet, which costs a merge, never a wrong one.
func undouble(w string) string {
	n := len(w)
	if n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// stopWords are words that carry no meaning of their own in an item.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all also am an and any are as at be
		because been before being below between both but by can could did do does doing down during
		each few for from further had has have having he her here hers him his how i if in into is it
		its it's itself just me more most my of off on once only or other our ours out over
		own same she should so some such than that the their theirs them then there these they this
		those through to too under until up very was we were what when where which while who whom why
		will with would you your yours let's that's there's what's`) {
		m[w] = true
	}
	return m
}()

// negations change what a sentence says and must agree for a merge.
var negations = map[string]bool{
	"no": true, "not": true, "never": true, "without": true, "cannot": true, "can't": true,
	"don't": true, "doesn't": true, "didn't": true, "isn't": true, "aren't": true, "won't": true,
	"wasn't": true, "shouldn't": true, "mustn't": true, "nothing": true, "none": true,
}

// StopWord reports whether w (lower case) is a stop word.
func StopWord(w string) bool { return stopWords[w] }
