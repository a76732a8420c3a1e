package errsig

// feat is a set of hints about a line, found in one pass over its bytes,
// so that the classifier looks for phrases only where they can be.
type feat uint32

const (
	fError      feat = 1 << iota // error, err, errors
	fErrorType                   // a word ending in error, exception, interrupt, exit
	fFail                        // fail, failed, failure
	fFatal                       // fatal
	fPanic                       // panic, panicked
	fDenied                      // denied, refused, rejected, forbidden
	fPermission                  // permission, permitted, eacces, eperm
	fNotFound                    // found, such, exist, enoent, directory, …
	fCannot                      // cannot, n't, unable, invalid, missing, not, …
	fTimeout                     // timeout, timed, deadline
	fCrash                       // segmentation, fault, killed, memory, abort
	fHTTP                        // http, status
	fWarning                     // warning, warn, deprecated
	fNetwork                     // resolve, connection, host, ssl, …
	fCommand                     // command, recognized, executable
	fUsage                       // usage
	fConflict                    // conflict
	fAssert                      // assert, assertion, expected
	fLoc                         // ':' or '(' between a letter and a digit: a location
	fTraceback                   // traceback
)

var featureWords = map[feat][]string{
	fError:      {"error", "errors", "err", "errored", "errno"},
	fFail:       {"fail", "failed", "failure", "failures", "failing", "fails"},
	fFatal:      {"fatal"},
	fPanic:      {"panic", "panicked"},
	fDenied:     {"denied", "refused", "rejected", "forbidden", "unauthorized", "declined"},
	fPermission: {"permission", "permissions", "permitted", "eacces", "eperm", "erofs"},
	fNotFound: {"found", "such", "exist", "exists", "enoent", "locate", "matches", "match", "access", "find",
		"notfound", "directory", "revision", "open", "cd"},
	fCannot: {"cannot", "unable", "invalid", "missing", "unexpected", "unknown", "unrecognized",
		"unrecognised", "illegal", "undefined", "not", "couldn", "doesn", "incompatible", "mismatched",
		"mismatch", "unsupported", "unresolved", "undeclared", "duplicate", "redeclared", "required"},
	fTimeout:   {"timeout", "timed", "deadline"},
	fCrash:     {"segmentation", "fault", "killed", "dumped", "abort", "aborted", "memory", "oom"},
	fHTTP:      {"http", "status"},
	fWarning:   {"warning", "warn", "warnings", "deprecated", "deprecation"},
	fNetwork:   {"resolve", "resolving", "connection", "connect", "unreachable", "econnrefused", "enotfound", "etimedout", "econnreset", "certificate", "ssl", "tls", "host", "getaddrinfo", "servname"},
	fCommand:   {"command", "recognized", "executable"},
	fUsage:     {"usage"},
	fConflict:  {"conflict"},
	fAssert:    {"assert", "assertion", "expected"},
	fTraceback: {"traceback"},
}

const wordSlots = 512 // a power of two, well above the number of words

// wordEntry is a slot of the open-addressing table of featureWords. A
// word is known by its length and its last 8 letters (all of it, for the
// short words that most are); a longer word that shares both is a false
// hint at worst.
type wordEntry struct {
	tail uint64
	n    uint8 // word length; 0: empty slot
	f    feat
}

// Kinds of bytes for the hint pass.
const (
	kindLetter = 1 + iota
	kindColon  // ':' or '(': a location may be here
	kindQuote  // '\'': n't may follow
)

var (
	byteKinds [256]byte
	lowerTab  [256]byte // letters to lower case; everything else 0
	wordTable [wordSlots]wordEntry
	// the last letters of exception type names, packed as features packs them
	sufError     = pack("error")
	sufException = pack("xception") // the last 8 of "exception"
	sufInterrupt = pack("nterrupt")
	sufExit      = pack("exit")
)

func init() {
	for c := 'a'; c <= 'z'; c++ {
		lowerTab[c] = byte(c)
		lowerTab[c-'a'+'A'] = byte(c)
		byteKinds[c], byteKinds[c-'a'+'A'] = kindLetter, kindLetter
	}
	byteKinds[':'], byteKinds['('], byteKinds['\''] = kindColon, kindColon, kindQuote
	for f, words := range featureWords {
		for _, w := range words {
			tail, n := pack(w[max(0, len(w)-8):]), len(w)
			i := slot(tail, n)
			for wordTable[i].n != 0 && !(wordTable[i].tail == tail && int(wordTable[i].n) == n) {
				i = (i + 1) & (wordSlots - 1)
			}
			wordTable[i] = wordEntry{tail: tail, n: uint8(n), f: wordTable[i].f | f}
		}
	}
}

// slot is where a word starts its search in wordTable.
func slot(tail uint64, n int) uint64 {
	return ((tail ^ uint64(n)) * 0x9E3779B97F4A7C15) >> (64 - 9)
}

// pack packs up to 8 lower-case letters as features' tail register does.
func pack(s string) uint64 {
	var v uint64
	for i := 0; i < len(s); i++ {
		v = v<<8 | uint64(s[i])
	}
	return v
}

// features reads the hints of one line in a single pass: each word, lower
// cased, is looked up in a small table.
func features(l string) feat {
	var f feat
	for i := 0; i < len(l); {
		// Between words: skip, minding the few bytes that hint on their own.
		for ; i < len(l); i++ {
			k := byteKinds[l[i]]
			if k == 0 {
				continue
			}
			if k == kindLetter {
				break
			}
			if k == kindColon && i > 0 && i+1 < len(l) && isDigit(l[i+1]) && lowerTab[l[i-1]] != 0 {
				f |= fLoc // "x.go:12", "a.ts(3,4)"; not "07:20:05"
			} else if k == kindQuote && i+1 < len(l) && l[i+1] == 't' && (i+2 == len(l) || lowerTab[l[i+2]] == 0) {
				f |= fCannot // can't, doesn't, couldn't
			}
		}
		start := i
		var tail uint64 // the word's last 8 letters
		for ; i < len(l); i++ {
			lc := lowerTab[l[i]]
			if lc == 0 {
				break
			}
			tail = tail<<8 | uint64(lc)
		}
		if n := i - start; n >= 2 {
			if n > 5 {
				f |= suffixFeatures(tail, n)
			}
			if wordTable[slot(tail, n)].n != 0 {
				f |= wordFeatures(tail, n)
			}
		}
	}
	return f
}

// suffixFeatures recognises the names of exception types by their ends.
func suffixFeatures(tail uint64, n int) feat {
	switch {
	case tail&0xFF_FFFF_FFFF == sufError,
		n >= 9 && tail == sufException,
		n > 9 && tail == sufInterrupt,
		n > 6 && tail&0xFFFF_FFFF == sufExit:
		return fErrorType
	}
	return 0
}

func wordFeatures(tail uint64, n int) feat {
	if n > 255 {
		return 0
	}
	for i := slot(tail, n); wordTable[i].n != 0; i = (i + 1) & (wordSlots - 1) {
		if e := &wordTable[i]; e.tail == tail && int(e.n) == n {
			return e.f
		}
	}
	return 0
}
