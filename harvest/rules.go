package harvest

import (
	"context"
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/errsig"
	"github.com/lorehq/lore/internal/shellcmd"
)

// Confidences of the rules, by how surely the transcript shows what an
// item says (the harvest prompt's bands: 0.9 stated outright, 0.7 shown
// by what happened, 0.5 likely, 0.3 a guess).
const (
	confPrinted = 0.9 // a version the tool printed
	confShown   = 0.7 // a command that worked, a path found and used, a failure and its fix
	confLikely  = 0.5 // a fix that came later, a flaky command, a quirk seen once, a question

	maxItemText  = 300
	maxCommand   = 100
	maxErrorLine = 120
	// versionLife is how long a printed version stays worth telling.
	versionLife = 90 * 24 * time.Hour
	// perRule caps the items one rule takes from one session.
	perRule = 5
)

// Rules is the offline extractor: it keeps only what a transcript shows
// for certain.
//
//   - pitfall: a tool call failed, and a later call at the same thing
//     (the same program and subcommand) worked: written differently,
//     after a command that changed something, or unchanged (flaky).
//   - tool-quirk: an error of the agent's own tool protocol ("File has not
//     been read yet"), or of a command-line tool that is not a failing
//     build or test, as a candidate; the store makes it active when a
//     second session meets the same error.
//   - fact: a build or test command that worked in a repo, a path a search
//     found and the session then used, a version a tool printed.
//   - pattern: a setup command that worked before a build or test command
//     that worked; a candidate until another session does the same.
//   - question: what the agent asked at the end when nobody answered.
//
// Items below the boot threshold (0.7) are candidates. An item is global
// only when nothing in it belongs to one repository (no path, no file, no
// host, not the repository's name); everything else is scoped to the
// session's repository.
type Rules struct{}

// Name is "rules".
func (Rules) Name() string { return "rules" }

// call is a tool call with its result.
type call struct {
	pos    int // message index of the call
	name   string
	input  string
	output string
	cmd    string // the shell command, for shell tools
	key    string // program and subcommand of cmd
	done   bool   // a result came back
	erred  bool   // the agent marked the result failed, or its exit code did
	failed bool   // an error of the environment or of the tool protocol
	err    errsig.Error
}

func (c *call) ok() bool { return c.done && !c.erred }

// Extract applies the rules to one session read with its messages.
func (Rules) Extract(ctx context.Context, s *lore.Session) (Found, error) {
	r := &ruleRun{s: s, calls: collectCalls(s), seen: map[string]bool{}}
	r.pitfalls()
	r.quirks()
	r.commandFacts()
	r.pathFacts()
	r.versions()
	r.patterns()
	r.questions()
	return Found{Items: r.items}, ctx.Err()
}

func collectCalls(s *lore.Session) []*call {
	byID := map[string]*call{}
	var calls []*call
	for _, m := range s.Messages {
		for _, tc := range m.ToolCalls {
			c := &call{pos: m.Index, name: tc.Name, input: tc.Input}
			c.cmd = shellcmd.FromCall(tc.Name, tc.Input)
			c.key = actionKey(c.cmd)
			// Redacted as it came: items show it normalised (unquoted,
			// joined, cut), which hides a secret from a later redaction.
			c.cmd = clipRedactor.String(c.cmd)
			calls = append(calls, c)
			if tc.ID != "" {
				byID[tc.ID] = c
			}
		}
		for _, tr := range m.ToolResults {
			c := byID[tr.CallID]
			if c == nil || c.done {
				continue
			}
			c.done, c.output = true, tr.Output
			if tr.Failed() {
				c.erred = true
				c.err = errsig.Parse(c.name, c.input, tr.Output, tr.ExitCode)
				c.failed = c.err.Kind == errsig.Environment || c.err.Kind == errsig.Protocol
			}
		}
	}
	return calls
}

type ruleRun struct {
	s     *lore.Session
	calls []*call
	items []lore.Item
	seen  map[string]bool
	from  *origins
}

func (r *ruleRun) origins() *origins {
	if r.from == nil {
		r.from = &origins{s: r.s, calls: r.calls}
	}
	return r.from
}

// add keeps an item once per session, scoped. Run drops a text longer
// than maxItemText once it is redacted.
func (r *ruleRun) add(it lore.Item, pos int) bool {
	if it.Text == "" || r.seen[it.Text] {
		return false
	}
	r.seen[it.Text] = true
	if it.Repo == "" && r.specific(it.Text) {
		it.Repo = r.s.Repo
	}
	if it.Confidence < lore.PromoteConfidence {
		it.Status = lore.StatusCandidate
	}
	it.Evidence = []lore.Evidence{{Session: r.s.ID, Position: pos}}
	r.items = append(r.items, it)
	return true
}

