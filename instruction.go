package lore

import (
	"strings"

	"github.com/lorehq/lore/internal/guard"
)

// instructionRules are what prompt injection reads like: text that
// overrides an agent's instructions, gives it a new role, addresses the
// model itself, speaks with a system's or an operator's authority, asks
// it to hide things from its user, or to send secrets away. Items are
// often imperative ("Run make generate before go test"), so plain
// commands are not among them: harvest holds those back.
var instructionRules = func() []guard.Rule {
	const (
		override  = `(ignore|disregard|forget|override|bypass|skip|neglect|discard|abandon)`
		orders    = `(instructions?|prompts?|directives?|rules|guidelines|guardrails|orders|commands|constraints|restrictions|programming|safeguards|policies|context)`
		machine   = `(ai|llms?|language models?|ai models?|models?|ai agents?|coding agents?|agents?|ai assistants?|assistants?|bots?|chatbots?|claude|chatgpt|gpt|gemini|codex|copilot)`
		people    = `(the |your |a |any )?(user|users|human|humans|operator|developer|owner|maintainers?|person|people|anyone|reviewers?)\b`
		sensitive = `(~/\.ssh|\.ssh/|\bid_(rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|~/\.aws|\.aws/credentials|\.env\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials|\bkubeconfig\b|/etc/(passwd|shadow)\b|\.kube/config|\bkeychain\b|\bwallet\b)`
		secretish = `\b(secrets?|credentials?|api[ _-]?keys?|access keys?|tokens?|passwords?|private keys?|ssh keys?|session cookies?|cookies|environment variables|env vars)\b`
		// sensitiveNeeds hold what every match of sensitive holds, in
		// lower case, as its literals tell (.n(etrc|pmrc)): a rule that
		// needs sensitive is read only on a text holding one
		// (guard.Rule.Needs).
		sensitiveNeeds = "ssh id_ authorized_keys aws env etrc pmrc pypirc credentials kubeconfig /etc/ kube keychain wallet"
		away           = `(https?://|\S+@\S+\.\w|\bpastebin\b|\bgist\b|\bwebhook\b|\bngrok\b|\brequestbin\b|\bdiscord\b|\btelegram\b|\b(this|that|the following|my|our|an? (external|remote|public)) (url|address|server|endpoint|host|site|channel|e-?mail)\b|\b[a-z0-9-]+\.(com|net|org|io|xyz|ru|cn|top|site|info)\b)`
	)
	var rules []guard.Rule
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
		if strings.Contains(r.re, sensitive) {
			rules = append(rules, guard.NewRuleNeeding(r.triggers, sensitiveNeeds, r.re))
			continue
		}
		rules = append(rules, guard.NewRule(r.triggers, r.re))
	}
	return rules
}()

// standingRules are the shape of a standing order to an agent: "from now
// on … you", "henceforth, always …". From a stranger it is an injection;
// from the agent's own user it is a preference, the words a person uses
// to set how their agent works (UserInstruction).
var standingRules = []guard.Rule{
	guard.NewRule("now henceforth point forward", `\b(from now on|henceforth|from this point( on)?|going forward)\b.{0,80}\b(you|your)\b|\b(from now on|henceforth),? (always|never|only|ignore|forget|do not|don't)\b`),
}

// Instruction reports whether text reads as an instruction aimed at an
// agent rather than knowledge about a project or a tool. Such a text is
// never stored as an item, whoever offers it (a harvested session, an
// agent recording what it learned): items are handed to later sessions,
// and must not become a way to give them orders. The text is read as it
// looks, not as it is spelled (guard.Fold): fullwidth letters, zero-width
// characters or a Cyrillic о do not hide an order.
func Instruction(text string) bool {
	t := guard.Read(text)
	if _, ok := t.First(instructionRules); ok {
		return true
	}
	_, ok := t.First(standingRules)
	return ok
}

// UserInstruction is Instruction for text that quotes what the user typed
// to their own agent ("The user said: …"), checked by the caller to be the
// user's message and not a tool's output, a file or a web page: a
// standing preference ("from now on, always run make check before you
// commit") is what a person tells their agent, and passes. Every other
// shape is refused as Instruction refuses it, the user's words or not:
// they are handed to later sessions, and an order to ignore
// instructions, to hide things from the user or to send secrets away is
// no preference.
func UserInstruction(text string) bool {
	_, ok := guard.Read(text).First(instructionRules)
	return ok
}
