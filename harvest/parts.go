package harvest

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/lorehq/lore"
)

// Parts: how the session built, checked or tested a part of the project
// (go test ./internal/repository/..., flutter test test/features/vpn/,
// CLI_TEST_SKIP_BUILD=true go test ./test/functional -run '^Test_X$',
// npm test -- tests/unit/x.test.ts). Running a part is how an agent works
// most of the time, and how to do it (which runner takes a file, which
// variable skips a build, which folder holds a kind of test) is what it
// looks for; commandFacts keeps only whole-project commands. The names of
// the tests a command picked are the session's own, and are shown as
// <test>, its test files as <file> in their folder, or the top two of
// their folders (tests/unit/…) as for a folder of tests: what is left is
// the project's way. Of the commands that worked, one for each
// way of running a part (the part run most), up to perRule, are kept as
// facts of the repository; a second session that runs the same part the
// same way confirms one. A toolchain's own way at the project's root (go
// test ./x/...) is self-evident.

// partFlags take a test name, or a pattern of them.
var partFlags = set(`-run -k -t --grep --filter --testNamePattern --test-name-pattern --tests --test -bench`)

// showFlags only change what a command prints or how patiently it runs,
// not what it builds or tests; those that take a value are valuedShow.
var (
	showFlags = set(`-v -vv -x -q -s --verbose --quiet --no-header -count=1 --silent --run --no-cache --color
		--no-color --compact`)
	valuedShow = set(`-count -timeout --timeout --reporter -f --format -o --outdir --output --max-warnings`)
)

// partCommands keeps how the session built, checked or tested parts of the
// project.
func (r *ruleRun) partCommands() {
	if r.s.Repo == "" {
		return
	}
	type part struct {
		text, form string
		n          int
		pos        int
		tags       []string
	}
	var parts []*part
	byText := map[string]*part{}
	for _, c := range r.calls {
		if !c.ok() {
			continue
		}
		verb := purpose(c.mainWords(), c.key)
		if verb == "" || !c.selective() || c.dryRun() || c.versionCommand() || helpOnly(c.mainWords()) || !c.simple() {
			continue
		}
		cmd := generalPart(c.normCommand())
		if cmd == "" {
			continue
		}
		verb = lore.PartPurpose(verb) // runs part of the tests
		dir := r.ranIn(c)
		text := fmt.Sprintf("%s %s.", quoteCode(clip(cmd, maxCommand)), verb)
		if dir != "" {
			text = fmt.Sprintf("%s in %s %s.", quoteCode(clip(cmd, maxCommand)), quoteCode(dir), verb)
		}
		if p := byText[text]; p != nil {
			p.n++
			continue
		}
		p := &part{text: text, form: partForm(cmd) + " " + dir, n: 1, pos: c.pos, tags: []string{program(c.key), tagPart}}
		if dir == "" && firstPart(cmd) {
			p.tags = append(p.tags, lore.TagSelfEvident)
		}
		byText[text] = p
		parts = append(parts, p)
	}
	slices.SortStableFunc(parts, func(a, b *part) int { return cmp.Compare(b.n, a.n) })
	n := 0
	forms := map[string]bool{}
	for _, p := range parts {
		if n >= perRule {
			break
		}
		if forms[p.form] {
			continue // one way to run a part is enough: the one run most
		}
		forms[p.form] = true
		if r.add(lore.Item{Text: p.text, Category: lore.CategoryFact, Repo: r.s.Repo, Confidence: confShown, Tags: p.tags}, p.pos) {
			n++
		}
	}
}

// tagPart marks how a part of the project is built, checked or tested.
const tagPart = "part"

