package lore

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/terms"
)

// Episode is one failure of an earlier session and what the session did
// next: the raw history lore falls back on when no item covers an error a
// session meets. Harvest keeps one per error signature a session met (its
// first occurrence); stores keep them apart from items, replaced when the
// session is harvested again and removed when it is forgotten.
type Episode struct {
	Session string
	Agent   string
	Repo    string
	// At is when the failed call was made (its message's time, else the
	// session's start); zero when the transcript keeps no time.
	At time.Time
	// Position is the message index of the failed call.
	Position int
	// Tool is the name of the tool called.
	Tool string
	// Input is the shell command, or the tool's input, short and redacted.
	Input string
	// Error is the error line (errsig's Line), redacted; EpisodeWithheld
	// when the line read as an order to an agent.
	Error     string
	Signature string
	// Fix is the first later call of the same program and subcommand (or
	// the same tool) that worked, within EpisodeWindow calls, as its
	// command or input; "" when the session gave up: no such call.
	Fix string
	// Changes is what the session changed between the failure and the
	// fix: the files it edited, the commands that change things it ran
	// ("edited config.go, main.go; ran `npm install`"); "" when nothing
	// or when it gave up.
	Changes string
	// Steps counts the tool calls from the failure to the fix, or those
	// the session made after the failure (up to EpisodeWindow) when it
	// gave up.
	Steps int
	// prepared says PrepareEpisode made the episode what it is: a store
	// given it does not prepare it again (harvest prepares episodes in its
	// workers, beside the one writer, where screening them costs less).
	prepared bool
}

// EpisodeQuery asks a store for the earlier failures most like one a
// session just met.
type EpisodeQuery struct {
	// Signature is the error's signature: episodes with it come first.
	Signature string
	// Text is the error line as printed: among the episodes of the
	// signature, those whose error shares more of its words (the values
	// the signature stripped: a script's name, a symbol) come first; then
	// the other episodes whose error line matches its words, best first.
	Text string
	// Repo and Agent rank episodes of the same repository (SameRepo),
	// then of the same agent, before the others of the same standing.
	Repo, Agent string
	// Before leaves out the episodes at or after it; zero: none.
	Before time.Time
	// Limit caps the episodes returned; 0 means 5.
	Limit int
}

// Sizes of an episode's texts, in bytes: an episode is handed over in a
// few lines.
const (
	MaxEpisodeInput = 160
	MaxEpisodeError = 200
	// EpisodeWindow is how many calls after a failure harvest looks for
	// the call that worked.
	EpisodeWindow = 30
)

// EpisodeWithheld replaces an error line that reads as an instruction or
// an order to an agent: tool output is text written by strangers, and an
// episode is handed to later sessions.
const EpisodeWithheld = "[error text withheld: it reads as an order to an agent]"

// PrepareEpisode brings an episode into the form every store keeps: its
// texts on one line, redacted and cut; its error line neutralised
// (NeutralError). It reports false for an episode not to be kept: no
// session or signature, a signature that reads as an instruction to an
// agent, or a command or fix that does.
func PrepareEpisode(e Episode) (Episode, bool) {
	if e.prepared {
		return e, true
	}
	e.Session = strings.ToValidUTF8(strings.TrimSpace(e.Session), "\uFFFD")
	e.Signature = episodeText(e.Signature, MaxEpisodeError)
	if e.Session == "" || e.Signature == "" {
		return e, false
	}
	e.Input = episodeText(e.Input, MaxEpisodeInput)
	e.Fix = episodeText(e.Fix, MaxEpisodeInput)
	e.Changes = episodeText(e.Changes, MaxEpisodeInput)
	e.Error = NeutralError(episodeText(e.Error, MaxEpisodeError))
	if Instruction(e.Signature) {
		return e, false // the line was an injection, and its signature says it too
	}
	for _, s := range []string{e.Input, e.Fix, e.Changes} {
		if instruction, _, _ := Screen(s); instruction {
			return e, false
		}
	}
	if !e.At.IsZero() {
		e.At = StoreTime(e.At)
	}
	e.Steps = max(e.Steps, 0)
	e.prepared = true
	return e, true
}

// SessionEpisodes are the episodes of one session, as Store.RecordEpisodes
// takes them.
type SessionEpisodes struct {
	Session  string
	Episodes []Episode
}

// PrepareEpisodes prepares the episodes of session (PrepareEpisode), and
// leaves out those not to keep. Episodes it prepared for session before
// are taken as they are: a store calls it on what harvest prepared.
func PrepareEpisodes(session string, eps []Episode) []Episode {
	out := make([]Episode, 0, len(eps))
	for _, e := range eps {
		if e.Session != session {
			e.Session, e.prepared = session, false
		}
		if e, ok := PrepareEpisode(e); ok {
			out = append(out, e)
		}
	}
	return out
}

