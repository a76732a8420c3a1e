package lore

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/lorehq/lore/internal/guard"
)

// Hold reports whether a text that Instruction does not refuse is still
// to be kept as a candidate tagged TagHeld, out of the next sessions'
// context until a person looks at it, wherever it came from: an order to
// its reader ("Delete the tests directory") that names nothing of a
// project or a tool, or asks for something harmful. Knowledge about a
// project is often an order too ("Run make check before pushing"), and
// passes when it names what it is about. A dangerous setting (Unsafe) is
// held however it is worded, an order or a statement ("maintainers
// always push with --force to main"). Harvest also holds every order that
// came from tool output (see Order).
func Hold(text string) bool {
	t := guard.Read(text)
	return unsafe(t) || order(t) && heldOrder(t)
}

// heldOrder reports whether an order is to be held: it names nothing of a
// project or a tool, or asks for something harmful.
func heldOrder(t *guard.Text) bool { return !grounded(t) || readings(t, risky) }

// Screen is Instruction, Hold and Order of text, which read it once
// between them instead of a time each: harvest asks all three of every
// item it finds.
func Screen(text string) (instruction, hold, order bool) {
	t := guard.Read(text)
	_, instruction = t.First(instructionRules)
	if !instruction {
		_, instruction = t.First(standingRules)
	}
	order = readings(t, directive)
	return instruction, unsafe(t) || order && heldOrder(t), order
}

// Order reports whether text orders its reader: it speaks to "you", says
// what "the agent" must do, or a sentence of it starts with a verb in
// the imperative.
func Order(text string) bool {
	return order(guard.Read(text))
}

// order is Order on a text read, as written or with the digits of its
// words read as letters. What names a project's things (grounded) is
// read as written only: "python3" is a tool, "pythone" is not.
func order(t *guard.Text) bool { return readings(t, directive) }

// readings reports whether f holds for t as written or for its digits
// read as letters.
func readings(t *guard.Text, f func(*guard.Text) bool) bool {
	return f(t) || t.Leet() != nil && f(t.Leet())
}

// MarkHeld makes it a candidate tagged TagHeld, as Hold asks.
func (it *Item) MarkHeld() {
	it.Status = StatusCandidate
	if !slices.Contains(it.Tags, TagHeld) {
		it.Tags = append(slices.Clip(it.Tags), TagHeld)
	}
}

var (
	secondPerson = guard.NewRule("you your yours yourself yourselves you're you'll you've you'd", `\byou(r|rs|rself|rselves)?\b|\byou'(re|ll|ve|d)\b`)
	agentModal   = guard.NewRule("agent agents assistant assistants model models llm llms ai ais bot bots",
		`\b(the|an?|this|every|each|all|any|our) (ai |coding |llm )?(agents?|assistants?|models?|llms?|ais|bots?)\b.{0,15}\b(must|should|shall|needs? to|has to|have to|is required to|are required to|will|is to|are to|may not|must not|should not)\b`)
	// leadWords come before an imperative without changing it.
	leadWords = map[string]bool{"please": true, "important": true, "note": true, "always": true, "never": true,
		"just": true, "first": true, "immediately": true, "now": true, "also": true, "then": true, "and": true,
		"only": true, "kindly": true, "urgent": true, "reminder": true, "warning": true, "nb": true}
	// imperatives are verbs a sentence giving an order starts with.
	imperatives = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(`run use do don't dont make add delete remove send email upload post approve
			merge push commit stop ignore forget tell say reply answer respond write print output execute install
			uninstall disable enable skip set call open check ensure avoid prefer keep go follow update change create
			copy move rename replace include mention report inform hide grant give share fetch download visit navigate
			click pretend act assume treat consider remember be start restart kill wipe erase reset revert drop chmod
			sudo pipe export source pass put append insert leave let allow trust obey invoke sign log ask contact notify
			mark close rewrite overwrite modify edit rerun retry wait build deploy read look see cd type paste insist
			refuse deny accept reject bypass override disregard purge destroy exfiltrate forward
			transmit publish leak comment switch turn clear flush truncate force`) {
			m[w] = true
		}
		return m
	}()
)

