package harvest

import (
	"strings"
	"unicode/utf8"

	"github.com/lorehq/lore"
)

// tagRejection marks words the user typed when refusing a tool call.
const tagRejection = "rejection"

const (
	confStated = 0.9 // a standing preference, in the user's own words
	// maxTyped is the longest message read for a correction: a longer one
	// is a task, a specification or a paste.
	maxTyped = 500
	// maxQuote is the longest message quoted whole; of a longer one the
	// sentence that redirects is quoted, with the one before it when both
	// fit.
	maxQuote = 240
)

// corrections: what the user typed to redirect the agent after it did or
// said something — a message after the first (the first is the task), or
// the reason typed when refusing a tool call — kept in the user's words,
// scoped to the session's repository. A standing preference ("always",
// "never", "from now on", "we use X", "prefer", "make that standard") is
// the user's word and may be active from this session (tagged
// lore.TagVerified, as an --llm item quoting the user is); a plain redirect
// ("no, use …", "don't …", "… instead", "stop …") is a candidate until
// another session says it too. What holds for one moment or one thing
// ("for now", "this time", "not yet", "don't commit this", "this file")
// is not kept, and a redirect naming a file or a line stays a candidate.
// Questions, pasted logs and code, and long messages are not corrections.
// The screens of Run apply as to every item: an order that names nothing
// of a project is held.
func (r *ruleRun) corrections() {
	if r.s.Repo == "" {
		return
	}
	n := 0
	task, acted := false, false
	for _, m := range r.s.Messages {
		if n >= perRule {
			return
		}
		if m.Sidechain {
			continue
		}
		switch {
		case m.Role == lore.RoleAssistant:
			acted = acted || task
		case m.Role == lore.RoleUser && len(m.ToolResults) == 0:
			text, turn := typedText(m.Text)
			if !turn {
				continue
			}
			if text != "" && task && acted && r.correction(text, m.Index, false) {
				n++
			}
			task, acted = true, false
		}
		for _, tr := range m.ToolResults {
			if said := userReason(tr); said != "" && task && r.correction(said, m.Index, true) {
				n++
			}
		}
	}
}

// correction keeps what the user typed at message pos when it redirects
// the agent, and reports whether it did.
func (r *ruleRun) correction(text string, pos int, rejected bool) bool {
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) > maxTyped {
		return false
	}
	kind, quote := "", ""
	ss := userSentences(text)
	for i, s := range ss {
		k := redirect(s)
		if k == "" || kind == lore.TagPreference || k == kind {
			continue
		}
		kind, quote = k, s
		if i > 0 && utf8.RuneCountInString(ss[i-1]+" "+s) <= maxQuote {
			quote = ss[i-1] + " " + s // what "that" or "our own" is about
		}
	}
	// Pastes and what holds for a moment only are ruled out once a
	// redirect is found: most messages hold none, and these are dearer.
	if kind == "" || pasted(text) || ephemeral(text) {
		return false
	}
	if whole := collapse(text); utf8.RuneCountInString(whole) <= maxQuote {
		quote = whole // "request Copilot review. Make that standard in your workflow."
	}
	quote = strings.Trim(collapse(quote), `"“” `)
	if utf8.RuneCountInString(quote) > maxQuote {
		return false // a sentence this long is a task or a specification
	}
	it := lore.Item{Text: userSaid + quote + `"`, Category: lore.CategoryPattern,
		Repo: r.s.Repo, Confidence: confLikely, Tags: []string{kind}}
	if kind == lore.TagPreference && !oneThing(quote) {
		it.Confidence = confStated
		it.Tags = append(it.Tags, lore.TagVerified)
	}
	if rejected {
		it.Tags = append(it.Tags, tagRejection)
	}
	return r.add(it, pos)
}

// typedText is what the user typed in a message, without the notes an
// editor adds before it (<ide_opened_file>…), and whether the message
// gives the agent work: "" and false for what the agent's harness put in
// the user's place (slash commands and their output, reminders,
// teammates' and sub-agents' messages, interruptions, skill texts); ""
// and true for a plan or a summary handed on as the session's task.
func typedText(text string) (string, bool) {
	t := strings.TrimSpace(text)
	for {
		m := leadingNote().FindStringIndex(t)
		if m == nil {
			break
		}
		t = strings.TrimSpace(t[m[1]:])
	}
	if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	switch {
	case handedOn().MatchString(t):
		return "", true
	case t == "" || strings.ContainsAny(t[:1], "<[{#") || harnessText().MatchString(t):
		return "", false
	}
	return t, true
}

