package redact

import (
	"math"
	"slices"
	"strings"
)

// Kinds of finding, as they appear in markers and in Count's map.
const (
	KindPrivateKey    = "private-key"
	KindAWSAccessKey  = "aws-access-key"
	KindGitHubToken   = "github-token"
	KindGitLabToken   = "gitlab-token"
	KindSlackToken    = "slack-token"
	KindSlackWebhook  = "slack-webhook"
	KindStripeKey     = "stripe-key"
	KindAnthropicKey  = "anthropic-key"
	KindOpenAIKey     = "openai-key"
	KindGoogleAPIKey  = "google-api-key"
	KindNPMToken      = "npm-token"
	KindHFToken       = "huggingface-token"
	KindVaultToken    = "vault-token"
	KindDopplerToken  = "doppler-token"
	KindShopifyToken  = "shopify-token"
	KindPyPIToken     = "pypi-token"
	KindTelegramToken = "telegram-token"
	KindDiscordHook   = "discord-webhook"
	KindDigitalOcean  = "digitalocean-token"
	KindGrafanaToken  = "grafana-token"
	KindLoreToken     = "lore-token"
	KindJWT           = "jwt"
	KindAWSSecretKey  = "aws-secret-key"
	KindURLPassword   = "url-password"
	KindAuthorization = "authorization"
	KindPassword      = "password"
	KindSecret        = "secret"
	KindHighEntropy   = "high-entropy"
	KindEmail         = "email"
)

// kind indexes kindNames; when findings overlap, the lower kind names the
// merged marker, so the most specific detector wins.
type kind uint8

const (
	privateKey kind = iota
	awsAccessKey
	githubToken
	gitlabToken
	slackToken
	slackWebhook
	stripeKey
	anthropicKey
	openAIKey
	googleAPIKey
	npmToken
	hfToken
	vaultToken
	dopplerToken
	shopifyToken
	pypiToken
	telegramToken
	discordHook
	digitalOcean
	grafanaToken
	loreToken
	jwt
	awsSecretKey
	urlPassword
	authorization
	password
	secret
	highEntropy
	email
)

var kindNames = [...]string{
	privateKey:    KindPrivateKey,
	awsAccessKey:  KindAWSAccessKey,
	githubToken:   KindGitHubToken,
	gitlabToken:   KindGitLabToken,
	slackToken:    KindSlackToken,
	slackWebhook:  KindSlackWebhook,
	stripeKey:     KindStripeKey,
	anthropicKey:  KindAnthropicKey,
	openAIKey:     KindOpenAIKey,
	googleAPIKey:  KindGoogleAPIKey,
	npmToken:      KindNPMToken,
	hfToken:       KindHFToken,
	vaultToken:    KindVaultToken,
	dopplerToken:  KindDopplerToken,
	shopifyToken:  KindShopifyToken,
	pypiToken:     KindPyPIToken,
	telegramToken: KindTelegramToken,
	discordHook:   KindDiscordHook,
	digitalOcean:  KindDigitalOcean,
	grafanaToken:  KindGrafanaToken,
	loreToken:     KindLoreToken,
	jwt:           KindJWT,
	awsSecretKey:  KindAWSSecretKey,
	urlPassword:   KindURLPassword,
	authorization: KindAuthorization,
	password:      KindPassword,
	secret:        KindSecret,
	highEntropy:   KindHighEntropy,
	email:         KindEmail,
}

const markerPrefix = "[REDACTED:"

// MarkerPrefix begins every marker: "[REDACTED:github-token]".
const MarkerPrefix = markerPrefix

// Redactor replaces secrets in text with a marker naming their kind, e.g.
// "[REDACTED:aws-access-key]". It holds no mutable state.
type Redactor struct{}

// New returns a Redactor; it is safe for concurrent use.
func New() *Redactor { return &Redactor{} }

// String returns s with every finding replaced by its marker, or s itself,
// unallocated, when nothing matched.
func (r *Redactor) String(s string) string {
	out, _ := r.redact(s, false)
	return out
}

// Count is String that also says how many findings of each kind it
// replaced. The map is nil when nothing was replaced.
func (r *Redactor) Count(s string) (string, map[string]int) {
	return r.redact(s, true)
}

// maxPasses bounds the passes of redact. Each pass that changes the text
// removes bytes outside markers, so the passes end; two are the rule.
const maxPasses = 8

// redact runs passes until one finds nothing. A finding can change the
// context of its neighbours (a token that looked like a word before a
// name, a value that looked like code), so a second pass over the result
// may find what the first could not; iterating makes String idempotent by
// construction and never leaves such a value behind.
func (r *Redactor) redact(s string, count bool) (string, map[string]int) {
	var n map[string]int
	for range maxPasses {
		ms := find(s)
		if len(ms) == 0 {
			break
		}
		if count && n == nil {
			n = make(map[string]int)
		}
		s = replace(s, merge(ms), n)
	}
	return s, n
}

