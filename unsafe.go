package lore

import (
	"regexp"
	"strings"
	"sync"

	"github.com/lorehq/lore/internal/guard"
)

// unsafeRules are settings that open a machine or a repository to anyone,
// whatever project they are said of: TLS verification off, files anyone
// may write, a download piped into a shell, a force-push to the main
// branch, commit hooks skipped. Tool output and web pages suggest them
// ("needs 'curl … | bash' first", "set NODE_TLS_REJECT_UNAUTHORIZED=0"),
// and an agent handed one as a note would follow it.
var unsafeRules = func() []guard.Rule {
	const (
		off   = `\s*[=:]\s*['"]?`
		unset = off + `(0|false|no|off)\b`
	)
	var rules []guard.Rule
	for _, r := range []struct{ triggers, needs, re string }{
		// TLS verification off.
		{"node_tls_reject_unauthorized", "", `\bNODE_TLS_REJECT_UNAUTHORIZED\b(` + off + `|\s+(to|as)\s+['"]?)0\b`},
		{"git_ssl_no_verify", "", `\bGIT_SSL_NO_VERIFY\s*[=:]|\b(export|set|setx)\s+GIT_SSL_NO_VERIFY\b`},
		{"pythonhttpsverify", "", `\bPYTHONHTTPSVERIFY\b(` + off + `|\s+(to|as)\s+['"]?)0\b`},
		{"insecure", "", `(^|[\s'"(=])--insecure\b`},
		{"no check certificate tls", "", `--no-check-certificate\b|--skip-tls-verify\b|--tls-verify` + unset + `|--disable-tls\b`},
		{"curl", "", `\bcurl\b[^|\n;&]*\s-[a-zA-Z]*(?-i:k)[a-zA-Z]*\b`},
		{"verify", "", `\bverify\s*=\s*False\b`},
		{"sslverify ssl_verify ssl strict", "", `\bssl[_-]?verify\b\s*[=: ]\s*['"]?(0|false|no|off)\b|\bstrict-ssl\b\s*[=: ]\s*['"]?false\b`},
		{"rejectunauthorized insecureskipverify", "", `\brejectUnauthorized\b` + off + `false\b|\bInsecureSkipVerify\b` + off + `true\b`},
		// Files anyone may write.
		{"chmod", "", `\bchmod\s+(-[a-zA-Z]+\s+)*([0-7]?[0-7]{2}[2367]|[ugoa]*[ao][ugoa]*[+=][rwxXst]*w[rwxXst]*)\b`},
		// A download piped into a shell.
		{"curl wget fetch", "|", `\b(curl|wget|fetch)\b[^|\n]*\|\s*(sudo\s+(-\S+\s+)*)?(env\s+\S+\s+)?(ba|z|da|k|fi)?sh\b`},
		{"curl wget", "$( <(", `\b(ba|z)?sh\s+(-c\s+)?['"]?\$\(\s*(curl|wget)\b|\b(ba|z)?sh\s+<\(\s*(curl|wget)\b`},
		{"iex irm iwr invoke", "", `\biex\s*\(\s*(irm|iwr|invoke-restmethod|invoke-webrequest|new-object)\b|\b(irm|iwr|invoke-restmethod|invoke-webrequest)\b[^|\n]*\|\s*iex\b`},
		// Commit hooks skipped.
		{"verify", "", `--no-verify\b`},
		{"hookspath", "", `\bcore\.hookspath\b\s*[= ]\s*['"]?/dev/null\b`},
		{"husky", "", `\bHUSKY\b` + off + `0\b`},
		{"skip", "", `(^|[\s'"(])SKIP=\S`},
		{"commit", "", `\bgit\s+commit\b[^\n;|&]*\s-[a-zA-Z]*n[a-zA-Z]*\b`},
	} {
		rules = append(rules, guard.NewRuleNeeding(r.triggers, r.needs, r.re))
	}
	return rules
}()

// unsafeNegation is a clause warning against what follows it ("Never use
// --no-verify", "rather than --insecure"): knowledge, not advice to do it.
var unsafeNegation = lazyRegexp(`(?i)\b(never|not|don't|dont|do not|avoid|no|without|instead of|rather than|stop|unset|remove)\b`)

// A force-push to the main branch is read a clause at a time: one
// expression for "push … --force … main" in any order took 60 µs a note.
var (
	pushTriggers = []string{"push", "pushing", "pushes", "pushed", "forcepush"}
	forced       = lazyRegexp(`--force(-with-lease)?\b|\s-f\b|\s['"]?\+(refs/heads/)?(main|master)\b`)
	mainBranch   = lazyRegexp(`(?i)\b(main|master)\b`)
)

func lazyRegexp(re string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) })
}

// forcePush reports a push forced onto the main branch in t, not warned
// against: "git push --force origin main", "force-push to master".
func forcePush(t *guard.Text) bool {
	if !t.Has(pushTriggers) {
		return false
	}
	for i := 0; ; {
		j := strings.Index(t.Lower[i:], "push")
		if j < 0 {
			return false
		}
		at := i + j
		i = at + len("push")
		if at > 0 && isWordByte(t.Lower[at-1]) {
			continue // "pushed" is read at its start; "unpushed" is not a push
		}
		clause := t.Text[at:]
		if k := strings.IndexAny(clause, ";\n"); k >= 0 {
			clause = clause[:k]
		}
		start := at
		if b := strings.TrimRight(t.Lower[:at], " -"); strings.HasSuffix(b, "force") {
			start = len(b) - len("force")
		}
		if (start < at || forced().MatchString(clause)) && mainBranch().MatchString(clause) && !warned(t.Text[:start]) {
			return true
		}
	}
}

func isWordByte(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// Unsafe reports whether text hands out one of those settings, not
// warning against it. Such a text is never handed to a session as advice,
// whoever wrote it: harvest holds it back, and boot leaves it out.
func Unsafe(text string) bool { return unsafe(guard.Read(text)) }

// unsafe is Unsafe on a text read.
func unsafe(t *guard.Text) bool {
	for _, r := range unsafeRules {
		if !t.Reads(r) {
			continue
		}
		for _, loc := range r.Regexp().FindAllStringIndex(t.Text, -1) {
			if !warned(t.Text[:loc[0]]) {
				return true
			}
		}
	}
	return forcePush(t)
}

// warned reports whether the clause before a setting warns against it. A
// comma ends a clause too, so that "Don't worry, just set …" is not read
// as a warning.
func warned(before string) bool {
	if k := strings.LastIndexAny(before, ".!?;:,\n"); k >= 0 {
		before = before[k+1:]
	}
	return unsafeNegation().MatchString(before)
}
