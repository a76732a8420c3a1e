package lore

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The rules every store merges by, as Store documents them, written once
// so that stores differ only in how they find what to merge with and how
// they keep it. Besides an Item, merging needs the confidence each session
// of its Evidence brought (its shares): ForgetSession takes a session's
// share out again, and Item does not carry them.

// MergeMode is how a store takes items in.
type MergeMode int

const (
	// Adding merges items as Store.Add does: each session brings the
	// item's confidence, and an active item makes a candidate active.
	Adding MergeMode = iota
	// Importing writes items as Store.Import does: each session brings the
	// share that gives back the item's confidence as it was exported.
	Importing
)

// Create returns an item as a store first keeps it, and the confidence
// each of its sessions brought, parallel to its Evidence. An item without
// sessions was all given by hand.
func Create(it Item, mode MergeMode) (Item, []float64) {
	if len(it.Evidence) == 0 {
		it.Manual = it.Confidence
		return it, nil
	}
	per := it.Confidence
	if mode == Importing {
		per = perSession(it)
	}
	shares := make([]float64, len(it.Evidence))
	for i := range shares {
		shares[i] = per
	}
	if mode == Adding {
		it.Confidence = CombineConfidence(append(slices.Clone(shares), it.Manual)...)
	}
	return it, shares
}

// perSession is the confidence each of an item's sessions must bring for
// the item to have its confidence beside its confidence given by hand:
// the inverse of CombineConfidence over equal shares, for items imported
// without per-session figures.
func perSession(it Item) float64 {
	n := float64(len(it.Evidence))
	miss := (1 - min(it.Confidence, MaxConfidence)) / (1 - min(it.Manual, MaxConfidence))
	return max(0, 1-math.Pow(min(miss, 1), 1/n))
}

// Merge folds an incoming item into a stored one, whose sessions brought
// shares (parallel to stored.Evidence): new sessions add their evidence
// and confidence, the confidence given by hand is the highest given, tags
// and related ids are joined, and a candidate may become active. It
// returns the shares with the new sessions' appended, as append does, and
// whether anything changed. in must be prepared (see Prepare) and be the
// same item or a near-duplicate; which it is, is for the store to find.
func Merge(stored *Item, shares []float64, in Item, mode MergeMode) ([]float64, bool) {
	old := *stored
	per := in.Confidence
	if mode == Importing && len(in.Evidence) > 0 {
		per = perSession(in)
	}
	added := 0
	for _, e := range in.Evidence {
		if !slices.ContainsFunc(stored.Evidence, func(x Evidence) bool { return x.Session == e.Session }) {
			stored.Evidence = append(stored.Evidence, e)
			shares = append(shares, per)
			added++
		}
	}
	manual := max(old.Manual, in.Manual)
	if len(in.Evidence) == 0 && in.Confidence > manual {
		manual = in.Confidence
	}
	it := stored
	it.Tags = appendNew(slices.Clone(old.Tags), in.Tags...)
	it.Related = appendNew(slices.Clone(old.Related), in.Related...)
	if in.FirstSeen.Before(it.FirstSeen) {
		it.FirstSeen = in.FirstSeen
	}
	confirmed := added > 0 || manual != old.Manual
	if confirmed && in.LastConfirmed.After(it.LastConfirmed) {
		it.LastConfirmed = in.LastConfirmed
	}
	if !old.Expires.IsZero() && in.Expires.After(old.Expires) {
		it.Expires = in.Expires
	}
	it.SourceCount = len(it.Evidence)
	if confirmed {
		it.Confidence = CombineConfidence(append(slices.Clone(shares), manual)...)
	}
	// A person adding the item as active vouches for it. Once a person
	// decided its status (Decided), sessions leave it as they left it.
	decided := old.Decided()
	if mode == Adding && in.Status == StatusActive && it.Status == StatusCandidate && (!decided || len(in.Evidence) == 0) {
		it.Status = StatusActive
	}
	if !decided {
		Promote(it)
	}
	// What the repository's instructions file says, or what is
	// self-evident, is known: a session that saw it so takes back what
	// sessions alone made active.
	if mode == Adding && Known(in) && it.Status == StatusActive && manual == 0 && !decided {
		it.Status = StatusCandidate
	}
	changed := confirmed || it.Confidence != old.Confidence || it.Status != old.Status ||
		!it.FirstSeen.Equal(old.FirstSeen) || !it.LastConfirmed.Equal(old.LastConfirmed) ||
		!it.Expires.Equal(old.Expires) || !slices.Equal(it.Tags, old.Tags) || !slices.Equal(it.Related, old.Related)
	it.Manual = manual
	return shares, changed
}