// replace puts a marker in place of each finding, counting them in n when
// it is not nil.
func replace(s string, ms []match, n map[string]int) string {
	var b strings.Builder
	b.Grow(len(s) + 16*len(ms))
	last := 0
	for _, m := range ms {
		name := kindNames[m.kind]
		b.WriteString(s[last:m.start])
		b.WriteString(markerPrefix)
		b.WriteString(name)
		b.WriteByte(']')
		last = m.end
		if n != nil {
			n[name]++
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// match is one finding: s[start:end] is replaced.
type match struct {
	start, end int
	kind       kind
}

// merge sorts findings and joins overlapping ones, so that a value found
// both as an assignment and as a provider token is replaced once, whole.
func merge(ms []match) []match {
	slices.SortFunc(ms, func(a, b match) int { return a.start - b.start })
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.start < last.end {
			last.end = max(last.end, m.end)
			last.kind = min(last.kind, m.kind)
			continue
		}
		out = append(out, m)
	}
	return out
}

// Byte classes of the scan. Everything else is skipped at the cost of one
// table load, which is what keeps clean text fast.
const (
	clNone  = iota
	clStart // may begin a token, a JWT, a PEM block, a --flag or "Bearer"
	clAt
	clEq
	clColon
	clBlank // may follow a secret-like name whose value comes after a space
)

var byteClass = func() (t [256]uint8) {
	for _, c := range []byte("Agxsrwnehdpl-B") {
		t[c] = clStart
	}
	t['@'] = clAt
	t['='] = clEq
	t[':'] = clColon
	t[' '] = clBlank
	return t
}()

// nameEnd holds the last letters of secret-like names (token, secret,
// key, password, pwd, auth, credential, and their plurals): a blank after
// any other byte starts no value.
var nameEnd = set("nNtTyYdDhHlLsS")

// pairSet holds pairs of bytes.
type pairSet [256][4]uint64

func (p *pairSet) add(a, b byte)      { p[a][b>>6] |= 1 << (b & 63) }
func (p *pairSet) has(a, b byte) bool { return p[a][b>>6]&(1<<(b&63)) != 0 }

// startPairs are the first two bytes of everything atStart finds, so that
// most words are passed over after two loads.
var startPairs = func() *pairSet {
	var p pairSet
	for _, r := range prefixRules {
		for _, r := range r {
			p.add(r.prefix[0], r.prefix[1])
		}
	}
	for _, s := range []string{"ey", "ec", "ho", "Be", "BE", "be"} {
		p.add(s[0], s[1])
	}
	// Flags: --name, and short ones joined (curl -fu, -uUSER, -p, -a).
	for _, c := range []byte("-" + upper + lower) {
		p.add('-', c)
	}
	return &p
}()

// find is one pass over s. Each interesting byte hands over to the
// detectors that own it, which look a bounded distance around it.
func find(s string) []match {
	var ms []match
	covered := 0 // end of the last assigned value
	cookie := -1 // where the last Cookie: header of this line was seen
	for i := 0; i < len(s); i++ {
		switch byteClass[s[i]] {
		case clNone:
			continue
		case clStart:
			if !wordStart(s, i) || i+1 < len(s) && !startPairs.has(s[i], s[i+1]) {
				continue
			}
			m, ok, next := atStart(s, i)
			if ok {
				ms = append(ms, m)
			}
			i = next - 1
		case clAt:
			if m, ok, next := at(s, i); ok {
				ms = append(ms, m)
				i = next - 1
			}
		case clEq, clColon:
			// A separator inside a value already found is part of it.
			if i < covered {
				continue
			}
			if s[i] == ':' {
				if m, ok := colonToken(s, i); ok {
					ms = append(ms, m)
					covered = m.end
					continue
				}
			}
			if s[i] == ':' && i >= 6 && strings.EqualFold(s[i-6:i], "cookie") {
				cookie = i // Cookie:, Set-Cookie:
			}
			if s[i] == '=' && cookieFlag(s, i) {
				cookie = i // curl -b 'name=value; …', --cookie
				if m, ok := cookieValue(s, i+1); ok {
					ms = append(ms, m)
					covered = m.end
				}
				continue
			}
			if m, ok := assignment(s, i, &cookie); ok {
				ms = append(ms, m)
				covered = m.end
			}
		case clBlank:
			if i < covered || i == 0 || !nameEnd[s[i-1]] || i+1 == len(s) || !alnumSet[s[i+1]] {
				continue
			}
			if m, ok := prosePasswordAt(s, i); ok {
				ms = append(ms, m)
				covered = m.end
				continue
			}
			if m, ok := spacedValue(s, i); ok {
				ms = append(ms, m)
				covered = m.end
			}
		}
	}
	return ms
}

// Character sets.
const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
)

type charset [256]bool

func set(chars string) *charset {
	var t charset
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return &t
}

var (
	alnumSet   = set(alnum)
	upperDigit = set(upper + digits)
	alnumUnder = set(alnum + "_")
	b64url     = set(alnum + "_-")
	b64std     = set(alnum + "+/")
	gitlabBody = set(alnum + "_-.")
	slackBody  = set(alnum + "-")
	hookBody   = set(alnum + "_-/")
	tokenChars = set(alnum + "+/=_.~-")
	keyChars   = set(alnum + "_.-")
	localChars = set(alnum + "._%+-")
	hostChars  = set(alnum + ".-")
	upperBlank = set(upper + " ")
	base64Std  = set(alnum + "+/=")
	digitDot   = set(digits + ".")
	hexChars   = set(digits + "abcdefABCDEF")
	b32Lower   = set(lower + "234567")
	letters    = set(upper + lower)
	digitSet   = set(digits)
	// userinfo holds what may sit between "://" and "@", placeholders included.
	userinfo = set(alnum + "-._~%!$&'()*+,;=:{}")
	// valueEnd ends an unquoted value: whitespace, quotes, a JSON escape, a
	// query separator.
	valueEnd = set(" \t\r\n\"'`\\&")
	// lineEnd ends a header value.
	lineEnd = set("\r\n\"'`\\")
)

// run returns the end of the run of bytes in cs that starts at i.
func run(s string, i int, cs *charset) int {
	for i < len(s) && cs[s[i]] {
		i++
	}
	return i
}

// runMax is run stopped after n bytes. Detectors that may start inside
// the run of an earlier one use it, so that no text costs more than linear
// time however it repeats itself.
func runMax(s string, i int, cs *charset, n int) int {
	e := run(s[:min(len(s), i+n)], i, cs)
	for e > i && e < len(s) && s[e]&0xC0 == 0x80 {
		e-- // stopped inside a UTF-8 sequence: leave all of it
	}
	return e
}

// Bounds of runMax.
const (
	maxToken = 1024     // provider tokens are under 256 bytes
	maxJWT   = 16 << 10 // per segment
	maxName  = 64       // a --flag name
	maxValue = 1024     // an assigned value
)

// wordStart reports whether s[i] begins a word: the byte before it is not
// a letter or digit, or is the n, t or r of a JSON escape such as \n.
func wordStart(s string, i int) bool {
	if i == 0 || !alnumSet[s[i-1]] {
		return true
	}
	return escapeAt(s, i-1)
}

// escapeAt reports whether s[j] is the letter of a \n, \t or \r escape.
func escapeAt(s string, j int) bool {
	c := s[j]
	return (c == 'n' || c == 't' || c == 'r') && j > 0 && s[j-1] == '\\'
}

// prefixRule is a provider token: a fixed prefix and a body.
type prefixRule struct {
	prefix   string
	kind     kind
	body     *charset
	min, max int  // body length; max 0 is unbounded
	mixed    bool // body must hold a digit or a capital, to pass over slugs
}

// prefixRules is indexed by the first byte of the prefix; longer prefixes
// come first.
var prefixRules = func() (t [256][]prefixRule) {
	for _, r := range []prefixRule{
		{"AKIA", awsAccessKey, upperDigit, 16, 16, false},
		{"ASIA", awsAccessKey, upperDigit, 16, 16, false},
		{"ABIA", awsAccessKey, upperDigit, 16, 16, false},
		{"ACCA", awsAccessKey, upperDigit, 16, 16, false},
		{"AIza", googleAPIKey, b64url, 35, 35, false},
		{"github_pat_", githubToken, alnumUnder, 22, 0, false},
		{"ghp_", githubToken, alnumSet, 30, 0, false},
		{"gho_", githubToken, alnumSet, 30, 0, false},
		{"ghu_", githubToken, alnumSet, 30, 0, false},
		{"ghs_", githubToken, alnumSet, 30, 0, false},
		{"ghr_", githubToken, alnumSet, 30, 0, false},
		{"glptt-", gitlabToken, gitlabBody, 20, 0, false},
		{"glpat-", gitlabToken, gitlabBody, 20, 0, false},
		{"glrt-", gitlabToken, gitlabBody, 20, 0, false},
		{"gldt-", gitlabToken, gitlabBody, 20, 0, false},
		{"xoxb-", slackToken, slackBody, 10, 0, false},
		{"xoxp-", slackToken, slackBody, 10, 0, false},
		{"xoxa-", slackToken, slackBody, 10, 0, false},
		{"xoxr-", slackToken, slackBody, 10, 0, false},
		{"xoxs-", slackToken, slackBody, 10, 0, false},
		{"xoxe-", slackToken, slackBody, 10, 0, false},
		{"sk_live_", stripeKey, alnumSet, 10, 0, false},
		{"sk_test_", stripeKey, alnumSet, 10, 0, false},
		{"sk-ant-", anthropicKey, b64url, 20, 0, false},
		{"sk-", openAIKey, b64url, 20, 0, true},
		{"rk_live_", stripeKey, alnumSet, 10, 0, false},
		{"rk_test_", stripeKey, alnumSet, 10, 0, false},
		{"whsec_", stripeKey, alnumSet, 20, 0, false},
		{"npm_", npmToken, alnumSet, 30, 0, false},
		{"hf_", hfToken, alnumSet, 34, 0, false},
		{"hvs.", vaultToken, b64url, 24, 0, true},
		{"hvb.", vaultToken, b64url, 24, 0, true},
		{"hvr.", vaultToken, b64url, 24, 0, true},
		{"dp.st.", dopplerToken, gitlabBody, 40, 0, true},
		{"dp.ct.", dopplerToken, gitlabBody, 40, 0, true},
		{"dp.pt.", dopplerToken, gitlabBody, 40, 0, true},
		{"dp.sa.", dopplerToken, gitlabBody, 40, 0, true},
		{"shpat_", shopifyToken, hexChars, 32, 32, false},
		{"shpss_", shopifyToken, hexChars, 32, 32, false},
		{"shpca_", shopifyToken, hexChars, 32, 32, false},
		{"shppa_", shopifyToken, hexChars, 32, 32, false},
		{"pypi-", pypiToken, b64url, 50, 0, true},
		{"dop_v1_", digitalOcean, hexChars, 64, 64, false},
		{"doo_v1_", digitalOcean, hexChars, 64, 64, false},
		{"dor_v1_", digitalOcean, hexChars, 64, 64, false},
		{"glc_", grafanaToken, b64std, 32, 0, true},
		{"glsa_", grafanaToken, alnumUnder, 32, 0, true},
		// lore serve's bearer tokens (lore.NewToken): 32 bytes in
		// unpadded lower-case base32.
		{"lore_", loreToken, b32Lower, 52, 52, false},
	} {
		t[r.prefix[0]] = append(t[r.prefix[0]], r)
	}
	return t
}()

// atStart runs the detectors that begin at a word start. next is where the
// scan goes on: past a finding that holds nothing another detector could
// name better, and past a run that no token can start inside.
func atStart(s string, i int) (m match, ok bool, next int) {
	rest := s[i:]
	for _, r := range prefixRules[s[i]] {
		if !strings.HasPrefix(rest, r.prefix) {
			continue
		}
		b := i + len(r.prefix)
		e := runMax(s, b, r.body, maxToken+1)
		switch n := e - b; {
		case n > maxToken:
			return match{}, false, e // a blob, not a token
		case n < r.min || (r.max > 0 && n > r.max) || (e < len(s) && alnumSet[s[e]]):
			return match{}, false, i + 1
		case r.mixed && !hasDigitOrUpper(s[b:e]):
			return match{}, false, i + 1
		}
		return match{i, e, r.kind}, true, e
	}
	switch s[i] {
	case 'e':
		if m, ok := echoBase64At(s, i); ok {
			return m, true, i + 1
		}
		m, ok, next := jwtAt(s, i)
		return m, ok, next
	case 'h':
		if m, ok := slackHookAt(s, i); ok {
			return m, true, m.end
		}
	case 'B', 'b':
		if m, ok := bearerAt(s, i); ok {
			return m, true, i + 1
		}
	case '-':
		if strings.HasPrefix(rest, "-----BEGIN ") {
			if m, ok := pemAt(s, i); ok {
				return m, true, m.end
			}
			return match{}, false, i + 1
		}
		if m, ok := flagAt(s, i); ok {
			return m, true, i + 1
		}
		if m, ok := userFlagAt(s, i); ok {
			return m, true, i + 1
		}
		if m, ok := passArgAt(s, i); ok {
			return m, true, i + 1
		}
		if m, ok := redisAuthAt(s, i); ok {
			return m, true, i + 1
		}
		if m, ok := passwordFlagAt(s, i); ok {
			return m, true, i + 1
		}
	}
	return match{}, false, i + 1
}

func hasDigitOrUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// jwtAt finds header.payload.signature with a JSON header ("eyJ" is "{\"").
// An unsigned token keeps its final dot and an empty signature. When the
// header is not followed by a dot, no JWT starts inside it either, and next
// skips it.
func jwtAt(s string, i int) (m match, ok bool, next int) {
	if !strings.HasPrefix(s[i:], "eyJ") {
		return match{}, false, i + 1
	}
	e := runMax(s, i, b64url, maxJWT)
	if e >= len(s) || s[e] != '.' {
		return match{}, false, e
	}
	if e-i < 10 {
		return match{}, false, i + 1
	}
	p := e + 1
	e = runMax(s, p, b64url, maxJWT)
	if e-p < 3 || e >= len(s) || s[e] != '.' {
		return match{}, false, i + 1
	}
	e = runMax(s, e+1, b64url, maxJWT)
	return match{i, e, jwt}, true, e
}

// slackHookAt finds the secret path of a Slack incoming-webhook URL.
func slackHookAt(s string, i int) (match, bool) {
	const host = "hooks.slack.com/"
	if !strings.HasPrefix(s[i:], host) {
		return match{}, false
	}
	p := i + len(host)
	for _, dir := range []string{"services/", "workflows/", "triggers/"} {
		if strings.HasPrefix(s[p:], dir) {
			b := p + len(dir)
			e := runMax(s, b, hookBody, maxToken)
			if e-b < 10 {
				return match{}, false
			}
			return match{b, e, slackWebhook}, true
		}
	}
	return match{}, false
}

// bearerAt finds "Bearer <token>" anywhere, not only in a header.
func bearerAt(s string, i int) (match, bool) {
	const word = "bearer "
	if len(s)-i < len(word)+16 || !strings.EqualFold(s[i:i+len(word)], word) {
		return match{}, false
	}
	b := i + len(word)
	e := runMax(s, b, tokenChars, maxToken)
	v := s[b:e]
	if len(v) < 16 || !hasDigitOrUpper(v) || nonValue(v) || codeValue(v, "") {
		return match{}, false // "Bearer authentication", "Bearer accessToken"
	}
	return match{b, e, authorization}, true
}

// pemAt finds a PEM private key block, from BEGIN through END, reading
// it line by line (lines end in a newline or in a JSON \n): base64 lines,
// blank lines and headers such as "Proc-Type: 4,ENCRYPTED" belong to it.
// When END is missing, as in a cut-off tool output, the block ends with
// its last base64; a BEGIN line with no base64 after it is code that
// handles keys, not a key.
func pemAt(s string, i int) (match, bool) {
	const begin, end = "-----BEGIN ", "-----END "
	lb := i + len(begin)
	le := runMax(s, lb, upperBlank, 64)
	label := s[lb:le]
	if !strings.HasPrefix(s[le:], "-----") || !strings.Contains(label, "PRIVATE KEY") {
		return match{}, false
	}
	k := le + len("-----")
	last := -1 // end of the last base64 seen
	limit := min(len(s), k+maxPEM)
	for k < limit {
		ls, lineEnd, next := pemLine(s, k, limit)
		line := s[ls:lineEnd]
		switch n := run(line, 0, base64Std); {
		case strings.HasPrefix(line, end):
			e := ls + len(end) + len(label)
			if !strings.HasPrefix(s[ls+len(end):], label) || !strings.HasPrefix(s[e:], "-----") {
				k = limit // not an END line: the block is cut off here
				continue
			}
			return match{i, e + len("-----"), privateKey}, true
		case n == len(line):
			if n > 0 {
				last = lineEnd
			}
		case strings.Contains(line, ": ") && last < 0:
			// a header
		default:
			if n >= 16 {
				last = ls + n // a line cut off in the middle
			}
			k = limit
			continue
		}
		k = next
	}
	if last < 0 {
		return match{}, false
	}
	return match{i, last, privateKey}, true
}

// maxPEM bounds the search for the end of a PEM block; the largest keys
// (RSA 8192, PGP with subkeys) are well under it.
const maxPEM = 64 << 10

// pemLine returns the line that starts at k without its leading blanks and
// trailing carriage return, and where the next line starts.
func pemLine(s string, k, limit int) (start, end, next int) {
	for k < limit && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	start = k
	for k < limit {
		if s[k] == '\n' {
			next = k + 1
			break
		}
		if s[k] == '\\' {
			// \n, or \\n in JSON inside a JSON string, and so on.
			j := k + 1
			for j < limit && j-k < 8 && s[j] == '\\' {
				j++
			}
			if j < limit && s[j] == 'n' {
				next = j + 1
				break
			}
		}
		k++
	}
	if k == limit {
		next = limit
	}
	end = k
	if end > start && s[end-1] == '\r' {
		end--
	} else if end-1 > start && s[end-2] == '\\' && s[end-1] == 'r' {
		end -= 2
	}
	return start, end, next
}

// flagAt finds "--password value" on a command line; "--password=value" is
// an assignment.
func flagAt(s string, i int) (match, bool) {
	if i+2 >= len(s) || s[i+1] != '-' || (i > 0 && s[i-1] == '-') {
		return match{}, false
	}
	ne := runMax(s, i+2, keyChars, maxName)
	if ne == i+2 || ne+1 >= len(s) || s[ne] != ' ' || s[ne+1] == '-' {
		return match{}, false
	}
	k, st := classify(s[i+2 : ne])
	if st != strong {
		return match{}, false
	}
	v, ok := valueAfter(s, ne+1, false)
	if !ok || nonValue(s[v.start:v.end]) || (!v.quoted && codeValue(s[v.start:v.end], s[i+2:ne])) {
		return match{}, false
	}
	return match{v.start, v.end, k}, true
}

// userFlagAt finds the password of curl's -u user:password and
// --user user:password.
func userFlagAt(s string, i int) (match, bool) {
	var p int
	switch {
	case strings.HasPrefix(s[i:], "-u "):
		p = i + len("-u ")
	case strings.HasPrefix(s[i:], "--user "):
		p = i + len("--user ")
	default:
		// curl -fu user:pw, -sSfu user:pw, -uuser:pw: short flags joined,
		// or the value joined to the flag.
		e := runMax(s, i+1, letters, 16)
		u := strings.IndexByte(s[i+1:e], 'u')
		if u < 0 || i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
			return match{}, false
		}
		p = i + 1 + u + 1
	}
	v, ok := valueAfter(s, p, false)
	if !ok {
		return match{}, false
	}
	c := strings.IndexByte(s[v.start:v.end], ':')
	if c < 0 || nonValue(s[v.start+c+1:v.end]) {
		return match{}, false
	}
	if s[i+1] != '-' && !strings.HasPrefix(s[i:], "-u ") && !curlCommand(commandBefore(s, i)) {
		return match{}, false // joined flags: curl's only
	}
	return match{v.start + c + 1, v.end, password}, true
}

