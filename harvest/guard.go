package harvest

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// instructionRule is one shape of prompt injection, read only when the
// text holds one of its triggers: a word, or for scripts without spaces
// between words a substring.
type instructionRule struct {
	triggers []string
	// re is compiled when first used: compiling the guards' expressions
	// took 4.6 ms at the start of every lore process, harvest or not.
	re func() *regexp.Regexp
}

// instructionRules are what prompt injection reads like: text that
// overrides an agent's instructions, gives it a new role, addresses the
// model itself, speaks with a system's or an operator's authority, asks
// it to hide things from its user, or to send secrets away. Items are
// often imperative ("Run make generate before go test"), so plain
// commands are not among them: hold reads those.
var instructionRules = func() []instructionRule {
	const (
		override  = `(ignore|disregard|forget|override|bypass|skip|neglect|discard|abandon)`
		orders    = `(instructions?|prompts?|directives?|rules|guidelines|guardrails|orders|commands|constraints|restrictions|programming|safeguards|policies|context)`
		machine   = `(ai|llms?|language models?|ai models?|models?|ai agents?|coding agents?|agents?|ai assistants?|assistants?|bots?|chatbots?|claude|chatgpt|gpt|gemini|codex|copilot)`
		people    = `(the |your |a |any )?(user|users|human|humans|operator|developer|owner|maintainers?|person|people|anyone|reviewers?)\b`
		sensitive = `(~/\.ssh|\.ssh/|\bid_(rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|~/\.aws|\.aws/credentials|\.env\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials|\bkubeconfig\b|/etc/(passwd|shadow)\b|\.kube/config|\bkeychain\b|\bwallet\b)`
		secretish = `\b(secrets?|credentials?|api[ _-]?keys?|access keys?|tokens?|passwords?|private keys?|ssh keys?|session cookies?|cookies|environment variables|env vars)\b`
		away      = `(https?://|\S+@\S+\.\w|\bpastebin\b|\bgist\b|\bwebhook\b|\bngrok\b|\brequestbin\b|\bdiscord\b|\btelegram\b|\b(this|that|the following|my|our|an? (external|remote|public)) (url|address|server|endpoint|host|site|channel|e-?mail)\b|\b[a-z0-9-]+\.(com|net|org|io|xyz|ru|cn|top|site|info)\b)`
	)
	var rules []instructionRule
	for _, r := range []struct{ triggers, re string }{
		// Overriding what the agent was told.
		{"ignore disregard forget override bypass skip neglect discard abandon",
			`\b` + override + `\b.{0,40}\b(previous|prior|above|earlier|preceding|original|initial|system|all|your|any|these|those|my|our)\b.{0,20}\b` + orders + `\b`},
		{"ignore disregard forget override discard abandon",
			`\b(ignore|disregard|forget|override|discard|abandon)\b.{0,20}\b(instructions?|prompts?|directives?|guidelines|guardrails|orders|rules)\b.{0,40}\b(previous(ly)?|prior|above|earlier|before|given|received|told|so far|until now)\b`},
		{"ignore disregard forget", `\b(ignore|disregard|forget)\b,? (everything|all|anything|whatever|what) (you|that|i|we|was|were|above|before|previously|said|else)\b`},
		{"told instructed taught programmed given", `\b(what(ever)?|everything|anything|instructions?|rules|prompts?) you (were|have been|'ve been|had been) (told|instructed|taught|programmed|given)\b`},
		{"your new", `\byour (new|real|actual|true|updated|only|next) (task|instructions?|objective|goal|role|job|purpose|mission|directive|orders?|priority|persona)\b`},
		{"new", `\bnew (system )?(instructions?|directives?|orders|rules)\s*:`},
		{"now", `\byou (must|will|shall|should|are|'re) now\b|\byou('re| are) no longer\b|\byou're now\b`},
		{"now henceforth point forward", `\b(from now on|henceforth|from this point( on)?|going forward)\b.{0,80}\b(you|your)\b|\b(from now on|henceforth),? (always|never|only|ignore|forget|do not|don't)\b`},
		// A new role.
		{"act behave respond answer", `\b(act|behave|respond|answer) as (if you were|though you were|if you are|an? (unrestricted|unfiltered|jailbroken|uncensored|different|new|evil|rogue|malicious)|dan\b)`},
		{"pretend imagine suppose", `\b(pretend|imagine|suppose) (that )?(you('re| are| were)|to be)\b`},
		{"roleplay role play assume", `\brole-?\s?play(ing)? as\b|\bassume the (role|persona|identity) of\b`},
		{"developer", `\bdeveloper mode\b.{0,20}\b(enabled|on)\b`},
		{"dan jailbreak god unrestricted unfiltered jailbroken", `\b(dan|jailbreak|god|unrestricted|unfiltered) mode\b|\bjailbr(eak|oken)\b|\bdo anything now\b`},
		{"no without", `\byou\b.{0,40}\b(no|without) (any )?(rules|restrictions|limits|limitations|filters|guidelines|guardrails|censorship|boundaries)\b`},
		// Text addressed to the model.
		{"ai llm assistant chatgpt gpt claude gemini codex copilot model agent bot",
			`^\W*(hey |hi |hello |dear |attention,? |note to (the )?|to (the |any |all )?)?(ai|llm|assistant|chatgpt|gpt|claude|gemini|codex|copilot|language model|ai model|ai agent|coding agent|ai assistant)\s*[,:!]`},
		{"dear hey", `\b(dear|hey|hello|hi) ` + machine + `\b`},
		{"ai llm model models agent agents assistant assistants bot bots machine",
			`\byou (ai|agent|assistant|model|bot|llm|machine)s?\b`},
		{"ai llm model agent assistant", `\b(if|when) you('re| are) an? (ai|llm|language model|large language model|ai agent|coding agent|assistant|ai assistant|bot)\b`},
		{"ai", `\bas an ai( language model| assistant| model)?\b`},
		{"read see process parse encounter", `\b(if|when|once|as soon as|after) you (read|see|process|parse|encounter|find) this\b|\bif you('re| are) (reading|seeing|processing) this\b`},
		{"ai llm llms assistant assistants agent agents model models bot bots",
			`\b(attention|note|message|instructions?|notice|memo|reminder|warning) (to|for) (the |any |all |every )?` + machine + `\b`},
		{"reading processing parsing seeing reads sees processes",
			`\b` + machine + `s? (reading|processing|parsing|seeing|analy[sz]ing|reviewing|that reads?|who reads?|that sees?|that process(es)?) (this|these)\b`},
		{"reading processing parsing", `\bto (the |any |all |every |each )?` + machine + `s?\b.{0,30}\b(reading|processing|parsing|seeing|analy[sz]ing|reviewing)\b`},
		{"system assistant", `(?m:^\s*(system|assistant)\s*:)`},
		{"im_start im_end system endoftext inst instruction instructions",
			`<\|?(im_start|im_end|system|endoftext)\|?>|\[/?inst\]|</?(system|instructions?)>`},
		{"system", `\bsystem prompt\b|\bsystem (notice|override|alert|directive|announcement|instructions?)\b`},
		// Authority: a system, an operator, every agent.
		{"all any every each", `\b(all|any|every|each) (ai |llm |coding |autonomous )?(agents?|assistants?|ais|models|llms|bots)\b.{0,30}\b(must|should|shall|are required|need to|have to|will|are to|are instructed)\b`},
		{"admin administrator operator developer", `\b(admin|administrator|operator|developer) (override|notice|instructions?|directive)\b`},
		{"official authorized authorised urgent", `\bthis (is|message is) (an? )?(official|authori[sz]ed|urgent|priority)\b`},
		{"stop pause halt abort drop", `\b(stop|pause|halt|abort|drop) (what|everything|whatever) you('re| are)? (doing|working on)\b|\bdrop (everything|your (current )?task)\b`},
		{"anything else", `\bbefore (you do|doing) anything else\b`},
		// Hiding things from the user.
		{"tell telling inform informing mention mentioning reveal revealing alert alerting notify notifying report reporting disclose disclosing let letting",
			`\b(do not|don't|dont|never|without|avoid|stop) (tell|telling|inform|informing|mention|mentioning|reveal|revealing|alert|alerting|notify|notifying|report|reporting|disclose|disclosing|let|letting)\b.{0,40}\b` + people},
		{"hide conceal keep", `\b(hide|conceal|keep)\b.{0,40}\bfrom ` + people},
		{"without", `\bwithout (the |your )?(user|human|operator|owner)('s)? (knowing|noticing|knowledge|consent|permission|approval|seeing)\b|\bwithout (telling|informing|notifying) (the |your )?(user|human|operator|owner)\b`},
		{"secretly covertly surreptitiously", `\b(secretly|covertly|surreptitiously)\b`},
		// Sending data away.
		{"exfiltrate exfiltration", `\bexfiltrat(e|ion|ing)\b`},
		{"send post upload forward email mail transmit paste share publish leak",
			`\b(send|post|upload|forward|email|e-mail|mail|transmit|paste|share|publish|leak)\b.{0,60}` + sensitive + `.{0,60}\b(to|at|into|on|via)\b`},
		{"send post upload forward email mail transmit paste share publish leak",
			`\b(send|post|upload|forward|email|e-mail|mail|transmit|paste|share|publish|leak)\b.{0,60}` + secretish + `.{0,60}\b(to|at|into|on|via)\b\s*.{0,20}` + away},
		{"curl wget nc ncat netcat", sensitive + `[^|\n]{0,60}\|\s*(curl|wget|nc|ncat|netcat)\b|\b(curl|wget)\b[^\n]{0,80}(-d|--data(-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s*['"]?@?\S*` + sensitive},
		{"add append insert install put write", `\b(add|append|insert|install|put|write)\b (my|this|the following|our|the attacker'?s?) (ssh |public |rsa )?keys?\b.{0,40}\bauthorized_keys\b`},
		{"print output reveal show display echo dump repeat list", `\b(print|output|reveal|show|display|echo|dump|repeat|list)\b.{0,20}\byour (system prompt|instructions|prompt|api keys?|secrets|credentials|environment|env vars|tokens?|passwords?|keys)\b`},
		// "Ignore previous instructions" in other languages.
		{"ignora ignore ignoren olvida olvide olviden descarta omite desobedece",
			`\b(ignora|ignore|ignoren|olvida|olvide|olviden|descarta|omite|desobedece)\b.{0,40}(instrucciones|indicaciones|reglas|[óo]rdenes|directrices)|\bolvida todo\b`},
		{"ignore ignorez ignorer oublie oubliez oublier", `\b(ignore[zr]?|oublie[zr]?)\s+(toutes\s+)?(les|tes|vos|ces)\s+(instructions|consignes|directives|r[èe]gles|ordres)|\b(ignore[zr]?|oublie[zr]?) tout ce qui\b`},
		{"ignoriere ignorier ignorieren vergiss vergessen missachte", `\b(ignoriere|ignorier|ignorieren|vergiss|vergessen|missachte)\b.{0,60}\b(anweisungen|anweisung|instruktionen|befehle|regeln|vorgaben)\b|\bvergiss alles\b`},
		{"ignore ignora esqueça esqueca esquece desconsidere desconsidera", `\b(ignore|ignora|esque[çc]a|esquece|desconsidere|desconsidera)\s.{0,40}(instru[çc][õo]es|orienta[çc][õo]es|regras)`},
		{"ignora dimentica ignorate", `\b(ignora|dimentica|ignorate)\b.{0,40}\b(istruzioni|regole)\b`},
		{"negeer vergeet", `\b(negeer|vergeet)\b.{0,40}\b(instructies|regels)\b`},
		{"игнорируй игнорируйте забудь забудьте", `(игнорируй|игнорируйте|забудь|забудьте).{0,40}(инструкции|указания|правила)`},
		{"忽略 无视 無視 忘记 忘掉 忽视 忘記", `(忽略|无视|無視|忘记|忘掉|忽视|忘記).{0,15}(指令|指示|说明|說明|提示|规则|規則|命令)`},
		{"無視 忘れ", `(指示|命令|ルール|プロンプト).{0,10}(無視|忘れ)`},
		{"무시 잊어", `(지시|명령|지침|규칙).{0,10}(무시|잊어)`},
	} {
		rules = append(rules, rule(r.triggers, r.re))
	}
	return rules
}()