// pitfalls: a failure, and the later success at the same thing.
func (r *ruleRun) pitfalls() {
	n := 0
	for i, f := range r.calls {
		if !f.failed || f.err.Kind != errsig.Environment || f.key == "" || n >= perRule ||
			exploring(f.key) || f.err.Class == errsig.ClassSandbox {
			continue
		}
		j := r.nextSuccess(i, f.key)
		if j < 0 {
			continue
		}
		s := r.calls[j]
		failed, worked := quoteCode(clip(normCommand(f.cmd), maxCommand)), quoteCode(clip(normCommand(s.cmd), maxCommand))
		errText := quoteCode(clip(strings.TrimSuffix(f.err.Line, "."), maxErrorLine))
		var text string
		conf := confShown
		switch fix := r.fixBetween(i, j); {
		case normCommand(s.cmd) != normCommand(f.cmd):
			if dryRun(s.cmd) || buildOrTest(f.key) && (selective(s.cmd) || selective(f.cmd)) {
				continue // another subset of the tests passing fixes nothing
			}
			text = fmt.Sprintf("%s fails with %s; %s works.", failed, errText, worked)
		case fix != nil:
			text = fmt.Sprintf("%s fails with %s until %s is run.", failed, errText, quoteCode(clip(normCommand(fix.cmd), maxCommand)))
			conf = confLikely
		case r.quietBetween(i, j):
			text = fmt.Sprintf("%s can fail with %s and pass when run again unchanged (flaky).", failed, errText)
			conf = confLikely
		default:
			continue // fixed by changing code: this session's bug, not knowledge
		}
		if r.add(lore.Item{Text: text, Category: lore.CategoryPitfall, Confidence: conf, Signature: f.err.Signature,
			Tags: []string{program(f.key)}}, s.pos) {
			n++
		}
	}
}

// nextSuccess is the index of the first call after i with this action key
// that worked, or -1; a second failure in between does not stop the
// search.
func (r *ruleRun) nextSuccess(i int, key string) int {
	for j := i + 1; j < len(r.calls); j++ {
		if c := r.calls[j]; c.key == key && c.ok() {
			return j
		}
	}
	return -1
}

// fixBetween is the last command that changed something and worked
// between calls i and j, or nil.
func (r *ruleRun) fixBetween(i, j int) *call {
	for k := j - 1; k > i; k-- {
		if c := r.calls[k]; c.cmd != "" && c.ok() && c.key != r.calls[i].key && changes(c.cmd) {
			return c
		}
	}
	return nil
}

// quietBetween reports whether nothing between calls i and j changed
// anything: no edit, no command other than a look around.
func (r *ruleRun) quietBetween(i, j int) bool {
	for k := i + 1; k < j; k++ {
		c := r.calls[k]
		if c.cmd == "" && editTool(c.name) || c.cmd != "" && !exploring(c.key) {
			return false
		}
	}
	return true
}

// quirks: protocol errors of the agent's tools, and errors of command-line
// tools that say something about the tool or the machine (HTTP, network,
// permission, package manager, sandbox), not about the project's code.
func (r *ruleRun) quirks() {
	n := 0
	for _, c := range r.calls {
		if !c.failed || n >= perRule || c.err.Signature == "" {
			continue
		}
		var it lore.Item
		switch {
		case c.err.Kind == errsig.Protocol && !missingFile(c.err.Line):
			it = lore.Item{Text: fmt.Sprintf("The %s tool of %s fails with %s.", c.name, r.s.Agent, quoteCode(stable(c.err))),
				Agent: r.s.Agent}
		case c.err.Class == errsig.ClassSandbox && c.key != "":
			it = lore.Item{Text: fmt.Sprintf("%s fails in the sandbox of %s and needs to be run with approval.", quoteCode(c.key), r.s.Agent),
				Agent: r.s.Agent}
		case c.err.Kind == errsig.Environment && c.key != "" && !exploring(c.key) && quirkClass(c.err.Class):
			it = lore.Item{Text: fmt.Sprintf("%s can fail with %s.", quoteCode(c.key), quoteCode(stable(c.err)))}
		default:
			continue
		}
		it.Category, it.Confidence, it.Signature = lore.CategoryToolQuirk, confLikely, c.err.Signature
		if it.Agent == "" {
			it.Tags = []string{program(c.key)}
		}
		if lore.Unsafe(c.err.Line) || r.origins().strangers(c.err.Line) {
			// The item quotes the error as its signature has it, values
			// and case gone: judged by the line the tool printed, so that
			// the next session meeting it does not make it active.
			it.Tags = append(it.Tags, lore.TagHeld)
		}
		if r.add(it, c.pos) {
			n++
		}
	}
}