// passwordFlagAt finds the password of -p where the command takes one
// there: mysql -pSECRET (and mysqldump, mariadb …; a bare -p asks for
// it), sshpass -p SECRET, and docker login -p SECRET (podman, nerdctl,
// buildah, skopeo, helm registry login). Elsewhere -p is a port, a path
// or a patch.
func passwordFlagAt(s string, i int) (match, bool) {
	if !strings.HasPrefix(s[i:], "-p") || i+2 >= len(s) || (i > 0 && s[i-1] != ' ' && s[i-1] != '\t') {
		return match{}, false
	}
	cmd := commandBefore(s, i)
	p := i + 2
	switch {
	case s[p] != ' ' && s[p] != '\t':
		if !mysqlCommand(cmd) && !strings.Contains(cmd, "sshpass") {
			return match{}, false
		}
	case strings.Contains(cmd, "sshpass") || passwordLogin(cmd):
		p++
	default:
		return match{}, false
	}
	if p >= len(s) || s[p] == '-' {
		return match{}, false
	}
	v, ok := valueAfter(s, p, false)
	if !ok || nonValue(s[v.start:v.end]) {
		return match{}, false
	}
	return match{v.start, v.end, password}, true
}

// commandBefore returns the command that s[i] is part of, up to i: from
// the start of its line, or of its part of a pipeline or list, at most
// 256 bytes back.
func commandBefore(s string, i int) string {
	j := max(0, i-256)
	seg := s[j:i]
	if k := strings.LastIndexAny(seg, "\n;|&(`"); k >= 0 {
		seg = seg[k+1:]
	}
	if k := strings.LastIndex(seg, `\n`); k >= 0 {
		seg = seg[k+2:]
	}
	return seg
}

