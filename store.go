package lore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lorehq/lore/internal/redact"
)

// Store keeps knowledge items. Every implementation merges on write by the
// same rules, which the conformance suite in internal/storetest checks:
//
//   - An item's id derives from its normalised text, category, repo and
//     agent; adding the same item again adds its evidence to the stored one.
//   - An item whose text is a near-duplicate of a stored item's (Jaccard
//     similarity of word shingles at or above dedup.Threshold, the same
//     numbers, paths and identifiers, the same category, repo and agent) is
//     merged into it the same way.
//   - Evidence counts distinct sessions: a session confirms an item once.
//     Confidence is 1 − Π(1 − cᵢ) over those sessions and the confidence
//     given by hand (for items added without a session, the highest one
//     given), capped at MaxConfidence.
//   - A pitfall or tool quirk with the same signature and scope as an
//     active item but a different text supersedes it.
//   - A candidate confirmed by two or more sessions and reaching
//     PromoteConfidence becomes active, unless it is tagged TagHeld.
//     Retired and superseded items stay so when confirmed again.
//   - Sessions leave the status of an item a person decided (promoted,
//     retired or edited: Item.Decided) as the person left it, and do not
//     supersede it.
type Store interface {
	// Add merges items into the store in one transaction and reports what
	// became of each, in order. An error about one of several items is an
	// *ItemError.
	Add(ctx context.Context, items []Item) ([]AddResult, error)
	// Import writes items as they are (ids, confidences, times, statuses),
	// in one transaction. An item whose id is already stored is merged
	// into it as Add would; near-duplicates are not looked for, so that an
	// export imported into an empty store gives back the same items. An
	// error about one of several items is an *ItemError.
	Import(ctx context.Context, items []Item) ([]AddResult, error)

	// Item returns the item with this id or unique id prefix.
	Item(ctx context.Context, id string) (Item, error)
	// Search returns the items that best answer q, best first.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Searches returns, for each query, what Search returns for it; a
	// store shares the work of queries for the same text (boot asks for
	// the best matches of a task in each of a session's scopes).
	Searches(ctx context.Context, qs []Query) ([][]Hit, error)
	// Items calls fn for every item that f selects, in id order.
	Items(ctx context.Context, f Filter, fn func(Item) error) error
	// Best returns the limit items f selects that are most confident,
	// then most recently added, in that order. Their Evidence and
	// Reviews may be left out (SourceCount says how many sessions
	// taught each): boot reads them at every session start, and needs
	// none of it.
	Best(ctx context.Context, f Filter, limit int) ([]Item, error)
	// Count returns how many items f selects.
	Count(ctx context.Context, f Filter) (int, error)
	// Recall returns the pitfalls and tool quirks f selects that a
	// command about to run, or an error just met, calls to mind: those
	// whose signature is one of q.Signatures, and those whose text opens
	// with q.Command (OpensWithCommand), at most q.Limit,
	// most confident first. It is asked before every shell command an
	// agent runs, so it reads only what an index finds; Evidence may be
	// left out, as in Best.
	Recall(ctx context.Context, q RecallQuery) ([]Item, error)

	// Supersede marks old as superseded by new and lists old in new's
	// Related.
	Supersede(ctx context.Context, oldID, newID string) error
	// Review applies a person's decision to the item with this id or
	// unique id prefix, as Decide does, records it in the item's Reviews,
	// and returns the item as it now is. Retiring keeps the item but
	// hands it out no more; an edit keeps the item's id, and a session
	// that teaches the text it was edited from teaches the edited item.
	Review(ctx context.Context, id string, d Decision) (Item, error)
	// Delete removes an item and its evidence.
	Delete(ctx context.Context, id string) error
	// ForgetSession removes a session's evidence from every item,
	// recomputes their confidence, and deletes the items left with no
	// evidence, no confidence given by hand and no decision of a person
	// (Item.Decided); and it removes the session's episodes.
	ForgetSession(ctx context.Context, session string) (ForgetResult, error)
	// Harvested returns the record of the last harvest of a session by an
	// extractor, and whether there is one.
	Harvested(ctx context.Context, session, extractor string) (Harvest, bool, error)
	// RecordHarvest stores records in one transaction, each replacing the
	// record of the same session and extractor. Forgetting a session keeps
	// its record, so that harvest does not learn from it again.
	RecordHarvest(ctx context.Context, hs ...Harvest) error
	// Harvests calls fn for every harvest record, by session.
	Harvests(ctx context.Context, fn func(Harvest) error) error
	// RecordEpisodes replaces each given session's episodes by its own,
	// each prepared (PrepareEpisodes; those it refuses are left out), all
	// in one transaction. ForgetSession removes them.
	RecordEpisodes(ctx context.Context, batch ...SessionEpisodes) error
	// Episodes returns the episodes that best match q, best first: those
	// of q's signature, ranked by how many of the words of q's text their
	// error line holds, then of q's repository, then of q's agent, then
	// with a fix, then the newest (SortEpisodes); then those of other
	// signatures whose error line matches q's text (MatchesText), best
	// match first.
	Episodes(ctx context.Context, q EpisodeQuery) ([]Episode, error)
	// RecordBoot stores what boot handed a session.
	RecordBoot(ctx context.Context, b Boot) error
	// Boots calls fn for every boot recorded at or after since, oldest
	// first.
	Boots(ctx context.Context, since time.Time, fn func(Boot) error) error

	Close() error
}

