package lore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/lorehq/lore/internal/redact"
)

// Category is the kind of knowledge an item holds.
type Category string

const (
	CategoryFact      Category = "fact"
	CategoryPitfall   Category = "pitfall"
	CategoryPattern   Category = "pattern"
	CategoryToolQuirk Category = "tool-quirk"
	CategoryQuestion  Category = "question"
)

// Categories lists every category, in the order exports write them.
var Categories = []Category{CategoryFact, CategoryPitfall, CategoryPattern, CategoryToolQuirk, CategoryQuestion}

// Status is where an item stands in its life.
type Status string

const (
	// StatusActive items are handed to new sessions.
	StatusActive Status = "active"
	// StatusCandidate items are below the confidence threshold or rest on a
	// single weak source; more sessions confirming them promote them.
	StatusCandidate Status = "candidate"
	// StatusSuperseded items were replaced by a newer item that names them
	// in its Related list.
	StatusSuperseded Status = "superseded"
	// StatusRetired items were taken back by a person.
	StatusRetired Status = "retired"
)

// Statuses lists every status.
var Statuses = []Status{StatusActive, StatusCandidate, StatusSuperseded, StatusRetired}

// Confidence rules shared by every store.
const (
	// MaxConfidence caps the combined confidence: no number of sessions
	// makes an item certain.
	MaxConfidence = 0.99
	// DefaultConfidence is what an item added by hand starts with.
	DefaultConfidence = 0.7
	// PromoteConfidence is the combined confidence at which a candidate
	// confirmed by at least two distinct sessions becomes active.
	PromoteConfidence = 0.7
)

// TagHeld marks a candidate that harvest held back because it reads as an
// order to an agent. Sessions confirming it never make it active, however
// many: an injected text on a web page an agent reads every day would
// otherwise earn its way into every boot. A person can still make it
// active (lore add, or an import).
const TagHeld = "held"

// Evidence is one place an item was learned: a session and the position of
// the message in it.
type Evidence struct {
	Session  string `json:"session"`
	Position int    `json:"position"`
}

// Item is one piece of knowledge: a sentence a future session can act on,
// with its scope, how sure lore is of it and where it came from.
type Item struct {
	// ID derives from the normalised text, category, repo and agent (see
	// ItemID), so learning the same thing again finds the same item.
	ID       string   `json:"id"`
	Text     string   `json:"text"`
	Category Category `json:"category"`
	// Repo and Agent are the scope; both empty means global.
	Repo  string `json:"repo"`
	Agent string `json:"agent"`

	Confidence float64 `json:"confidence"`
	// Manual is the highest confidence given by hand (lore add, an MCP
	// record) rather than by a session; zero when only sessions taught the
	// item. It is part of Confidence and keeps the item alive when every
	// session's evidence is forgotten.
	Manual float64 `json:"-"`
	Status Status  `json:"status"`
	// SourceCount is the number of distinct sessions in Evidence.
	SourceCount int        `json:"source_count"`
	Evidence    []Evidence `json:"evidence"`

	FirstSeen     time.Time `json:"first_seen"`
	LastConfirmed time.Time `json:"last_confirmed"`
	// Expires is zero when the item never expires.
	Expires time.Time `json:"-"`

	// Signature is the normalised error signature of a pitfall or tool
	// quirk: the key that links the same error across sessions.
	Signature string   `json:"signature"`
	Tags      []string `json:"tags"`
	// Related lists the ids of items this one supersedes or contradicts.
	Related []string `json:"related"`
	// Reviews are the decisions people made about the item, oldest first
	// (see Store.Review).
	Reviews []Review `json:"reviews,omitempty"`

	// redacted is the text and signature as Redact or Prepare left them:
	// while both are unchanged, Prepare does not read them for secrets
	// again. Nothing outside this package can set it, so an item is
	// redacted at least once on its way to a store, and once only. A
	// value, not a pointer: adding an item allocates nothing for it.
	redacted redaction
}

