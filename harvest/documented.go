package harvest

import (
	"context"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/lorehq/lore"
)

// What the repository already documents is not taught again: when a
// session shows the agent's instructions file of the repository
// (CLAUDE.md, AGENTS.md, GEMINI.md, .github/copilot-instructions.md … in
// its folder, below or above it; not another repository's, nor the
// user's own ~/.claude/CLAUDE.md),
// read by a tool or loaded as context (Codex's "# AGENTS.md instructions
// for …"), an item whose commands or names that file already gives as
// code (in backticks or a code block) is known: the next session reads
// the file anyway. It is kept as a candidate tagged lore.TagDocumented,
// which no session makes active again, and which takes back the item
// other sessions made active (lore.Merge). Which code an item must find
// there:
//
//   - a fact or a pattern: every code span of it (`npm run build` and
//     `web/frontend`; `Symbol` and `file.go`);
//   - a pitfall: its fix, the last span ("`X` fails with …; `Y` works.");
//   - a stated cause or a tool quirk: never (the file does not say why an
//     error came, nor how the agent's tools fail).

// documented is the code an instructions file the session saw gives: its
// inline code spans and the lines of its code blocks, one a line; "" when
// the session saw none.
func (r *ruleRun) documented() string {
	var code strings.Builder
	for _, d := range r.instructionDocs() {
		inBlock := false
		for _, line := range strings.Split(d, "\n") {
			line = stripLineNumber(line)
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inBlock = !inBlock
				continue
			}
			if inBlock {
				if t := strings.TrimSpace(line); !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") {
					code.WriteString(strings.Join(strings.Fields(line), " ") + "\n") // a comment gives no command ("# Example: npm test")
				}
				continue
			}
			for _, m := range inlineCode().FindAllStringSubmatch(line, -1) {
				code.WriteString(strings.Join(strings.Fields(m[1]), " ") + "\n")
			}
		}
	}
	return code.String()
}

// instructionDocs is the text of the repository's instructions files the
// session saw: read by a call, or loaded as context. Codex's "# AGENTS.md
// instructions for /dir" is taken whole; Claude Code's "Contents of
// /dir/CLAUDE.md" (its memory, and a subfolder's CLAUDE.md it loaded,
// transcript's nested_memory) is taken file by file, each judged by its
// path as a file read is.
func (r *ruleRun) instructionDocs() []string {
	var docs []string
	for _, c := range r.calls {
		if p := docPath(c); c.ok() && lore.IsInstructionFile(p) && r.ofRepository(p) {
			docs = append(docs, c.output)
		}
	}
	for _, m := range r.s.Messages {
		if m.Role != lore.RoleSystem && m.Role != lore.RoleUser {
			continue
		}
		if strings.Contains(m.Text, " instructions for ") && codexInstructions().MatchString(m.Text) {
			docs = append(docs, m.Text)
			continue
		}
		if !strings.Contains(m.Text, "Contents of ") {
			continue
		}
		heads := loadedMemory().FindAllStringSubmatchIndex(m.Text, -1)
		for i, h := range heads {
			end := len(m.Text)
			if i+1 < len(heads) {
				end = heads[i+1][0]
			}
			if p := m.Text[h[2]:h[3]]; r.ofRepository(p) {
				docs = append(docs, m.Text[h[0]:end])
			}
		}
	}
	return docs
}

var (
	// codexInstructions starts the context Codex loads from an
	// instructions file: "# AGENTS.md instructions for /dir".
	codexInstructions = lazyRegexp(`(?m)^\s*# (AGENTS|CLAUDE|GEMINI)(\.md)? instructions for `)
	// loadedMemory starts a file of Claude Code's memory, "Contents of
	// /dir/CLAUDE.md (…):", and holds its path, which may have spaces.
	loadedMemory = lazyRegexp(`Contents of ((?:/[^\n]*?/|\S*?/)?(?:CLAUDE|AGENTS|GEMINI)(?:\.local)?\.md)\b`)
	inlineCode   = lazyRegexp("`([^`]+)`")
)

// ofRepository reports whether an instructions file is the session's
// repository's: in its folder, below it or above it (a monorepo's root),
// not another repository's, nor a user's own for every repository
// (~/.claude/CLAUDE.md).
func (r *ruleRun) ofRepository(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return true // relative to the session's folder
	}
	cwd := strings.TrimSuffix(r.s.Cwd, "/")
	dir := path.Dir(p)
	return cwd != "" && (strings.HasPrefix(p, cwd+"/") || dir == cwd || strings.HasPrefix(cwd, dir+"/"))
}

// docPath is the file a call read, by a read tool or a shell's cat, head,
// less or bat; "" for another call.
func docPath(c *call) string {
	if !strings.Contains(c.input, ".md") && !strings.Contains(c.input, "rules") {
		return "" // names no instructions file: most calls, cheaply
	}
	if c.cmd == "" {
		if !readTool(c.name) {
			return ""
		}
		var in struct {
			FilePath string `json:"filePath"`
		}
		if p := readPath(c.input); p != "" {
			return p
		}
		if json.Unmarshal([]byte(c.input), &in) == nil {
			return in.FilePath
		}
		return ""
	}
	words := c.mainWords()
	if len(words) < 2 || !c.simple() {
		return ""
	}
	switch path.Base(words[0]) {
	case "cat", "head", "less", "more", "bat", "batcat":
		return words[len(words)-1]
	}
	return ""
}