// Boot records a context boot handed out, so that measure can tell
// whether the session used it: the notes a session starts with, and
// those handed to it later, at the point of action (Kind).
type Boot struct {
	At      time.Time
	Session string // the session's id, when the agent said it
	Repo    string
	Agent   string
	Task    string
	Items   []string // the full ids of the items in the context, in order
	Tokens  int
	// Withheld says the context was built and not handed over: the
	// session is held out (lore boot --holdout), for measure to compare
	// with the sessions that got their notes. Items and Tokens are what
	// it would have been handed.
	Withheld bool
	// Kind is BootStart (""), BootBeforeTool or BootAfterFailure.
	Kind string
}

// The kinds of Boot.
const (
	// BootStart is the context a session starts with (lore boot).
	BootStart = ""
	// BootBeforeTool is a note handed over before a shell command ran:
	// a pitfall of the same command.
	BootBeforeTool = "before-tool"
	// BootAfterFailure is a note handed over after a tool call failed:
	// a pitfall or quirk with the failure's error signature.
	BootAfterFailure = "after-failure"
	// BootEpisode is an earlier session's failure and what fixed it,
	// handed over after a tool call failed when no item covers the error
	// (see Episode): Items is empty.
	BootEpisode = "episode"
)

// RecallQuery asks Store.Recall for the pitfalls and tool quirks of a
// command or an error.
type RecallQuery struct {
	// Filter selects the scope and status, as everywhere; its Category
	// is not used: Recall reads pitfalls and tool quirks.
	Filter
	// Signatures selects the items with one of these error signatures.
	Signatures []string
	// Command selects the items whose text opens with this command: a
	// program, or a program and its subcommand (OpensWithCommand).
	Command string
	// Limit caps the items; 0 means 10.
	Limit int
}

// OpensWithCommand reports whether text opens with command in backticks,
// alone or followed by more words, as harvest words a pitfall or quirk of
// a command ("`go test ./...` fails with …", "`gh api` can fail with …"
// open with go, go test, gh and gh api).
func OpensWithCommand(text, command string) bool {
	if command == "" || len(text) < len(command)+2 || text[0] != '`' || text[1:1+len(command)] != command {
		return false
	}
	c := text[1+len(command)]
	return c == ' ' || c == '`'
}

// Forgotten is the Extractor of the record lore forget --session writes:
// a person took back what the session taught, and no harvest learns from
// it again, not when its transcript grows, not a rebuild.
const Forgotten = "forgotten"

// JournalImported is the Extractor of the records lore journal import
// writes: the session's attempts are in the journal. Its records say
// nothing of what a session taught, and harvest, status and measure
// leave them out.
const JournalImported = "journal"

// Harvest records that a session was harvested: from which transcript,
// as it was then, so that an unchanged session is not read twice.
type Harvest struct {
	Session   string // the session's id
	Extractor string // "rules", or the LLM's spec
	// Path is the transcript read; a store keeps RecordPath of it, so a
	// path that names a secret is stored redacted.
	Path string
	Size int64
	// ModTime is the transcript's modification time before it was read
	// (a folder's: its latest file's); zero when unknown. With Size, it
	// tells an unchanged transcript without hashing it.
	ModTime time.Time
	Hash    string // of the transcript's content
	// Sessions counts the sessions the transcript held; 0 when unknown.
	// While it is unchanged and each of them has its record, it need not
	// be read at all.
	Sessions int
	At       time.Time
	Items    int // items the session gave
}

// CheckHarvests returns an EINVALID error when a harvest record lacks a
// session or an extractor, which key it: RecordHarvest stores none then.
func CheckHarvests(hs []Harvest) error {
	for _, h := range hs {
		if h.Session == "" || h.Extractor == "" {
			return Errorf(EINVALID, "a harvest record needs a session and an extractor")
		}
	}
	return nil
}

