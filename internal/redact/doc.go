// Package redact removes secrets and e-mail addresses from transcript text
// before lore prints it, stores it or sends it to a model.
//
// A Redactor replaces each finding with "[REDACTED:<kind>]". The kinds
// (also the Kind… constants), most specific first; when findings overlap,
// their union is replaced once and named by the most specific:
//
//	kind            what is replaced
//	private-key     a PEM block whose label holds PRIVATE KEY (RSA, EC, DSA,
//	                OPENSSH, ENCRYPTED, PGP … BLOCK, plain), BEGIN through END
//	aws-access-key  AKIA, ASIA, ABIA or ACCA and 16 of [A-Z0-9]
//	github-token    ghp_ gho_ ghu_ ghs_ ghr_ and 30+ of [A-Za-z0-9];
//	                github_pat_ and 22+ of [A-Za-z0-9_]
//	gitlab-token    glpat- glptt- glrt- gldt- and 20+ of [A-Za-z0-9_.-]
//	slack-token     xoxb- xoxp- xoxa- xoxr- xoxs- xoxe- and 10+ of [A-Za-z0-9-]
//	slack-webhook   the path after hooks.slack.com/services/ (workflows/, triggers/)
//	stripe-key      sk_live_ sk_test_ rk_live_ rk_test_ (10+), whsec_ (20+)
//	anthropic-key   sk-ant- and 20+ of [A-Za-z0-9_-]
//	openai-key      sk- (sk-proj-, sk-svcacct-, …) and 20+ of [A-Za-z0-9_-]
//	                holding a digit or a capital
//	google-api-key  AIza and exactly 35 of [A-Za-z0-9_-]
//	npm-token       npm_ and 30+ of [A-Za-z0-9]
//	huggingface-token  hf_ and 34+ of [A-Za-z0-9]
//	vault-token     hvs. hvb. hvr. and 24+ of [A-Za-z0-9_-]
//	doppler-token   dp.st. dp.ct. dp.pt. dp.sa. and 40+ of [A-Za-z0-9_.-]
//	shopify-token   shpat_ shpss_ shpca_ shppa_ and 32 hex digits
//	pypi-token      pypi- and 50+ of [A-Za-z0-9_-]
//	telegram-token  <bot id>:AA… (also in api.telegram.org/bot<id>:AA…)
//	discord-webhook the token of discord.com/api/webhooks/<id>/<token>
//	jwt             eyJ… . … . … : three base64url segments
//	aws-secret-key  the value of an aws_secret_access_key-like name
//	url-password    the password in scheme://user:password@host
//	authorization   the credential of an Authorization header or of "Bearer <token>"
//	password        the value of a name ending in password, passwd, passphrase,
//	                pass, or pwd (but not PWD alone, the working directory),
//	                also within its last word (PGPASSWORD, and DBPASS, ROOTPWD
//	                after a known service or account: not BYPASS, OLDPWD);
//	                the password of curl -u/--user user:password, of
//	                mysql -pPASSWORD (mysqldump, mariadb …), sshpass -p and
//	                docker login -p (podman, nerdctl, buildah, skopeo);
//	                curl's short flags joined (-fu user:pw, -uuser:pw),
//	                OpenSSL's -pass/-passin/-passout pass:…, redis-cli -a
//	                (valkey-cli, keydb-cli), and prose: "the password is
//	                hunter2" (an unquoted word only with a digit or symbol)
//	secret          the value of a name ending in secret, token, auth, apikey,
//	                credential, or api/access/private/secret/client/account…
//	                key (Azure's AccountKey=, --account-key); a cookie of 16+
//	                bytes after Cookie: or Set-Cookie: (sessionid=…); what is
//	                echoed into or out of base64 ($(echo c2Vj… | base64 -d))
//	high-entropy    a random-looking value of a name that is only secret-like:
//	                ending in key, keys, tokens, secrets, credentials, or holding
//	                password, secret or token before its last word; and a
//	                random-looking value after any secret-like name and a
//	                blank or "is" (api_key Xk3j…, the key is SG.…)
//	email           an e-mail address
//
// Tokens must start a word (the byte before is not a letter or digit, or is
// the n of a JSON \n escape). A PEM block's lines may end in \n escaped
// more than once (JSON inside a JSON string). Assignments are NAME=value, NAME: value,
// "name": "value", name => value, NAME := "value" and --name value, also
// inside JSON-escaped text (\"password\": \"…\"); only the value goes.
// NAME: value must start its line or follow a quote or bracket, otherwise
// it is prose ("Reset password: click the link"). Values that are obviously
// none stay (a ';' before the next Name= of a connection string ends one):
// shorter than 3 bytes, null/nil/none/true/false and the like,
// small or signed numbers, versions, ${VAR}, $VAR, $(cmd), {{ tmpl }},
// <your-token>, %s, ***, xxx, your-api-key. So does what reads as code
// rather than as a secret, unless it is quoted: calls, indexes and dotted
// names (getpass(), env["X"], self.token; not when a part is random, as
// in hvs.CAESI… or SG.ngeV…), names without digits in
// snake_case or camelCase (default_password, defaultPassword), the name
// itself (f(token=token)), the right side of := and of declarations
// (var t Token = tok), values followed by an operator, and a NAME: value
// followed by more words. Quoted tokens and keys hold no blanks; quoted
// passwords at most one (passphrases any).
//
// A value is high-entropy when it is at least 20 bytes of [A-Za-z0-9+/=_.~-],
// mixes at least two of capitals, lower case and digits, is neither a path
// nor a dotted name, and its Shannon entropy over bytes is at least 3.5 bits
// per byte. Random base62 of length 20 scores about 4.0 and a hex SHA-1
// about 3.8; a snake_case name fails the mix test.
//
// E-mail addresses go, except role addresses that name no person (noreply@,
// no-reply@, donotreply@…, such as Claude's co-author line
// noreply@anthropic.com) and the reserved example.com/.org/.net. GitHub's
// 123+login@users.noreply.github.com addresses go: they name a user. Not
// addresses: user@host:path (scp-style git and ssh), the user of a URL,
// name@version, icon@2x.png, TLDs in mixed case or that are file extensions.
//
// Redaction is idempotent: a finding can change how its neighbours read, so
// String repeats its pass until one finds nothing (rarely more than twice),
// and markers are never matched. Text with no finding costs one pass over
// its bytes, a table load each, and comes back as the same string without
// allocation; every detector looks a bounded distance, so any text costs
// linear time.
package redact
