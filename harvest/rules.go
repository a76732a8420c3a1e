package harvest

import (
	"context"
	"encoding/json"
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
	confLikely  = 0.5 // a fix that came later, a flaky command, a quirk seen once

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
//   - pitfall: a command failed, and a later call of the same program and
//     subcommand worked, with no file edited or written in between:
//     written differently, after a setup command, or unchanged byte for
//     byte (flaky). Never a help, writing or destructive command as the
//     fix, never an error at a line of the project's code.
//   - tool-quirk: an error of the agent's own tool protocol ("File has not
//     been read yet"), or of a command-line tool that is not a failing
//     build or test; never a cascade or a tool's own order.
//   - fact: the command that built, tested or checked the project, one per
//     purpose; where a symbol the session searched for is defined, when it
//     saw the definition; where a file is that it first looked for
//     elsewhere; a version a tool printed.
//   - pattern: a setup command that worked before a build or test command
//     that worked; what the user typed to redirect the agent after it
//     acted, in the user's words (corrections).
//
// The agent's last questions are not kept: the rules cannot tell them
// from offers, table rows or code. Harvest stores what one session found
// as a candidate (lore.Earned) unless its fix was seen to work right
// after the failure (tagged lore.TagVerified); a second session makes it
// active. An item of a session with a repository is that repository's,
// but for a quirk of the agent's own tool protocol that names nothing of
// it (the agent's); a pitfall or quirk naming nothing of the repository
// is tagged portable, and becomes global once met in a second repository
// (scope.go). A pitfall shows its commands in general words
// (generalCommand).
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
	// in is the folder (slashed, absolute) the agent's shell was in when
	// the call began, where the shell keeps its folder from one call to
	// the next (see shellFolders); "" for the session's folder.
	in   string
	side bool // a sub-agent's call
	// writing, destroying, single, versioning and picking cache
	// writes(cmd), destructive(cmd), simple(cmd), versionCommand(cmd) and
	// selective(cmd): 0 not yet known, 1 no, 2 yes. norm and words cache
	// normCommand(cmd) and mainWords(cmd) once they are not empty, cmds
	// shellcmd.Split(cmd) once split is set. Each rule asks them of the
	// calls again, and splitting the command for each answer took a fifth
	// of the rules' time.
	writing, destroying, single, versioning, picking uint8
	norm                                             string
	words                                            []string
	cmds                                             []shellcmd.Command
	split                                            bool
	tries                                            []string // attempts(), once worked out
}

func (c *call) ok() bool { return c.done && !c.erred }

// writes is writes(c.cmd), worked out once: each failure asks it of
// every call before its fix.
func (c *call) writes() bool { return cached(&c.writing, func() bool { return writes(c.cmd) }) }

// destructive is destructive(c.cmd), worked out once.
func (c *call) destructive() bool {
	return cached(&c.destroying, func() bool { return destructive(c.cmd) })
}

// simple is simple of c.cmd, worked out once.
func (c *call) simple() bool {
	return cached(&c.single, func() bool { return simple(c.commands(), c.normCommand()) })
}

// versionCommand is versionCommand(c.cmd), worked out once.
func (c *call) versionCommand() bool {
	return cached(&c.versioning, func() bool { return versionCommandOf(c.cmd, c.normCommand) })
}

// selective is selective of c.cmd, worked out once: only a call with
// main words (a key) is asked.
func (c *call) selective() bool {
	return cached(&c.picking, func() bool { return selective(c.cmd, c.mainWords()) })
}

// dryRun is dryRun(c.cmd).
func (c *call) dryRun() bool { return dryRunOf(c.commands()) }

// commands is shellcmd.Split(c.cmd), split once.
func (c *call) commands() []shellcmd.Command {
	if !c.split {
		c.cmds, c.split = shellcmd.Split(c.cmd), true
	}
	return c.cmds
}

