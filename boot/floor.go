package boot

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// A boot hands out only what is worth a session's attention; the budget
// is a ceiling, not a target. Notes come in three tiers, in this order:
//
//  1. the head: the repository's own commands to build, test and check it,
//     one for each, as sessions ran them (`npm run build` in `web`), the
//     whole project's or else a part's (`npm test -- tests/unit/…`); not
//     those its instructions file for agents already says, which the agent
//     reads anyway (see documented), nor those whose script is gone;
//  2. what is known to bite in this repository or with this agent: a
//     pitfall or tool quirk that several sessions met or whose fix a
//     session saw work; the user's standing rules (TagPreference); and
//     what a person wrote down (lore add, an import) for any of the
//     session's scopes. Up to maxConfirmed of them without a task; more
//     only when they match the task;
//  3. the rest, only when it matches the task (onTask): a note that shares
//     nothing with what the session is about to do is one to skip.
//
// A session with nothing in any tier gets a short context saying so.

func (c *candidate) why() string {
	switch c.tier {
	case tierHead:
		return "command"
	case tierConfirmed:
		return "confirmed"
	}
	return "task"
}

// floor keeps the candidates worth a session's attention (see tier), in
// the order they are handed out: the head, the confirmed, the rest; by
// score within each. ranked is sorted by score. A dangerous setting is
// never handed out as advice, however it became active (an import, lore
// add, an older harvest), nor a note the working tree shows wrong (gone,
// noScript) or one the repository's instructions file already gives
// (documented): those are looked for in the notes a context may hold, not
// in every candidate.
func floor(ranked []*candidate, opts Options) []*candidate {
	t := newTask(lore.CutTask(opts.Task), opts.Repo)
	for _, c := range ranked {
		c.tier, c.onTask = tierOf(c.item, opts), t.onTask(c.item.Text)
	}
	head := pickHead(ranked, opts)
	var out []*candidate
	confirmed := 0
	for _, c := range ranked {
		switch c.tier {
		case tierHead:
			if !head[c] {
				continue
			}
		case tierConfirmed:
			if confirmed >= maxConfirmed && !c.onTask {
				continue
			}
			if !c.onTask {
				confirmed++
			}
		default:
			if !c.onTask {
				continue
			}
		}
		if lore.Unsafe(c.item.Text) || gone(c.item, opts) {
			continue
		}
		out = append(out, c)
	}
	// By tier; within one, what matches the task first.
	slices.SortStableFunc(out, func(a, b *candidate) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), -cmp.Compare(btoi(a.onTask), btoi(b.onTask)))
	})
	return out
}

// pickHead picks the head's commands: for each purpose, the best scored
// command for the whole project, else for a part of it, that the
// checkout's instructions file does not give already and whose script
// or target is there; and any other that matches the task.
func pickHead(ranked []*candidate, opts Options) map[*candidate]bool {
	var cands []*candidate
	for _, c := range ranked {
		if c.tier == tierHead {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// ranked is by score: a stable sort puts the whole project's first.
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		_, pa := purposeOf(a.item)
		_, pb := purposeOf(b.item)
		return cmp.Compare(btoi(pa), btoi(pb))
	})
	doc := instructions(opts)
	picked := map[*candidate]bool{}
	done := map[string]bool{}
	for _, c := range cands {
		p, _ := purposeOf(c.item)
		if done[p] && !c.onTask || documented(c.item, doc) || noScript(c.item, opts) {
			continue
		}
		done[p] = true
		picked[c] = true
	}
	return picked
}

type tier int

const (
	tierHead tier = iota
	tierConfirmed
	tierTask
)

// maxConfirmed is how many notes of the second tier a boot hands out
// whatever the task: the best of them by score.
const maxConfirmed = 8

// purposeOf is the purpose a note of a repository's command states
// (lore.PurposeBuild, PurposeTest, PurposeCheck: the endings of the facts
// harvest keeps of a repository's own commands), and whether it is for a
// part of the project (lore.PartPurpose); "" for another note.
func purposeOf(it lore.Item) (purpose string, part bool) {
	if it.Category != lore.CategoryFact || it.Repo == "" {
		return "", false
	}
	for _, e := range purposeEndings {
		switch {
		case strings.HasSuffix(it.Text, e.whole):
			return e.purpose, false
		case strings.HasSuffix(it.Text, e.part):
			return e.purpose, true
		}
	}
	return "", false
}

