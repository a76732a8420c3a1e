package harvest

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lorehq/lore"
)

// Findings: what the agent concluded about the project, in its own words.
// After reading code and running it, agents say what they found ("The
// root cause is clear: `RotateWALFiles` uses a non-blocking send …",
// "Keycloak only includes these role claims in the ID token, not in the
// UserInfo endpoint response", "`ReceiveNats` blocks by design, but it is
// called synchronously from `Init()`"). Such a sentence is most of what an
// engineer would write down from a session, and no command or error shows
// it. A finding is a sentence of the agent's own text (not a tool's
// output, not a sub-agent's report, not its reasoning) that
//   - names something of the project in a code span (`RotateWALFiles`,
//     `.entire/settings.json`) and says enough around it (six words or
//     more outside code spans);
//   - states how things are: a cause, a constraint, a default, where
//     something comes from (findingMark: because, never, only, must,
//     instead of, by default, does not …);
//   - is not the agent's own doing or plan (I, we, let me), a guess or
//     advice (might, likely, should), a question, one moment's state
//     (yet, this run, the working tree, a network that timed out, a
//     commit or pull request number), a change log line (Added …,
//     Replaced …: the commit says it), nor a sentence that leans on one
//     cut away or answers the user (This, It, So, Actually, No, If …).
//
// The session's last words count for more: agents sum up what they found
// there. A session keeps up to minFindings, and one more for each
// findingsPer messages of its agent's, up to maxFindings: those with the
// most marks first. A finding is the agent's conclusion, which the session did
// not prove: a candidate (confLikely), in the session's repository, tagged
// TagFinding. Boot does not hand candidates out; search finds them
// (include_candidates), and a person may make one active.

// TagFinding marks a sentence the agent concluded about the project.
const TagFinding = "finding"

const (
	// A session keeps minFindings findings, one more for each
	// findingsPer of its agent's messages, up to maxFindings.
	minFindings, findingsPer, maxFindings = 4, 20, 12
	// minFinding and maxFinding bound a finding's length, in bytes.
	minFinding, maxFinding = 40, maxItemText
	// findingProse is the fewest words outside code spans a finding has.
	findingProse = 6
)

var (
	// findingMark is what a sentence stating how things are holds.
	findingMark = lazyRegexp(`(?i)\b(?:because|root cause|the (?:real |actual )?(?:issue|problem|bug|cause|reason) (?:is|was)|` +
		`turns out|never|only|must|requires?|instead of|by default|defaults? to|is defined in|lives in|comes from|` +
		`(?:is|are) generated|so that|which means|means that|cannot|can['’]t|doesn['’]t|does not|isn['’]t|is not|` +
		`aren['’]t|are not|won['’]t|will not|didn['’]t|did not|wasn['’]t|was not|always|expects?|supposed to|` +
		`mismatch|conflicts?|collides?|breaks?|fails? (?:when|if|because|with)|is responsible|(?:is|are) (?:handled|called|stored|used|set)|` +
		`handles|reads|writes|not|rather than|unless|regardless|needs? to|required)\b`)
	// findingHedge is a guess, a plan, or words to the user.
	findingHedge = lazyRegexp(`(?i)\b(?:i think|maybe|perhaps|probably|possibly|likely|might|not sure|seems?|appears? to|` +
		`(?:could|would|should) (?:be|have)|may|technically|let me|let['’]s|do you|if you|want me|todo)\b`)
	// findingFirst is the agent or its team speaking of what it does.
	findingFirst = lazyRegexp(`(?i)(?:^|[^\w'’/])(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|me|my|we|we['’]re|we['’]ve|we['’]ll|our|us)(?:[^\w'’/]|$)`)
	// findingState is one moment's state of the work or the checkout.
	findingState = lazyRegexp(`(?i)\b(?:yet|this run|this session|twice|temporary|for now|at the moment|right now|so far|` +
		`in progress|succeeded|staged|ahead|behind|untracked|working[- ]tree|worktree|local-only|origin/\w+|lines? ~?\d+|` +
		`remaining|missing|merged|published|` +
		`timed out|ssh|unreachable|connectivity|offline|rate[- ]limit(?:ed)?)\b`)
	// findingDiff starts a change log line: the commit holds it.
	findingDiff = lazyRegexp(`(?i)^(?:added|removed|replaced|wired|moved|refactored|changed|updated|fixed|extracted|` +
		`introduced|renamed|deleted|created|implemented|switched|converted|dropped|kept|used|made|reverted|bumped|` +
		`set|wrapped|cleaned|tightened|simplified|documented|minimal|bonus|summary|note|now|next|then|first|okay|ok|` +
		`good|great|perfect|done|all|here|this|that|it|these|those|they|both|actually|no|yes|if|your|same|` +
		`one|or|right|need|needs|ran|wrote|built|took|got|[a-z]\)|\w+ing|\w+ed)(?:\W|$)`)
	// findingOrder starts a step to take, an order or a plan (Use …,
	// Create …, Keep …): advice only when it says why (because).
	findingOrder = lazyRegexp(`^(?:add|create|use|keep|make|run|remove|derive|ensure|check|move|call|wire|pass|return|` +
		`update|change|install|delete|drop|put|write|let|go|start|stop|try|avoid|prefer|consider|do|don['’]t)\b`)
	// findingLead is a sentence's first words that only lead into what
	// follows: a conjunction (But, So, And, Also), or a short lead-in
	// before a colon (I found the key path in X:, One nuance:); see
	// findingLeadIn.
	findingConj = lazyRegexp(`(?i)^(?:but|so|and|also)\b,?\s*`)
	// proseWord is a word of two letters or more.
	proseWord = lazyRegexp(`[A-Za-z]{2,}`)
)