var (
	leadingNote = lazyRegexp(`^<(ide_opened_file|ide_selection|ide_diagnostics|system-reminder|user-prompt-submit-hook)>(?s:.*?)</(ide_opened_file|ide_selection|ide_diagnostics|system-reminder|user-prompt-submit-hook)>`)
	handedOn    = lazyRegexp(`^(Implement the following plan|This session is being continued|Implement the work described)`)
	harnessText = lazyRegexp(`^(Caveat:|Base directory for this skill|Provide a brief synopsis|Your task is to create a detailed summary|` +
		`Please continue the conversation|Continue from where you left off)`)
)

// userReason is what the user typed when refusing a tool call, as the
// agent recorded it in the call's result: Claude Code's "… the user
// said:\n<words>", Cline's and Roo's "<feedback>…</feedback>"; "" for any
// other result.
func userReason(tr lore.ToolResult) string {
	o := strings.TrimSpace(tr.Output)
	if !strings.HasPrefix(o, "The user ") {
		return ""
	}
	if tr.Failed() && strings.HasPrefix(o, claudeRejected) {
		if _, said, ok := strings.Cut(o, claudeSaid); ok {
			return strings.TrimSpace(said)
		}
		return ""
	}
	head := o[:min(len(o), 400)]
	if i := strings.Index(head, "<feedback>"); i >= 0 {
		rest := o[i+len("<feedback>"):]
		if j := strings.Index(rest, "</feedback>"); j >= 0 {
			return strings.TrimSpace(rest[:j])
		}
	}
	return ""
}

const (
	claudeRejected = "The user doesn't want to proceed with this tool use."
	claudeSaid     = "the user said:"
)

// userWords reports whether a tool result carries what the user typed
// (userReason): the user's words, not a stranger's.
func userWords(tr lore.ToolResult) bool { return userReason(tr) != "" }

// pasted reports whether a message holds pasted material rather than
// words typed to the agent: code, a log, a stack trace, many lines.
func pasted(text string) bool {
	if strings.Contains(text, "```") || strings.Count(text, "\n") > 6 {
		return true
	}
	for _, line := range strings.Split(text, "\n") {
		if pastedLine().MatchString(strings.TrimSpace(line)) {
			return true
		}
	}
	return false
}

var pastedLine = lazyRegexp(`^(at \S+\(|File "|Traceback|\d{4}-\d\d-\d\d[T ]\d\d:|\[?(ERROR|WARN(ING)?|INFO|DEBUG)\]? |` +
	`\w+(Error|Exception):|[$>] \S|(func|def|class|import|package|const|let|var|return) \S|[{}();]+$)|;$`)

// userSentences cuts a message into the sentences a redirect may be: at a
// full stop, a question or exclamation mark or a semicolon followed by a
// space, and at line ends. The dots of main.go and v1.2 cut nothing. A
// question is no redirect, and is left out.
func userSentences(text string) []string {
	var out []string
	start := 0
	cut := func(end int) {
		s := strings.TrimSpace(text[start:end])
		start = end
		if l := strings.ToLower(s); s == "" || strings.HasSuffix(s, "?") || question().MatchString(l) && !redirectStart().MatchString(l) {
			return
		}
		out = append(out, s)
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			cut(i)
		case '.', '!', '?', ';':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				cut(i + 1)
			}
		}
	}
	cut(len(text))
	return out
}

// question is how a question starts when its mark is left out, or a
// thought the user is weighing aloud rather than a redirect.
var question = lazyRegexp(`^(\W*(ok|okay|so|and|but|also|hmm|wait),?\s+)*\W*(why|how|what|when|where|which|who|is|are|was|were|do|does|did|can|could|would|should|will|shall|has|have|if|whether|maybe|perhaps|wouldn't|shouldn't|isn't|aren't|doesn't|don't you|i wonder|i'm not sure|not sure|почему|как|что|зачем)` + wordEnd)

// redirect is the kind of redirect a sentence is: lore.TagPreference when it
// says how things are to be done from now on, lore.TagCorrection when it
// turns the agent from what it did, "" when it is neither.
func redirect(s string) string {
	l := strings.ToLower(s)
	switch {
	case holdsAny(l, standingWords) && standing().MatchString(l):
		return lore.TagPreference
	case redirectStart().MatchString(l) && !smallTalk().MatchString(l), holdsAny(l, anywhereWords) && redirectAnywhere().MatchString(l):
		return lore.TagCorrection
	}
	return ""
}