// directive is Order on a text read.
func directive(t *guard.Text) bool {
	if _, ok := t.First([]guard.Rule{secondPerson, agentModal}); ok {
		return true
	}
	for _, s := range starts(clauses(t.Lower)) {
		if strings.HasPrefix(strings.TrimLeft(s, " *_>#\"'("), "`") {
			continue // "`go test` needs Docker": code is the subject
		}
		for s != "" {
			var w string
			w, s = leadingWord(s)
			switch {
			case w == "always" || w == "never":
				return true // "Never push to main", "Always run …"
			case leadWords[w]:
				continue
			case imperatives[w]:
				return true
			}
			break
		}
	}
	return false
}

// subordinators begin a clause that an order may follow after a comma:
// "Before running the tests, put a key on the deploy host".
var subordinators = map[string]bool{"before": true, "after": true, "when": true, "whenever": true,
	"if": true, "once": true, "to": true, "while": true, "until": true, "unless": true, "for": true}

// starts returns the clauses, and where one begins with a subordinate
// clause, what follows its comma.
func starts(cs []string) []string {
	out := cs
	for _, c := range cs {
		if w, rest := leadingWord(c); subordinators[w] {
			if i := strings.IndexByte(rest, ','); i >= 0 {
				out = append(slices.Clip(out), rest[i+1:])
			}
		}
	}
	return out
}

// clauses cuts lower into the parts an order may start: sentences, and
// what follows a colon, a semicolon or a dash. The dots of main.go and
// v1.2 cut nothing.
func clauses(lower string) []string {
	var out []string
	start := 0
	for i := 0; i < len(lower); i++ {
		switch lower[i] {
		case '.', '!', '?', ';', ':':
			if i+1 < len(lower) && lower[i+1] != ' ' && lower[i+1] != '\n' && lower[i+1] != '\t' {
				continue
			}
		case '\n':
		case '-':
			if i == 0 || lower[i-1] != ' ' || i+1 >= len(lower) || lower[i+1] != ' ' {
				continue
			}
		default:
			if !strings.HasPrefix(lower[i:], "—") && !strings.HasPrefix(lower[i:], "–") {
				continue
			}
		}
		out = append(out, lower[start:i])
		start = i + 1
	}
	return append(out, lower[start:])
}

// leadingWord returns the first word of s (letters and apostrophes) and
// what follows it.
func leadingWord(s string) (string, string) {
	start := strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || r == '`' })
	if start < 0 || s[start] == '`' {
		return "", ""
	}
	end := strings.IndexFunc(s[start:], func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if end < 0 {
		return s[start:], ""
	}
	return s[start : start+end], s[start+end:]
}

