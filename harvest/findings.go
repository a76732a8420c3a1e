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
//     something comes from (strongMarks, findingMarks: because, never,
//     only, must, instead of, by default, does not …);
//   - is not the agent's own doing or plan (I, we, let me), a guess or
//     advice (might, likely, should), a pointer at what the reader saw
//     beside it (this file, the output above), a question, one moment's state
//     (yet, this run, the working tree, a network that timed out, a
//     commit or pull request number), a change log line (Added …,
//     Replaced …: the commit says it), nor a sentence that leans on one
//     cut away or answers the user (This, It, So, Actually, No, If …).
//
// The session's last words count for more: agents sum up what they found
// there. A session keeps up to minFindings, and one more for each
// findingsPer messages of its agent's, up to maxFindings: those with the
// most marks first. A finding is the agent's conclusion, which the
// session did not prove: a candidate (confLikely), in the session's
// repository, tagged TagFinding. Boot does not hand candidates out; search
// finds them (include_candidates), and a person may make one active.

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

// The words that weigh a sentence, in lower case, a run of words joined
// by "_" (see set); a sentence's words are read once (proseWords) and
// looked up, which costs a fraction of matching expressions of them.
var (
	// strongMarks state a cause, a rule or a default.
	strongMarks = set(`because root_cause never only must require requires instead_of by_default default_to
		defaults_to so_that which_means means_that cannot can't regardless unless turns_out`)
	// findingMarks are what a sentence stating how things are holds: the
	// strong marks, and these.
	findingMarks = set(`issue_is issue_was problem_is problem_was bug_is bug_was cause_is cause_was reason_is
		reason_was is_defined_in lives_in comes_from is_generated are_generated doesn't does_not isn't is_not aren't
		are_not won't will_not didn't did_not wasn't was_not always expect expects supposed_to mismatch conflict
		conflicts collide collides break breaks fail_when fails_when fail_if fails_if fails_because fail_with
		fails_with is_responsible is_handled are_handled is_called are_called is_stored are_stored is_used are_used
		is_set are_set handles reads writes not rather_than need_to needs_to required`)
	// hedgeWords are a guess, a plan, or words to the user.
	hedgeWords = set(`i_think maybe perhaps probably possibly likely might not_sure seem seems appear_to appears_to
		looks look_like could_be could_have would_be would_have should_be should_have may technically let_me let's
		do_you if_you want_me todo next_step next_steps`)
	// pointWords point at what the reader saw beside the sentence (this
	// file, the output above): without it the sentence says nothing.
	pointWords = set(`this_file this_function this_method this_class this_line this_directory this_folder this_module
		this_test this_script this_output this_error the_output the_script the_result the_above the_following
		shown_above shown_below above below visible_part shown_part related_to`)
	// firstWords are the agent or its team speaking of what it does.
	firstWords = set(`i i'm i've i'd i'll me my we we're we've we'll our us`)
	// eventWords report what happened once (a run found, a job failed):
	// one moment, unless the sentence says why (a strong mark).
	eventWords = set(`found ran returned reported showed printed passed failed completed finished moved landed
		confirmed rebased pushed indicates indicated`)
	// stateWords are one moment's state of the work or the checkout.
	stateWords = set(`yet this_run this_session twice temporary for_now at_the_moment right_now so_far in_progress
		succeeded staged ahead behind untracked working_tree worktree local_only remaining missing merged published
		timed_out ssh unreachable connectivity offline rate_limit rate_limited`)
)

var (
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
	// findingConj is a conjunction that joins a sentence to the one
	// before it (But, So, And, Also); see trimLead.
	findingConj = lazyRegexp(`(?i)^(?:but|so|and|also)\b,?\s*`)
)

// proseWords are the words of a sentence outside its code spans, in lower
// case, with typographic apostrophes as plain ones: letters, digits,
// apostrophes and slashes (i/o, origin/main are one word each).
func proseWords(s string) []string {
	var words []string
	code := false
	start := -1
	flush := func(i int) {
		if start >= 0 {
			words = append(words, strings.ReplaceAll(strings.ToLower(s[start:i]), "’", "'"))
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '`':
			flush(i)
			code = !code
		case code:
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '/':
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return words
}

// lookup counts the words, and the runs of two or three words, of words
// that are in the set in, and how many of those are in strong (which
// counts as in too; may be nil).
func lookup(words []string, in, strong map[string]bool) (n, strongN int) {
	for i := range words {
		run := words[i]
		for k := i; k < len(words) && k < i+3; k++ {
			if k > i {
				run += " " + words[k]
			}
			if in[run] || strong[run] {
				n++
				if strong[run] {
					strongN++
				}
			}
		}
	}
	return n, strongN
}

// holds reports whether words hold a word or a run of the set in.
func holds(words []string, in map[string]bool) bool {
	n, _ := lookup(words, in, nil)
	return n > 0
}

// oneMoment reports whether words name one moment's state: stateWords,
// a line number (line 42, lines ~40), a remote's branch (origin/main).
func oneMoment(words []string) bool {
	if holds(words, stateWords) {
		return true
	}
	for i, w := range words {
		if strings.HasPrefix(w, "origin/") ||
			(w == "line" || w == "lines") && i+1 < len(words) && unicode.IsDigit(rune(words[i+1][0])) {
			return true
		}
	}
	return false
}

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

// findingIn weighs a sentence as a finding: its marks (a strong one
// twice) and code spans; ok is false when it is none.
func findingIn(s string) (score float64, ok bool) {
	if len(s) < minFinding || len(s) > maxFinding || !strings.Contains(s, "`") || strings.Count(s, "`")%2 != 0 ||
		strings.ContainsRune(s, '?') || strings.HasSuffix(s, ":") {
		return 0, false
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsLower(r) {
		return 0, false // the rest of a sentence cut before, or a list's note
	}
	words := proseWords(s)
	prose := 0
	for _, w := range words {
		if len(w) >= 2 && unicode.IsLetter(rune(w[0])) {
			prose++
		}
	}
	if prose < findingProse {
		return 0, false
	}
	marks, strong := lookup(words, findingMarks, strongMarks)
	if marks == 0 || holds(words, hedgeWords) || holds(words, firstWords) || holds(words, pointWords) || oneMoment(words) ||
		strong == 0 && holds(words, eventWords) || lore.OneOff(s) {
		return 0, false
	}
	// A sentence that starts with a code span starts with a name, not
	// with a verb of a change log or an order.
	if start := strings.TrimLeft(s, " *_-"); !strings.HasPrefix(start, "`") && (findingDiff().MatchString(start) ||
		findingOrder().MatchString(strings.ToLower(start)) && !slices.Contains(words, "because")) {
		return 0, false
	}
	spans := strings.Count(s, "`") / 2
	return float64(marks+strong) + 0.5*float64(spans), true
}

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
	if !ok || strings.Contains(lead, "`") || len(strings.Fields(lead)) > 8 {
		return s
	}
	if marks, _ := lookup(proseWords(lead), findingMarks, strongMarks); marks > 0 {
		return s
	}
	return upperFirst(strings.TrimSpace(rest))
}

// upperFirst raises a sentence's first letter.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