// mysqlCommand reports a MySQL or MariaDB client, which reads -pPASSWORD.
func mysqlCommand(cmd string) bool {
	for _, w := range strings.Fields(cmd) {
		w = w[strings.LastIndexAny(w, `/"'=:{`)+1:]
		if strings.HasPrefix(w, "mysql") || strings.HasPrefix(w, "mariadb") {
			return true
		}
	}
	return false
}

// passwordLogin reports a registry login, which reads -p PASSWORD.
func passwordLogin(cmd string) bool {
	f := strings.Fields(cmd)
	for k := 1; k < len(f); k++ {
		if f[k] != "login" {
			continue
		}
		switch tool := f[k-1][strings.LastIndexAny(f[k-1], `/"'=:{`)+1:]; tool {
		case "docker", "podman", "nerdctl", "buildah", "skopeo", "registry", "finch":
			return true
		}
	}
	return false
}

// at handles an '@': the userinfo of a URL (whose password is a finding
// and whose user is not an e-mail address), or else an e-mail address.
// next is where the scan goes on.
func at(s string, a int) (m match, ok bool, next int) {
	if j, ok := userinfoStart(s, a); ok {
		if m, ok := urlPasswordAt(s, j, a); ok {
			return m, true, m.end + 1 // past the '@' before the host
		}
		return match{}, false, a + 1
	}
	if m, ok := emailAt(s, a); ok {
		return m, true, m.end
	}
	return match{}, false, a + 1
}

// userinfoStart returns where the userinfo that ends at the '@' at a
// starts, when it follows a scheme's "://". It reads markers as part of
// the userinfo, as it read the tokens they replaced.
func userinfoStart(s string, a int) (int, bool) {
	j := a
	for j > 0 {
		if userinfo[s[j-1]] && !escapeAt(s, j-1) {
			j--
			continue
		}
		k := markerBefore(s, j)
		if k == j {
			break
		}
		j = k
	}
	return j, j >= 4 && s[j-3:j] == "://" && (alnumSet[s[j-4]] || markerBefore(s, j-3) < j-3)
}

// markerBefore returns where the marker that ends s[:j] starts, or j.
func markerBefore(s string, j int) int {
	if j == 0 || s[j-1] != ']' {
		return j
	}
	k := strings.LastIndex(s[max(0, j-len(markerPrefix)-32):j], markerPrefix)
	if k < 0 {
		return j
	}
	k += max(0, j-len(markerPrefix)-32)
	for _, c := range []byte(s[k+len(markerPrefix) : j-1]) {
		if !isLowerByte(c) && c != '-' {
			return j
		}
	}
	return k
}

// urlPasswordAt finds the password of scheme://user:password@host, the
// userinfo being s[j:a].
func urlPasswordAt(s string, j, a int) (match, bool) {
	c := j
	for c < a && s[c] != ':' {
		if s[c] == '[' && strings.HasPrefix(s[c:], markerPrefix) {
			c += len(markerPrefix) // the ':' of a marker divides nothing
		}
		c++
	}
	if c == a {
		return match{}, false
	}
	// An unescaped '@' in the password: the host follows the last '@'.
	e := a
	for k := a + 1; k < len(s) && k-a < 512; k++ {
		if s[k] == '@' {
			e = k
			continue
		}
		if !userinfo[s[k]] {
			break
		}
	}
	b := c + 1
	if nonValue(s[b:e]) {
		return match{}, false
	}
	return match{b, e, urlPassword}, true
}

// emailAt finds local@domain.tld around the '@' at a.
func emailAt(s string, a int) (match, bool) {
	j := a
	for j > 0 && localChars[s[j-1]] && !escapeAt(s, j-1) {
		if a-j == 64 {
			return match{}, false // longer than a local part may be
		}
		j--
	}
	for j < a && (s[j] == '.' || s[j] == '-' || s[j] == '+') {
		j++
	}
	if j == a {
		return match{}, false
	}
	e := runMax(s, a+1, hostChars, 255)
	for e > a+1 && (s[e-1] == '.' || s[e-1] == '-') {
		e--
	}
	domain := s[a+1 : e]
	dot := strings.LastIndexByte(domain, '.')
	if dot <= 0 || strings.Contains(domain, "..") || domain[0] == '-' || domain[0] == '.' {
		return match{}, false
	}
	tld := domain[dot+1:]
	if len(tld) < 2 || !onlyLetters(tld) || fileExt(tld) || (strings.ToLower(tld) != tld && strings.ToUpper(tld) != tld) {
		return match{}, false
	}
	// user@host:path is an scp-style git or ssh address, not mail.
	if e+1 < len(s) && s[e] == ':' && !(s[e+1] >= '0' && s[e+1] <= '9') && s[e+1] != ' ' {
		return match{}, false
	}
	if keptAddress(s[j:a], domain) {
		return match{}, false
	}
	// icon@2x.png and the like.
	if first := domain[:strings.IndexByte(domain, '.')]; len(first) >= 2 && first[len(first)-1] == 'x' && onlyDigits(first[:len(first)-1]) {
		return match{}, false
	}
	return match{j, e, email}, true
}

// keptAddress reports role addresses that name no person and reserved
// example domains.
func keptAddress(local, domain string) bool {
	switch strings.ToLower(local) {
	case "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply":
		return true
	}
	for _, d := range []string{"example.com", "example.org", "example.net"} {
		if strings.EqualFold(domain, d) || (len(domain) > len(d) && domain[len(domain)-len(d)-1] == '.' && strings.EqualFold(domain[len(domain)-len(d):], d)) {
			return true
		}
	}
	return false
}

func fileExt(tld string) bool {
	switch strings.ToLower(tld) {
	case "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "css", "scss",
		"js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "map", "go", "py", "rb",
		"rs", "java", "kt", "swift", "cpp", "hpp", "txt", "md", "yml", "yaml",
		"toml", "lock", "log", "sh", "zip", "tar", "gz", "tgz", "pdf", "html",
		"htm", "xml", "wasm", "so", "dylib", "dll", "exe", "bin", "vue", "svelte":
		return true
	}
	return false
}

func onlyLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func onlyDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// strength is how much a name says about its value.
type strength uint8

const (
	notSecret strength = iota
	weak               // secret-like: the value must look random too
	strong             // the value is a secret unless it is obviously none
	header             // an Authorization header: "Scheme credential"
)