// redaction is an item's text and signature once redacted; an empty text
// is never taken as redacted.
type redaction struct{ text, signature string }

// Redact replaces the secrets in the item's text and signature by markers
// and returns how many it replaced. Prepare, which every store calls,
// then leaves them as they are; a caller that needs the redacted text
// before storing (to measure or screen it) redacts once this way.
func (it *Item) Redact() int {
	n := 0
	for _, s := range []*string{&it.Text, &it.Signature} {
		var found map[string]int
		*s, found = scrub(*s)
		for _, k := range found {
			n += k
		}
	}
	it.redacted = redaction{it.Text, it.Signature}
	return n
}

// isRedacted reports whether the item's text and signature are as Redact
// or Prepare left them.
func (it *Item) isRedacted() bool {
	return it.redacted.text != "" && it.redacted.text == it.Text && it.redacted.signature == it.Signature
}

// itemJSON is Item as it is written: every field present, expires null
// when the item never expires, lists never null.
type itemJSON struct {
	ID            string     `json:"id"`
	Text          string     `json:"text"`
	Category      Category   `json:"category"`
	Repo          string     `json:"repo"`
	Agent         string     `json:"agent"`
	Confidence    float64    `json:"confidence"`
	Manual        float64    `json:"manual_confidence,omitempty"`
	Status        Status     `json:"status"`
	SourceCount   int        `json:"source_count"`
	Evidence      []Evidence `json:"evidence"`
	FirstSeen     *time.Time `json:"first_seen"`
	LastConfirmed *time.Time `json:"last_confirmed"`
	Expires       *time.Time `json:"expires"`
	Signature     string     `json:"signature"`
	Tags          []string   `json:"tags"`
	Related       []string   `json:"related"`
	Reviews       []Review   `json:"reviews,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func timeOf(p *time.Time) time.Time {
	if p == nil {
		return time.Time{}
	}
	return *p
}

// MarshalJSON writes every field, with null for an unset time.
func (it Item) MarshalJSON() ([]byte, error) {
	j := itemJSON{
		ID: it.ID, Text: it.Text, Category: it.Category, Repo: it.Repo, Agent: it.Agent,
		Confidence: roundConfidence(it.Confidence), Status: it.Status, SourceCount: it.SourceCount,
		Evidence: it.Evidence, FirstSeen: timePtr(it.FirstSeen), LastConfirmed: timePtr(it.LastConfirmed),
		Expires: timePtr(it.Expires), Signature: it.Signature, Tags: it.Tags, Related: it.Related,
		Reviews: it.Reviews,
	}
	// The hand-given part is written only beside sessions' evidence: an
	// item without evidence was all given by hand, and reading it back
	// says so (see UnmarshalJSON).
	if len(it.Evidence) > 0 {
		j.Manual = roundConfidence(it.Manual)
	}
	if j.Evidence == nil {
		j.Evidence = []Evidence{}
	}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if j.Related == nil {
		j.Related = []string{}
	}
	// <, > and & as they are: items are read by programs and people, and
	// put into no web page as JSON.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads what MarshalJSON writes; absent fields stay zero.
func (it *Item) UnmarshalJSON(b []byte) error {
	var j itemJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*it = Item{
		ID: j.ID, Text: j.Text, Category: j.Category, Repo: j.Repo, Agent: j.Agent,
		Confidence: j.Confidence, Manual: j.Manual, Status: j.Status, SourceCount: j.SourceCount,
		Evidence: j.Evidence, FirstSeen: timeOf(j.FirstSeen), LastConfirmed: timeOf(j.LastConfirmed),
		Expires: timeOf(j.Expires), Signature: j.Signature, Tags: j.Tags, Related: j.Related,
		Reviews: j.Reviews,
	}
	if len(it.Evidence) == 0 {
		it.Manual = it.Confidence
	}
	return nil
}

// roundConfidence keeps confidences to six decimals, so that a value
// survives a trip through JSON and any store unchanged.
func roundConfidence(c float64) float64 {
	return math.Round(c*1e6) / 1e6
}

// CombineConfidence is the confidence of an item that independent sources
// confirmed with the given confidences: 1 − Π(1 − cᵢ), capped at
// MaxConfidence.
func CombineConfidence(cs ...float64) float64 {
	miss := 1.0
	for _, c := range cs {
		miss *= 1 - c
	}
	return roundConfidence(min(1-miss, MaxConfidence))
}

// Valid reports whether c is a known category.
func (c Category) Valid() bool { return slices.Contains(Categories, c) }

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// ParseCategory reads a category name, accepting "tool_quirk" and
// "toolquirk" for "tool-quirk".
func ParseCategory(s string) (Category, error) {
	c := Category(strings.ToLower(strings.TrimSpace(s)))
	switch c {
	case "tool_quirk", "toolquirk", "quirk":
		c = CategoryToolQuirk
	case "facts", "pitfalls", "patterns", "tool-quirks", "questions":
		c = Category(strings.TrimSuffix(string(c), "s"))
	}
	if !c.Valid() {
		return "", Errorf(EINVALID, "unknown category %q (want one of %s)", s, joinNames(Categories))
	}
	return c, nil
}

// ParseStatus reads a status name.
func ParseStatus(s string) (Status, error) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	if !st.Valid() {
		return "", Errorf(EINVALID, "unknown status %q (want one of %s)", s, joinNames(Statuses))
	}
	return st, nil
}

func joinNames[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// quoting marks that do not change what a sentence says.
var quoting = strings.NewReplacer("`", "", "\"", "", "“", "", "”", "", "‘", "'", "’", "'", "**", "")