// Instruction reports whether text reads as an instruction aimed at an
// agent rather than knowledge about a project or a tool: such an item
// is refused.
func Instruction(text string) bool {
	t := newGuardText(text)
	_, ok := t.first(instructionRules)
	return ok
}

// guardText is a text as the guards read it: the rules whose triggers
// it holds are the only ones run, which keeps an item's check to a few
// microseconds.
type guardText struct {
	text, lower string
	words       map[string]bool // runs of letters, digits, '_' and apostrophes
}

func newGuardText(text string) *guardText {
	t := &guardText{text: text, lower: strings.ToLower(text), words: make(map[string]bool, len(text)/6)}
	for w := range strings.FieldsFuncSeq(t.lower, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '\''
	}) {
		t.words[strings.Trim(w, "'")] = true
	}
	return t
}

// has reports whether the text holds one of triggers.
func (t *guardText) has(triggers []string) bool {
	for _, w := range triggers {
		if t.words[w] || w[0] >= utf8.RuneSelf && strings.Contains(t.lower, w) {
			return true
		}
	}
	return false
}

// first returns where the first of rules that matches matches.
func (t *guardText) first(rules []instructionRule) ([]int, bool) {
	for _, r := range rules {
		if t.has(r.triggers) {
			if loc := r.re().FindStringIndex(t.text); loc != nil {
				return loc, true
			}
		}
	}
	return nil, false
}