// Promote makes a candidate active when sessions have earned it that: two
// or more confirm it and its confidence reaches PromoteConfidence, it is
// not held (see TagHeld), and its text names nothing of one moment on one
// machine (see OneOff). It reports whether it did.
func Promote(it *Item) bool {
	if it.Status != StatusCandidate || it.SourceCount < 2 || it.Confidence < PromoteConfidence ||
		slices.Contains(it.Tags, TagHeld) || Known(*it) || OneOff(it.Text) {
		return false
	}
	it.Status = StatusActive
	return true
}

// Earned reports whether an item an extractor found may be active as it
// is stored, before any other session confirms it: a person did not vouch
// for it, so one session's finding is a guess unless the session showed
// it true. That is two or more sessions in its Evidence, or a fix the
// session saw work (TagVerified), with the confidence to be handed out,
// not held, and nothing of one moment on one machine in its text
// (OneOff). Whatever is not earned is kept as a candidate; Promote makes
// it active when a second session confirms it. Items a person adds (lore
// add, an import) are theirs to make active.
func Earned(it Item) bool {
	if it.Confidence < PromoteConfidence || slices.Contains(it.Tags, TagHeld) || Known(it) || OneOff(it.Text) {
		return false
	}
	if slices.Contains(it.Tags, TagVerified) {
		return true
	}
	seen := map[string]bool{}
	for _, e := range it.Evidence {
		seen[e.Session] = true
	}
	return len(seen) >= 2
}

// TagDocumented marks an item whose commands or names the repository's
// instructions file for agents (CLAUDE.md, AGENTS.md …) already gives, as
// a session saw it: known, so kept a candidate, and never handed out
// again by sessions alone.
const TagDocumented = "documented"

// TagSelfEvident marks an item the next session would be told on the
// spot anyway: the error it comes from says itself what to do (an unknown
// flag named, an agent tool's "read the file first"), or the command is
// the first one anyone runs in a project of its kind (go build ./...), or
// one search of the tree finds it (where a symbol is defined). Worth
// keeping, as a candidate that search finds, never worth handing out: it
// would save no step and take a note's place.
const TagSelfEvident = "self-evident"

// Known reports whether an item is known without lore: documented by the
// repository for its agents, or self-evident. It is kept for search, and
// sessions never make it active.
func Known(it Item) bool {
	return slices.Contains(it.Tags, TagDocumented) || slices.Contains(it.Tags, TagSelfEvident)
}

// TagVerified marks an item whose session showed it true: a pitfall whose
// fix, the same program and subcommand, worked right after the failure
// with nothing edited in between. Earned lets such an item be active
// from one session.
const TagVerified = "verified"

var (
	homePath = regexp.MustCompile(`(^|[^\w./-])(/Users/|/home/)[^/\s]+/|\b[A-Za-z]:\\Users\\`)
	// A pull request, issue, run, job or comment number, or any number of
	// five digits or more (a run id, a PID, a port picked at random).
	ticketNumber = regexp.MustCompile(`(?i)(#\d+\b|\b(pr|prs|pull|pulls|issue|issues|run|runs|job|jobs|comment|comments|checks|view|merge|close|review|number)[ /=:-]\d{2,}\b|\b\d{5,}\b)`)
)

