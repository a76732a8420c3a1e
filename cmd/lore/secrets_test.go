package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// planted is a secret hidden in the transcripts of the end-to-end test:
// the text it is written in, and the value that must appear nowhere lore
// writes.
type planted struct {
	kind, line, value string
}

// fake makes a value of n characters of alphabet after prefix, drawn from
// rng: realistic in shape, random, so that it names nobody's secret and a
// grep finds only the planted copy.
func fake(rng *rand.Rand, prefix, alphabet string, n int) string {
	b := []byte(prefix)
	for range n {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	return string(b)
}

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	lower = "abcdefghijklmnopqrstuvwxyz0123456789"
	b64   = alnum + "+/"
	url64 = alnum + "-_"
)

// knownSecrets are secrets of the kinds internal/redact finds, each in
// the way a session meets it: an export, a flag, a header, a URL, a file.
func knownSecrets(rng *rand.Rand) []planted {
	pw := func() string { return fake(rng, "", alnum, 6) + "-Pw-" + fake(rng, "", lower, 6) }
	jwt := func() string {
		return "eyJhbGciOiJIUzI1NiJ9." + fake(rng, "eyJ", url64, 40) + "." + fake(rng, "", url64, 43)
	}
	var ps []planted
	add := func(kind, value, line string) {
		ps = append(ps, planted{kind, strings.ReplaceAll(line, "$V", value), value})
	}
	add("github-token", fake(rng, "ghp_", alnum, 36), "export GITHUB_TOKEN=$V")
	add("github-token", fake(rng, "github_pat_", alnum+"_", 82), "gh auth login --with-token <<< $V")
	add("gitlab-token", fake(rng, "glpat-", alnum, 20), "git remote add gl https://oauth2:$V@gitlab.com/acme/api.git")
	add("slack-token", fake(rng, "xoxb-", "0123456789", 11)+"-"+fake(rng, "", "0123456789", 11)+"-"+fake(rng, "", alnum, 24), "SLACK_BOT_TOKEN=$V")
	add("slack-webhook", "T"+fake(rng, "", upper, 8)+"/B"+fake(rng, "", upper, 8)+"/"+fake(rng, "", alnum, 24), "curl -X POST https://hooks.slack.com/services/$V -d '{\"text\":\"deployed\"}'")
	add("stripe-key", fake(rng, "sk_live_", alnum, 24), "stripe.api_key = '$V'")
	add("anthropic-key", fake(rng, "sk-ant-api03-", url64, 93)+"AA", "export ANTHROPIC_API_KEY=$V")
	add("openai-key", fake(rng, "sk-proj-", url64, 100), "OPENAI_API_KEY=$V")
	add("google-api-key", fake(rng, "AIza", url64, 35), "curl 'https://maps.googleapis.com/maps/api/geocode/json?key=$V&address=x'")
	add("npm-token", fake(rng, "npm_", alnum, 36), "echo //registry.npmjs.org/:_authToken=$V > .npmrc")
	add("huggingface-token", fake(rng, "hf_", alnum, 34), "HF_TOKEN=$V huggingface-cli download acme/model")
	add("aws-access-key", fake(rng, "AKIA", upper, 16), "aws_access_key_id = $V")
	add("aws-secret-key", fake(rng, "", b64, 40), "export AWS_SECRET_ACCESS_KEY=$V")
	add("jwt", jwt(), "id_token=$V")
	add("url-password", pw(), "psql postgres://app:$V@db.internal:5432/app")
	add("authorization", fake(rng, "", alnum, 32), "curl -H 'Authorization: Bearer $V' https://api.acme.dev/v1/deploy")
	add("password", pw(), "DB_PASSWORD=$V")
	add("password", pw(), "mysql -u root -p$V -h db.internal app")
	add("secret", fake(rng, "", alnum, 32), "--client-secret $V")
	add("high-entropy", fake(rng, "", alnum, 32), "export MY_SERVICE_KEY=$V")
	add("email", fake(rng, "", "abcdefghijklmnopqrstuvwxyz", 8)+".planted@corp-mail.io", "git config user.email $V")
	return ps
}