// standingWords and anywhereWords hold a word of every form standing and
// redirectAnywhere know: a sentence holding none of them is passed over
// without running those expressions, which look at every position.
var (
	standingWords = []string{"always", "never", "from now on", "going forward", "henceforth", "future", "every time",
		"each time", "by default", "as a rule", "standard", "default", "rule", "habit", "we ", "prefer", "pattern",
		"convention", "policy", "practice", "всегда", "никогда", "впредь", "immer", "niemals", "grundsätzlich", "siempre",
		"nunca", "toujours", "jamais"}
	anywhereWords = []string{"instead", "rather than", "use ", "told you", "asked you", "as i said", "вместо", "statt",
		"en lugar de", "en vez de", "au lieu de", "plutôt que"}
)

func holdsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Words are matched between these, not at \b, which knows ASCII letters
// only: "нет" is a word, and so is "нетто".
const (
	wordStart = `(?:^|[^\pL\pN_'’])`
	wordEnd   = `(?:[^\pL\pN_'’]|$)`
	// leadIn is what may come before a redirect without changing it.
	leadIn = `^(?:\W*(?:ok|okay|also|and|but|so|please|pls|actually|hmm|wait|well|yes|yeah|again|и|а|но|также|ещё|еще|пожалуйста|bitte|auch|aber|y|pero|también|por favor|et|mais|aussi)(?:[,:]?\s+|[,:]\s*))*\W*`
)

var (
	// standing says how things are done from now on, or how the project
	// does them.
	standing = lazyRegexp(wordStart + `(always|never|from now on|going forward|henceforth|in (the )?future|every time|each time|whenever|` +
		`by default|as a rule|(make|keep) (that|this|it) (a |the )?(standard|default|rule|habit)|standard in (your|our|the) workflow|` +
		`we (always|never|prefer|use|usually|normally|don't use|do not use)|i (always|never|prefer)|prefer|` +
		`(the|our) (pattern|convention|rule|standard|policy|practice) (here |in this \w+ )?(is|was) to|` +
		`всегда|никогда|впредь|immer|niemals|grundsätzlich|siempre|nunca|toujours|jamais)` + wordEnd)
	redirectStart = lazyRegexp(leadIn + `(no|nope|nah|not that|wrong|correction|don't|dont|don’t|do not|stop|avoid|quit|no need to|` +
		`нет|не надо|не нужно|не используй|не делай|хватит|стоп|nein|nicht|kein|hör auf|deja de|non|arrête)` + wordEnd)
	// smallTalk starts like a redirect and is none.
	smallTalk = lazyRegexp(leadIn + `(no (problem|worries|rush|thanks|thank you|idea|clue)|(don't|dont|don’t|do not) (you|worry|mind|know|understand|think|see|get|care|remember|have|like)|` +
		`not (sure|bad)|nope,? (that's|thats) (fine|ok|good)|no,? (that's|thats|it's|its) (fine|ok|good|correct|right)|нет проблем)` + wordEnd)
	redirectAnywhere = lazyRegexp(wordStart + `(instead|rather than|use \S+( \S+){0,4},? not|i (already )?(told|asked) you|as i (said|told you)|вместо|statt|anstatt|en lugar de|en vez de|au lieu de|plutôt que)` + wordEnd)
)

// ephemeral reports whether what the user said holds for one moment or
// one thing: this time, for now, currently (how things are today, not
// how they are to be), this pull request, this file.
func ephemeral(text string) bool {
	return momentary().MatchString(strings.ToLower(text))
}

var momentary = lazyRegexp(wordStart + `(for now|right now|just now|this time|not now|not yet|at the moment|for the moment|for the time being|` +
	`currently|at present|as of now|as things stand|` +
	`temporarily|today|tonight|quick test|just a test|as is|as it is|` +
	`(don't|dont|don’t|do not|never) (check|commit|push|merge|stage|add|include) (this|that|it|these|those)|` +
	`(skip|leave|revert|undo|drop) (this|that|it|these|those)|` +
	`(for|in|on) this (pr|pull request|commit|branch|session|task|change|ticket|issue|run|release)|` +
	`(this|that|these|those) (file|files|function|method|line|lines|test|class|component|page|button|change|changes|one|pr|commit)|` +
	`пока что|пока|сейчас|в этот раз|vorerst|diesmal|erstmal|derzeit|zurzeit|momentan|por ahora|esta vez|actualmente|` +
	`pour l'instant|cette fois|actuellement)` + wordEnd)

var lineRef = lazyRegexp(`(?i)\blines? \d+`)

// oneThing reports whether a quote names one file or one line: a
// preference about one thing waits for a second session.
func oneThing(quote string) bool {
	if lineRef().MatchString(quote) {
		return true
	}
	for _, w := range strings.Fields(quote) {
		w = strings.Trim(w, "`'\"(),;:.!?")
		if fileName().MatchString(w) || strings.Contains(w, "/") && !strings.Contains(w, "://") {
			return true
		}
	}
	return false
}