// hold reports whether an item that is not refused is still to be kept
// as a candidate, out of the next sessions' context until it is looked
// at: an order to its reader ("Delete the tests directory") whose text
// names nothing of a project or a tool, asks for something harmful, or
// comes from tool output (a web page, a file, a command's output) rather
// than from the user's or the agent's own words. Knowledge about a
// project is often an order too ("Run make check before pushing"), and
// stays as it is when it names what it is about.
func hold(text string, fromTool bool) bool {
	return newGuardText(text).hold(fromTool)
}

func (t *guardText) hold(fromTool bool) bool {
	if !t.directive() {
		return false
	}
	return fromTool || !t.grounded() || t.risky()
}

// screen is Instruction and hold, reading the text once.
func screen(text string, fromTool bool) (refuse, held bool) {
	t := newGuardText(text)
	if _, ok := t.first(instructionRules); ok {
		return true, false
	}
	return false, t.hold(fromTool)
}

// rule builds instruction rules, case-insensitive.
func rule(triggers, re string) instructionRule {
	return instructionRule{strings.Fields(triggers), lazyRegexp(`(?i)` + re)}
}

var (
	secondPerson = rule("you your yours yourself yourselves you're you'll you've you'd", `\byou(r|rs|rself|rselves)?\b|\byou'(re|ll|ve|d)\b`)
	agentModal   = rule("agent agents assistant assistants model models llm llms ai ais bot bots",
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

// directive reports whether the text orders its reader: it speaks to
// "you", says what "the agent" must do, or a sentence of it starts with
// a verb in the imperative.
func (t *guardText) directive() bool {
	if _, ok := t.first([]instructionRule{secondPerson, agentModal}); ok {
		return true
	}
	for _, s := range clauses(t.lower) {
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
	concrete = lazyRegexp(`(^|[\s(])--?[a-zA-Z][\w-]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|` +
		`\b[\w.-]+\.(go|py|js|ts|tsx|jsx|rs|java|kt|rb|php|c|h|cc|cpp|cs|swift|sh|toml|ya?ml|json|lock|md|txt|sql|proto|env|ini|cfg|conf|xml|html|css|tf|mod|sum)\b`)
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

// lazyRegexp compiles an expression when it is first used.
func lazyRegexp(re string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) })
}

// grounded reports whether the text names something concrete of a
// project or a tool: code, a path, a number, a flag, an environment
// variable, a file, a tool or a part of a project.
func (t *guardText) grounded() bool {
	return strings.ContainsAny(t.text, "`/$0123456789") || t.has(projectWords) || concrete().MatchString(t.text)
}

// riskyOrders are orders to do harm whatever project they name: destroy
// work, weaken checks, wave changes through, lie about results, run what
// a stranger serves, open the machine to others.
var riskyOrders = []instructionRule{
	rule("delete remove wipe erase purge destroy truncate drop rm",
		`\b(delete|remove|wipe|erase|purge|destroy|truncate|drop|rm -rf)\b.{0,30}\b(the |all |every )?(tests?|test suite|repo|repository|database|db|history|everything|all files|home|branches|\.git|production)\b`),
	rule("disable skip turn bypass comment remove delete",
		`\b(disable|skip|turn off|bypass|comment out|remove|delete)\s+((all|the|every|any|failing|unit|pre-commit|git|security)\s+)*(tests?|test suite|checks?|ci|hooks?|linters?|lint(ing)?|verification|code review|reviews?|2fa|mfa|branch protection|signing|scans?)\b`),
	rule("say answer report claim reply tell pretend",
		`\b(say|answer|report|claim|reply|tell \w+|pretend)\b.{0,30}\b(tests?|build|ci|checks?)\b.{0,15}\b(pass|passed|passes|succeeded|green|ok|fine)\b`),
	rule("verify force push", `--no-verify|\bforce[- ]push|\bpush\b.{0,30}(--force\b|-f\b)`),
	rule("approve merge accept lgtm",
		`\b(approve|merge|accept|lgtm)\b.{0,30}\b(every|all|any|each)\b.{0,20}\b(pull requests?|prs?|merge requests?|changes|commits)\b`),
	rule("curl wget", `\b(curl|wget)\b[^|\n]{0,120}\|\s*(sudo\s+)?(ba|z|da)?sh\b`),
	rule("backdoor authorized_keys chmod", `\bbackdoor\b|\bauthorized_keys\b|\bchmod\s+(-R\s+)?777\b`),
	rule("disable turn", `\b(disable|turn off)\b.{0,20}\b(firewall|selinux|antivirus|defender|sandbox)\b`),
}

var negation = rule("never not don't dont avoid no without", `\b(never|not|don't|dont|avoid|no|without)\b`)

// risky reports an order to do harm, not negated ("Never use
// --no-verify" warns against it).
func (t *guardText) risky() bool {
	for _, r := range riskyOrders {
		if !t.has(r.triggers) {
			continue
		}
		for _, loc := range r.re().FindAllStringIndex(t.text, -1) {
			before := t.text[:loc[0]]
			if k := strings.LastIndexAny(before, ".!?;:\n"); k >= 0 {
				before = before[k+1:]
			}
			if !negation.re().MatchString(before) {
				return true
			}
		}
	}
	return false
}
