package harvest

import (
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/shellcmd"
)

// origins tells where the commands, addresses and settings an item's text
// carries first appeared in its session. An item's evidence cites the
// message it was learned at, which is often the agent's own call; the
// words it hands on may still be a stranger's, read in a command's output,
// a file or a web page a few lines before.
type origins struct {
	s     *lore.Session
	said  []said // in the session's order, read when an item first asks
	calls []*call
	// firsts is the index in said of the first text holding a telling
	// (contains), -1 for none, by telling: items of a session quote the
	// same commands, and each search reads every text before the one
	// holding it.
	firsts map[string]int
}

// said is one text of a session.
type said struct {
	raw      string
	pos      int  // message index
	stranger bool // tool output, not the user's or the agent's own words
	// text is raw with its spaces collapsed, as items show text, and
	// words its words in lower case between spaces: each made when an
	// item first asks, as most texts never hold what an item quotes.
	text, words string
}

// telling is a text searched for in every text of a session (contains),
// with what the search needs of it worked out once.
type telling struct {
	text    string
	words   []string // its words
	longest string   // the longest of them
}

func newTelling(t string) telling {
	words := strings.Fields(t)
	return telling{text: t, words: words, longest: longest(words)}
}

// contains reports whether the text holds t, its spaces collapsed.
func (s *said) contains(t telling) bool {
	if s.text == "" {
		if strings.Contains(s.raw, t.text) {
			return true
		}
		// Collapsing the spaces of a text (a whole file, a long output)
		// is dear: only a t of several words, each of them in the text,
		// may be there once it is done. A word alone is there as it is.
		if len(t.words) < 2 || !strings.Contains(s.raw, t.longest) {
			return false
		}
		for _, w := range t.words {
			if !strings.Contains(s.raw, w) {
				return false
			}
		}
		s.text = collapse(s.raw)
	}
	return strings.Contains(s.text, t.text)
}

// wordRun is a run of words in lower case searched for in every text of
// a session (hasWords), with what the search needs of it worked out once.
type wordRun struct {
	spaced string // the words between spaces, and a space before and after
	// longest is the longest word, as written in lower case, with its
	// first letter in upper case, and in upper case.
	longest [3]string
}

func newWordRun(run []string) wordRun {
	w := longest(run)
	return wordRun{spaced: " " + strings.Join(run, " ") + " ", longest: [3]string{w, strings.ToUpper(w[:1]) + w[1:], strings.ToUpper(w)}}
}

// hasWords reports whether the text holds run, words in lower case
// between spaces, as they ran.
func (s *said) hasWords(run wordRun) bool {
	if s.words == "" {
		if !strings.Contains(s.raw, run.longest[0]) && !strings.Contains(s.raw, run.longest[1]) && !strings.Contains(s.raw, run.longest[2]) {
			return false
		}
		s.words = " " + strings.Join(strings.FieldsFunc(strings.ToLower(s.raw), notWordRune), " ") + " "
	}
	return strings.Contains(s.words, run.spaced)
}

// longest is the longest of words, the rarest most likely.
func longest(words []string) string {
	l := ""
	for _, w := range words {
		if len(w) > len(l) {
			l = w
		}
	}
	return l
}

func newOrigins(s *lore.Session) *origins { return &origins{s: s} }

