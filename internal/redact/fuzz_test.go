package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// planted are secrets the fuzzer hides in its text, each with the part
// that must not survive.
var planted = []struct{ text, secret string }{
	{ghClassic, ghClassic},
	{ghFineGrain, ghFineGrain},
	{glToken, glToken},
	{slackBot, slackBot},
	{stripeLive, stripeLive},
	{openAIProj, openAIProj},
	{anthropicTok, anthropicTok},
	{googleKey, googleKey},
	{npmTok, npmTok},
	{awsKeyID, awsKeyID},
	{jwtIO, jwtIO},
	{"https://hooks.slack.com/services/" + slackHook, slackHook},
	{rsaKey, "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi"},
	{"\nDB_PASSWORD=planted-Pw-7731\n", "planted-Pw-7731"},
	{"\naws_secret_access_key = " + awsSecret + "\n", awsSecret},
	{"\nexport MY_SERVICE_KEY=" + randomB62 + "\n", randomB62},
	{"postgres://app:planted-Pw-7731@db.internal/app", "planted-Pw-7731"},
	{"alice.planted@corp-mail.io", "alice.planted@corp-mail.io"},
	{vaultTk, vaultTk},
	{"https://api.telegram.org/bot" + telegramTok + "/getMe", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"},
	{"https://discord.com/api/webhooks/" + discordURL, discordURL[20:]},
	{"\nexport VAULT_TOKEN=" + vaultTk + "\n", vaultTk},
	{"\nredis-cli -a planted-Pw-7731\n", "planted-Pw-7731"},
}

// FuzzRedact checks that String never panics, is idempotent, keeps valid
// UTF-8 valid, agrees with Count, and removes a secret planted between two
// fuzzed texts:
//
//	go test -run '^$' -fuzz FuzzRedact -fuzztime 60s ./internal/redact
func FuzzRedact(f *testing.F) {
	for _, l := range transcriptLines {
		f.Add(l, "", uint8(0))
	}
	for i, c := range redactCases {
		f.Add(c.in, c.want, uint8(i))
	}
	for i, u := range untouched {
		f.Add(u, "", uint8(i))
	}
	for i, l := range dirtyLines {
		f.Add(l, l, uint8(i))
	}
	for i, s := range []string{
		"password: ", "Authorization: Bearer ", `{"token":"`, "--token ", "x@", "https://u:",
		"-----BEGIN RSA PRIVATE KEY-----\n", "eyJ", "[REDACTED:", `\"password\":\"`, "a=b==c:=d",
	} {
		f.Add(s, s, uint8(i))
	}
	red := New()
	f.Fuzz(func(t *testing.T, before, after string, which uint8) {
		once := red.String(before)
		if twice := red.String(once); twice != once {
			t.Fatalf("not idempotent on %q:\n once %q\ntwice %q", before, once, twice)
		}
		if utf8.ValidString(before) && !utf8.ValidString(once) {
			t.Fatalf("invalid UTF-8 out of %q: %q", before, once)
		}
		if text, n := red.Count(before); text != once || (n == nil) != (once == before) {
			t.Fatalf("Count disagrees with String on %q: %q %v", before, text, n)
		}

		p := planted[int(which)%len(planted)]
		in := before + " " + p.text + " " + after
		out := red.String(in)
		if strings.Contains(out, p.secret) && !strings.Contains(before+after, p.secret) {
			t.Fatalf("planted %q survived in %q:\n%q", p.secret, in, out)
		}
		if again := red.String(out); again != out {
			t.Fatalf("not idempotent on %q:\n once %q\ntwice %q", in, out, again)
		}
	})
}

// fragments are pieces of text that detectors react to; joined at random,
// they reach the corners where one finding is the context of another.
var fragments = []string{
	" ", "\n", `\n`, `"`, "'", "=", ": ", ":", "@", "://", ",", ")", "}", "[", "]", ".", "-", "_", "/", "+", "%",
	"0", "a", "Z", "x1", "password", "TOKEN", "api_key", "Authorization", "Bearer ", "--token ", "auth",
	"user", "host.io", "example.com", "noreply", "var ", "self.", "$X", "<t>", "***", "None",
	"[REDACTED:secret]", "[REDACTED:email]", ghClassic, glToken, awsKeyID, jwtIO, randomB62, awsSecret,
	"https://", "u:p@", "-----BEGIN RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\n",
	"-----END RSA PRIVATE KEY-----", "hooks.slack.com/services/", slackHook, "sk-", "eyJ", "A0000000000000000",
}

// TestFragments checks that the passes of String settle fast: a finding
// changes the context of its neighbours seldom, and never in a chain.
func TestFragments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 50000
	if testing.Short() {
		n = 5000
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		in, s := b.String(), b.String()
		passes := 0
		for ms := find(s); len(ms) > 0; ms = find(s) {
			s = replace(s, merge(ms), nil)
			if passes++; passes > 2 {
				t.Fatalf("%d passes on %q, now %q", passes, in, s)
			}
		}
	}
}