// newSecrets are the kinds issue 16 found missing from internal/redact:
// planted in a run of their own until the redactor knows them.
func newSecrets(rng *rand.Rand) []planted {
	var ps []planted
	add := func(kind, value, line string) {
		ps = append(ps, planted{kind, strings.ReplaceAll(line, "$V", value), value})
	}
	add("vault-token", fake(rng, "hvs.", url64, 90), "VAULT_TOKEN=$V vault kv get secret/app")
	add("sendgrid-key", fake(rng, "SG.", url64, 22)+"."+fake(rng, "", url64, 43), "SENDGRID_API_KEY=$V")
	add("doppler-token", fake(rng, "dp.st.", alnum, 43), "DOPPLER_TOKEN=$V doppler run -- make")
	add("telegram-bot-token", fake(rng, "", "0123456789", 10)+":AA"+fake(rng, "", url64, 33), "curl https://api.telegram.org/bot$V/getMe")
	add("shopify-token", fake(rng, "shpat_", "0123456789abcdef", 32), "SHOPIFY_ACCESS=$V")
	add("pypi-token", fake(rng, "pypi-AgEIcHlwaS5vcmc", url64, 60), "twine upload -u __token__ -p $V dist/*")
	add("discord-webhook", fake(rng, "", "0123456789", 18)+"/"+fake(rng, "", url64, 68), "curl https://discord.com/api/webhooks/$V -d x")
	add("azure-account-key", fake(rng, "", b64, 86)+"==", "AZURE_STORAGE_CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=$V;EndpointSuffix=core.windows.net'")
	add("redis-password", fake(rng, "", alnum, 16), "redis-cli -h cache.internal -a $V ping")
	add("session-cookie", fake(rng, "", lower, 32), "curl -H 'Cookie: sessionid=$V' https://app.acme.dev/admin")
	add("prose-password", fake(rng, "", alnum, 8)+"-"+fake(rng, "", alnum, 6), "the password is $V")
	// Found missing after the first fixes: more kinds, and the same kinds
	// written other ways.
	add("curl-cookie", fake(rng, "", lower, 32), "curl -b 'sessionid=$V' https://app.acme.dev/admin")
	add("openssl-pass", fake(rng, "", alnum, 14), "openssl enc -d -aes-256-cbc -pass pass:$V -in backup.enc")
	add("curl-fu", fake(rng, "", alnum, 14), "curl -fsSu deploy:$V https://ci.acme.dev/api/json")
	add("base64-subshell", fake(rng, "", b64, 32)+"==", "export DB_PASSWORD=$(echo $V | base64 -d)")
	add("basic-auth", fake(rng, "", b64, 28)+"=", "curl -H \"Authorization: Basic $V\" https://api.acme.dev")
	add("azure-flag", fake(rng, "", b64, 86)+"==", "az storage blob upload --account-name acme --account-key $V -f a.txt")
	add("docker-login", fake(rng, "", alnum, 20), "docker login -u ci -p $V registry.acme.dev")
	add("sshpass", fake(rng, "", alnum, 14), "sshpass -p $V ssh deploy@10.0.0.5")
	add("pem-in-json", fake(rng, "MIIEow", b64, 58), `echo '{"key":"-----BEGIN RSA PRIVATE KEY-----\\n$V\\n-----END RSA PRIVATE KEY-----\\n"}' > sa.json`)
	add("digitalocean-token", fake(rng, "dop_v1_", "0123456789abcdef", 64), "doctl auth init -t $V")
	add("grafana-token", fake(rng, "glc_", b64, 80), "export GRAFANA_CLOUD_TOKEN=$V")
	add("mongodb-password", fake(rng, "", alnum, 16), "mongosh 'mongodb+srv://app:$V@cluster0.acme.mongodb.net/prod'")
	add("hex-secret", fake(rng, "", "0123456789abcdef", 32), "TWILIO_AUTH_TOKEN=$V")
	add("prefixed-key", fake(rng, "lin_api_", alnum, 40), "LINEAR_API_KEY=$V")
	add("github-app-token", fake(rng, "ghs_", alnum, 36), "git clone https://x-access-token:$V@github.com/acme/api.git")
	// lore serve's own bearer tokens, pasted where a person keeps them.
	add("lore-serve-token", fake(rng, "lore_", "abcdefghijklmnopqrstuvwxyz234567", 52), "echo $V > ~/.config/lore/token")
	return ps
}

