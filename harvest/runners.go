package harvest

import (
	"path"
	"slices"
	"strings"

	"github.com/lorehq/lore"
)

// Task runners: a project's own test, check and build commands are often
// tasks of a runner, named with colons or dashes (mise run test:ci, npm
// run test:unit, pnpm -F web test, yarn lint:types, just test, task lint,
// make test-unit). The task's name says the purpose.

// Purposes of a build, check or test command, as command facts say them.
const (
	purposeTest  = lore.PurposeTest
	purposeCheck = lore.PurposeCheck
	purposeBuild = lore.PurposeBuild
)

// purpose is what a command does for the project, by its main words and
// action key: purposeTest, purposeCheck, purposeBuild, or "" when it is
// none of these (a dev server, a watcher, a fixer, a deploy).
func purpose(words []string, key string) string {
	if buildOrTest(key) {
		switch {
		case testCommand(key):
			return purposeTest
		case checkCommand(key):
			return purposeCheck
		}
		return purposeBuild
	}
	task := runnerTask(words)
	if task == "" {
		return ""
	}
	return taskPurpose(task)
}

// runnerTask is the task or script a task runner's command runs ("test:ci"
// of mise run test:ci, "test" of pnpm -F web test), or "".
func runnerTask(words []string) string {
	if len(words) < 2 {
		return ""
	}
	prog := path.Base(words[0])
	rest := words[1:]
	switch prog {
	case "npm", "pnpm", "yarn", "bun", "deno", "mise", "turbo", "nx":
		rest = skipOptions(rest, "-F", "--filter", "-w", "--workspace", "-C", "--dir", "--prefix", "--cwd", "-p", "--project")
		if prog == "yarn" && len(rest) > 1 && rest[0] == "workspace" {
			rest = rest[2:] // yarn workspace web test
		}
		if len(rest) > 0 && (rest[0] == "run" || rest[0] == "run-script" || prog == "mise" && rest[0] == "r" || prog == "deno" && rest[0] == "task") {
			rest = skipOptions(rest[1:], "-F", "--filter", "-w", "--workspace", "-C", "--cwd", "-p", "--project")
		} else if prog == "npm" || prog == "mise" || prog == "deno" {
			// npm test and npm run-less scripts are the keys' business; mise
			// and deno run tasks only with run (or a task name mise knows
			// as its own, which the keys do not list).
			if prog == "npm" && len(rest) > 0 && (rest[0] == "test" || rest[0] == "t") {
				return "test"
			}
			return ""
		}
	case "just", "task", "make", "gmake", "cargo-make", "invoke", "rake":
		rest = skipOptions(rest, "-f", "--file", "-C", "--directory", "-d", "--dir", "--justfile", "-t", "--taskfile")
	default:
		return ""
	}
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") || strings.ContainsAny(rest[0], "=/\\$") {
		return ""
	}
	return rest[0]
}

// skipOptions drops leading options, and the value of those named (which
// take one: -F web), and returns the words from the first that is not an
// option.
func skipOptions(words []string, valued ...string) []string {
	for len(words) > 0 && strings.HasPrefix(words[0], "-") {
		w := words[0]
		words = words[1:]
		if len(words) > 0 && !strings.Contains(w, "=") && slices.Contains(valued, w) {
			words = words[1:]
		}
	}
	return words
}

// taskPurpose is the purpose a task's name says by its first part
// (test:ci, lint-types, check_all); "" when any part says it writes,
// watches or serves (lint:fix, test:watch, build:dev), or the first part
// names none: a part of the project (web:lint, rust:build, as nx's
// project:target), like one package of a test command.
func taskPurpose(task string) string {
	parts := strings.FieldsFunc(strings.ToLower(task), func(r rune) bool {
		return r == ':' || r == '-' || r == '_' || r == '.' || r == '/'
	})
	for _, p := range parts {
		switch p {
		case "fix", "write", "watch", "dev", "serve", "start", "update", "snapshot", "snapshots", "u", "deploy",
			"release", "publish", "clean", "install", "setup", "open", "ui", "debug", "generate", "gen", "codegen":
			return ""
		}
	}
	if len(parts) == 0 {
		return ""
	}
	switch parts[0] {
	case "test", "tests", "spec", "specs", "e2e", "unit", "integration", "ci", "vitest", "jest", "pytest":
		return purposeTest
	case "lint", "check", "checks", "typecheck", "types", "tsc", "vet", "clippy", "verify", "validate", "fmtcheck":
		return purposeCheck
	case "format", "fmt":
		if strings.Contains(task, "check") {
			return purposeCheck // format:check only checks; format writes
		}
	case "build", "compile", "bundle", "dist":
		return purposeBuild
	}
	return ""
}