// mainWords is mainWords(c.cmd), worked out once.
func (c *call) mainWords() []string {
	if c.words == nil {
		c.words = mainWordsOf(c.commands())
	}
	return c.words
}

// normCommand is normCommand(c.cmd), worked out once.
func (c *call) normCommand() string {
	if c.norm == "" {
		c.norm = normCommandOf(c.commands())
	}
	return c.norm
}

func cached(flag *uint8, f func() bool) bool {
	if *flag == 0 {
		*flag = 1
		if f() {
			*flag = 2
		}
	}
	return *flag == 2
}

// Extract applies the rules to one session read with its messages.
func (Rules) Extract(ctx context.Context, s *lore.Session) (Found, error) {
	r := &ruleRun{s: s, calls: collectCalls(s), seen: map[string]bool{}}
	r.shellFolders()
	r.pitfalls()
	r.quirks()
	r.commandFacts()
	r.partCommands()
	r.definitionFacts()
	r.movedFiles()
	r.versions()
	r.patterns()
	r.corrections()
	r.findings()
	over, doc := r.causes(), r.documented() // causes.go, documented.go
	return Found{Items: undocumented(r.items, doc), Episodes: r.episodes(), overcome: over, documented: doc,
		origins: r.origins()}, ctx.Err()
}

func collectCalls(s *lore.Session) []*call {
	byID := map[string]*call{}
	var calls []*call
	for _, m := range s.Messages {
		for _, tc := range m.ToolCalls {
			c := &call{pos: m.Index, name: tc.Name, input: tc.Input, side: m.Sidechain}
			cmd := shellcmd.FromCall(tc.Name, tc.Input)
			cmds := shellcmd.Split(cmd)
			words := mainWordsOf(cmds)
			c.key = wordsKey(words) // actionKey(cmd)
			// Redacted as it came: items show it normalised (unquoted,
			// joined, cut), which hides a secret from a later redaction.
			if c.cmd = clipRedactor.String(cmd); c.cmd == cmd {
				c.cmds, c.split, c.words = cmds, true, words // the same command: not split again
			}
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
	scope(&it, r.s, r.specific(it.Text), r.portable(it))
	if it.Confidence < lore.PromoteConfidence {
		it.Status = lore.StatusCandidate
	}
	it.Evidence = []lore.Evidence{{Session: r.s.ID, Position: pos}}
	r.items = append(r.items, it)
	return true
}

// pitfalls: a failure, and the later success at the same thing: the same
// program and subcommand, each one command (not a chain or a pipeline),
// with no file edited or written in between (else the edit was the fix,
// and the session's bug is no knowledge), for an error that does not
// point at a line of the project's code. A success
// that is only help (--help), or that writes files itself (--write,
// --fix), or destroys work (rm -rf, reset --hard, stash drop) teaches no
// fix. A fix is verified, and may be active from this one session, when
// the success came right after the failure: nothing but looking around
// in between.
func (r *ruleRun) pitfalls() {
	n := 0
	for i, f := range r.calls {
		if !f.failed || f.err.Kind != errsig.Environment || f.key == "" || n >= perRule ||
			exploring(f.key) || f.err.Class == errsig.ClassSandbox || errsig.Cascade(f.err.Line) || f.destructive() ||
			!f.simple() || sourcePosition().MatchString(f.err.Line) {
			continue // a chain's failure is not its last command's; an error at a line of code is the code's
		}
		j := r.nextSuccess(i, f.key)
		if j < 0 {
			continue
		}
		s := r.calls[j]
		if !s.simple() || subcommand(f.mainWords()) != subcommand(s.mainWords()) || helpOnly(s.mainWords()) || s.destructive() || s.writes() ||
			r.writtenBetween(i, j) {
			continue
		}
		failed, worked := quoteCode(clip(f.normCommand(), maxCommand)), quoteCode(clip(s.normCommand(), maxCommand))
		same := sameCall(f.input, s.input)
		if gf, gw, ok := generalPitfall(f.cmd, s.cmd, f.err.Line); ok {
			failed, worked = quoteCode(clip(gf, maxCommand)), quoteCode(clip(gw, maxCommand)) // see generalCommand
		} else if same {
			failed = quoteCode(clip(generalCommand(f.cmd, f.err.Line, nil), maxCommand))
		}
		errText := quoteCode(clip(strings.TrimSuffix(f.err.Line, "."), maxErrorLine))
		var text string
		conf := confShown
		verified := r.quietBetween(i, j)
		fix := r.fixBetween(i, j)
		switch {
		case same && fix != nil:
			if destructive(fix.cmd) {
				continue
			}
			text = fmt.Sprintf("%s fails with %s until %s is run.", failed, errText, quoteCode(clip(fix.normCommand(), maxCommand)))
			conf, verified = confLikely, false
		case same && verified:
			// The same call, parameters and all: nothing but time changed.
			text = fmt.Sprintf("%s can fail with %s and pass when run again unchanged (flaky).", failed, errText)
			conf, verified = confLikely, false
		case same, s.normCommand() == f.normCommand():
			continue // the code was the fix, or what changed (quoting, a pipe, a parameter) the item cannot show
		default:
			if s.dryRun() || buildOrTest(f.key) && (s.selective() || f.selective()) {
				continue // another subset of the tests passing fixes nothing
			}
			text = fmt.Sprintf("%s fails with %s; %s works.", failed, errText, worked)
		}
		tags := []string{program(f.key)}
		if verified {
			tags = append(tags, lore.TagVerified)
		}
		if usageError(f.err.Line) {
			tags = append(tags, lore.TagSelfEvident) // the error names the flag; its help, the right one
		}
		if r.add(lore.Item{Text: text, Category: lore.CategoryPitfall, Confidence: conf, Signature: f.err.Signature,
			Tags: tags}, s.pos) {
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
// anything: no edit, no command other than a look around or another try
// at the same thing.
func (r *ruleRun) quietBetween(i, j int) bool {
	for k := i + 1; k < j; k++ {
		c := r.calls[k]
		if c.cmd == "" && editTool(c.name) || c.cmd != "" && !exploring(c.key) && c.key != r.calls[i].key {
			return false
		}
	}
	return true
}

// writtenBetween reports whether a call between calls i and j edited or
// wrote a file: an edit tool, or a command that writes (a redirection,
// sed -i, a formatter's --write, a patch).
func (r *ruleRun) writtenBetween(i, j int) bool {
	for k := i + 1; k < j; k++ {
		c := r.calls[k]
		if c.cmd == "" && editTool(c.name) || c.cmd != "" && c.writes() {
			return true
		}
	}
	return false
}

// quirks: protocol errors of the agent's tools, and errors of command-line
// tools that say something about the tool or the machine (HTTP, network,
// permission, package manager, sandbox), not about the project's code.
func (r *ruleRun) quirks() {
	n := 0
	for _, c := range r.calls {
		sh, what := shellQuirk(c)
		if sh == "" && (!c.failed || c.err.Signature == "" || errsig.Cascade(c.err.Line)) || n >= perRule {
			continue
		}
		if sh == "" && c.err.Kind != errsig.Protocol && lore.Order(c.err.Line) {
			continue // a tool's own order to its reader ("Do NOT retry"), not a quirk
		}
		var it lore.Item
		switch {
		case sh != "":
			it = lore.Item{Text: fmt.Sprintf("The shell %s runs commands in is %s: %s.", r.s.Agent, sh, what), Agent: r.s.Agent,
				Signature: "shell: " + sh + ": " + what, Confidence: confShown, Tags: []string{tagShell}}
		case c.err.Kind == errsig.Protocol && !missingFile(c.err.Line):
			it = lore.Item{Text: fmt.Sprintf("The %s tool of %s fails with %s.", c.name, r.s.Agent, quoteCode(stable(c.err))),
				Agent: r.s.Agent, Tags: []string{lore.TagSelfEvident}} // the harness's protocol, told by its error
		case c.err.Class == errsig.ClassSandbox && c.key != "":
			it = lore.Item{Text: fmt.Sprintf("%s fails in the sandbox of %s and needs to be run with approval.", quoteCode(c.key), r.s.Agent),
				Agent: r.s.Agent}
		case c.err.Kind == errsig.Environment && c.cmd == "" && !mcpTool(c.name) &&
			(c.err.Class == errsig.ClassTimeout || c.err.Class == errsig.ClassOOM):
			// The agent's own tool (a search, a read) ran out of time or
			// memory: its harness's limit, which its error says how to
			// stay under.
			it = lore.Item{Text: fmt.Sprintf("The %s tool of %s fails with %s.", c.name, r.s.Agent, quoteCode(stable(c.err))),
				Agent: r.s.Agent, Tags: []string{lore.TagSelfEvident}}
		case c.err.Kind == errsig.Environment && c.key != "" && !exploring(c.key) && quirkClass(c.err.Class):
			it = lore.Item{Text: fmt.Sprintf("%s can fail with %s.", quoteCode(c.key), quoteCode(stable(c.err)))}
		default:
			continue
		}
		it.Category = lore.CategoryToolQuirk
		if it.Signature == "" {
			it.Confidence, it.Signature = confLikely, c.err.Signature
		}
		if it.Agent == "" {
			it.Tags = []string{program(c.key)}
		}
		if usageError(c.err.Line) {
			it.Tags = append(it.Tags, lore.TagSelfEvident)
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

// tagShell marks a quirk of the shell an agent runs commands in.
const tagShell = "shell"

// shellQuirk is the shell a failed command ran in and what about it made
// the command fail, when the error is the shell's own and not the
// command's: zsh refusing an unquoted glob that matches nothing,
// PowerShell refusing &&. It holds on the machine, in every repository,
// and agents meet it again and again. "" when the error is the command's.
//
// Some agents do not mark such a call failed (Claude Code shows zsh's
// refusal as the output of a call that succeeded): then the output's
// first line is read.
func shellQuirk(c *call) (shell, what string) {
	if c.cmd == "" || !c.done {
		return "", ""
	}
	l := c.err.Line
	if !c.failed {
		if l, _, _ = strings.Cut(strings.TrimSpace(c.output), "\n"); !strings.HasPrefix(l, "zsh:") && !strings.HasPrefix(l, "(eval):") {
			return "", "" // what the command printed, not the shell
		}
	}
	switch {
	case strings.Contains(l, "no matches found:"):
		return "zsh", "an unquoted glob that matches no file fails with `no matches found`"
	case strings.Contains(l, "is not a valid statement separator"):
		return "PowerShell", "`&&` fails with `The token '&&' is not a valid statement separator`"
	}
	return "", ""
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

// commandFacts: the command that built, tested or checked the project,
// one for each of these purposes: the one that worked most often in the
// session. Only a whole command does: not one chained after others, not
// a part of the project (one package, a file list), not a version or
// help query.
func (r *ruleRun) commandFacts() {
	if r.s.Repo == "" {
		return
	}
	type tally struct {
		c    *call
		n    int
		norm string
	}
	best := map[string]*tally{}
	count := map[string]int{}
	var order []string
	for _, c := range r.calls {
		if !c.ok() {
			continue
		}
		verb := purpose(c.mainWords(), c.key) // runners.go
		if verb == "" || c.selective() || c.dryRun() || c.versionCommand() ||
			helpOnly(c.mainWords()) || !c.simple() {
			continue
		}
		norm := c.normCommand()
		if dir := r.ranIn(c); dir != "" {
			norm += "` in `" + dir // shown as: `npm run build` in `web/frontend`
		}
		count[norm]++
		switch b := best[verb]; {
		case b == nil:
			best[verb] = &tally{c, count[norm], norm}
			order = append(order, verb)
		case count[norm] > b.n && b.norm != norm:
			best[verb] = &tally{c, count[norm], norm}
		case b.norm == norm:
			b.n = count[norm]
		}
	}
	for _, verb := range order {
		c := best[verb].c
		dir := r.ranIn(c)
		text := fmt.Sprintf("%s %s.", quoteCode(clip(c.normCommand(), maxCommand)), verb)
		if dir != "" {
			text = fmt.Sprintf("%s in %s %s.", quoteCode(clip(c.normCommand(), maxCommand)), quoteCode(dir), verb)
		}
		tags := []string{program(c.key)}
		if dir == "" && firstCommand(c.cmd) {
			tags = append(tags, lore.TagSelfEvident)
		}
		r.add(lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confShown,
			Tags: tags}, c.pos)
	}
}

// ranIn is the folder of the project a command ran in, relative to the
// session's: where its chain's last cd went, or the folder its tool was
// given (workdir, Gemini CLI's dir_path); "" for the session's folder or
// one outside it. A Windows session's folders are read with backslashes,
// and shown with slashes.
func (r *ruleRun) ranIn(c *call) string {
	dir := ""
	var in struct {
		Workdir   string `json:"workdir"`
		Cwd       string `json:"cwd"`
		Dir       string `json:"dir"`
		DirPath   string `json:"dir_path"`
		Directory string `json:"directory"`
	}
	// Each field's name holds "dir" or "cwd": most inputs, a command
	// alone, need no decoding.
	if (strings.Contains(c.input, "dir") || strings.Contains(c.input, "cwd")) && json.Unmarshal([]byte(c.input), &in) == nil {
		dir = slashed(firstNonEmpty(in.Workdir, in.Cwd, in.Dir, in.DirPath, in.Directory))
	}
	if dir == "" {
		dir = c.in // where an earlier call's cd left the shell
	}
	for _, sc := range c.commands() {
		if len(sc.Words) == 2 && sc.Words[0] == "cd" {
			if d := slashed(sc.Words[1]); absolute(d) || dir == "" {
				dir = d
			} else {
				dir = path.Join(dir, d)
			}
		}
	}
	if dir == "" {
		return ""
	}
	cwd := slashed(r.s.Cwd)
	if !absolute(dir) {
		dir = path.Join(cwd, dir)
	}
	rel := inCheckout(relativeTo(cwd, path.Clean(dir)))
	if rel == "" || absolute(rel) || strings.HasPrefix(rel, "..") || cwd == "" {
		return ""
	}
	return rel
}

// inCheckout is a folder of the project as it is in any checkout: a
// folder in a worktree kept in a hidden folder of the project
// (.worktrees/fix-ci, .claude/worktrees/x) is that folder of the project.
func inCheckout(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if p == "worktrees" || p == ".worktrees" {
			if i+2 <= len(parts) && strings.HasPrefix(parts[0], ".") {
				return strings.Join(parts[i+2:], "/")
			}
		}
	}
	return rel
}

// shellFolders notes, for each shell call of an agent whose shell keeps
// its folder between calls (Claude Code's Bash tool), the folder an
// earlier call's cd left it in: `cd web && npm ci`, then `npm run build`,
// builds in web. The folder goes back to the session's when the tool says
// it reset it ("Shell cwd was reset to …"). A sub-agent's calls neither
// follow nor move the session's shell.
func (r *ruleRun) shellFolders() {
	if r.s.Agent != lore.AgentClaudeCode {
		return
	}
	cwd := slashed(r.s.Cwd)
	cur := ""
	for _, c := range r.calls {
		if c.cmd == "" || c.side {
			continue
		}
		c.in = cur
		if strings.Contains(c.output, "Shell cwd was reset to") {
			cur = ""
			continue
		}
		if dir := r.ranIn(c); dir != "" {
			cur = path.Join(cwd, dir)
		} else if movedHome(c.commands()) {
			cur = ""
		}
	}
}

// movedHome reports whether a command's chain (split: shellcmd.Split) went
// back to the session's folder or outside the project, by a cd ranIn
// cannot show.
func movedHome(cmds []shellcmd.Command) bool {
	for _, sc := range cmds {
		if len(sc.Words) >= 1 && sc.Words[0] == "cd" {
			return true
		}
	}
	return false
}

// slashed is a path with a Windows path's backslashes as slashes: one
// that starts with a drive (C:\Users), or holds backslashes and no slash.
func slashed(p string) string {
	if len(p) > 2 && p[1] == ':' || strings.Contains(p, `\`) && !strings.Contains(p, "/") {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// absolute reports whether a slashed path is absolute, on Unix or on
// Windows (C:/Users/…).
func absolute(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) > 2 && p[1] == ':' && p[2] == '/'
}

// simple reports whether a command is one command: in a chain, the
// others only set the shell up (cd, export, echo), and nothing is piped
// into it, whatever comes after (| tail -20, 2>&1). cmds is the command
// line split (shellcmd.Split), norm its normal form (normCommand).
func simple(cmds []shellcmd.Command, norm string) bool {
	n := 0
	for _, c := range cmds {
		if words := shellcmd.Unwrap(c.Words); len(words) > 0 && !c.Piped && !shellcmd.Incidental(path.Base(words[0])) {
			n++
		}
	}
	return n == 1 && !strings.Contains(norm, "|")
}

// definitionFacts: where a symbol the session searched for is defined,
// when the session saw its definition (func X, type X, class X, def X,
// interface X, const X …) in output it read: the search's own lines, or
// a file it then read. One place per symbol; a later sighting of the
// symbol elsewhere supersedes it in the store (its signature). A place
// the session found in one search, the next finds so too: self-evident,
// kept for search, not handed out.
func (r *ruleRun) definitionFacts() {
	if r.s.Repo == "" {
		return
	}
	n := 0
	done := map[string]bool{}
	for i, c := range r.calls {
		if !c.ok() || n >= perRule {
			continue
		}
		sym := searchedSymbol(c)
		if sym == "" || done[sym] {
			continue
		}
		file := r.definedIn(i, sym)
		if file == "" {
			continue
		}
		rel := r.relative(file)
		if rel == "" || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "~") || rel == sym {
			continue
		}
		done[sym] = true
		text := fmt.Sprintf("%s is defined in %s.", quoteCode(sym), quoteCode(rel))
		if r.add(lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confShown,
			Signature: lore.DefinitionSignature(sym), Tags: []string{lore.TagSelfEvident}}, c.pos) {
			n++
		}
	}
}

// movedFiles: a file the session failed to read where it expected it,
// then searched for by name and read where the search found it. The next
// session is likely to expect it in the same wrong place.
func (r *ruleRun) movedFiles() {
	if r.s.Repo == "" {
		return
	}
	n := 0
	for i, c := range r.calls {
		if n >= perRule || !c.done || !c.erred || c.cmd != "" || !readTool(c.name) {
			continue
		}
		wrong := readPath(c.input)
		name := path.Base(wrong)
		if wrong == "" || !strings.Contains(name, ".") {
			continue
		}
		right := r.foundAndRead(i, name, wrong)
		relRight, relWrong := r.relative(right), r.relative(wrong)
		if right == "" || strings.HasPrefix(relRight, "/") || strings.HasPrefix(relWrong, "/") {
			continue
		}
		text := fmt.Sprintf("%s is in %s, not in %s.", quoteCode(name), quoteCode(relRight), quoteCode(relWrong))
		if r.add(lore.Item{Text: text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confShown,
			Signature: lore.DefinitionSignature(name)}, c.pos) {
			n++
		}
	}
}

// foundAndRead is the path of a file named name, other than wrong, that
// a search by name after call i found and a later call read; or "".
func (r *ruleRun) foundAndRead(i int, name, wrong string) string {
	end := min(len(r.calls), i+1+readWindow)
	for k := i + 1; k < end; k++ {
		c := r.calls[k]
		if !c.ok() || path.Base(searchedName(c)) != name {
			continue
		}
		for _, w := range strings.Fields(c.output) {
			w = strings.Trim(w, `"',[]`)
			if path.Base(w) != name || w == wrong || !strings.Contains(w, "/") {
				continue
			}
			for _, rd := range r.calls[k+1 : end] {
				if rd.ok() && readTool(rd.name) && readPath(rd.input) == w {
					return w
				}
			}
		}
	}
	return ""
}

// readWindow is how many calls after a search a read of the file it
// found still counts.
const readWindow = 30

// definedIn is the file whose definition of sym the session saw: in the
// lines of search i (path:line:text), or in a file a later call read; ""
// when it saw none.
func (r *ruleRun) definedIn(i int, sym string) string {
	var def *regexp.Regexp // compiled when a line names sym: most outputs name it nowhere
	defines := func(text string) bool {
		if def == nil {
			def = definitionPattern(sym)
		}
		return def.MatchString(text)
	}
	for _, line := range strings.Split(r.calls[i].output, "\n") {
		// A line that does not name sym defines nothing of it.
		if !strings.Contains(line, sym) {
			continue
		}
		if p, text, ok := grepLine(line); ok && defines(text) {
			return p
		}
	}
	for _, c := range r.calls[i+1 : min(len(r.calls), i+1+readWindow)] {
		if !c.ok() || c.cmd != "" || !readTool(c.name) {
			continue
		}
		p := readPath(c.input)
		if p == "" {
			continue
		}
		for _, line := range strings.Split(c.output, "\n") {
			if strings.Contains(line, sym) && defines(stripLineNumber(line)) {
				return p
			}
		}
	}
	return ""
}

// relative makes an absolute path relative to the session's folder.
func (r *ruleRun) relative(p string) string { return relativeTo(r.s.Cwd, p) }

// relativeTo is p relative to the folder cwd, or p when it is outside.
func relativeTo(cwd, p string) string {
	if cwd = strings.TrimSuffix(cwd, "/"); cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

var versionPattern = lazyRegexp(`\b(?:go|v|version\s+)?(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.]+)?)\b`)

// versions: what a --version command printed.
func (r *ruleRun) versions() {
	n := 0
	for _, c := range r.calls {
		if !c.ok() || n >= perRule || !c.versionCommand() {
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
			text := fmt.Sprintf("Run %s before %s.", quoteCode(clip(p.normCommand(), maxCommand)),
				quoteCode(clip(c.normCommand(), maxCommand)))
			if r.add(lore.Item{Text: text, Category: lore.CategoryPattern, Repo: r.s.Repo, Confidence: confLikely}, c.pos) {
				n++
			}
			break
		}
	}
}

// specific reports whether text names something of one repository: a
// path, a file, a host, the repository itself.
func (r *ruleRun) specific(text string) bool {
	lower := strings.ToLower(text)
	if r.s.Repo != "" {
		name := strings.ToLower(path.Base(r.s.Repo))
		if len(name) > 2 && hasWord(lower, name) {
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
		case !strings.ContainsAny(w, ".:@"):
			// A file, a host or an address has a dot, a colon or an @:
			// most words have none, and skip the expressions.
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

// hasWord reports whether word stands in s between ASCII word
// boundaries, as \bword\b matches it.
func hasWord(s, word string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], word)
		if k < 0 {
			return false
		}
		k += i
		e := k + len(word)
		if (k == 0 || !asciiWord(s[k-1]) || !asciiWord(word[0])) && (e == len(s) || !asciiWord(s[e]) || !asciiWord(word[len(word)-1])) {
			return true
		}
		i = k + 1
	}
}

func asciiWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