// quirkClass reports whether an error of this class says something about
// a tool or the machine rather than the project's code.
func quirkClass(class string) bool {
	switch c, _, _ := strings.Cut(class, ":"); c {
	case errsig.ClassHTTP, errsig.ClassNetwork, errsig.ClassPermission, errsig.ClassTimeout, errsig.ClassOOM,
		errsig.ClassNpm, errsig.ClassPnpm:
		return true
	}
	return false
}

// missingFile reports whether a protocol error only says a file is not
// there: looking around, not a quirk.
func missingFile(line string) bool {
	l := strings.ToLower(line)
	return strings.Contains(l, "does not exist") || strings.Contains(l, "no such file") ||
		strings.Contains(l, "not found") && !strings.Contains(l, "string to replace")
}

// commandFacts: build and test commands that worked, once per command.
func (r *ruleRun) commandFacts() {
	if r.s.Repo == "" {
		return
	}
	n := 0
	for _, c := range r.calls {
		if !c.ok() || !buildOrTest(c.key) || selective(c.cmd) || dryRun(c.cmd) || n >= perRule {
			continue
		}
		verb := "builds the project"
		switch {
		case testCommand(c.key):
			verb = "runs the tests"
		case checkCommand(c.key):
			verb = "checks the code"
		}
		text := fmt.Sprintf("%s %s.", quoteCode(clip(normCommand(c.cmd), maxCommand)), verb)
		if r.add(lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confShown,
			Tags: []string{program(c.key)}}, c.pos) {
			n++
		}
	}
}

// pathFacts: a search that found a file the session then used.
func (r *ruleRun) pathFacts() {
	if r.s.Repo == "" {
		return
	}
	n := 0
	for i, c := range r.calls {
		if !c.ok() || n >= perRule {
			continue
		}
		pattern, glob := searchPattern(c)
		if pattern == "" {
			continue
		}
		for _, p := range r.usedLater(i, foundPaths(c.output)) {
			rel := r.relative(p)
			if rel == "" || strings.HasPrefix(rel, "/") || glob && path.Base(rel) != pattern {
				continue
			}
			text := fmt.Sprintf("%s is in %s.", quoteCode(pattern), quoteCode(rel))
			if r.add(lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confShown}, c.pos) {
				n++
			}
			break
		}
	}
}

// usedLater returns the paths among found that a later call read or
// edited.
func (r *ruleRun) usedLater(i int, found []string) []string {
	if len(found) == 0 || len(found) > 50 {
		return nil // a broad search says nothing about one file
	}
	var used []string
	for _, p := range found {
		for _, c := range r.calls[i+1:] {
			if c.ok() && c.cmd == "" && strings.Contains(c.input, p) {
				used = append(used, p)
				break
			}
		}
	}
	return used
}

// relative makes an absolute path relative to the session's folder.
func (r *ruleRun) relative(p string) string {
	if cwd := strings.TrimSuffix(r.s.Cwd, "/"); cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

var versionPattern = lazyRegexp(`\b(?:go|v|version\s+)?(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.]+)?)\b`)

// versions: what a --version command printed.
func (r *ruleRun) versions() {
	n := 0
	for _, c := range r.calls {
		if !c.ok() || n >= perRule || !versionCommand(c.cmd) {
			continue
		}
		line := firstLine(c.output)
		m := versionPattern().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := fmt.Sprintf("%s reports %s.", quoteCode(clip(c.cmd, maxCommand)), quoteCode(clip(line, maxErrorLine)))
		it := lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confPrinted,
			Tags: []string{program(actionKey(c.cmd)), "version"}}
		t := r.s.LastActive()
		if t.IsZero() {
			t = time.Now()
		}
		it.Expires = t.Add(versionLife)
		if r.add(it, c.pos) {
			n++
		}
	}
}

// patterns: a setup command that worked before a build or test command
// that worked.
func (r *ruleRun) patterns() {
	if r.s.Repo == "" {
		return
	}
	n := 0
	for j, c := range r.calls {
		if !c.ok() || !buildOrTest(c.key) || n >= perRule {
			continue
		}
		for i := j - 1; i >= 0 && i >= j-5; i-- {
			p := r.calls[i]
			if !p.ok() || !setupCommand(p.key) || addsDependency(p.cmd) || !sameEcosystem(p.key, c.key) {
				continue
			}
			text := fmt.Sprintf("Run %s before %s.", quoteCode(clip(normCommand(p.cmd), maxCommand)),
				quoteCode(clip(normCommand(c.cmd), maxCommand)))
			if r.add(lore.Item{Text: text, Category: lore.CategoryPattern, Repo: r.s.Repo, Confidence: confLikely}, c.pos) {
				n++
			}
			break
		}
	}
}