// assignment handles a ':' or '=' at p: NAME=value, NAME: value,
// "name": "value", name => value. cookie is where the last Cookie: header
// was seen, or -1 (see inCookie).
func assignment(s string, p int, cookie *int) (match, bool) {
	colon := s[p] == ':'
	sepEnd, keyEnd := p+1, p
	if p+1 < len(s) {
		switch c := s[p+1]; {
		case colon && (c == ':' || c == '=' || c == '/'):
			return match{}, false // ::, := (seen at its '='), scheme://
		case !colon && (c == '=' || c == '~'):
			return match{}, false // ==, =~
		case !colon && c == '>':
			sepEnd = p + 2
		}
	}
	if p > 0 {
		switch s[p-1] {
		case ':':
			if colon {
				return match{}, false
			}
			keyEnd = p - 1
		case '!', '<', '>', '=':
			if !colon {
				return match{}, false
			}
		case '?', '+':
			if !colon {
				keyEnd = p - 1
			}
		}
	}
	ks, ke, quoted := keyBefore(s, keyEnd)
	if ks == ke {
		return match{}, false
	}
	if !colon && !quoted && typeName(s[ks:ke]) {
		// "password: str = …": the name is before the annotation.
		if c := skipBack(s, ks); c > 1 && s[c-1] == ':' && s[c-2] != ':' {
			if ks2, ke2, q2 := keyBefore(s, c-1); ks2 < ke2 {
				ks, ke, quoted = ks2, ke2, q2
			}
		}
	}
	if colon && !quoted && !lineStart(s, ks) {
		return match{}, false // prose: "Reset password: click the link"
	}
	name := s[ks:ke]
	if !colon && inCookie(s, ks, cookie) {
		return cookieValue(s, sepEnd)
	}
	k, st := classify(name)
	if st == notSecret {
		return match{}, false
	}
	if st == header {
		return headerValue(s, sepEnd)
	}
	// "PWD="+dir: the string that holds the name closes after the separator.
	if !quoted && ks > 0 && isQuote(s[ks-1]) && sepEnd < len(s) && s[sepEnd] == s[ks-1] {
		return match{}, false
	}
	v, ok := valueAfter(s, sepEnd, colon)
	if !ok {
		return match{}, false
	}
	val := s[v.start:v.end]
	if st == weak && !highEntropyValue(val) || nonValue(val) {
		return match{}, false
	}
	if !v.quoted {
		goShort := !colon && keyEnd == p-1 && s[keyEnd] == ':'
		declared := !colon && v.spaced && (strings.Contains(name, ".") || wordBefore(s, ks))
		switch {
		case strings.HasPrefix(s[skipBlanks(s, v.end):], markerPrefix):
			// What the marker replaced may have made this value look
			// like code; had it not, the value would be a marker too.
			return match{}, false
		case goShort || declared:
			return match{}, false // token := next(); var t Token = tok; s.token = tok
		case codeValue(val, name):
			return match{}, false // password = getpass(); token = default_token
		case v.spaced && v.next != 0 && strings.IndexByte("+*/|&^?<>=!.", v.next) >= 0:
			// auth = user + ":" + pass. Not '-' or '%', which may begin
			// a finding (a PEM block, an address) that a second pass
			// would see as a marker.
			return match{}, false
		case v.next != 0 && strings.IndexByte(",)}", v.next) >= 0 && (hasHump(val) || !hasDigit(val)):
			return match{}, false // PrivateKey: testKey2048, Token: text,
		case colon && typeName(val):
			return match{}, false // password: str
		case colon && v.phrase && !highEntropyValue(val):
			return match{}, false // "Password: not set"
		}
	}
	if st == weak {
		return match{v.start, v.end, highEntropy}, true
	}
	// Tokens and keys hold no blanks; passwords rarely more than one.
	if spaces := strings.Count(val, " "); k != password && spaces > 0 || spaces > 1 && !strings.Contains(strings.ToLower(name), "phrase") {
		return match{}, false
	}
	return match{v.start, v.end, k}, true
}

// inCookie reports whether the name at ks is one of a Cookie or
// Set-Cookie header's: after its colon or another cookie's ';', with no
// line break since the header. Each check moves *cookie up to ks, so that
// the bytes between are looked at once, however many cookies follow.
func inCookie(s string, ks int, cookie *int) bool {
	if *cookie < 0 || *cookie >= ks {
		return false
	}
	if b := skipBack(s, ks); b == 0 || s[b-1] != ':' && s[b-1] != ';' {
		return false // a cookie follows the header's colon or another cookie
	}
	if between := s[*cookie:ks]; strings.IndexByte(between, '\n') >= 0 || strings.IndexByte(between, '\r') >= 0 || strings.Contains(between, `\n`) {
		*cookie = -1
		return false
	}
	*cookie = ks
	return true
}

// cookieFlag reports whether the '=' at p follows the first cookie's name
// of curl's -b or --cookie argument: curl -b 'sessionid=…'. The cookies
// after it are found as a Cookie header's are (inCookie).
func cookieFlag(s string, p int) bool {
	ks, _, _ := keyBefore(s, p)
	j := ks
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	if j == 0 || s[j-1] != ' ' && s[j-1] != '\t' {
		return false
	}
	f := strings.TrimRight(s[max(0, j-16):j], " \t")
	f = f[strings.LastIndexAny(f, " \t")+1:]
	if f != "-b" && f != "--cookie" {
		return false
	}
	return curlCommand(commandBefore(s, j))
}

// cookieValue finds a cookie's value, a secret when it is long enough to
// be a session: lang=en stays.
func cookieValue(s string, p int) (match, bool) {
	e := runMax(s, p, notValueEnd, maxValue)
	if k := strings.IndexByte(s[p:e], ';'); k >= 0 {
		e = p + k
	}
	if e-p < 16 || nonValue(s[p:e]) {
		return match{}, false
	}
	return match{p, e, secret}, true
}

// spacedValue finds a random-looking value after a secret-like name and
// a blank, as in "api_key Xk3j9…" or "the token hvs.CAES…": with no
// separator to say that a value follows, only one that looks generated
// counts, whatever the name.
func spacedValue(s string, p int) (match, bool) {
	b := p + 1
	e := runMax(s, b, tokenChars, maxValue)
	if e-b < minEntropyLen || s[b] == '/' || s[b] == '.' {
		return match{}, false // most words: too short to look generated; paths
	}
	switch classes(s[b:e]) {
	case classUpper, classLower, classDigit, 0:
		return match{}, false
	}
	if e < len(s) && !valueEnd[s[e]] && strings.IndexByte(",;)]}", s[e]) < 0 {
		return match{}, false // part of something longer: a path, a call
	}
	ks, ke, _ := keyBefore(s, p)
	if ke-ks < 3 || ke != p {
		return match{}, false
	}
	if _, st := classify(s[ks:ke]); st == notSecret || st == header {
		return match{}, false
	}
	for e > b && strings.IndexByte(".,;:", s[e-1]) >= 0 {
		e--
	}
	v := s[b:e]
	if !highEntropyValue(v) || codeValue(v, s[ks:ke]) || strings.Contains(v, "/") && strings.Contains(v, ".") {
		return match{}, false // TestParseHeader, a hash's file path
	}
	return match{b, e, highEntropy}, true
}

// wordBefore reports whether a word precedes the name at ks on its line,
// as in a declaration (var t Token, const x Type), or the name is one of
// several assigned at once.
func wordBefore(s string, ks int) bool {
	j := skipBack(s, ks)
	if j > 0 && s[j-1] == ',' {
		return true // a, token = pair
	}
	return j < ks && j > 0 && (alnumUnder[s[j-1]] || markerBefore(s, j) < j)
}

func hasDigit(v string) bool { return strings.ContainsAny(v, digits) }

// hasHump reports a camelCase hump: a lower-case letter then a capital.
func hasHump(v string) bool {
	for i := 1; i < len(v); i++ {
		if isUpper(v[i]) && isLowerByte(v[i-1]) {
			return true
		}
	}
	return false
}

// skipBlanks returns the index after the blanks that start s[i:].
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipBack returns the index before the blanks that end s[:i].
func skipBack(s string, i int) int {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return i
}

// keyBefore returns the name that ends just before s[p], quoted or not,
// with blanks between.
func keyBefore(s string, p int) (ks, ke int, quoted bool) {
	j := p
	for j > 0 && p-j < 4 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		quoted = true
		q := s[j-1]
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
		ke = j
		for j > 0 && ke-j < 64 && keyChars[s[j-1]] && !escapeAt(s, j-1) {
			j--
		}
		if j == 0 || s[j-1] != q {
			return 0, 0, false
		}
		return j, ke, true
	}
	ke = j
	for j > 0 && ke-j < 64 && keyChars[s[j-1]] && !escapeAt(s, j-1) {
		j--
	}
	return j, ke, false
}

