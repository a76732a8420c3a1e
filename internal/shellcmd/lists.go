package shellcmd

import "strings"

// The lists below are lore's one knowledge of programs, lower case and by
// base name. Both readers of commands use them, so a program added here
// is known to error signatures and harvested items alike.

// incidental commands change only the shell they run in, or print: a
// call is never about them when it runs something else too.
var incidental = set(`cd pushd popd export set source . echo true clear sleep`)

// housekeeping commands prepare the one that matters: the incidental ones,
// file chores and the shell's own builtins.
var housekeeping = union(incidental, set(`unset printf false mkdir touch rm cp mv alias trap wait ulimit
	shopt local declare read : test [ [[ ln chmod umask exit`))

// filters read a pipeline's output; the program that matters feeds them.
var filters = set(`cat echo printf grep egrep fgrep rg head tail sort uniq wc tee less more cut tr column
	yes jq sed awk nl fold fmt xxd base64`)

// subcommanded programs say what they do with their first argument.
var subcommanded = set(`go git gh glab npm pnpm yarn bun deno cargo docker podman kubectl helm terraform
	pip pip3 uv poetry hatch pdm rye mise just task make dotnet mvn gradle gradlew bazel swift rustup
	brew apt apt-get conda gem bundle rails composer mix stack cabal nix flutter dart aws gcloud az
	heroku vercel fly supabase prisma alembic nx turbo lerna systemctl`)

// wrappers run the command after them (sudo make, timeout 60 go test,
// npx tsc).
var wrappers = set(`sudo env time nice nohup exec command builtin stdbuf caffeinate xargs watch timeout
	gtimeout npx pnpx bunx`)

// jsRunners are the wrappers that run a package, named by --package.
var jsRunners = set(`npx pnpx bunx`)

// keywords of the shell that can start a simple command.
var keywords = set(`! if then else elif while until do`)

// launchers run a command given after a subcommand: uv run pytest runs
// pytest. The package managers of JavaScript run another package with
// exec or dlx; their run runs the project's own script, which stays.
var (
	launchers   = set(`uv poetry pipenv pdm rye hatch bundle`)
	jsLaunchers = set(`npm pnpm yarn bun`)
)

// scriptRunners run a project's own script or task with run: npm run
// build, mise run lint. The script says what the command does.
var scriptRunners = set(`npm pnpm yarn bun mise deno`)

// Incidental reports whether prog changes only the shell it runs in or
// prints (cd, export, echo): never what a call is about when it also
// runs something else.
func Incidental(prog string) bool { return incidental[lowerASCII(prog)] }

// Subcommanded reports whether prog says what it does with its first
// argument (go test, git push, make lint).
func Subcommanded(prog string) bool { return subcommanded[lowerASCII(prog)] }

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func union(a, b map[string]bool) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// ScriptRunner reports whether prog runs a project's own script or task
// with its run subcommand (npm run build, mise run lint).
func ScriptRunner(prog string) bool { return scriptRunners[lowerASCII(prog)] }