// finding is one sentence kept, with where it was said and its weight.
type finding struct {
	text  string
	pos   int
	score float64
}

// findings keeps the session's findings (see TagFinding).
func (r *ruleRun) findings() {
	if r.s.Repo == "" {
		return // a finding is about a project
	}
	last, said := -1, 0
	for _, m := range r.s.Messages {
		if m.Role == lore.RoleAssistant && !m.Sidechain && strings.TrimSpace(m.Text) != "" {
			last = m.Index
			said++
		}
	}
	keep := min(minFindings+said/findingsPer, maxFindings)
	var found []finding
	for _, m := range r.s.Messages {
		if m.Role != lore.RoleAssistant || m.Sidechain || !strings.Contains(m.Text, "`") {
			continue
		}
		for _, s := range agentSentences(m.Text) {
			s = trimLead(s)
			score, ok := findingIn(s)
			if !ok {
				continue
			}
			if m.Index == last {
				score += 2 // the session's summing up
			}
			found = append(found, finding{text: s, pos: m.Index, score: score})
		}
	}
	slices.SortStableFunc(found, func(a, b finding) int { return cmp.Compare(b.score, a.score) })
	n := 0
	for _, f := range found {
		if n >= keep {
			break
		}
		text := f.text
		if !strings.HasSuffix(text, ".") && !strings.HasSuffix(text, "!") {
			text += "."
		}
		if r.add(lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confLikely,
			Tags: []string{TagFinding}}, f.pos) {
			n++
		}
	}
}

// findingIn weighs a sentence as a finding: its marks and code spans; ok
// is false when it is none.
func findingIn(s string) (score float64, ok bool) {
	if len(s) < minFinding || len(s) > maxFinding || !strings.Contains(s, "`") || strings.Count(s, "`")%2 != 0 ||
		strings.ContainsRune(s, '?') || strings.HasSuffix(s, ":") || lore.OneOff(s) {
		return 0, false
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsLower(r) {
		return 0, false // the rest of a sentence cut before, or a list's note
	}
	spans := strings.Count(s, "`") / 2
	prose := codeSpans().ReplaceAllString(s, " ")
	if len(proseWord().FindAllString(prose, findingProse)) < findingProse {
		return 0, false
	}
	marks := len(findingMark().FindAllString(prose, -1))
	if marks == 0 || findingHedge().MatchString(prose) || findingFirst().MatchString(prose) ||
		findingState().MatchString(prose) {
		return 0, false
	}
	// A sentence that starts with a code span starts with a name, not
	// with a verb of a change log or an order.
	if start := strings.TrimLeft(s, " *_-"); !strings.HasPrefix(start, "`") && (findingDiff().MatchString(start) ||
		findingOrder().MatchString(strings.ToLower(start)) && !strings.Contains(strings.ToLower(prose), "because")) {
		return 0, false
	}
	for _, m := range findingMark().FindAllString(prose, -1) {
		if strongMarks[strings.ToLower(m)] {
			score++ // a cause, a rule or a default weighs more than a plain negation
		}
	}
	return score + float64(marks) + 0.5*float64(spans), true
}

// strongMarks are the marks that state a cause, a rule or a default.
var strongMarks = set(`because root_cause never only must require requires instead_of by_default default_to defaults_to
	so_that which_means means_that cannot can't can’t regardless unless turns_out`)

var codeSpans = lazyRegexp("`[^`]*`")

// trimLead takes away a sentence's words that only lead into it: a
// conjunction that joins it to the one before (But, So), or a lead-in of
// up to eight words before a colon that names nothing of the project and
// says nothing of how things are (I found the key path in X:, One nuance
// worth calling out:, Short answer:). "Root cause:" stays.
func trimLead(s string) string {
	if loc := findingConj().FindStringIndex(s); loc != nil {
		s = upperFirst(s[loc[1]:])
	}
	lead, rest, ok := strings.Cut(s, ": ")
	if !ok || strings.Contains(lead, "`") || len(strings.Fields(lead)) > 8 || findingMark().MatchString(lead) {
		return s
	}
	return upperFirst(strings.TrimSpace(rest))
}

// upperFirst raises a sentence's first letter.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