// lineStart reports whether the name at ks begins a line (of text, or of a
// JSON string), or follows a quote, bracket or separator.
func lineStart(s string, ks int) bool {
	j := skipBack(s, ks)
	if j == 0 {
		return true
	}
	switch s[j-1] {
	case '\n', '\r', '{', '(', '[', ',', ';', '"', '\'', '`', '|', '#', '>':
		return true
	}
	return escapeAt(s, j-1)
}

// secretLike is classify's cheap first look: a secret-like name holds
// pas(s), pwd, sec(ret), tok(en), key, aut(h) or cre(dential).
func secretLike(name string) bool {
	for i := 0; i+2 < len(name); i++ {
		c1, c2 := name[i+1]|0x20, name[i+2]|0x20
		switch name[i] | 0x20 {
		case 'p':
			if c1 == 'a' && c2 == 's' || c1 == 'w' && c2 == 'd' {
				return true
			}
		case 's':
			if c1 == 'e' && c2 == 'c' {
				return true
			}
		case 't':
			if c1 == 'o' && c2 == 'k' {
				return true
			}
		case 'k':
			if c1 == 'e' && c2 == 'y' {
				return true
			}
		case 'a':
			if c1 == 'u' && c2 == 't' {
				return true
			}
		case 'c':
			if c1 == 'r' && c2 == 'e' {
				return true
			}
		}
	}
	return false
}

// classify names the kind of a secret-like name and how strongly it
// implies a secret, from its words: DB_PASSWORD, apiKey, x-api-key.
func classify(name string) (kind, strength) {
	if !secretLike(name) {
		return 0, notSecret
	}
	var w words
	w.split(name)
	if w.n == 0 {
		return 0, notSecret
	}
	switch string(w.last(0)) {
	case "pwd":
		if w.n == 1 {
			return 0, notSecret // PWD is the working directory
		}
		return password, strong
	case "password", "passwd", "passphrase", "pass":
		return password, strong
	case "secret", "token", "apikey", "credential", "auth", "authtoken",
		"accesstoken", "secretkey", "privatekey", "accesskey", "clientsecret",
		"sessiontoken", "refreshtoken", "secretaccesskey", "accountkey", "sharedaccesskey":
		return w.secretKind(), strong
	case "authorization":
		return authorization, header
	case "key":
		switch string(w.last(1)) {
		case "api", "access", "private", "secret", "client", "signing",
			"encryption", "master", "auth", "session", "account":
			return w.secretKind(), strong
		case "public", "pub", "host", "primary", "foreign", "sort", "partition":
			return 0, notSecret
		}
		return highEntropy, weak
	case "publickey", "pubkey":
		return 0, notSecret
	case "credentials", "keys", "secrets", "tokens":
		return highEntropy, weak
	}
	if passwordWord(w.last(0)) {
		return password, strong // PGPASSWORD, DBPASS, ROOTPWD
	}
	for i := 1; i < w.n; i++ {
		switch string(w.last(i)) {
		case "password", "passwd", "secret", "token", "apikey", "credential", "credentials":
			return highEntropy, weak
		}
	}
	return 0, notSecret
}

// passwordWord reports a word that ends in password, passwd or
// passphrase (pgpassword), or that is pass or pwd after the name of what
// it opens (dbpass, rootpwd): not bypass, compass, oldpwd.
func passwordWord(w []byte) bool {
	for _, suffix := range []string{"password", "passwd", "passphrase"} {
		if len(w) > len(suffix) && string(w[len(w)-len(suffix):]) == suffix {
			return true
		}
	}
	var head []byte
	switch {
	case len(w) > 4 && string(w[len(w)-4:]) == "pass":
		head = w[:len(w)-4]
	case len(w) > 3 && string(w[len(w)-3:]) == "pwd":
		head = w[:len(w)-3]
	default:
		return false
	}
	switch string(head) {
	case "db", "pg", "my", "mysql", "sql", "mssql", "redis", "mongo", "rabbit", "amqp", "root", "admin", "user",
		"smtp", "mail", "imap", "ftp", "sftp", "ldap", "app", "api", "svc", "service", "sa", "ssh", "vnc", "wifi",
		"proxy", "store", "keystore", "truststore", "key", "master", "es", "elastic", "kafka", "registry", "docker":
		return true
	}
	return false
}

// words are the lower-cased words of a name, split at separators and case
// changes (SecretAccessKey, APIKey, x-api-key); only its last 64 bytes count.
type words struct {
	buf   [64]byte
	spans [32][2]uint8
	n     int
}

func (w *words) split(name string) {
	if len(name) > len(w.buf) {
		name = name[len(name)-len(w.buf):]
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isUpper(c) {
			c |= 0x20
		}
		w.buf[i] = c
	}
	start := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			w.add(start, i)
			start = i + 1
			continue
		}
		if i > start && isUpper(c) {
			p := name[i-1]
			if !isUpper(p) || (i+1 < len(name) && isLowerByte(name[i+1])) {
				w.add(start, i)
				start = i
			}
		}
	}
	w.add(start, len(name))
}

func (w *words) add(a, b int) {
	if a == b || w.n == len(w.spans) {
		return
	}
	w.spans[w.n] = [2]uint8{uint8(a), uint8(b)}
	w.n++
}

// last returns the i-th word from the end, or nil.
func (w *words) last(i int) []byte {
	if i >= w.n {
		return nil
	}
	sp := w.spans[w.n-1-i]
	return w.buf[sp[0]:sp[1]]
}

// secretKind tells an AWS secret access key from other secrets.
func (w *words) secretKind() kind {
	var aws, sec bool
	for i := 0; i < w.n; i++ {
		switch string(w.last(i)) {
		case "aws":
			aws = true
		case "secret":
			sec = true
		case "secretaccesskey":
			return awsSecretKey
		}
	}
	if sec && (aws || string(w.last(1)) == "access") {
		return awsSecretKey
	}
	return secret
}

func isUpper(c byte) bool     { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }

// value is the span of an assigned value.
type value struct {
	start, end int
	quoted     bool
	spaced     bool // blanks between the separator and the value
	phrase     bool // more words follow on the line: prose, not a value
	next       byte // the first byte after the value and blanks, 0 at the end of a line
}

// valueAfter returns the value that starts at or after p: the inside of a
// quoted string (also \"…\" inside JSON, and Python's f"…"), or an
// unquoted run up to a blank, quote, escape or '&'.
func valueAfter(s string, p int, colon bool) (value, bool) {
	j := p
	for j < len(s) && j-p < 16 && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) {
		return value{}, false
	}
	v := value{spaced: j > p}
	j = skipStringPrefix(s, j)
	if b, e, ok := quotedAt(s, j); ok {
		v.start, v.end, v.quoted = b, e, true
		return v, true
	}
	if isQuote(s[j]) {
		j++ // an unclosed quote: the value runs on unquoted
	}
	v.start = j
	v.end = runMax(s, j, notValueEnd, maxValue)
	if colon {
		k := skipBlanks(s, v.end)
		// A marker stands for the word it replaced, so that a second pass
		// reads the line as the first did.
		v.phrase = k > v.end && k < len(s) && (alnumSet[s[k]] || s[k] == '%' || strings.HasPrefix(s[k:], markerPrefix))
	}
	if k := strings.IndexByte(s[v.start:v.end], ';'); k >= 0 && nextField(s, v.start+k+1) {
		v.end = v.start + k // AccountKey=…;EndpointSuffix=…
	}
	for v.end > v.start && strings.IndexByte(",;:)}]", s[v.end-1]) >= 0 {
		v.end-- // punctuation of the code around the value
	}
	if k := skipBlanks(s, v.end); k < len(s) && s[k] != '\n' && s[k] != '\r' {
		v.next = s[k]
	}
	return v, v.end > v.start
}

// nextField reports a Name= at i, the next field of a connection string.
func nextField(s string, i int) bool {
	e := runMax(s, i, keyChars, maxName)
	return e > i && e < len(s) && s[e] == '='
}

var notValueEnd = func() *charset {
	var t charset
	for c := range t {
		t[c] = !valueEnd[c]
	}
	return &t
}()

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// skipStringPrefix steps over the prefix of a Python string such as f"…".
func skipStringPrefix(s string, j int) int {
	if j+1 < len(s) && isQuote(s[j+1]) && strings.IndexByte("frbuFRBU", s[j]) >= 0 {
		return j + 1
	}
	return j
}