// NormalizeText is the form of a text that decides whether two items are
// the same: lower case, quoting marks and markdown emphasis dropped,
// white space collapsed, trailing sentence punctuation removed.
func NormalizeText(text string) string {
	s := strings.ToLower(quoting.Replace(text))
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimRightFunc(s, func(r rune) bool {
		return r == '.' || r == '!' || r == ';' || r == ':' || r == ',' || unicode.IsSpace(r)
	})
}

// idLen is how many hex digits of the hash make an id: 48 bits, so that a
// store of a million items has a 0.2% chance of holding one collision,
// which stores resolve by using a longer id (see LongItemID).
const idLen = 12

// ItemID is the id of an item with this text, category and scope.
func ItemID(text string, c Category, repo, agent string) string {
	return itemHash(text, c, repo, agent)[:idLen]
}

// LongItemID is the id a store gives an item whose short id is already
// taken by a different text.
func LongItemID(text string, c Category, repo, agent string) string {
	return itemHash(text, c, repo, agent)[:2*idLen]
}

func itemHash(text string, c Category, repo, agent string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", c, repo, agent, NormalizeText(text))
	return hex.EncodeToString(h.Sum(nil))
}

// idPattern is what an id or id prefix looks like.
var idPattern = regexp.MustCompile(`^[0-9a-f]{4,24}$`)

// ValidIDPrefix reports whether s can name an item: four to 24 lower-case
// hex digits.
func ValidIDPrefix(s string) bool { return idPattern.MatchString(s) }

var scopePattern = regexp.MustCompile(`^[^\s\x00]+$`)

var redactor = redact.New()

// scrub is the one redaction of an item's text and signature: a variable
// so that a test can count its calls.
var scrub = redactor.Count

// MaxText is the most bytes of text an item may hold: an item is a
// sentence or two, and a boot hands many of them out within a budget of
// tokens. A longer text is refused, not cut, since a cut could change
// what it says.
const MaxText = 4000

