package harvest

import (
	"path"
	"strings"
)

// Self-evident items (lore.TagSelfEvident) are kept as candidates and
// never handed out: the next session is told them on the spot, so a note
// would save it no step. These kinds, none tied to one project:
//   - a usage error: the tool names the flag or argument it does not
//     take ("unknown flag: --short"), and its help says the right one;
//   - an agent tool's protocol error ("File has not been read yet",
//     "String to replace not found in file"), or its time limit
//     ("Ripgrep search timed out … Try searching a more specific path"):
//     the agent's harness defines them and its error says what to do;
//   - a command that is the first one anyone runs in a project of its
//     kind, in the project's own folder (go build ./..., cargo test).

// usageWords are what a command-line parser says of a flag, option or
// argument it does not take.
var usageWords = []string{
	"unknown flag", "unknown option", "unknown shorthand flag", "unknown command", "unknown subcommand",
	"unknown argument", "unrecognized option", "unrecognized argument", "unrecognised option",
	"unrecognised argument", "unexpected argument", "invalid option", "illegal option", "no such option",
	"invalid choice", "none of the others can be", "flag needs an argument", "option requires an argument",
	"missing required flag", "missing required argument", "accepts at most", "requires at least",
}

// usageError reports whether an error line only says a command was
// called with a flag or argument it does not take.
func usageError(line string) bool { return holdsAny(strings.ToLower(line), usageWords) }

// firstCommands are the commands anyone runs first in a project of their
// kind, by program and subcommand, taking at most the whole project as
// argument (./..., .).
var firstCommands = set(`go_build go_test go_vet go_run cargo_build cargo_test cargo_check cargo_clippy
	cargo_run npm_install npm_ci npm_test pnpm_install pnpm_test yarn_install yarn_test bun_install bun_test make
	pytest mvn_test mvn_package mvn_verify gradle_build gradle_test gradlew_build gradlew_test dotnet_build
	dotnet_test swift_build swift_test mix_test flutter_test dart_test`)

// firstCommand reports whether a command is one anyone runs first in a
// project of its kind, on the whole project.
func firstCommand(cmd string) bool {
	words := mainWords(cmd)
	if len(words) == 0 {
		return false
	}
	key := path.Base(words[0])
	rest := words[1:]
	if len(rest) > 0 && plainWord().MatchString(rest[0]) && firstCommands[key+" "+rest[0]] {
		key, rest = key+" "+rest[0], rest[1:]
	}
	if !firstCommands[key] {
		return false
	}
	for _, w := range rest {
		if w != "./..." && w != "." && w != "-v" {
			return false // a target, a package, a flag: the project's own way
		}
	}
	return true
}