// transcriptFormats write one session holding p, as the agent would: the
// user gives the secret, a command using it fails, one written differently
// works, and the assistant sums up.
var transcriptFormats = []struct {
	name  string
	write func(t *testing.T, dir string, i int, p planted) string
}{
	{"claude-code", writeClaudeSession},
	{"codex", writeCodexSession},
	{"gemini", writeGeminiSession},
}

// sessionSteps are the texts of one planted session.
func sessionSteps(p planted) (user, failing, failed, working, worked, summary string) {
	return "Deploy with this: " + p.line,
		p.line + " && make deploy",
		"make: *** [deploy] Error 1\nerror: deploy rejected: " + p.line + "\nexit status 2",
		p.line + " && make deploy ENV=staging",
		"deployed with " + p.line,
		"Deployed to staging; production rejected the credentials in `" + p.line + "`."
}

// damaged is a line cut off as a crash leaves it, whose error a session's
// warnings quote.
func damaged(p planted) string {
	return `{"type":"user","message":{"role":"user","content":"` + p.line + ` \x`
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func writeClaudeSession(t *testing.T, dir string, i int, p planted) string {
	user, failing, failed, working, worked, summary := sessionSteps(p)
	id := fmt.Sprintf("5d1e0c55-2b7e-4f0e-9d7a-%012d", i)
	head := fmt.Sprintf(`"sessionId":%q,"cwd":"/home/dev/api","gitBranch":"main","version":"2.1.30","isSidechain":false`, id)
	line := func(n int, typ, msg string) string {
		return fmt.Sprintf(`{%s,"type":%q,"uuid":"u%d","timestamp":"2026-03-01T10:00:%02d.000Z","message":%s}`, head, typ, n, n, msg)
	}
	assistant := func(content string) string {
		return `{"model":"claude-opus-4-6","id":"msg","type":"message","role":"assistant","content":[` + content + `],"usage":{"input_tokens":4,"output_tokens":16}}`
	}
	lines := []string{
		line(1, "user", `{"role":"user","content":`+jsonText(user)+`}`),
		damaged(p),
		line(2, "assistant", assistant(`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":`+jsonText(failing)+`}}`)),
		line(3, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":`+jsonText(failed)+`,"is_error":true}]}`),
		line(4, "assistant", assistant(`{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":`+jsonText(working)+`}}`)),
		line(5, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":`+jsonText(worked)+`,"is_error":false}]}`),
		line(6, "assistant", assistant(`{"type":"text","text":`+jsonText(summary)+`}`)),
	}
	path := filepath.Join(dir, ".claude", "projects", "-home-dev-api", id+".jsonl")
	writeTranscript(t, path, strings.Join(lines, "\n")+"\n")
	return path
}

func writeCodexSession(t *testing.T, dir string, i int, p planted) string {
	user, failing, failed, working, worked, summary := sessionSteps(p)
	id := fmt.Sprintf("019dc116-c183-74f3-9a1b-%012d", i)
	item := func(n int, payload string) string {
		return fmt.Sprintf(`{"timestamp":"2026-03-02T10:00:%02d.000Z","type":"response_item","payload":%s}`, n, payload)
	}
	call := func(n int, callID, cmd string) string {
		args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}})
		return item(n, `{"type":"function_call","name":"shell","arguments":`+jsonText(string(args))+`,"call_id":"`+callID+`"}`)
	}
	output := func(n int, callID, out string, code int) string {
		o, _ := json.Marshal(map[string]any{"output": out, "metadata": map[string]any{"exit_code": code, "duration_seconds": 0.5}})
		return item(n, `{"type":"function_call_output","call_id":"`+callID+`","output":`+jsonText(string(o))+`}`)
	}
	lines := []string{
		`{"timestamp":"2026-03-02T10:00:00.000Z","type":"session_meta","payload":{"id":"` + id + `","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/api","originator":"codex-tui","cli_version":"0.125.0"}}`,
		item(1, `{"type":"message","role":"user","content":[{"type":"input_text","text":`+jsonText(user)+`}]}`),
		damaged(p),
		call(2, "call_a", failing),
		output(3, "call_a", failed, 2),
		call(4, "call_b", working),
		output(5, "call_b", worked, 0),
		item(6, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":`+jsonText(summary)+`}]}`),
	}
	path := filepath.Join(dir, ".codex", "sessions", "2026", "03", "02", "rollout-2026-03-02T10-00-00-"+id+".jsonl")
	writeTranscript(t, path, strings.Join(lines, "\n")+"\n")
	return path
}

func writeGeminiSession(t *testing.T, dir string, i int, p planted) string {
	user, failing, failed, working, worked, summary := sessionSteps(p)
	id := fmt.Sprintf("0c1d2e3f-4a5b-4c6d-8e7f-%012d", i)
	call := func(n int, cmd, status, out string) map[string]any {
		callID := fmt.Sprintf("run_shell_command-%d", n)
		return map[string]any{
			"id": fmt.Sprintf("m%d", n), "timestamp": fmt.Sprintf("2026-03-03T10:00:%02d.000Z", n), "type": "gemini", "content": "",
			"model": "gemini-2.5-flash",
			"toolCalls": []map[string]any{{
				"id": callID, "name": "run_shell_command", "args": map[string]any{"command": cmd}, "status": status,
				"result": []map[string]any{{"functionResponse": map[string]any{"id": callID, "name": "run_shell_command",
					"response": map[string]any{"output": out}}}},
			}},
		}
	}
	s := map[string]any{
		"sessionId": id, "projectHash": strings.Repeat("2f4e", 16),
		"startTime": "2026-03-03T10:00:00.000Z", "lastUpdated": "2026-03-03T10:01:00.000Z",
		"messages": []map[string]any{
			{"id": "m1", "timestamp": "2026-03-03T10:00:01.000Z", "type": "user", "content": user},
			call(2, failing, "error", failed),
			call(3, working, "success", worked),
			{"id": "m4", "timestamp": "2026-03-03T10:00:04.000Z", "type": "gemini", "content": summary, "model": "gemini-2.5-flash"},
		},
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".gemini", "tmp", strings.Repeat("2f4e", 16), "chats", fmt.Sprintf("session-2026-03-03T10-00-%08d.json", i))
	writeTranscript(t, path, string(b))
	return path
}

func writeTranscript(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// promptRecorder is an OpenAI-compatible model that records every prompt
// it is sent and answers with an item quoting the session's first
// message, secret and all, as a careless model would.
type promptRecorder struct {
	mu      sync.Mutex
	prompts []string
}

func (m *promptRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.prompts = append(m.prompts, string(body))
	m.mu.Unlock()
	var req struct{ Messages []struct{ Content string } }
	json.Unmarshal(body, &req)
	var quote string
	if n := len(req.Messages); n > 0 {
		// The model answers with the transcript's first message as an item:
		// what it was sent is all it can leak.
		p := req.Messages[n-1].Content
		if i := strings.Index(p, "[#"); i >= 0 {
			quote = p[i:]
			if j := strings.IndexByte(quote, '\n'); j >= 0 {
				quote = quote[:j]
			}
		}
	}
	answer, _ := json.Marshal(map[string]any{"knowledge": []map[string]any{{
		"text": "Deploys need the credentials the user gave: " + quote, "category": "fact", "confidence": 0.9,
		"position": 1, "repo_specific": false, "signature": "", "tags": []string{"deploy"},
	}}})
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, chatAnswerJSON(string(answer)))
}

func chatAnswerJSON(content string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":` +
		jsonText(content) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`
}

// TestPlantedSecretsNowhere plants secrets of every kind lore's redactor
// knows in Claude Code, Codex and Gemini transcripts, runs lore over them
// as a user would, and greps everything lore printed, sent to a model or
// wrote for each planted value.
func TestPlantedSecretsNowhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command")
	}
	checkPlanted(t, knownSecrets(rand.New(rand.NewPCG(16, 7))))
}

// TestPlantedNewSecretsNowhere is the same run with the kinds issue 16
// found missing from the redactor.
func TestPlantedNewSecretsNowhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command")
	}
	checkPlanted(t, newSecrets(rand.New(rand.NewPCG(16, 8))))
}

func checkPlanted(t *testing.T, secrets []planted) {
	home := t.TempDir()
	var paths []string
	for i, p := range secrets {
		f := transcriptFormats[i%len(transcriptFormats)]
		paths = append(paths, f.write(t, home, i, p))
	}
	model := &promptRecorder{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	env := testEnv(home, map[string]string{"OPENAI_API_KEY": "test-key"})
	outputs := map[string]string{}
	lore := func(name string, args ...string) result {
		t.Helper()
		r := runIn(t, env, "", nil, args...)
		if r.code != 0 {
			t.Errorf("lore %s: exit %d\n%s", strings.Join(args, " "), r.code, r.err)
		}
		outputs[name] += r.stdout + r.err
		return r
	}

	lore("sessions", "sessions")
	lore("sessions", "sessions", "--json")
	for _, p := range paths {
		lore("sessions show", "sessions", "show", p, "--full")
		lore("sessions show", "sessions", "show", p, "--json")
		lore("sessions show", "sessions", "show", p)
	}
	lore("harvest --dry-run", "harvest", "--dry-run")
	lore("harvest", "harvest")
	lore("harvest --llm", "harvest", "--llm", "openai:"+srv.URL+"/v1", "--model", "m", "--json")
	model.mu.Lock()
	outputs["model prompts"] = strings.Join(model.prompts, "\n")
	calls := len(model.prompts)
	model.mu.Unlock()
	if calls == 0 {
		t.Error("harvest --llm sent no prompt")
	}

	var items []struct{ ID string }
	r := lore("export", "export", filepath.Join(home, "exported"), "--json")
	for _, q := range []string{"deploy", "credentials", "make", "staging"} {
		// Any status: one session's items wait as candidates (lore.Earned).
		r = lore("search", "search", q, "--json", "--status", "any")
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var hit struct{ ID string }
			if json.Unmarshal([]byte(l), &hit) == nil && hit.ID != "" {
				items = append(items, hit)
			}
		}
		lore("search", "search", q, "--status", "any")
	}
	if len(items) == 0 {
		t.Fatal("nothing harvested: the test plants nothing the store keeps")
	}
	for _, it := range items {
		lore("show", "show", it.ID)
		lore("show", "show", it.ID, "--json")
	}
	// The sessions' repository ("api", their folder's name): its items are
	// its own, whatever their text names (harvest/scope.go).
	lore("boot", "boot", "--repo", "api", "--min-confidence", "0")
	lore("boot", "boot", "--repo", "api", "--json", "--min-confidence", "0")
	for _, p := range secrets {
		lore("boot --task", "boot", "--repo", "api", "--task", "deploy with "+p.line, "--json", "--min-confidence", "0")
	}
	repo := filepath.Join(home, "src", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	lore("context write", "context", "write", filepath.Join(repo, "AGENTS.md"))
	lore("dashboard", "dashboard", "--out", filepath.Join(home, "metrics"))
	lore("measure --json", "measure", "--json")

	outputs["mcp answers"] = mcpAnswers(t, filepath.Join(home, ".lore", "lore.db"), secrets)

	// Each output shows what it was given, secrets redacted: the test
	// greps outputs that hold the planted lines.
	for _, name := range []string{"sessions show", "harvest --dry-run", "model prompts", "search", "show", "boot", "mcp answers"} {
		if !strings.Contains(outputs[name], "[REDACTED:") {
			t.Errorf("%s shows no redacted secret: the planted lines do not reach it\n%.2000s", name, outputs[name])
		}
	}

	leaks := map[string][]string{}
	grep := func(where, text string) {
		for _, p := range secrets {
			if strings.Contains(text, p.value) {
				leaks[where] = append(leaks[where], p.kind)
			}
		}
	}
	for name, out := range outputs {
		grep(name, out)
	}
	grepFiles(t, home, grep)

	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.ID] {
			continue
		}
		seen[it.ID] = true
		lore("forget --purge", "forget", it.ID, "--purge")
	}
	grepFiles(t, filepath.Join(home, ".lore"), func(where, text string) { grep("after forget --purge: "+where, text) })

	var names []string
	for name := range leaks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Errorf("%s: %d of %d planted secrets leaked (%s)", name, len(leaks[name]), len(secrets), strings.Join(leaks[name], ", "))
	}
}

// grepFiles calls grep with the text of every file lore wrote under dir:
// the transcripts the test planted are skipped.
func grepFiles(t *testing.T, dir string, grep func(where, text string)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".claude", ".codex", ".gemini":
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		grep(rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tokenFolder makes a folder whose name holds a token, as a clone named
// after its URL can, with a transcript lore cannot read and one it can.
func tokenFolder(t *testing.T) (dir, token string) {
	t.Helper()
	token = fake(rand.New(rand.NewPCG(16, 9)), "ghp_", alnum, 36)
	dir = filepath.Join(t.TempDir(), "deploy-"+token)
	writeTranscript(t, filepath.Join(dir, "broken.jsonl"), "garbage {\n")
	return dir, token
}

// What harvest prints names the transcripts it read: a token in their
// path is redacted, whether the harvest fails or reports a problem.
func TestHarvestRedactsPaths(t *testing.T) {
	dir, token := tokenFolder(t)
	good := filepath.Join(dir, "good")
	writeClaudeSession(t, good, 0, planted{line: "make test"})
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"missing", []string{filepath.Join(dir, "missing.jsonl")}, 1},
		{"not a transcript", []string{filepath.Join(dir, "broken.jsonl")}, 1},
		{"folder", []string{dir}, 0},
		{"folder json", []string{dir, "--json"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"harvest", "--store", filepath.Join(t.TempDir(), "lore.db")}, tt.args...)
			r := runLore(t, "", args...)
			if r.code != tt.code || !strings.Contains(r.stdout+r.err, "deploy-") {
				t.Fatalf("exit %d, want %d, and the folder named:\n%s%s", r.code, tt.code, r.stdout, r.err)
			}
			if strings.Contains(r.stdout+r.err, token) {
				t.Errorf("the token in the path is printed:\n%s%s", r.stdout, r.err)
			}
		})
	}
}

// The harvest the SessionEnd hook starts writes its log beside the store:
// a token in the transcript's path stays out of it.
func TestHookLogRedactsPaths(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir, token := tokenFolder(t)
	store := filepath.Join(t.TempDir(), "lore.db")
	startTestBinary := func(f *factory) {
		f.SelfCommand = func(args ...string) (*exec.Cmd, error) {
			b, _ := json.Marshal([][]string{args})
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), mainArgsEnv+"="+string(b))
			return cmd, nil
		}
	}
	in := `{"session_id":"x","transcript_path":` + jsonText(filepath.Join(dir, "broken.jsonl")) + `,"cwd":"/tmp","hook_event_name":"SessionEnd","reason":"exit"}`
	r := runIn(t, testEnv(t.TempDir(), nil), in, startTestBinary, "harvest", "--from-hook", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	logPath := filepath.Join(filepath.Dir(store), "hook-harvest.log")
	var log []byte
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(string(log), "lore: "); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the background harvest wrote no error within 30 s; its log:\n%s", log)
		}
		log, _ = os.ReadFile(logPath)
	}
	if strings.Contains(string(log), token) {
		t.Errorf("the hook's log holds the token in the transcript's path:\n%s", log)
	}
}

// mcpAnswers asks lore mcp over the store what an agent would: a search,
// and a boot context for a task that holds each secret, which the server
// records; it returns every answer's text.
func mcpAnswers(t *testing.T, store string, secrets []planted) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, done, _ := mcpInProcess(ctx, t, "mcp", "--store", store, "--agent", "claude-code")
	var b strings.Builder
	call := func(name string, args map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Errorf("mcp %s: %v %+v", name, err, res)
			return
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text + "\n")
			}
		}
	}
	call("search_knowledge", map[string]any{"query": "deploy credentials make staging"})
	for _, p := range secrets {
		call("boot_context", map[string]any{"task": "deploy with " + p.line})
	}
	cs.Close()
	<-done
	return b.String()
}

// sessions show prints a session's path and folder: a token in them is
// redacted, as in its messages.
func TestSessionsShowRedactsPaths(t *testing.T) {
	dir, token := tokenFolder(t)
	path := writeClaudeSession(t, dir, 0, planted{line: "make test"})
	for _, args := range [][]string{{path}, {path, "--json"}, {path, "--full"}} {
		r := runLore(t, "", append([]string{"sessions", "show"}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "deploy-") {
			t.Fatalf("%v: exit %d, want the path shown:\n%s%s", args, r.code, r.stdout, r.err)
		}
		if strings.Contains(r.stdout+r.err, token) {
			t.Errorf("%v: the token in the path is printed:\n%s", args, r.stdout)
		}
	}
	// An id not found names the folder it was looked up in.
	r := runLore(t, "", "sessions", "show", "codex:nosuch", "--in", dir)
	if r.code == 0 || strings.Contains(r.stdout+r.err, token) {
		t.Errorf("exit %d, and the token is printed:\n%s%s", r.code, r.stdout, r.err)
	}
}

// A token in the name of the folder a transcript is in, or of the folder
// the session worked in, reaches neither the store (its harvest records,
// its items' repo) nor the listings that print paths and repos; the
// transcript is still known as harvested the next time.
func TestPathTokenNowhere(t *testing.T) {
	dir, token := tokenFolder(t)
	path := writeClaudeSession(t, dir, 0, planted{line: "make test"})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The session worked in a folder, gone since, named after the token.
	work := filepath.Join(filepath.Dir(dir), "gone", "deploy-"+token)
	writeTranscript(t, path, strings.ReplaceAll(string(b), `"cwd":"/home/dev/api"`, `"cwd":`+jsonText(work)))
	store := filepath.Join(t.TempDir(), "lore.db")
	var printed []string
	run := func(args ...string) result {
		r := runLore(t, "", args...)
		if r.code != 0 {
			t.Fatalf("lore %s: exit %d\n%s", strings.Join(args, " "), r.code, r.err)
		}
		printed = append(printed, "lore "+args[0]+":\n"+r.stdout+r.err)
		return r
	}
	run("harvest", filepath.Dir(path), "--store", store)
	again := run("harvest", filepath.Dir(path), "--store", store, "--json")
	var sum struct {
		Skipped   int   `json:"sessions_skipped"`
		Harvested int   `json:"sessions_harvested"`
		Bytes     int64 `json:"bytes"`
	}
	if err := json.Unmarshal([]byte(again.stdout), &sum); err != nil || sum.Skipped != 1 || sum.Harvested != 0 || sum.Bytes != 0 {
		t.Errorf("second harvest: %v %+v, want the transcript known as unchanged:\n%s", err, sum, again.stdout)
	}
	run("sessions", filepath.Dir(path))
	run("sessions", filepath.Dir(path), "--json")
	run("sample", filepath.Dir(path), "--format", "paths")
	run("sample", filepath.Dir(path), "--json")
	run("search", "make", "--store", store, "--json")
	for _, p := range printed {
		if strings.Contains(p, token) {
			t.Errorf("the token is printed by %s", p)
		}
	}
	if !strings.Contains(strings.Join(printed, ""), "deploy-[REDACTED") {
		t.Errorf("no redacted folder name printed:\n%s", strings.Join(printed, "\n"))
	}
	grepFiles(t, filepath.Dir(store), func(where, text string) {
		if strings.Contains(text, token) {
			t.Errorf("the token is in %s", where)
		}
	})
}