// purposeEndings are how the facts of each purpose end, worked out once.
var purposeEndings = func() []struct{ whole, part, purpose string } {
	var out []struct{ whole, part, purpose string }
	for _, p := range lore.Purposes {
		out = append(out, struct{ whole, part, purpose string }{" " + p + ".", " " + lore.PartPurpose(p) + ".", p})
	}
	return out
}()

// tierOf is the tier of an item in scope for opts.
func tierOf(it lore.Item, opts Options) tier {
	repo := it.Repo != "" && lore.SameRepo(it.Repo, opts.Repo)
	purpose, _ := purposeOf(it)
	switch {
	case repo && purpose != "":
		return tierHead
	case repo && slices.Contains(it.Tags, lore.TagPreference), it.Manual > 0:
		// The user's standing rule, and a note a person wrote (lore
		// add, an import), in any of the session's scopes: vouched for.
		return tierConfirmed
	case (repo || it.Repo == "" && it.Agent != "") &&
		(it.Category == lore.CategoryPitfall || it.Category == lore.CategoryToolQuirk) &&
		(it.SourceCount >= 2 || slices.Contains(it.Tags, lore.TagVerified)):
		return tierConfirmed
	}
	return tierTask
}

// task is what a boot's task says, as onTask compares it with notes: its
// words (terms.Of, stemmed) and its names of code (codeNames).
type task struct {
	words map[string]bool
	names []string
}

// newTask reads a task of a session in repo. The words of the
// repository's own name are left out: its notes name it everywhere (in
// paths, URLs, commands), so sharing it tells nothing.
func newTask(text, repo string) task {
	t := task{words: map[string]bool{}}
	own := map[string]bool{}
	for _, w := range terms.Of(repo) {
		own[stem(w)] = true
	}
	for _, w := range terms.Of(text) {
		if s := stem(w); !templateWords[s] && !own[s] {
			t.words[s] = true
		}
	}
	for _, n := range codeNames(text) {
		if !lore.SameRepo(n, repo) && !strings.HasSuffix(strings.ToLower(repo), "/"+n) {
			t.names = append(t.names, n)
		}
	}
	return t
}

func (t task) empty() bool { return len(t.words) == 0 && len(t.names) == 0 }

// onTask reports whether a note matches the task: it names a name of code
// the task names (RotateWALFiles, parse_config, web/frontend), or shares
// two of its words (one, when the task has only one), and a fifth of the
// note's own: a long note shares two words with a long task by chance.
func (t task) onTask(text string) bool {
	if t.empty() {
		return false
	}
	lower := strings.ToLower(text)
	for _, n := range t.names {
		if strings.Contains(lower, n) {
			return true
		}
	}
	words := terms.Of(text)
	need := max(min(2, len(t.words)), len(words)/5)
	shared := 0
	seen := map[string]bool{}
	for _, w := range words {
		s := stem(w)
		if t.words[s] && !seen[s] {
			seen[s] = true
			if shared++; shared >= need {
				return true
			}
		}
	}
	return false
}

// templateWords are words of the forms harvest writes every note of a
// kind in ("The user said: …", "… fails with …; … works."), stemmed:
// sharing them with a task says nothing.
var templateWords = map[string]bool{"said": true, "user": true, "fail": true, "work": true}

// stem cuts a plural or a verb's ending off a word, so that "tests" meets
// "test" and "migrations" "migration": crude, and the same on both sides.
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// codeNames are the words of text that name code rather than say
// something: with a capital inside (RotateWALFiles), an underscore, a
// slash or a dot between letters (parse_config, web/frontend, app.ts), in
// lower case. A note naming one is about the task whatever else it says.
func codeNames(text string) []string {
	var names []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_./-", r)
	}) {
		w = strings.Trim(w, "./-_")
		if len(w) < 4 || !codeLike(w) {
			continue
		}
		if l := strings.ToLower(w); !slices.Contains(names, l) {
			names = append(names, l)
		}
	}
	return names
}

func codeLike(w string) bool {
	if strings.ContainsAny(w, "_/") || strings.Contains(w, ".") && !strings.HasSuffix(w, ".") {
		return true
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
