package harvest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/errsig"
)

// Stated causes: after a command failed and the same program and
// subcommand later worked, the agent often says why in its own words
// ("The root cause is that …", "This happens because …", "It turns out
// …", "We decided to …"). Such a sentence, cut out whole and said after
// the error it explains, is kept as a candidate pitfall with the failure's
// signature (CausePrefix before it, so that it neither supersedes nor is
// superseded by the command's own pitfall). It is the agent's conclusion,
// not something the session proved: confidence confLikely, never active
// from one session. A later session that meets the same error and gets
// past it confirms it (see confirmCauses).

// CausePrefix starts the signature of a stated cause: the rest is the
// error signature of the failure it explains.
const CausePrefix = "cause: "

// TagCause marks a stated cause.
const TagCause = "cause"

var (
	// causeLead is the words that say a sentence states a cause or a
	// decision; what follows is what the agent concluded.
	causeLead = lazyRegexp(`(?i)\b(?:the (?:real |actual |underlying )?root cause (?:is|was)(?: that)?|the (?:real |actual |underlying )?(?:cause|problem|issue|reason) (?:is|was) that|` +
		`this (?:happens|happened|fails|failed|occurs|occurred|errors|errored|is|was) because|that'?s because|(?:it )?turns out(?: that)?|we decided to|` +
		`(?:i'll|i will|let's|we'll|we will) use \S.{0,60}? instead of \S.{0,60}? because)\s+`)
	// hedged is a sentence's start that makes its conclusion a guess or a
	// condition (I think the problem is that …, if the issue is that …).
	hedged = lazyRegexp(`(?i)\b(think|suspect|guess|believe|wonder|maybe|perhaps|possibly|probably|if|whether|unless|not|might|may|could|whatever|check)\b`)
	// noAntecedent starts a conclusion that leans on words cut away.
	noAntecedent = lazyRegexp(`(?i)^(it|this|that|these|those|they|them|he|she|which|here|there|both|the same)\b`)
	// ownDoing is a conclusion about what the agent itself did or will do,
	// or a guess: no knowledge of the project.
	ownDoing = lazyRegexp(`(?i)\b(i|i'm|i've|i'd|i'll|me|my|let me|we're|we've|our)\b|\b(might|maybe|perhaps|probably|likely|possibly|seems?|could be|may be|not sure|unclear|somewhere)\b`)
)

const (
	// maxCause is the longest sentence kept, in characters.
	maxCause = 220
	// causeAfter is how many messages after the fix a cause stated still
	// counts: the words that follow it.
	causeAfter = 4
)

// overcome is an error a session met and got past: the signature of a
// failure, and its position.
type overcome struct {
	sig string
	pos int
}

// causes finds the stated causes of the session's failure→success arcs,
// and the errors it got past without stating one (for confirmCauses).
func (r *ruleRun) causes() []overcome {
	type arc struct {
		f         *call
		what      string
		said      string
		pos       int
		from, end int // the messages its cause may be stated in
	}
	var arcs []arc
	done := map[string]bool{}
	memo := map[int]string{} // a message's stated cause, read once
	for i, f := range r.calls {
		if !f.failed || f.err.Kind != errsig.Environment || f.err.Signature == "" || f.cmd == "" && !mcpTool(f.name) ||
			exploring(f.key) || errsig.Cascade(f.err.Line) || sourcePosition().MatchString(f.err.Line) || done[f.err.Signature] {
			continue // an error at a line of code is that session's bug, and its cause too
		}
		j := r.nextSuccess(i, f.key)
		what := f.key
		if f.cmd == "" { // an MCP server's tool: the same tool working
			j, what = r.nextToolSuccess(i), f.name
		}
		if j < 0 || what == "" {
			continue
		}
		done[f.err.Signature] = true
		said, pos := r.statedCause(f.pos, r.calls[j].pos, memo)
		arcs = append(arcs, arc{f, what, said, pos, f.pos, r.calls[j].pos + causeAfter})
	}
	var got []overcome
	n := 0
	for _, a := range arcs {
		// A conclusion stated while another error was being got past too
		// may be about either: it is kept for neither.
		shared := false
		for _, b := range arcs {
			shared = shared || a.said != "" && b.f != a.f && b.from < a.pos && a.pos <= b.end
		}
		if a.said == "" || shared || n >= perRule || r.s.Repo == "" {
			if a.said == "" {
				got = append(got, overcome{a.f.err.Signature, a.f.pos})
			}
			continue
		}
		text := fmt.Sprintf("%s fails with %s: %s", quoteCode(a.what), quoteCode(stable(a.f.err)), a.said)
		if r.add(lore.Item{Text: text, Category: lore.CategoryPitfall, Repo: r.s.Repo, Confidence: confLikely,
			Signature: CausePrefix + a.f.err.Signature, Tags: []string{program(a.what), TagCause}}, a.pos) {
			n++
		}
	}
	return got
}