// undocumented marks known (lore.TagDocumented, a candidate) the items
// that code, of the instructions files the session saw, already gives
// (see documented), and returns the items.
func undocumented(items []lore.Item, code string) []lore.Item {
	for i := range items {
		if it := &items[i]; code != "" && documentedIn(*it, code) {
			it.Status = lore.StatusCandidate
			it.Tags = append(it.Tags, lore.TagDocumented)
		}
	}
	return items
}

// documentedIn reports whether code, an instructions file's code, gives
// what it says (see documented).
func documentedIn(it lore.Item, code string) bool {
	if strings.HasPrefix(it.Signature, CausePrefix) || it.Category == lore.CategoryToolQuirk {
		return false
	}
	spans := inlineCode().FindAllStringSubmatch(it.Text, -1)
	if len(spans) == 0 {
		return false
	}
	if it.Category == lore.CategoryPitfall {
		if !strings.Contains(it.Text, " works.") {
			return false // flaky, or fixed by a setup command: the file says neither
		}
		spans = spans[len(spans)-1:]
	}
	for _, s := range spans {
		if !inCode(s[1], code) {
			return false
		}
	}
	return true
}

// inCode reports whether span is one of code's lines or stands in one as
// whole words: `npm run build` in "cd web && npm run build", not `make`
// in "remake"; options the line adds between its words do not matter
// (`go test ./...` in "go test -v ./...").
func inCode(span, code string) bool {
	words := strings.Fields(span)
	if len(words) == 0 {
		return false
	}
	if regexp.MustCompile(`(^|[^\w./-])` + regexp.QuoteMeta(strings.Join(words, " ")) + `($|[^\w/:-])`).MatchString(code) {
		return true
	}
	for _, line := range strings.Split(code, "\n") {
		if withOptions(words, strings.Fields(line)) {
			return true
		}
	}
	return false
}

// withOptions reports whether line holds words in order, with nothing
// but options (-v, --race) between them.
func withOptions(words, line []string) bool {
	for i, w := range line {
		if w != words[0] {
			continue
		}
		k := 1
		for _, x := range line[i+1:] {
			if k == len(words) {
				break
			}
			switch {
			case x == words[k]:
				k++
			case strings.HasPrefix(x, "-"):
			default:
				k = -1
			}
			if k < 0 {
				break
			}
		}
		if k == len(words) {
			return true
		}
	}
	return false
}

// docs is the code of the instructions files the sessions of a run saw,
// by repository.
type docs map[string]string

// add adds code of repo's instructions files, and reports whether it
// said anything new.
func (d *docs) add(repo, code string) bool {
	if repo == "" || code == "" || strings.Contains((*d)[repo], code) {
		return false
	}
	if *d == nil {
		*d = map[string]string{}
	}
	(*d)[repo] += code
	return true
}

// markDocumented marks known the items of a batch's sessions that an
// instructions file of their repository gives, as any session of the run
// saw it, and the items stored for a session's repository that the file
// the session saw gives, though the session did not find them itself:
// the file is the repository's, not the session's. The mark goes in as an item with no evidence and no
// confidence, which adds only its tag (lore.Merge), and so takes back an
// item that sessions alone made active. A store that cannot list its
// items marks nothing more than the session's own.
func (h *harvester) markDocumented(ctx context.Context, batch []harvested) error {
	fresh := map[string]int{} // repository → the first session of the batch that showed new code of it
	var repos []string
	for bi, x := range batch {
		if _, ok := fresh[x.s.Repo]; h.docs.add(x.s.Repo, x.documented) && !ok {
			fresh[x.s.Repo] = bi
			repos = append(repos, x.s.Repo)
		}
	}
	for bi := range batch {
		if code := h.docs[batch[bi].s.Repo]; code != "" && batch[bi].s.Repo != "" {
			batch[bi].items = undocumented(batch[bi].items, code)
		}
	}
	ls, ok := h.opts.Store.(itemLister)
	if !ok {
		return nil
	}
	for _, repo := range repos { // once for each repository whose file says more than before
		x, code := &batch[fresh[repo]], h.docs[repo]
		f := lore.Filter{Repo: repo, Statuses: []lore.Status{lore.StatusCandidate, lore.StatusActive}}
		err := ls.Items(ctx, f, func(it lore.Item) error {
			if it.Repo == repo && !slices.Contains(it.Tags, lore.TagDocumented) && documentedIn(it, code) {
				x.items = append(x.items, lore.Item{ID: it.ID, Text: it.Text, Category: it.Category, Repo: it.Repo,
					Agent: it.Agent, Signature: it.Signature, Status: lore.StatusCandidate, Tags: []string{lore.TagDocumented}})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