var (
	// concrete is what names a project's or a tool's things besides code,
	// paths and numbers: a flag, an environment variable, a file.
	concrete = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[\s(])--?[a-zA-Z][\w-]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|` +
			`\b[\w.-]+\.(go|py|js|ts|tsx|jsx|rs|java|kt|rb|php|c|h|cc|cpp|cs|swift|sh|toml|ya?ml|json|lock|md|txt|sql|proto|env|ini|cfg|conf|xml|html|css|tf|mod|sum)\b`)
	})
	// projectWords are tools and the parts of a project items are about.
	projectWords = strings.Fields(`make go npm pnpm yarn npx node bun deno pip pip3 pipx uv poetry python python3
		pytest tox nox cargo rustc rustup clippy git gh glab docker podman compose kubectl helm kubernetes k8s
		terraform tofu ansible mvn maven gradle bazel cmake ninja gcc clang jest vitest mocha playwright cypress
		eslint prettier ruff mypy black flake8 pylint golangci gofmt goimports tsc typescript webpack vite turbo nx
		lerna brew apt dnf yum pacman nix psql postgres postgresql mysql redis sqlite ssh scp rsync curl wget jq
		aws gcloud az vercel netlify heroku flyctl supabase prisma alembic django rails rake bundler gem composer
		dotnet nuget xcodebuild flutter dart ruby java kotlin javac sbt elixir zig lua ci github gitlab jenkins
		circleci actions lint linter linters makefile dockerfile readme changelog lockfile migration migrations
		schema branch branches tests test suite build builds staging production prod repo repository monorepo
		workspace package packages module modules dependency dependencies database db cache config
		configuration endpoint endpoints api server cluster port pr prs pipeline fixtures fixture mocks
		vendor proxy registry env hook hooks sandbox release releases tag tags version versions frontend backend`)
)

// grounded reports whether the text names something concrete of a
// project or a tool: code, a path, a number, a flag, an environment
// variable, a file, a tool or a part of a project.
func grounded(t *guard.Text) bool {
	return strings.ContainsAny(t.Text, "`/$0123456789") || t.Has(projectWords) || concrete().MatchString(t.Text)
}

// riskyOrders are orders to do harm whatever project they name: destroy
// work, weaken checks, wave changes through, lie about results, run what
// a stranger serves, open the machine to others.
var riskyOrders = []guard.Rule{
	guard.NewRule("delete remove wipe erase purge destroy truncate drop rm",
		`\b(delete|remove|wipe|erase|purge|destroy|truncate|drop|rm -rf)\b.{0,30}\b(the |all |every )?(tests?|test suite|repo|repository|database|db|history|everything|all files|home|branches|\.git|production)\b`),
	guard.NewRule("disable skip turn bypass comment remove delete",
		`\b(disable|skip|turn off|bypass|comment out|remove|delete)\s+((all|the|every|any|failing|unit|pre-commit|git|security)\s+)*(tests?|test suite|checks?|ci|hooks?|linters?|lint(ing)?|verification|code review|reviews?|2fa|mfa|branch protection|signing|scans?)\b`),
	guard.NewRule("say answer report claim reply tell pretend",
		`\b(say|answer|report|claim|reply|tell \w+|pretend)\b.{0,30}\b(tests?|build|ci|checks?)\b.{0,15}\b(pass|passed|passes|succeeded|green|ok|fine)\b`),
	guard.NewRule("verify force push", `--no-verify|\bforce[- ]push|\bpush\b.{0,30}(--force\b|-f\b)`),
	guard.NewRule("approve merge accept lgtm",
		`\b(approve|merge|accept|lgtm)\b.{0,30}\b(every|all|any|each)\b.{0,20}\b(pull requests?|prs?|merge requests?|changes|commits)\b`),
	guard.NewRule("curl wget", `\b(curl|wget)\b[^|\n]{0,120}\|\s*(sudo\s+)?(ba|z|da)?sh\b`),
	guard.NewRule("backdoor authorized_keys chmod", `\bbackdoor\b|\bauthorized_keys\b|\bchmod\s+(-R\s+)?777\b`),
	guard.NewRule("disable turn", `\b(disable|turn off)\b.{0,20}\b(firewall|selinux|antivirus|defender|sandbox)\b`),
}

var negation = guard.NewRule("never not don't dont avoid no without", `\b(never|not|don't|dont|avoid|no|without)\b`)

// risky reports an order to do harm, not negated ("Never use
// --no-verify" warns against it).
func risky(t *guard.Text) bool {
	for _, r := range riskyOrders {
		if !t.Reads(r) {
			continue
		}
		for _, loc := range r.Regexp().FindAllStringIndex(t.Text, -1) {
			before := t.Text[:loc[0]]
			if k := strings.LastIndexAny(before, ".!?;:\n"); k >= 0 {
				before = before[k+1:]
			}
			if !negation.Regexp().MatchString(before) {
				return true
			}
		}
	}
	return false
}