// quotedAt returns the inside of the string that opens at s[j], closed on
// the same line; \" opens a string that \" closes.
func quotedAt(s string, j int) (b, e int, ok bool) {
	if s[j] == '\\' && j+1 < len(s) && s[j+1] == '"' {
		b = j + 2
		for k := b; k+1 < len(s) && k-b < 4096; k++ {
			if s[k] == '\n' {
				break
			}
			if s[k] == '\\' {
				if s[k+1] == '"' {
					return b, k, true
				}
				if s[k+1] == '\\' {
					k++
				}
			}
		}
		return 0, 0, false
	}
	q := s[j]
	if !isQuote(q) {
		return 0, 0, false
	}
	b = j + 1
	for k := b; k < len(s) && k-b < 4096; k++ {
		switch s[k] {
		case q:
			return b, k, true
		case '\n':
			return 0, 0, false
		case '\\':
			k++
		}
	}
	return 0, 0, false
}

// headerValue finds the credential of "Authorization: Scheme credential".
func headerValue(s string, p int) (match, bool) {
	j := p
	for j < len(s) && j-p < 16 && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) {
		return match{}, false
	}
	var b, e int
	j = skipStringPrefix(s, j)
	if qb, qe, ok := quotedAt(s, j); ok {
		b, e = qb, qe
	} else {
		if isQuote(s[j]) {
			j++
		}
		b, e = j, runMax(s, j, notLineEnd, maxValue)
		t := min(e, runMax(s, b, notValueEnd, maxValue))
		for t > b && strings.IndexByte(",;:)}]", s[t-1]) >= 0 {
			t--
		}
		if t > b && (codeValue(s[b:t], "") || t < e && s[t] != ' ' && !hasDigit(s[b:t])) {
			return match{}, false // "Authorization": req.Header["X"], auth,
		}
	}
	// "Bearer x", "Basic x", "token x": the scheme stays.
	w := b
	for w < e && w-b <= 12 && (isUpper(s[w]) || isLowerByte(s[w])) {
		w++
	}
	if w > b && w < e && s[w] == ' ' {
		b = w + 1
		for b < e && s[b] == ' ' {
			b++
		}
	}
	for e > b && (s[e-1] == ' ' || s[e-1] == ',' || s[e-1] == ';') {
		e--
	}
	if b == e || nonValue(s[b:e]) {
		return match{}, false
	}
	if k := strings.IndexAny(s[b:e], " \t"); k >= 0 && !strings.Contains(s[b:e], "=") {
		e = b + k // "Authorization: Bearer abc (expires in 1h)"
	}
	return match{b, e, authorization}, true
}

var notLineEnd = func() *charset {
	var t charset
	for c := range t {
		t[c] = !lineEnd[c]
	}
	return &t
}()

// nonValue reports values that are obviously not secrets: empty, null and
// friends, references to variables and templates, and placeholders.
func nonValue(v string) bool {
	if v == "" || strings.Contains(v, markerPrefix) {
		return true // redacted already, whole or in part
	}
	if len(v) < 3 || shortNumber(v) || dottedNumber(v) {
		return true // k, 0, -1, 1.5, 1.3.6.1.5.5.7.3.1: not secrets
	}
	switch v[0] {
	case '{', '<', '%', '(', '[', '&', '*':
		return true // {{ tmpl }}, {var}, <your-token>, %s, []byte(…), &T{…}
	case '$':
		if len(v) == 1 || v[1] == '{' || v[1] == '(' || v[1] == '$' {
			return true
		}
		if run(v, 1, keyChars) == len(v) && !strings.ContainsAny(v[1:], ".-") {
			return true // $TOKEN
		}
	}
	if len(v) <= len("undefined") && isAny(v, "null", "nil", "none", "undefined", "true", "false", "yes", "no",
		"on", "off", "empty", "required", "optional", "redacted", "hidden", "masked",
		"bearer", "basic", "read", "write", "iota") {
		return true
	}
	if strings.Trim(v, "xX*.-_#•…") == "" {
		return true // xxx, ***, ••••
	}
	if len(v) >= 4 && strings.EqualFold(v[:4], "your") && (len(v) == 4 || strings.IndexByte("-_ ", v[4]) >= 0 || isUpper(v[4])) {
		return true // your-api-key, YOUR_TOKEN, yourToken
	}
	return false
}

// shortNumber reports a number that is signed, has a fraction, or has at
// most three digits: code and counts, not a PIN.
func shortNumber(v string) bool {
	d := v
	if d[0] == '-' || d[0] == '+' {
		d = d[1:]
	}
	whole, frac, dot := strings.Cut(d, ".")
	if !onlyDigits(whole) || dot && !onlyDigits(frac) {
		return false
	}
	return len(d) < len(v) || dot || len(whole) <= 3
}

// dottedNumber reports a version or an OID: digits and dots.
func dottedNumber(v string) bool {
	return strings.Contains(v, ".") && run(v, 0, digitDot) == len(v)
}

// codeValue reports an unquoted value that reads as code rather than as a
// password: a call or index (getpass(), env["X"]), a dotted name
// (self.token), a snake_case, camelCase or PascalCase name without digits
// (default_password, defaultPassword, RequireAnyClientCert), or the name or
// its last word (f(token=token), PrivateKey: key). A bare word such as
// letmein is a password.
func codeValue(v, name string) bool {
	if len(v) > 1 && (v[0] == '-' || v[0] == '!') {
		v = v[1:] // -int32(1), !ok
	}
	if !(isUpper(v[0]) || isLowerByte(v[0]) || v[0] == '_') {
		return false
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	var w words
	w.split(name)
	if last := w.last(0); eqLower(v, last) || len(v) > 1 && v[len(v)-1] == 's' && eqLower(v[:len(v)-1], last) {
		return true // PrivateKey: key, Token: tokens
	}
	var dot, under, digit bool
	var uppers, humps int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '(' || c == '[' || c == '{':
			return true
		case c == '.':
			dot = true
		case c == '_':
			under = true
		case c >= '0' && c <= '9':
			digit = true
		case isUpper(c):
			uppers++
			if i > 0 && isLowerByte(v[i-1]) {
				humps++
			}
		case !alnumSet[c]:
			return false
		}
	}
	// Words have more lower case than capitals; random letters do not.
	camel := humps > 0 && uppers*5 <= len(v)*2
	return dot && v[len(v)-1] != '.' && !randomPart(v) || (under || camel) && !digit || strings.EqualFold(v, name)
}

// randomPart reports a dotted value with a part that looks randomly
// generated: hvs.CAESI…, SG.ngeV….TwL2…, not self.token or a.b.c.
func randomPart(v string) bool {
	for part := range strings.SplitSeq(v, ".") {
		if len(part) >= minEntropyLen && highEntropyValue(part) {
			return true
		}
	}
	return false
}