// mcpTool reports whether a tool is an MCP server's (mcp__server__tool,
// server_tool as some agents name them is not told apart): the agent's own
// tools (read, edit, search) fail for the agent's reasons.
func mcpTool(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), "mcp")
}

// nextToolSuccess is the index of the first call after i of the same
// tool, not a shell, that worked; or -1.
func (r *ruleRun) nextToolSuccess(i int) int {
	for j := i + 1; j < len(r.calls); j++ {
		if c := r.calls[j]; c.cmd == "" && c.name == r.calls[i].name && c.ok() {
			return j
		}
	}
	return -1
}

// statedCause is the conclusion the agent stated about the failure at
// message from, fixed by message to: its first in the message that
// follows the fix with text, else its last before the fix; and the
// message's index. "" when it stated none. memo keeps what each message
// states, by index.
func (r *ruleRun) statedCause(from, to int, memo map[int]string) (string, int) {
	last, lastPos := "", 0
	i, _ := slices.BinarySearchFunc(r.s.Messages, from+1, func(m lore.Message, idx int) int { return m.Index - idx })
	for _, m := range r.s.Messages[i:] {
		if m.Index <= from || m.Role != lore.RoleAssistant || m.Text == "" && m.Thinking == "" || m.Sidechain {
			continue
		}
		said, ok := memo[m.Index]
		if !ok {
			said = causeIn(m.Text)
			if said == "" {
				said = causeIn(m.Thinking) // the agent's own reasoning, as some agents write it down
			}
			memo[m.Index] = said
		}
		if m.Index > to {
			if said != "" {
				return said, m.Index
			}
			if m.Index > to+causeAfter {
				break // the next words about it came and said nothing
			}
			continue
		}
		if said != "" {
			last, lastPos = said, m.Index
		}
	}
	return last, lastPos
}

// causeIn is the first sentence of an agent's text that states a cause
// or a decision and reads on its own, as an item shows it; or "".
func causeIn(text string) string {
	if !mayStateCause(text) {
		return ""
	}
	for _, s := range agentSentences(text) {
		loc := causeLead().FindStringIndex(s)
		if loc == nil || loc[0] > 60 || hedged().MatchString(s[:loc[0]]) {
			continue
		}
		said := strings.TrimSpace(s[loc[1]:])
		if utf8.RuneCountInString(said) < 20 || len(s)-loc[0] > maxCause || noAntecedent().MatchString(said) ||
			strings.ContainsAny(said, "?") || strings.HasSuffix(said, ":") || strings.Count(s, "`")%2 != 0 ||
			ownDoing().MatchString(said) {
			continue
		}
		s = strings.TrimSpace(s[loc[0]:])
		if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") {
			s += "."
		}
		return lowerFirst(s)
	}
	return ""
}

