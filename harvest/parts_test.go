package harvest

import (
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

func TestGeneralPart(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./internal/repository/... -v -count=1":                    "go test ./internal/repository/...",
		"go test ./pkg/store/ -run ^TestRotate$ -v":                        "go test ./pkg/store/ -run <test>",
		"CLI_TEST_SKIP_BUILD=true go test ./test/functional -run ^Test_X$": "CLI_TEST_SKIP_BUILD=true go test ./test/functional -run <test>",
		"npm test -- tests/unit/features/orchestration/read-model.test.ts": "npm test -- tests/unit/…",
		"npm run test -- tests/unit/features/tasks/":                       "npm test -- tests/unit/…", // a folder of them, the same way
		"pnpm run test -- src/a/b/c.spec.ts":                               "pnpm test -- src/a/…",
		"npm run test:unit -- tests/unit/x.test.ts":                        "npm run test:unit -- tests/unit/<file>",
		"bun run test tests/a/b/c.test.ts":                                 "bun run test tests/a/…", // bun test is another runner
		"go test ./internal/graph/model -run ^TestX$":                      "go test ./internal/graph/… -run <test>",
		"npm test -- tests/unit/a.test.ts tests/unit/b.test.ts":            "npm test -- tests/unit/<file>",
		"uv run pytest tests/test_cli.py::test_voice -x --no-header":       "uv run pytest tests/<file>::<test>",
		"flutter test test/features/vpn/ --reporter compact":               "flutter test test/features/…",
		"flutter test test/unit --reporter compact":                        "flutter test test/unit",
		"go test ./internal/api/... ./internal/auth/...":                   "", // two parts: the session's choice
		"go test -run TestRotate":                                          "", // a test, no part of the project
		"npx vitest run -t 'renders the list'":                             "",
	} {
		if got := generalPart(cmd); got != want {
			t.Errorf("generalPart(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestPartCommands: how a session ran parts of the project is kept, one
// item per way of running one (the part run most), the session's test
// names and files taken out; a toolchain's own way at the root (go test
// ./x/...) is self-evident; two sessions running a part the same way make
// it active.
func TestPartCommands(t *testing.T) {
	turns := []turn{
		{user: "Fix the read model."},
		bash("npm test -- tests/unit/features/orchestration/read-model.test.ts", "Tests: 4 passed", false),
		bash("npm test -- tests/unit/features/orchestration/board.test.ts", "Tests: 2 passed", false),
		bash("npm test -- tests/unit/webview/panel.test.tsx", "Tests: 9 passed", false),
		bash("go test ./internal/repository/... -count=1", "ok", false),
		bash("npm test -- tests/unit/features/tasks/tasks.test.ts", "Tests: 1 failed", true),
	}
	got := map[string]lore.Item{}
	for _, it := range harvestSessions(t, turns, "s-1", "s-2") {
		if slices.Contains(it.Tags, tagPart) {
			got[it.Text] = it
		}
	}
	npm := "`npm test -- tests/unit/…` runs part of the tests."
	goTest := "`go test ./internal/repository/...` runs part of the tests."
	if it, ok := got[npm]; !ok || it.Status != lore.StatusActive || it.SourceCount != 2 {
		t.Errorf("%s: %+v (all: %v)", npm, it, slices.Collect(maps.Keys(got)))
	}
	if it, ok := got[goTest]; !ok || it.Status != lore.StatusCandidate || !slices.Contains(it.Tags, lore.TagSelfEvident) {
		t.Errorf("%s: %+v", goTest, it)
	}
	if len(got) != 2 {
		t.Errorf("want two ways of running a part, got %v", slices.Collect(maps.Keys(got)))
	}
}

// FuzzGeneralPart: a part's command keeps the command's program, and only
// the command's words or the placeholders.
func FuzzGeneralPart(f *testing.F) {
	for _, s := range []string{"npm test -- tests/unit/a.test.ts", "go test ./x/... -run ^T$ -v", "pytest a/test_b.py::test_c -k x",
		"-run", "a::", "x -count"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		got := generalPart(cmd)
		if got == "" {
			return
		}
		words := strings.Fields(cmd)
		for _, w := range strings.Fields(got) {
			cut, elided := strings.CutSuffix(strings.TrimPrefix(w, "./"), "…")
			if !slices.Contains(words, w) && !strings.Contains(w, "<test>") && !strings.Contains(w, "<file>") &&
				!(elided && slices.ContainsFunc(words, func(x string) bool { return strings.Contains(path.Clean(x), cut) })) {
				t.Errorf("generalPart(%q) = %q: %q is none of the command's words", cmd, got, w)
			}
		}
		if prog := slices.IndexFunc(words, func(w string) bool { return !strings.Contains(w, "=") }); strings.Fields(got)[prog] != words[prog] {
			t.Errorf("generalPart(%q) = %q: the program changed", cmd, got)
		}
	})
}