// eqLower reports whether s, folded to lower case, is w.
func eqLower(s string, w []byte) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) {
			c |= 0x20
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// typeName reports a type annotation after a name: password: str.
func typeName(v string) bool {
	return isAny(v, "str", "string", "int", "bool", "bytes", "any", "number", "object", "secretstr", "secretbytes")
}

// Character classes for the mix test.
const (
	classUpper = 1 << iota
	classLower
	classDigit
)

func classes(v string) int {
	c := 0
	for i := 0; i < len(v); i++ {
		switch b := v[i]; {
		case b >= 'A' && b <= 'Z':
			c |= classUpper
		case b >= 'a' && b <= 'z':
			c |= classLower
		case b >= '0' && b <= '9':
			c |= classDigit
		}
	}
	return c
}

// Thresholds of highEntropyValue; see the package documentation.
const (
	minEntropyLen = 20
	minEntropy    = 3.5 // bits per byte
)

// highEntropyValue reports a value that looks randomly generated.
func highEntropyValue(v string) bool {
	if len(v) < minEntropyLen || run(v, 0, tokenChars) != len(v) {
		return false
	}
	switch c := classes(v); c {
	case classUpper, classLower, classDigit, 0:
		return false
	}
	if dottedName(v) && !randomPart(v) {
		return false // c.config.EncryptedClientHelloKeys
	}
	// /home/me/.ssh/id_ed25519 is a path, not a key.
	if (v[0] == '/' || v[0] == '~' || v[0] == '.') && strings.Count(v, "/") >= 2 && !strings.ContainsAny(v, "+=") {
		return false
	}
	return entropy(v) >= minEntropy
}

// dottedName reports names joined by dots, each starting with a letter.
func dottedName(v string) bool {
	if !strings.Contains(v, ".") {
		return false
	}
	for part := range strings.SplitSeq(v, ".") {
		if part == "" || !(isUpper(part[0]) || isLowerByte(part[0]) || part[0] == '_') || run(part, 0, alnumUnder) != len(part) {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func isAny(w string, list ...string) bool {
	for _, l := range list {
		if strings.EqualFold(w, l) {
			return true
		}
	}
	return false
}

// colonToken finds what a ':' holds together that is no assignment: a
// Telegram bot token (its id, a colon, and AA… as in
// api.telegram.org/bot<id>:AA…) and the secret of a Discord webhook URL
// (://discord.com/api/webhooks/<id>/<token>).
func colonToken(s string, p int) (match, bool) {
	if p+3 >= len(s) {
		return match{}, false
	}
	if s[p+1] == 'A' && s[p+2] == 'A' && p > 0 && isDigit(s[p-1]) {
		return telegramAt(s, p)
	}
	if s[p+1] == '/' && s[p+2] == '/' && strings.Contains(s[p+3:min(len(s), p+3+len("canary.discordapp"))], "discord") {
		return discordHookAt(s, p+3)
	}
	return match{}, false
}

// telegramAt finds <bot id>:AA<33 of base64url> around the ':' at p.
func telegramAt(s string, p int) (match, bool) {
	b := p
	for b > 0 && p-b < 12 && isDigit(s[b-1]) {
		b--
	}
	if n := p - b; n < 6 || n > 11 || b > 0 && alnumSet[s[b-1]] && !strings.HasSuffix(s[:b], "bot") {
		return match{}, false
	}
	if !strings.HasPrefix(s[p+1:], "AA") {
		return match{}, false
	}
	e := runMax(s, p+1, b64url, 64)
	if n := e - p - 1; n < 30 || n > 40 || e < len(s) && alnumSet[s[e]] {
		return match{}, false
	}
	return match{b, e, telegramToken}, true
}

// discordHookAt finds the token of a Discord webhook URL whose host starts
// at h.
func discordHookAt(s string, h int) (match, bool) {
	he := runMax(s, h, hostChars, 64)
	host := s[h:he]
	if host != "discord.com" && host != "discordapp.com" && !strings.HasSuffix(host, ".discord.com") && !strings.HasSuffix(host, ".discordapp.com") {
		return match{}, false
	}
	rest := s[he:]
	if !strings.HasPrefix(rest, "/api/") {
		return match{}, false
	}
	k := he + len("/api/")
	if strings.HasPrefix(s[k:], "v") { // /api/v10/webhooks/
		k = run(s[:min(len(s), k+4)], k+1, digitSet)
		if k >= len(s) || s[k] != '/' {
			return match{}, false
		}
		k++
	}
	if !strings.HasPrefix(s[k:], "webhooks/") {
		return match{}, false
	}
	k += len("webhooks/")
	id := runMax(s, k, digitSet, 24)
	if id == k || id >= len(s) || s[id] != '/' {
		return match{}, false
	}
	e := runMax(s, id+1, b64url, maxToken)
	if e-id-1 < 40 {
		return match{}, false
	}
	return match{id + 1, e, discordHook}, true
}

// echoBase64At finds what is echoed into base64 or out of it, as in
// $(echo c2VjcmV0 | base64 -d) or $(echo -n user:pass | base64): a secret
// kept out of sight of a reader, not of lore.
func echoBase64At(s string, i int) (match, bool) {
	if !strings.HasPrefix(s[i:], "echo ") {
		return match{}, false
	}
	p := skipBlanks(s, i+len("echo "))
	for _, f := range []string{"-n ", "-e ", "-ne ", "-en "} {
		if strings.HasPrefix(s[p:], f) {
			p = skipBlanks(s, p+len(f))
			break
		}
	}
	if p >= len(s) {
		return match{}, false
	}
	v, ok := valueAfter(s, p, false)
	if !ok || v.end-v.start < 6 || nonValue(s[v.start:v.end]) {
		return match{}, false
	}
	k := v.end
	if v.quoted {
		k++
	}
	k = skipBlanks(s, k)
	if k >= len(s) || s[k] != '|' || !strings.HasPrefix(s[skipBlanks(s, k+1):], "base64") {
		return match{}, false
	}
	return match{v.start, v.end, secret}, true
}

// prosePasswordAt finds the password of "the password is hunter2" and
// "password was: 'x y'", from the blank at w after the name. An unquoted
// word counts only when it holds a digit or a symbol, so that "the
// password is incorrect" stays. After another secret-like name ("the
// key is SG.…"), only a value that looks generated counts.
func prosePasswordAt(s string, w int) (match, bool) {
	if s[w+1] != 'i' && s[w+1] != 'w' {
		return match{}, false
	}
	p := w
	switch {
	case strings.HasPrefix(s[p:], " is "):
		p += len(" is ")
	case strings.HasPrefix(s[p:], " was "):
		p += len(" was ")
	case strings.HasPrefix(s[p:], " is: "), strings.HasPrefix(s[p:], " was: "):
		p = strings.IndexByte(s[p:], ':') + p + 2
	default:
		return match{}, false
	}
	ks, _, _ := keyBefore(s, w)
	name := s[ks:w]
	if len(name) < 3 || !wordStart(s, ks) {
		return match{}, false
	}
	k := password
	if !isAny(name, "password", "passwd", "passphrase", "passcode") {
		if _, st := classify(name); st == notSecret || st == header {
			return match{}, false
		}
		k = highEntropy
	}
	p = skipBlanks(s, p)
	if p >= len(s) {
		return match{}, false
	}
	if b, e, ok := quotedAt(s, p); ok {
		if e-b > 64 || nonValue(s[b:e]) || k == highEntropy && !highEntropyValue(s[b:e]) {
			return match{}, false
		}
		return match{b, e, k}, true
	}
	e := runMax(s, p, notValueEnd, maxValue)
	for e > p && strings.IndexByte(".,;:!?)]}", s[e-1]) >= 0 {
		e--
	}
	v := s[p:e]
	if nonValue(v) || codeValue(v, "") {
		return match{}, false
	}
	if k == highEntropy && !highEntropyValue(v) || k == password && (len(v) > 64 || !hasDigit(v) && !strings.ContainsAny(v, "!@#$%^&*+=?~")) {
		return match{}, false
	}
	return match{p, e, k}, true
}

// passArgAt finds the password of OpenSSL's -pass pass:SECRET (-passin,
// -passout); env:, file: and fd: name where it is, which is no secret.
func passArgAt(s string, i int) (match, bool) {
	var p int
	switch {
	case strings.HasPrefix(s[i:], "-pass "):
		p = i + len("-pass ")
	case strings.HasPrefix(s[i:], "-passin "):
		p = i + len("-passin ")
	case strings.HasPrefix(s[i:], "-passout "):
		p = i + len("-passout ")
	default:
		return match{}, false
	}
	v, ok := valueAfter(s, p, false)
	if !ok || !strings.HasPrefix(s[v.start:v.end], "pass:") {
		return match{}, false
	}
	b := v.start + len("pass:")
	if nonValue(s[b:v.end]) {
		return match{}, false
	}
	return match{b, v.end, password}, true
}

// redisAuthAt finds the password of redis-cli -a PASSWORD (valkey-cli,
// keydb-cli); elsewhere -a is anything.
func redisAuthAt(s string, i int) (match, bool) {
	if !strings.HasPrefix(s[i:], "-a ") || i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
		return match{}, false
	}
	p := skipBlanks(s, i+len("-a "))
	if p >= len(s) || s[p] == '-' {
		return match{}, false
	}
	v, ok := valueAfter(s, p, false)
	if !ok || nonValue(s[v.start:v.end]) {
		return match{}, false
	}
	cmd := commandBefore(s, i)
	if !strings.Contains(cmd, "redis-cli") && !strings.Contains(cmd, "valkey-cli") && !strings.Contains(cmd, "keydb-cli") {
		return match{}, false
	}
	return match{v.start, v.end, password}, true
}

// curlCommand reports curl, whose -u takes user:password.
func curlCommand(cmd string) bool {
	for k := strings.Index(cmd, "curl"); k >= 0; {
		e := k + len("curl")
		if (k == 0 || strings.IndexByte(" \t/\"'=:{", cmd[k-1]) >= 0) && (e == len(cmd) || cmd[e] == ' ' || cmd[e] == '\t') {
			return true
		}
		n := strings.Index(cmd[e:], "curl")
		if n < 0 {
			break
		}
		k = e + n
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