// generalPart is a command for a part of the project with the session's
// own picks taken out: a test name or pattern after partFlags (or after
// a file's ::) is <test>, a test file is <file> in the top two of its
// folders (several there are one), flags that change only the output
// (showFlags) are dropped. "" when nothing of the project's is left (the
// command named no folder, package or file, only tests), or when it names
// several parts: their choice is the session's.
func generalPart(cmd string) string {
	words := strings.Fields(cmd)
	prog := slices.IndexFunc(words, func(w string) bool { return !strings.Contains(w, "=") })
	if prog < 0 {
		return ""
	}
	out := slices.Clone(words[:prog+1]) // the program, and the settings before it, as they are
	named, paths := false, 0
	for i := prog + 1; i < len(words); i++ {
		w := words[i]
		flag, _, glued := strings.Cut(w, "=")
		switch {
		case showFlags[w] || glued && valuedShow[flag]:
			continue
		case valuedShow[w] && i+1 < len(words):
			i++
			continue
		case partFlags[flag] && glued:
			w = flag + "=<test>"
		case partFlags[w] && i+1 < len(words):
			out = append(out, w, "<test>")
			i++
			continue
		case strings.Contains(w, "::"):
			file, _, _ := strings.Cut(w, "::")
			w = testFile(file) + "::<test>"
			named = true
		case testFileName(w):
			w = testFile(w)
			named = true
		case !strings.HasPrefix(w, "-") && (strings.Contains(w, "/") || strings.HasPrefix(w, ".")):
			w = folderPart(w)
			named = true
		default:
			out = append(out, w)
			continue
		}
		if slices.Contains(out, w) {
			continue // several test files of one folder
		}
		if strings.HasSuffix(w, "/<file>") || !strings.HasSuffix(w, "::<test>") && !strings.HasPrefix(w, "-") {
			paths++
		}
		out = append(out, w)
	}
	if !named || paths > 1 {
		return "" // several parts together are the session's choice
	}
	if scriptRunners[out[prog]] && len(out) > prog+2 && out[prog+1] == "run" && out[prog+2] == "test" {
		out = slices.Delete(out, prog+1, prog+2) // npm run test is npm test: one way, said one way
	}
	return strings.Join(out, " ")
}

// scriptRunners run a package's scripts, and run its "test" script for
// "test" as for "run test" (bun test is bun's own test runner: not one).
var scriptRunners = set(`npm pnpm yarn`)

// folderPart is a folder a command was given, cut to the top two of its
// names as testFile cuts a file's (tests/unit/…): a test file and a folder
// of tests under tests/unit are one way to run a part. A Go package
// pattern (./x/...) is kept whole.
func folderPart(w string) string {
	if strings.Contains(w, "...") {
		return w
	}
	top := topFolder(w)
	if !strings.HasSuffix(top, "…") {
		return w
	}
	if strings.HasPrefix(w, "./") {
		return "./" + top
	}
	return top
}

// partForm is a part's command without its part: the way the project
// runs any part (npm test --, go test -run <test>).
func partForm(cmd string) string {
	var kept []string
	for _, w := range strings.Fields(cmd) {
		if !strings.Contains(w, "/") && !strings.HasPrefix(w, ".") {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// firstPart reports whether a command for a part is a project's first
// command (see firstCommand) given the part: go test ./x/..., cargo test
// -p x, flutter test test/x/. Anyone would run the part so.
func firstPart(cmd string) bool {
	var kept []string
	for _, w := range strings.Fields(cmd) {
		if w == "<test>" || partFlags[w] || strings.Contains(w, "/") || strings.HasPrefix(w, ".") ||
			strings.Contains(w, "<file>") || strings.Contains(w, "<test>") {
			continue
		}
		kept = append(kept, w)
	}
	return firstCommand(strings.Join(kept, " "))
}

// testFileName reports whether a word is a test file (x_test.go,
// x.test.ts, x.spec.tsx, test_x.py, x_test.py).
func testFileName(w string) bool {
	base := path.Base(w)
	return strings.Contains(base, "_test.") || strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.Contains(base, "_spec.") || strings.HasPrefix(base, "test_") && strings.Contains(base, ".")
}

// testFile is a test file given as <file> in its folder, or as the top
// two of its folders when it lies deeper (tests/unit/…): where the
// project keeps that kind of test, not which one the session ran.
func testFile(w string) string {
	switch dir := topFolder(path.Dir(w)); {
	case strings.HasSuffix(dir, "…"):
		return dir
	case dir != "":
		return dir + "/<file>"
	}
	return "<file>"
}

// topFolder is a folder of the project cut to its first two names, with
// "…" for what was cut (tests/unit/webview/x becomes tests/unit/…); ""
// for the project's own.
func topFolder(dir string) string {
	dir = path.Clean(dir)
	if dir == "." || dir == "" {
		return ""
	}
	if strings.HasPrefix(dir, "/") {
		return "" // outside the project, or a machine's
	}
	parts := strings.Split(dir, "/")
	if len(parts) <= 2 {
		return dir
	}
	return strings.Join(parts[:2], "/") + "/…"
}