// Prepare checks an item a caller wants stored and brings it into the
// form every store keeps: secrets redacted from text, signature and tags;
// times in UTC to the microsecond; tags trimmed, lower-cased and unique;
// the id computed when empty; status active and first seen now when unset.
// It returns an EINVALID error for empty text or one over MaxText, an
// unknown category or status, or a confidence outside 0..1.
func Prepare(it Item, now time.Time) (Item, error) {
	if n := len(strings.TrimSpace(it.Text)); n > MaxText {
		return it, Errorf(EINVALID, "text of %d bytes; an item holds at most %d", n, MaxText)
	}
	redacted := it.isRedacted()
	if !redacted {
		it.Text, _ = scrub(it.Text)
	}
	it.Text = strings.TrimSpace(it.Text)
	if it.Text == "" {
		return it, Errorf(EINVALID, "empty text")
	}
	if !it.Category.Valid() {
		c, err := ParseCategory(string(it.Category))
		if err != nil {
			return it, err
		}
		it.Category = c
	}
	if it.Status == "" {
		it.Status = StatusActive
	} else if !it.Status.Valid() {
		return it, Errorf(EINVALID, "unknown status %q (want one of %s)", it.Status, joinNames(Statuses))
	}
	if math.IsNaN(it.Confidence) || it.Confidence < 0 || it.Confidence > 1 {
		return it, Errorf(EINVALID, "confidence %v is outside 0..1", it.Confidence)
	}
	if math.IsNaN(it.Manual) || it.Manual < 0 || it.Manual > it.Confidence {
		return it, Errorf(EINVALID, "manual confidence %v is outside 0..confidence (%v)", it.Manual, it.Confidence)
	}
	it.Confidence, it.Manual = roundConfidence(it.Confidence), roundConfidence(it.Manual)
	it.Repo = strings.TrimSpace(it.Repo)
	it.Agent = strings.TrimSpace(it.Agent)
	for _, s := range []string{it.Repo, it.Agent} {
		if s != "" && !scopePattern.MatchString(s) {
			return it, Errorf(EINVALID, "scope %q holds white space", s)
		}
	}
	if it.ID == "" {
		it.ID = ItemID(it.Text, it.Category, it.Repo, it.Agent)
	} else if !ValidIDPrefix(it.ID) {
		return it, Errorf(EINVALID, "id %q is not 4 to 24 lower-case hex digits", it.ID)
	}
	if it.Signature = strings.TrimSpace(it.Signature); !redacted {
		it.Signature, _ = scrub(it.Signature)
	}
	it.redacted = redaction{it.Text, it.Signature}
	it.Tags = cleanTags(it.Tags)
	it.Related = cleanList(it.Related)
	var err error
	if it.Reviews, err = prepareReviews(it.Reviews); err != nil {
		return it, err
	}
	ev := it.Evidence[:0:0]
	seen := map[string]bool{}
	for _, e := range it.Evidence {
		// Sessions are kept as JSON strings, which hold only valid UTF-8.
		e.Session = SessionID(e.Session)
		if e.Session == "" {
			return it, Errorf(EINVALID, "evidence without a session")
		}
		if e.Position < 0 {
			return it, Errorf(EINVALID, "evidence position %d is negative", e.Position)
		}
		if !seen[e.Session] {
			seen[e.Session] = true
			ev = append(ev, e)
		}
	}
	it.Evidence = ev
	it.SourceCount = len(ev)
	if it.FirstSeen.IsZero() {
		it.FirstSeen = now
	}
	if it.LastConfirmed.IsZero() {
		it.LastConfirmed = it.FirstSeen
	}
	it.FirstSeen = StoreTime(it.FirstSeen)
	it.LastConfirmed = StoreTime(it.LastConfirmed)
	if !it.Expires.IsZero() {
		it.Expires = StoreTime(it.Expires)
	}
	return it, nil
}

// StoreTime is t as stores keep it: UTC, to the microsecond.
func StoreTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

func cleanTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(redactor.String(t)))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func cleanList(xs []string) []string {
	var out []string
	for _, x := range xs {
		x = strings.TrimSpace(x)
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Expired reports whether the item has expired at now.
func (it Item) Expired(now time.Time) bool {
	return !it.Expires.IsZero() && !now.Before(it.Expires)
}
