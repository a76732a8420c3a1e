package harvest

import (
	"slices"
	"testing"

	"github.com/lorehq/lore"
)

// TestPurpose checks that a task runner's task is a build, check or test
// command by its name, colons and all, and that a fixer, a watcher or a
// server is none.
func TestPurpose(t *testing.T) {
	for cmd, want := range map[string]string{
		"mise run test:ci":                 purposeTest,
		"npm run test:unit":                purposeTest,
		"pnpm -F web test":                 purposeTest,
		"pnpm --filter=web run lint":       purposeCheck,
		"yarn workspace web test":          purposeTest,
		"yarn lint:types":                  purposeCheck,
		"bun run typecheck":                purposeCheck,
		"just test":                        purposeTest,
		"task lint":                        purposeCheck,
		"make test-unit":                   purposeTest,
		"nx run web:build":                 "", // a part of the project
		"mise run rust:lint":               "",
		"nx run build":                     purposeBuild,
		"deno task check":                  purposeCheck,
		"npm run format:check":             purposeCheck,
		"go test ./...":                    purposeTest,
		"npm run lint:fix":                 "",
		"npm run test:watch":               "",
		"pnpm dev":                         "",
		"npm run format":                   "",
		"npm install":                      "",
		"pnpm add -D vitest":               "",
		"npm start":                        "",
		"mise install":                     "",
		"task deploy":                      "",
		"deno run main.ts":                 "",
		"pnpm run build:dev":               "",
		"mise run lint -- --fix":           purposeCheck, // --fix is for writes() to see; the task checks
		"just --justfile ci.just build":    purposeBuild,
		"yarn --cwd web run test:e2e":      purposeTest,
		"npm --prefix web run build":       purposeBuild,
		"turbo run build --filter=web":     purposeBuild,
		"cargo make test":                  "",
		"npm run db:migrate":               "",
		"pnpm exec playwright install":     "",
		"task":                             "",
		"npm run storybook":                "",
		"npm run check-types --silent":     purposeCheck,
		"mise run r":                       "",
		"pnpm -r --filter ./pkg run build": purposeBuild,
	} {
		if got := purpose(mainWords(cmd), actionKey(cmd)); got != want {
			t.Errorf("purpose(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestRunnerCommandFacts checks that a task runner's test task is the
// repository's test command, one per purpose: the one run most.
func TestRunnerCommandFacts(t *testing.T) {
	var got []string
	for _, it := range extract(t, []turn{
		bash("mise run test:ci", "ok", false), bash("npm run test:unit", "ok", false), bash("mise run test:ci", "ok", false),
		bash("pnpm -F web lint", "ok", false), bash("npm run lint:fix", "fixed", false), bash("pnpm dev", "ready", false),
	}) {
		if it.Category == lore.CategoryFact {
			got = append(got, it.Text)
		}
	}
	want := []string{"`mise run test:ci` runs the tests.", "`pnpm -F web lint` checks the code."}
	if !slices.Equal(got, want) {
		t.Errorf("facts %q, want %q", got, want)
	}
}