// agentSentences splits an agent's text into sentences, outside code spans;
// markdown emphasis, list and quote marks are taken away, code blocks
// skipped.
func agentSentences(text string) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock || t == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "#") {
			continue
		}
		t = listMark().ReplaceAllString(strings.ReplaceAll(t, "**", ""), "")
		code := false
		start := 0
		for i := 0; i < len(t); i++ {
			switch c := t[i]; {
			case c == '`':
				code = !code
			case !code && (c == '.' || c == '!' || c == '?') && (i+1 == len(t) || t[i+1] == ' ') && !abbreviation(t[start:i]):
				out = append(out, strings.TrimSpace(t[start:i+1]))
				start = i + 1
			}
		}
		if rest := strings.TrimSpace(t[start:]); rest != "" {
			out = append(out, rest)
		}
	}
	return out
}

var listMark = lazyRegexp(`^(?:[-*+>] |\d+[.)] )+`)

// abbreviation reports whether text ends in an abbreviation whose dot
// ends no sentence (e.g., i.e., etc., vs.).
func abbreviation(text string) bool {
	l := strings.ToLower(text)
	for _, a := range []string{"e.g", "i.e", "etc", "vs", "approx"} {
		if strings.HasSuffix(l, a) {
			return true
		}
	}
	return false
}

// lowerFirst lowers a sentence's first letter to follow a colon, unless
// its first word is a name in capitals (API, NATS).
func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if next, _ := utf8.DecodeRuneInString(s[size:]); unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// itemLister is a store that lists its items, so that a session can
// confirm the causes stated before it.
type itemLister interface {
	Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error
}

// confirmCauses adds to each session of a batch that got past an error,
// without stating a cause of its own, the causes stated for the same
// error signature in its repository before (stored, or by a session
// earlier in the batch), with this session as their evidence: a second
// session meeting the error and getting past it confirms what the first
// one said of it, and lore.Promote may make it active. It does not show
// that the second session got past it the same way; a session that
// states another cause supersedes the first instead (the signature's
// rule). A store that cannot list its items confirms nothing.
func (h *harvester) confirmCauses(ctx context.Context, batch []harvested) error {
	ls, ok := h.opts.Store.(itemLister)
	if !ok {
		return nil
	}
	stored := map[string][]lore.Item{} // repository → causes stored in it
	for bi := range batch {
		x := &batch[bi]
		if len(x.overcome) == 0 || x.s.Repo == "" {
			continue
		}
		causes, loaded := stored[x.s.Repo]
		if !loaded {
			f := lore.Filter{Repo: x.s.Repo, Category: lore.CategoryPitfall, Statuses: []lore.Status{lore.StatusCandidate, lore.StatusActive}}
			if err := ls.Items(ctx, f, func(it lore.Item) error {
				if strings.HasPrefix(it.Signature, CausePrefix) && it.Repo == x.s.Repo {
					causes = append(causes, it)
				}
				return nil
			}); err != nil {
				return err
			}
			stored[x.s.Repo] = causes
		}
		for _, y := range batch[:bi] {
			for _, it := range y.items {
				if strings.HasPrefix(it.Signature, CausePrefix) && it.Repo == x.s.Repo && it.Category == lore.CategoryPitfall {
					causes = append(causes, it)
				}
			}
		}
		at := x.s.LastActive()
		if at.IsZero() {
			at = h.now()
		}
		for _, o := range x.overcome {
			for _, c := range causes {
				if c.Signature != CausePrefix+o.sig {
					continue
				}
				x.items = append(x.items, lore.Item{Text: c.Text, Category: c.Category, Repo: c.Repo, Agent: c.Agent,
					Confidence: confLikely, Signature: c.Signature, Tags: c.Tags, Status: lore.StatusCandidate,
					FirstSeen: at, LastConfirmed: at, Evidence: []lore.Evidence{{Session: x.s.ID, Position: o.pos}}})
			}
		}
	}
	return nil
}

// causeWords are what every start causeLead knows holds one of.
var causeWords = []string{"cause", "problem", "issue", "reason", "turns out", "decided", "instead"}

// mayStateCause reports whether text holds one of causeWords: the
// sentences of most texts need no closer look.
func mayStateCause(text string) bool { return holdsAny(strings.ToLower(text), causeWords) }
