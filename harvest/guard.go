package harvest

import (
	"regexp"
	"strings"
	"unicode"
)

// instructionRule is one shape of prompt injection, read only when the
// text holds one of its words.
type instructionRule struct {
	words []string
	re    *regexp.Regexp
}

// instructionRules are what prompt injection reads like: text that
// overrides an agent's instructions, gives it a new role, addresses the
// model itself, or asks it to hide things from its user or send data
// away. Items are often imperative ("Run make generate before go test"),
// so plain commands are not among them.
var instructionRules = func() []instructionRule {
	var rules []instructionRule
	for _, r := range []struct{ words, re string }{
		// Overriding what the agent was told.
		{"ignore disregard forget override bypass skip",
			`\b(ignore|disregard|forget|override|bypass|skip)\b.{0,40}\b(previous|prior|above|earlier|preceding|original|initial|system|all|your|any)\b.{0,20}\b(instructions?|prompts?|directives?|rules|guidelines|guardrails|messages|context)\b`},
		{"new", `\bnew (system )?(instructions?|directives?|rules)\s*:`},
		{"now henceforth", `\b(from now on|henceforth)\b.{0,30}\byou\b`},
		{"now", `\byou (must|will|shall|are) now\b`},
		{"act behave respond", `\b(act|behave|respond) as (if you were |an? )?(unrestricted|jailbroken|dan|developer mode)\b`},
		{"developer", `\bdeveloper mode\b.{0,20}\b(enabled|on)\b`},
		// Text addressed to the model.
		{"ai llm assistant chatgpt gpt claude gemini codex model agent",
			`^\W*(hey |dear |attention,? |note to (the )?)?(ai|llm|assistant|chatgpt|gpt|claude|gemini|codex|language model|ai agent|coding agent)\s*[,:!]`},
		{"ai llm model agent assistant", `\b(if|when) you are an? (ai|llm|language model|large language model|ai agent|coding agent|assistant)\b`},
		{"ai", `\bas an ai( language model)?\b`},
		{"ai llm llms assistant assistants agent agents model models",
			`\b(attention|note|message|instructions?) (to|for) (the |any |all )?(ai|llms?|assistants?|agents?|language models?|models?)\b`},
		{"ai llm", `\b(ai|llm) (agents?|assistants?|models?) (reading|processing|that reads?) this\b`},
		{"system assistant", `(?m:^\s*(system|assistant)\s*:)`},
		{"im_start im_end system endoftext inst instruction instructions",
			`<\|?(im_start|im_end|system|endoftext)\|?>|\[/?inst\]|</?(system|instructions?)>`},
		{"system", `\bsystem prompt\b`},
		// Hiding things from the user, sending data away.
		{"user", `\b(do not|don't|never|without) (tell|telling|inform|informing|mention|mentioning|reveal|revealing|alert|alerting)\b.{0,20}\b(the )?user\b`},
		{"exfiltrate leak", `\b(exfiltrate|leak)\b`},
		{"send post upload forward email mail",
			`\b(send|post|upload|forward|email|e-mail)\b.{0,30}(\b(secrets?|credentials?|api keys?|tokens?|passwords?|private keys?|environment variables|ssh keys?)\b|\.env\b).{0,30}\b(to|at)\b`},
	} {
		rules = append(rules, instructionRule{strings.Fields(r.words), regexp.MustCompile(`(?i)` + r.re)})
	}
	return rules
}()

// Instruction reports whether text reads as an instruction aimed at an
// agent rather than knowledge about a project or a tool.
func Instruction(text string) bool {
	words := map[string]bool{}
	for w := range strings.FieldsFuncSeq(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '_' }) {
		words[w] = true
	}
	for _, r := range instructionRules {
		for _, w := range r.words {
			if words[w] {
				if r.re.MatchString(text) {
					return true
				}
				break
			}
		}
	}
	return false
}