// PrepareSessions prepares a batch for Store.RecordEpisodes: each
// session's id trimmed and made valid UTF-8, as Prepare keeps an
// evidence's, and its episodes prepared (PrepareEpisodes). A session
// without an id is EINVALID.
func PrepareSessions(batch []SessionEpisodes) ([]SessionEpisodes, error) {
	out := make([]SessionEpisodes, len(batch))
	for i, b := range batch {
		session := SessionID(b.Session)
		if session == "" {
			return nil, Errorf(EINVALID, "episodes need a session")
		}
		out[i] = SessionEpisodes{Session: session, Episodes: PrepareEpisodes(session, b.Episodes)}
	}
	return out, nil
}

// AppendMatches appends to eps the episodes of more (of other
// signatures, best match first) whose error line matches words
// (MatchesText), until eps holds limit: the second part of what
// Store.Episodes returns.
func AppendMatches(eps, more []Episode, words []string, limit int) []Episode {
	eps = slices.Clip(eps)
	for _, e := range more {
		if len(eps) >= limit {
			break
		}
		if MatchesText(words, e.Error) {
			eps = append(eps, e)
		}
	}
	return eps
}

// NeutralError is an error line as an episode may hand it over: the
// line, or its sentences before the first one that reads as an order held
// for naming nothing of a project, asking for harm or setting something
// dangerous (Screen: "File has not been read yet. Read it first before
// writing to it." keeps its first sentence); EpisodeWithheld when the
// line reads as an instruction to an agent anywhere, or its first
// sentence is such an order. Tool output is text written by strangers.
func NeutralError(line string) string {
	if line == EpisodeWithheld {
		return line
	}
	if instruction, hold, _ := Screen(line); instruction {
		return EpisodeWithheld
	} else if !hold {
		return line
	}
	kept := ""
	for rest := line; rest != ""; {
		i := strings.Index(rest, ". ")
		sentence := rest
		if i >= 0 {
			sentence, rest = rest[:i+1], rest[i+2:]
		} else {
			rest = ""
		}
		if _, hold, _ := Screen(sentence); hold {
			break
		}
		kept = strings.TrimSpace(kept + " " + sentence)
	}
	if kept == "" {
		return EpisodeWithheld
	}
	if _, hold, _ := Screen(kept); hold {
		return EpisodeWithheld
	}
	return kept
}

// MatchesText reports whether an episode's error line answers a text
// search for words (terms.Of of an error line): it holds at least half of
// them, and two when there are two or more. One shared word ("file",
// "error") says nothing of whether two errors are alike.
func MatchesText(words []string, line string) bool {
	need := max(min(2, len(words)), (len(words)+1)/2)
	return need > 0 && SharedWords(words, line) >= need
}

// episodeText is s on one line, redacted, and cut to n bytes where no
// part of a secret is kept.
func episodeText(s string, n int) string {
	s = redactor.Head(strings.ToValidUTF8(s, "\uFFFD"), n)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	k := redact.Cut(s, n-len("…"))
	return strings.TrimRight(s[:k], " ") + "…"
}

// SortEpisodes orders episodes of q's signature as Store.Episodes
// returns them: those whose error line holds more of the words of q's
// text first (the values a signature strips, such as a script's name,
// tell its errors apart), then those of q's repository, then of q's
// agent, then those with a fix, then the newest, then by session and
// position.
func SortEpisodes(q EpisodeQuery, eps []Episode) {
	words := terms.Of(q.Text)
	type ranked struct {
		e    Episode
		rank [4]int
	}
	rs := make([]ranked, len(eps))
	for i, e := range eps {
		rs[i] = ranked{e, [4]int{-SharedWords(words, e.Error), not(SameRepo(e.Repo, q.Repo)), not(q.Agent != "" && e.Agent == q.Agent),
			not(e.Fix != "")}}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if c := slices.Compare(a.rank[:], b.rank[:]); c != 0 {
			return c
		}
		if c := b.e.At.Compare(a.e.At); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.e.Session, b.e.Session), cmp.Compare(a.e.Position, b.e.Position))
	})
	for i := range rs {
		eps[i] = rs[i].e
	}
}

// SharedWords counts the words (terms.Of) of an error line that are
// among words.
func SharedWords(words []string, line string) int {
	n := 0
	for _, w := range terms.Of(line) {
		if slices.Contains(words, w) {
			n++
		}
	}
	return n
}

func not(b bool) int {
	if b {
		return 0
	}
	return 1
}