// AddAction says what Add did with an item.
type AddAction string

const (
	// Created: the item is new.
	Created AddAction = "created"
	// Merged: the item was stored already (by id, or as a near-duplicate)
	// and gained evidence or confidence.
	Merged AddAction = "merged"
	// Unchanged: the item was stored already and brought nothing new,
	// such as the same session confirming it again.
	Unchanged AddAction = "unchanged"
)

// AddResult is what became of one added item.
type AddResult struct {
	// ID is the stored item's id: the added item's own, or the id of the
	// item it was merged into.
	ID     string
	Action AddAction
	// NearDuplicate is set when the item was merged into a different
	// item whose text is similar.
	NearDuplicate bool
	// Superseded lists the items this one superseded.
	Superseded []string
}

// Query is a search.
type Query struct {
	// Text is a question or keywords in people's words. Terms are ORed,
	// stemmed and stop words dropped; no character in it is an operator.
	Text string
	Filter
	// Limit caps the hits; 0 means 10.
	Limit int
	// Bounded keeps the search's cost bounded on a large store, for
	// callers a person is waiting on (boot): when a common word leaves too
	// many items to score them all, only the newest of its matches and
	// the matches of the question's rare words are scored, even when the
	// filter then leaves fewer hits than Limit. Without it, a search that
	// finds too few that way scores every match.
	Bounded bool
}

// Filter selects items by scope, category and status.
type Filter struct {
	// Repo selects the items of this repository, as SameRepo says: the
	// items of boot's repository and no other's. With AnyOwner, it selects
	// as RepoMatches says, for a repository a person named: a bare name
	// then selects it under any owner too. Filter.SelectsRepo is the rule.
	Repo     string
	AnyOwner bool
	Agent    string
	// NoRepo selects only items with no repo: agent-wide and global ones.
	NoRepo bool
	// NoAgent selects only items with no agent: with NoRepo, the global
	// ones, which are for every agent.
	NoAgent  bool
	Category Category
	// Statuses selects items in any of these statuses; empty means
	// active only. AnyStatus selects every item.
	Statuses []Status
	// AnyStatus selects items whatever their status.
	AnyStatus bool
	// Expired includes items whose expiry has passed; by default
	// they are left out.
	Expired bool
}

// Hit is one search result.
type Hit struct {
	Item
	// Score is higher for a better match. It compares hits of searches
	// for the same text, whatever their filters: an item scores the same
	// in each.
	Score float64
}

// ForgetResult counts what ForgetSession did.
type ForgetResult struct {
	Evidence int // evidence entries removed
	Updated  int // items that kept other evidence, with confidence recomputed
	Deleted  int // items deleted because nothing else supported them
}

// Error codes, which the command line maps onto exit codes.
const (
	EINVALID  = "invalid"
	ENOTFOUND = "not_found"
	ECONFLICT = "conflict"
)

// Error is an error a user can act on, with a code callers branch on.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with this code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ItemError is an error about one item of those given to Store.Add or
// Store.Import, so that a caller can say where that item came from.
type ItemError struct {
	Index int // the item's position in the slice, from 0
	Err   error
}

func (e *ItemError) Error() string { return fmt.Sprintf("item %d: %v", e.Index+1, e.Err) }

func (e *ItemError) Unwrap() error { return e.Err }

// ErrorCode returns the code of the first *Error in err's chain, or "".
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// RecordPath is the path a harvest record keeps for the transcript at p:
// p itself, unless p holds what looks like a secret (a token in a folder
// name), when it is p redacted with a short hash of p, which still tells
// one such path from another without keeping the secret.
func RecordPath(p string) string {
	red := pathRedactor.String(p)
	if red == p {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return red + " #" + hex.EncodeToString(sum[:8])
}

// RecordName is name with what looks like a secret in it redacted: the
// repository lore names after a folder whose name holds a token.
func RecordName(name string) string { return pathRedactor.String(name) }

var pathRedactor = redact.New()

// EvidenceShares is kept by a store that can say what each session added
// to an item's confidence (the SQLite and PostgreSQL stores): the web
// view draws an item's confidence over its sessions from it.
type EvidenceShares interface {
	// Shares returns the item's evidence, in the order it arrived, and
	// each session's share of the confidence, parallel to it. The item
	// is the one with this id or unique id prefix.
	Shares(ctx context.Context, id string) ([]Evidence, []float64, error)
}
