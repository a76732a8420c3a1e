package redact

import "testing"

// Fake values in the shape of each provider's tokens; none is real.
const (
	vaultTk     = "hvs.CAESIJ3x7Kd9qLmN2pR8sT4vW6yZ1aB3cD5eF7gH9iJ0kLmGh4KHGh2cy5QcDVvS3dYbUxkT0p"
	sendgridTok = "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"
	dopplerTok  = "dp.st.prd.x7Kd9qLmN2pR8sT4vW6yZ1aB3cD5eF7gH9iJ0kLmQ2"
	telegramTok = "5234112798:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"
	shopifyTok  = "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"
	pypiTok     = "pypi-AgEIcHlwaS5vcmcCJDU3ZjM0MWI4LTk2NzYtNDFhZC1iYzQ3LTZkZGE2NjJmNWQ0ZQACKlszLCJkNzY4"
	discordURL  = "1187654321098765432/Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6sD9fG3hJ2kL4zX8cV1bN5mQ7wE3rT6yU0iO9p"
	azureKey    = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	sessionID   = "k2j3h4g5f6d7s8a9q0w1e2r3t4y5u6i7"
	pemBody     = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+Eh8uVY0wQ1L7u5+PqkyPg0ex"
)

// classCases are the kinds of secret that hostile-input testing found
// leaking (issue 16, point 6): each line held a secret that survived.
var classCases = []struct {
	name, in, secret string
}{
	{"vault token dotted", "export VAULT_TOKEN=" + vaultTk, vaultTk},
	{"vault token alone", "vault login " + vaultTk, vaultTk},
	{"sendgrid dotted", "SENDGRID_API_KEY=" + sendgridTok + " node send.js", sendgridTok},
	{"sendgrid alone", "key is " + sendgridTok, sendgridTok},
	{"doppler dotted", `DOPPLER_TOKEN="` + dopplerTok + `" doppler run`, dopplerTok},
	{"dotted json value", `{"vault_token": "` + vaultTk + `"}`, vaultTk},
	{"curl combined flags", "curl -fu admin:Hunter2Pass https://api.x.io/v1", "Hunter2Pass"},
	{"curl combined flags sS", "curl -sSfu deploy:s3cr3t-Pw9 https://ci.x.io", "s3cr3t-Pw9"},
	{"curl attached user", "curl -uadmin:Hunter2Pass https://api.x.io", "Hunter2Pass"},
	{"telegram bot url", "curl https://api.telegram.org/bot" + telegramTok + "/sendMessage?chat_id=1", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"},
	{"telegram token alone", "token " + telegramTok + " works", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"},
	{"shopify", "X-Shopify-Access-Token: " + shopifyTok, shopifyTok},
	{"shopify alone", "using " + shopifyTok + " now", shopifyTok},
	{"pypi", "twine upload -u __token__ -p " + pypiTok + " dist/*", pypiTok},
	{"pypi alone", "password = " + pypiTok, pypiTok},
	{"discord webhook", "curl -X POST https://discord.com/api/webhooks/" + discordURL + " -d '{}'", "Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6sD9fG3hJ2kL4zX8cV1bN5mQ7wE3rT6yU0iO9p"},
	{"discordapp webhook", `"url": "https://discordapp.com/api/webhooks/` + discordURL + `"`, "Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6sD9fG3hJ2kL4zX8cV1bN5mQ7wE3rT6yU0iO9p"},
	{"azure connection string", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net", azureKey},
	{"azure account key flag", "az storage blob list --account-name acme --account-key " + azureKey + " -c logs", azureKey},
	{"openssl pass", "openssl rsa -in k.pem -passin pass:Hunter2Pass -out k.der", "Hunter2Pass"},
	{"openssl pass out", "openssl enc -aes-256-cbc -pass pass:s3cr3t-Pw9 -in a -out b", "s3cr3t-Pw9"},
	{"redis-cli -a", "redis-cli -h cache.internal -a Hunter2Pass ping", "Hunter2Pass"},
	{"cookie sessionid", "curl -H 'Cookie: sessionid=" + sessionID + "; lang=en' https://x.io", sessionID},
	{"cookie header line", "Cookie: PHPSESSID=" + sessionID + "\n", sessionID},
	{"digitalocean token", "doctl auth init -t dop_v1_4f8c2a9e1b7d3c6a5e0f9b8d7c6a5e4f4f8c2a9e1b7d3c6a5e0f9b8d7c6a5e4f", "dop_v1_4f8c2a9e1b7d3c6a5e0f9b8d7c6a5e4f4f8c2a9e1b7d3c6a5e0f9b8d7c6a5e4f"},
	{"grafana cloud token", "GRAFANA_TOKEN glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEyMzQ1Ni1obS13cml0ZS1teXRva2VuIiwiayI6IjEyMzQ1Njc4OTBhYmNkZWYiLCJtIjp7InIiOiJ1cyJ9fQ== set", "glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEyMzQ1Ni1obS13cml0ZS1teXRva2VuIiwiayI6IjEyMzQ1Njc4OTBhYmNkZWYiLCJtIjp7InIiOiJ1cyJ9fQ"},
	{"grafana service account", "curl -H 'X-Token: glsa_Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6sD_4f8c2a9e' https://g.example", "glsa_Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6sD_4f8c2a9e"},
	{"curl -b cookie", "curl -b 'sessionid=" + sessionID + "' https://x.io/api", sessionID},
	{"curl --cookie second", `curl --cookie "lang=en; sessionid=` + sessionID + `" https://x.io`, sessionID},
	{"curl -b bare", "curl -sS -b sid=" + sessionID + " https://x.io", sessionID},
	{"prose password", "the password is Hunter2Pass, use it for staging", "Hunter2Pass"},
	{"prose password quoted", "My DB password is 'correct horse 9' for now.", "correct horse 9"},
	{"prose password colon", "The admin password is: s3cr3t-Pw9\n", "s3cr3t-Pw9"},
	{"base64 in subshell", "export DB_PASSWORD=$(echo c2VjcmV0LXBhc3N3b3JkLTEyMw== | base64 -d)", "c2VjcmV0LXBhc3N3b3JkLTEyMw=="},
	{"base64 encode in header", `curl -H "Authorization: Basic $(echo -n admin:Hunter2Pass | base64)" https://x.io`, "Hunter2Pass"},
	{"pem in json in json", `{"content":"{\"key\":\"-----BEGIN RSA PRIVATE KEY-----\\n` + pemBody + `\\n` + pemBody + `\\n-----END RSA PRIVATE KEY-----\\n\"}"}`, pemBody},
	{"generic dotted after secret name", "MY_SERVICE_SECRET: ab.Xk3j9QpL2mN8vB4cR7tY1wE5uI0", "Xk3j9QpL2mN8vB4cR7tY1wE5uI0"},
	{"generic dotted after weak name", "MY_SERVICE_KEY=ab.Xk3j9QpL2mN8vB4cR7tY1wE5uI0", "Xk3j9QpL2mN8vB4cR7tY1wE5uI0"},
	{"generic name space value", "api_key Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6", "Xk3j9QpL2mN8vB4cR7tY1wE5uI0oA6"},
	{"generic prose token", "set the token hvb.AAAAAQJm8vVx3kP9qLmN2pR8sT4vW6yZ1a, then retry", "hvb.AAAAAQJm8vVx3kP9qLmN2pR8sT4vW6yZ1a"},
	{"generic dotted json", `{"signing_key": "k1.Xk3j9QpL2mN8vB4cR7tY1wE5uI0"}`, "Xk3j9QpL2mN8vB4cR7tY1wE5uI0"},
}

func TestClasses(t *testing.T) {
	red := New()
	for _, tt := range classCases {
		t.Run(tt.name, func(t *testing.T) {
			got := red.String(tt.in)
			if contains(got, tt.secret) {
				t.Errorf("String(%q)\nkept %q: %q", tt.in, tt.secret, got)
			}
			if again := red.String(got); again != got {
				t.Errorf("not idempotent:\n once %q\ntwice %q", got, again)
			}
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// classUntouched are texts near the new detectors that hold no secret.
var classUntouched = []string{
	"The password is incorrect.",
	"Password is required, and the password was changed yesterday.",
	"the password is stored in the keychain",
	`echo $TOKEN | base64`,
	`echo "$DB_PASSWORD" | base64 -d`,
	`echo hello`,
	"curl -fsSL https://get.example.io/install.sh",
	"git push -u origin main:main",
	"go test -run TestUser ./...",
	"redis-cli -h cache.internal ping",
	"ls -a /tmp && grep -a foo bar",
	"openssl rsa -passin env:KEY_PASS -in k.pem",
	"openssl rsa -passin file:pw.txt -in k.pem",
	"at 10:30:15 and 12345678:AAAA",
	"https://discord.com/channels/1187654321098765432/1187654321098765433",
	"Cookie: lang=en; theme=dark",
	"Set-Cookie: csrftoken=abc; Path=/",
	`token = a.b.c`,
	`secret = self.config.signing.secret_value`,
	"Server=db;Database=app;Trusted_Connection=True;",
	"hvs.short and SG.foo and dp.st.dev",
	"pip install --index-url https://pypi-mirror.internal/simple pkg",
	"shpat_ is the prefix of a Shopify token",
	"passing -fu to grep",
	"the token expired and the key was rotated",
	"Authorization Bearer required; see the secret store",
	"with key 3f786850e387550fdab836ed7e6dc881de23001b/x.go",
	"token TestParseRedactsBeforeCutting",
	"curl -b cookies.txt -c cookies.txt https://x.io",
	"curl -b 'lang=en' https://x.io",
	"grep -b pattern=value file",
}

func TestClassesUntouched(t *testing.T) {
	red := New()
	for _, in := range classUntouched {
		if got := red.String(in); got != in {
			t.Errorf("String(%q)\n= %q, want it untouched", in, got)
		}
	}
}