// OneOff reports whether text names something of one moment on one
// machine: a home folder (/Users/ann, /home/bob), a commit or other hash,
// a pull request, issue, run or comment number. An item holding one
// tells the next session little until it is said in general words, so
// sessions never make it active on their own.
func OneOff(text string) bool {
	// Each pattern needs a home folder's name or a digit: most texts
	// hold neither, and are passed over without running them.
	if (strings.Contains(text, "/Users/") || strings.Contains(text, "/home/") || strings.Contains(text, `:\Users\`)) &&
		homePath.MatchString(text) {
		return true
	}
	if !strings.ContainsAny(text, "0123456789") {
		return false
	}
	if mayNameTicket(text) && ticketNumber.MatchString(text) {
		return true
	}
	return hasHash(text)
}

// mayNameTicket reports whether text holds what every match of
// ticketNumber holds: '#' and a digit, a letter (or a letter's last byte
// beyond ASCII, which (?i) may fold: ſ) then one of " /=:-" and two
// digits, or five digits in a row. Most texts with a digit (a version, a
// time, an exit code) hold none, and are passed over without running
// the expression, which took a fifth of the time of screening an item.
func mayNameTicket(text string) bool {
	run := 0 // digits in a row, to i
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) {
			run = 0
			continue
		}
		run++
		switch {
		case run == 5,
			run == 1 && i > 0 && text[i-1] == '#',
			run == 2 && i >= 3 && strings.IndexByte(" /=:-", text[i-2]) >= 0 && (isLetter(text[i-3]) || text[i-3] >= utf8.RuneSelf):
			return true
		}
	}
	return false
}

// hasHash reports whether text holds a hexadecimal word of 7 to 40
// digits that holds a digit and a letter: a commit or another hash. A
// word is a run of ASCII word characters, as \b takes them: what
// \b[0-9a-f]{7,40}\b matches, read without the expression.
func hasHash(text string) bool {
	for i := 0; i < len(text); {
		if !isWordChar(text[i]) {
			i++
			continue
		}
		j, hex, digit, letter := i, true, false, false
		for ; j < len(text) && isWordChar(text[j]); j++ {
			c := text[j]
			digit = digit || isDigit(c)
			letter = letter || c >= 'a' && c <= 'f'
			hex = hex && (isDigit(c) || c >= 'a' && c <= 'f')
		}
		if n := j - i; hex && digit && letter && n >= 7 && n <= 40 {
			return true
		}
		i = j
	}
	return false
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isWordChar is what \b takes for a word character: ASCII \w.
func isWordChar(c byte) bool { return isDigit(c) || isLetter(c) || c == '_' }

// Superseding reports whether an item, when created, supersedes others:
// it is an active or candidate pitfall or tool quirk with an error
// signature, or a fact telling where a symbol is defined (its signature
// is DefinitionSignature's): code moves, and the newer sighting is the
// one to hand out. A store looks for what it supersedes only then.
func (it *Item) Superseding() bool {
	return it.Signature != "" && it.live() && (it.Category == CategoryPitfall || it.Category == CategoryToolQuirk ||
		it.Category == CategoryFact && strings.HasPrefix(it.Signature, definitionPrefix))
}

const definitionPrefix = "defined: "

// DefinitionSignature is the signature of a fact that tells where symbol
// is defined, so that a later fact placing it elsewhere in the same
// repository supersedes it.
func DefinitionSignature(symbol string) string { return definitionPrefix + symbol }

// Supersedes reports whether it, when created, supersedes old: another
// item with its error signature and scope, still active or a candidate,
// and not one whose status a person decided (Decided). The same error,
// resolved differently.
func (it *Item) Supersedes(old *Item) bool {
	return old.Signature == it.Signature && SameScope(*it, *old) && old.live() && old.ID != it.ID && it.Superseding() &&
		!old.Decided()
}

// Supersede marks old superseded by it, and lists old in its Related.
func (it *Item) Supersede(old *Item) {
	old.Status = StatusSuperseded
	it.Related = appendNew(it.Related, old.ID)
}

// live reports whether an item is still handed out, or may come to be.
func (it *Item) live() bool {
	return it.Status == StatusActive || it.Status == StatusCandidate
}

// SameScope reports whether two items have the same category, repository
// and agent: only such items merge or supersede one another.
func SameScope(a, b Item) bool {
	return a.Category == b.Category && a.Repo == b.Repo && a.Agent == b.Agent
}

// appendNew appends to xs those of ys it does not hold yet.
func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		if !slices.Contains(xs, y) {
			xs = append(xs, y)
		}
	}
	return xs
}

// Forget takes a session's evidence out of a stored item whose sessions
// brought shares (as for Merge), recomputing its confidence, and returns
// the shares left and whether the session was among its evidence. The
// item is then to be deleted when it has no evidence left, no confidence
// given by hand and no decision of a person (Orphaned).
func Forget(it *Item, shares []float64, session string) ([]float64, bool) {
	var ev []Evidence
	var left []float64
	for i, e := range it.Evidence {
		if e.Session != session {
			ev, left = append(ev, e), append(left, shares[i])
		}
	}
	if len(ev) == len(it.Evidence) {
		return shares, false
	}
	it.Evidence, it.SourceCount = ev, len(ev)
	it.Confidence = CombineConfidence(append(slices.Clone(left), it.Manual)...)
	return left, true
}

// Orphaned reports whether nothing supports an item any more: no session,
// no confidence given by hand, no decision of a person (Decided).
func (it *Item) Orphaned() bool { return len(it.Evidence) == 0 && it.Manual == 0 && !it.Decided() }

// SessionID is a session's id as stores keep it (Prepare, PrepareSessions)
// and look it up: trimmed, valid UTF-8.
func SessionID(session string) string {
	return strings.ToValidUTF8(strings.TrimSpace(session), "\uFFFD")
}