func (o *origins) read() {
	if o.said != nil {
		return
	}
	o.said = []said{}
	add := func(text string, pos int, stranger bool) {
		if strings.TrimSpace(text) != "" {
			o.said = append(o.said, said{raw: text, pos: pos, stranger: stranger})
		}
	}
	for _, m := range o.s.Messages {
		add(m.Text, m.Index, m.Role == lore.RoleTool)
		add(m.Thinking, m.Index, false)
		for _, tc := range m.ToolCalls {
			add(tc.Input, m.Index, false)
			if cmd := shellcmd.FromCall(tc.Name, tc.Input); cmd != "" {
				add(cmd, m.Index, false) // as the shell reads it, unescaped
			}
		}
		for _, tr := range m.ToolResults {
			add(tr.Output, m.Index, !userWords(tr)) // a refusal's reason is the user's
		}
	}
	if o.calls == nil {
		o.calls = collectCalls(o.s)
	}
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// strangers reports whether text carries a command, a setting (NAME=value)
// or, in an order, an address that first appeared in the session in tool
// output, and that the agent did not run itself, with success, after
// reading it. Such a text hands a stranger's words on as knowledge. What
// the session never shows as it is (a paraphrase, a clipped command) says
// nothing of where it came from, and passes.
func (o *origins) strangers(text string) bool {
	frags := fragments(text)
	if len(frags) == 0 {
		return false
	}
	o.read()
	for _, f := range frags {
		at, n := o.first(f)
		if at < 0 || !o.said[at].stranger {
			continue
		}
		if !o.ranAfter(o.said[at].pos, f.ran(n), f.fails) {
			return true
		}
	}
	return false
}

// first returns the index in said of where the longest telling of f that
// the session holds first appears, and how many words it has; -1 when the
// session lacks even the shortest. Each telling extends the one before
// it, so that the search stops at the first the session lacks, and
// starts where the one before first appears: no text before it holds
// the shorter telling, nor so the longer.
func (o *origins) first(f fragment) (at, n int) {
	at = -1
	for n := f.min; n <= len(f.words); n++ {
		t := strings.Join(f.words[:n], " ")
		i, ok := o.firsts[t]
		if !ok {
			i = o.firstHolding(newTelling(t), max(at, 0))
			if o.firsts == nil {
				o.firsts = map[string]int{}
			}
			o.firsts[t] = i
		}
		if i < 0 {
			return at, n - 1
		}
		at = i
	}
	return at, len(f.words)
}

// firstHolding returns the index in said of the first text from from on
// that holds t, or -1.
func (o *origins) firstHolding(t telling, from int) int {
	for k := from; k < len(o.said); k++ {
		if o.said[k].contains(t) {
			return k
		}
	}
	return -1
}

// ranAfter reports whether a shell command the agent ran with success
// (or at all, when failed is what the text says of it) after message pos
// holds one of texts.
func (o *origins) ranAfter(pos int, texts []string, failed bool) bool {
	for _, c := range o.calls {
		if c.pos < pos || c.cmd == "" || !c.done || !failed && c.erred {
			continue
		}
		cmd := collapse(c.cmd)
		for _, t := range texts {
			if strings.Contains(cmd, t) {
				return true
			}
		}
	}
	return false
}

// echoes reports whether text's own words, those outside the commands,
// settings and addresses it quotes (which strangers judges), first
// appear in the session in tool output: five words running as they ran
// there. A model may word as the agent's what a web page told it ("Always
// pin requests to 2.19"), citing the agent's message that repeated it.
func (o *origins) echoes(text string) bool {
	for _, p := range []struct {
		re    func() *regexp.Regexp
		needs string // a match holds one of these: most texts hold none, and skip the expression
	}{{quotedPattern, "`'\""}, {urlPattern, ":"}, {settingPattern, "="}} {
		if strings.ContainsAny(text, p.needs) {
			text = p.re().ReplaceAllString(text, "\x00")
		}
	}
	for _, part := range strings.Split(text, "\x00") {
		ws := strings.FieldsFunc(strings.ToLower(part), notWordRune)
		if len(ws) < echoWords {
			continue
		}
		o.read()
		for i := 0; i+echoWords <= len(ws); i++ {
			run := newWordRun(ws[i : i+echoWords])
			for k := range o.said {
				if o.said[k].hasWords(run) {
					if o.said[k].stranger {
						return true
					}
					break
				}
			}
		}
	}
	return false
}

// echoWords is how many words running as tool output ran them make a
// text its echo: four ("run the tests with") are any README's words.
const echoWords = 5

// notWordRune cuts words at what is not a letter, a digit or an
// apostrophe: 2.19.0 is three words, so that "2.19.0." is too.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }

// fragment is a command, a setting or an address in an item's text: its
// words as the item goes on with them, of which the first min tell it.
type fragment struct {
	words []string
	min   int
	// progs are where the programs a command names start: "npm ERR! run
	// npm install --force" is run by a command holding npm install --force.
	progs []int
	// fails: the text says the command fails ("`x` fails with …"). The
	// agent's own run of it, failing, is what the text reports.
	fails bool
}

// ran returns the texts a command of the agent must hold to have run the
// fragment's first n words.
func (f fragment) ran(n int) []string {
	var out []string
	for _, p := range f.progs {
		if p < n {
			out = append(out, strings.Join(f.words[p:n], " "))
		}
	}
	return out
}

var (
	urlPattern     = lazyRegexp(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'"` + "`" + `<>()\[\]{}|]+`)
	settingPattern = lazyRegexp(`(?:^|[^\w$])([A-Z][A-Z0-9_]+=[^\s'"` + "`" + `;|&)]*)`)
	quotedPattern  = lazyRegexp("`([^`]+)`" + `|(?:^|[^\w])'([^'\n]+)'|"([^"\n]+)"`)
)

// fragments returns the commands, settings and, when the text is an order,
// the addresses text carries.
func fragments(text string) []fragment {
	text = collapse(text)
	var out []fragment
	seen := map[string]bool{}
	add := func(f fragment) {
		if k := strings.Join(f.words[:f.min], " "); !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	// An address needs "://", a setting "=": most texts hold neither,
	// and skip the expression.
	if strings.Contains(text, "://") && lore.Order(text) {
		for _, u := range urlPattern().FindAllString(text, -1) {
			u = strings.TrimRight(u, ".,;:!?")
			add(fragment{words: []string{u}, min: 1, progs: []int{0}})
		}
	}
	if strings.Contains(text, "=") {
		for _, m := range settingPattern().FindAllStringSubmatch(text, -1) {
			v := strings.TrimRight(m[1], ".,;:!?")
			add(fragment{words: []string{v}, min: 1, progs: []int{0}})
		}
	}
	for _, q := range quotes(text) {
		span := strings.TrimSuffix(text[q.from:q.to], "…")
		fails := failsAfter().MatchString(text[q.end:])
		for _, c := range shellcmd.Split(span) {
			if f, ok := command(c.Raw, true); ok {
				f.fails = fails
				add(f)
			}
		}
	}
	for _, c := range shellcmd.Split(strings.ReplaceAll(text, "`", " ")) {
		if f, ok := command(c.Raw, false); ok {
			add(f)
		}
	}
	return out
}

// quote is a match of quotedPattern: text[start:end], quoting
// text[from:to].
type quote struct{ start, end, from, to int }

// quotes returns the matches of quotedPattern in text, in order, as
// FindAllStringSubmatchIndex finds them, without running the expression:
// reading it at every place of every item's text took a sixth of judging
// where the item's commands came from.
func quotes(text string) []quote {
	var out []quote
	for p := 0; p < len(text); {
		if q, ok := quoteAt(text, p); ok {
			out = append(out, q)
			p = q.end
			continue
		}
		_, w := utf8.DecodeRuneInString(text[p:])
		p += w
	}
	return out
}

// quoteAt returns the match of quotedPattern that starts at p, trying its
// alternatives in order: `…`, then '…' at the start or after a character
// that is not an ASCII word character, then "…"; none holds a line end
// but the first, and none is empty.
func quoteAt(text string, p int) (quote, bool) {
	if text[p] == '`' {
		if j := strings.IndexByte(text[p+1:], '`'); j > 0 {
			return quote{p, p + j + 2, p + 1, p + 1 + j}, true
		}
	}
	if p == 0 && text[0] == '\'' {
		if to, ok := closing(text, 1, '\''); ok {
			return quote{0, to + 1, 1, to}, true
		}
	}
	if r, w := utf8.DecodeRuneInString(text[p:]); !(r < utf8.RuneSelf && isWordChar(byte(r))) && p+w < len(text) && text[p+w] == '\'' {
		if to, ok := closing(text, p+w+1, '\''); ok {
			return quote{p, to + 1, p + w + 1, to}, true
		}
	}
	if text[p] == '"' {
		if to, ok := closing(text, p+1, '"'); ok {
			return quote{p, to + 1, p + 1, to}, true
		}
	}
	return quote{}, false
}

// closing returns where the quote mark q closes a quote opened before
// from, with no line end and at least one character between.
func closing(text string, from int, q byte) (int, bool) {
	k := strings.IndexAny(text[from:], string(q)+"\n")
	if k <= 0 || text[from+k] != q {
		return 0, false
	}
	return from + k, true
}

// isWordChar is what \w matches.
func isWordChar(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// failsAfter is what follows a command the text says fails: "`x` fails
// with", "`x` can fail".
var failsAfter = lazyRegexp(`^\s*(fails|failed|can fail|may fail|errors|exits)\b`)

// actions are programs that act on the machine with a single argument:
// chmod 777 x, curl URL. A subcommanded program (shellcmd.Subcommanded)
// needs a flag, an address or a setting to be read as a command rather
// than prose ("go version go1.22 linux/amd64" is what go printed).
var actions = map[string]bool{"sudo": true, "chmod": true, "chown": true, "rm": true, "export": true,
	"curl": true, "wget": true, "sh": true, "bash": true, "zsh": true, "iex": true, "irm": true, "iwr": true,
	"npx": true, "pnpx": true, "bunx": true, "setx": true}

// command reads a simple command's words, as the item wrote them, for a
// command a reader could run: a known program, then within a few words a
// flag, an address or a setting, or any argument for a program that acts
// alone. In a quoted span, any program-like first word followed at once,
// or after a subcommand, by a flag or an address is a program too:
// 'acme migrate --from https://…'.
func command(raw []string, quoted bool) (fragment, bool) {
	words := make([]string, len(raw))
	for i, w := range raw {
		words[i] = strings.TrimRight(w, ".,;:!?)")
	}
	for k, w := range words {
		prog := path.Base(w) // Export in "SyntaxError: Export named" is prose
		reach := 6
		if !knownProgram(prog) {
			if !quoted || k > 0 || w != raw[k] || !programName().MatchString(w) {
				continue
			}
			reach = 2
		}
		start := k
		for start > 0 && (isSetting(words[start-1]) || words[start-1] == "sudo") {
			start--
		}
		end := -1
		for j := k + 1; j < len(words) && j <= k+reach; j++ {
			if a := words[j]; len(a) > 1 && a[0] == '-' || strings.Contains(a, "://") || isSetting(a) || actions[prog] && j == k+1 {
				end = j + 1
				break
			}
		}
		if end < 0 {
			continue
		}
		f := fragment{words: words[start:], min: end - start, progs: []int{0}}
		for j := k + 1; j < end; j++ {
			if knownProgram(path.Base(words[j])) {
				f.progs = append(f.progs, j-start)
			}
		}
		return f, true
	}
	return fragment{}, false
}

func knownProgram(name string) bool { return actions[name] || shellcmd.Subcommanded(name) }

var programName = lazyRegexp(`^[a-z][a-z0-9_.-]*$`)

// isSetting reports whether a word sets a variable: a name of ASCII
// letters, digits and '_' not starting with a digit, then '='.
func isSetting(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || 'a' <= w[i] && w[i] <= 'z' || 'A' <= w[i] && w[i] <= 'Z' || i > 0 && '0' <= w[i] && w[i] <= '9') {
		i++
	}
	return i > 0 && i < len(w) && w[i] == '='
}

// quoteWords are the words of a model's quote that the session can be
// searched for: its longest run between redaction markers (the model saw
// the transcript redacted), in lower case; nil when that is under
// minQuoteWords, too short to tell one message from another.
func quoteWords(q string) []string {
	var best []string
	for _, part := range strings.Split(q, redact.MarkerPrefix) {
		if i := strings.IndexByte(part, ']'); i >= 0 && strings.Contains(part[:i], ":") {
			part = part[i+1:] // the kind closing the marker before
		}
		if ws := strings.FieldsFunc(strings.ToLower(part), notWordRune); len(ws) > len(best) {
			best = ws
		}
	}
	if len(best) < minQuoteWords {
		return nil
	}
	return best
}

const minQuoteWords = 4

// quoted returns the position of the first message from first to last
// that holds words as they ran, and whether one does. A tool's output
// comes before the agent's message that repeats it.
func (o *origins) quoted(words []string, first, last int) (int, bool) {
	o.read()
	run := newWordRun(words)
	for k := range o.said {
		if p := o.said[k].pos; p >= first && p <= last && o.said[k].hasWords(run) {
			return p, true
		}
	}
	return 0, false
}