// questions: the questions in the agent's last words, when no user turn
// came after them.
func (r *ruleRun) questions() {
	msgs := r.s.Messages
	for k := len(msgs) - 1; k >= 0; k-- {
		m := msgs[k]
		if m.Sidechain || m.Role == lore.RoleTool {
			continue
		}
		if m.Role != lore.RoleAssistant || strings.TrimSpace(m.Text) == "" {
			return
		}
		n := 0
		for _, q := range questionSentences(m.Text) {
			if n < 2 && r.add(lore.Item{Text: q, Category: lore.CategoryQuestion, Repo: r.s.Repo, Confidence: confLikely}, m.Index) {
				n++
			}
		}
		return
	}
}

// specific reports whether text names something of one repository: a
// path, a file, a host, the repository itself.
func (r *ruleRun) specific(text string) bool {
	lower := strings.ToLower(text)
	if r.s.Repo != "" {
		name := strings.ToLower(path.Base(r.s.Repo))
		if len(name) > 2 && regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).MatchString(lower) {
			return true
		}
	}
	if r.s.Cwd != "" && strings.Contains(text, r.s.Cwd) {
		return true
	}
	for _, w := range strings.FieldsFunc(text, func(c rune) bool {
		return c == ' ' || c == '`' || c == '"' || c == '\'' || c == '(' || c == ')' || c == ',' || c == ';'
	}) {
		w = strings.TrimRight(w, ".:")
		switch {
		case w == "./..." || w == "." || w == "..":
		case strings.Contains(w, "://"), strings.Contains(w, "/"):
			return true
		case fileName().MatchString(w), hostName().MatchString(w), ipAddress(w), userAtHost(w):
			return true
		}
	}
	return false
}

// ipAddress reports an IPv4 or IPv6 literal, with a port or in brackets
// ("10.0.0.5:5432", "[::1]:8080"), or user@ one.
func ipAddress(w string) bool {
	if i := strings.LastIndexByte(w, '@'); i >= 0 {
		w = w[i+1:]
	}
	if strings.HasPrefix(w, "[") {
		if end := strings.IndexByte(w, ']'); end > 0 {
			w = w[1:end]
		}
	} else if strings.Count(w, ":") == 1 {
		w, _, _ = strings.Cut(w, ":")
	}
	ip, err := netip.ParseAddr(w)
	return err == nil && (ip.Is4() || strings.ContainsAny(w, "0123456789"))
}

// userAtHost reports user@host, as ssh, scp and rsync take it; not
// name@version or name@tag, as package managers take them.
func userAtHost(w string) bool {
	m := userHost().FindStringSubmatch(w)
	if m == nil || len(m[1]) > 1 && (m[1][0] == 'v' || m[1][0] == 'V') && m[1][1] >= '0' && m[1][1] <= '9' {
		return false // pkg@v2
	}
	switch strings.ToLower(m[1]) {
	case "latest", "next", "beta", "alpha", "canary", "rc", "stable", "lts", "nightly", "dev", "edge",
		"experimental", "insiders", "main", "master", "head", "current", "none", "npm", "workspace":
		return false
	}
	return true
}

var userHost = lazyRegexp(`^[A-Za-z_][\w.-]{0,31}@([A-Za-z][\w-]*)(\.[\w-]+)*(:\S*)?$`)

var hostName = lazyRegexp(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|app|cloud|ai|co|internal|local|lan|corp|edu|gov|[a-z]{2})$`)

var fileName = lazyRegexp(`^[\w.-]+\.(go|py|js|ts|tsx|jsx|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|m|scala|sh|toml|ya?ml|json|lock|md|txt|sql|proto|env|ini|cfg|conf|xml|html|css|scss|vue|svelte|tf|mod|sum)$`)

// stable is an error as quirk items show it, the same in every session
// that meets it, so that their items merge: its line as it appeared when
// normalising changes nothing in it, else its signature, without the
// signature's prefix (the item names the tool).
func stable(e errsig.Error) string {
	_, body, ok := strings.Cut(e.Signature, ": ")
	if !ok {
		body = e.Signature
	}
	line := strings.TrimSpace(e.Line)
	if n := errsig.Normalize(line); n == strings.ToLower(line) && (n == body || strings.HasSuffix(body, ": "+n)) {
		return clip(strings.TrimSuffix(line, "."), maxErrorLine)
	}
	return clip(strings.TrimSuffix(body, "."), maxErrorLine)
}
