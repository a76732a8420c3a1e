package harvest

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/guard"
)

// TestPrefilterWords checks that every match of an expression run only on
// a text holding one of its words holds one: a word missing from the list
// would pass over a text the expression matches.
func TestPrefilterWords(t *testing.T) {
	for _, c := range []struct {
		name  string
		re    string
		words []string
	}{
		{"destructive", destructivePattern().String(), destructiveWords},
		{"url", urlPattern().String(), []string{"://"}},
		{"setting", settingPattern().String(), []string{"="}},
		{"quoted", quotedPattern().String(), []string{"`", "'", `"`}},
	} {
		if !guard.EveryMatchHolds(c.re, c.words) {
			t.Errorf("%s: a match may hold none of %q", c.name, c.words)
		}
	}
	for _, p := range slices.Concat(writesPatterns, selectivePatterns) {
		if !guard.EveryMatchHolds(p.re().String(), []string{p.word}) {
			t.Errorf("a match of %s may not hold %q", p.re(), p.word)
		}
	}
	// The check itself fails a word short.
	if guard.EveryMatchHolds(destructivePattern().String(), destructiveWords[1:]) {
		t.Error("EveryMatchHolds missed that rm -rf holds none of the words but rm")
	}
}

// TestVersionCommandWords: versionCommand passes over a command holding
// none of versionWords, yet answers as its expression on the command's
// normal form, quotes taken out, does.
func TestVersionCommandWords(t *testing.T) {
	for _, cmd := range []string{"go version", "node --version", "python3 -V", "rustc -v", "java -version",
		`go "version"`, "node -'v'", `cd web && npm '-'-version`, "git log -1 | head", "go test ./...", "npm -V x"} {
		if got, want := versionCommand(cmd), versionCommandPattern().MatchString(normCommand(cmd)); got != want {
			t.Errorf("versionCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestWritesAlternatives: writes, reading each of writesPatterns only on a
// command holding its word, answers as the one expression it ran before,
// and as their alternation.
func TestWritesAlternatives(t *testing.T) {
	var res []string
	for _, p := range writesPatterns {
		res = append(res, p.re().String())
	}
	const before = `(^|[^0-9&>=-])>{1,2}\s*[^&\s/]|>{1,2}\s*/(?:[^d]|d[^e]|de[^v])|\bsed\s+(-\w+\s+)*-i|\bperl\s+-\w*i|\btee\b|--write\b|--fix\b|\bgofmt\s+(-\w+\s+)*-w\b|\bgoimports\s+.*-w\b|\bgit\s+(apply|am|restore|reset|stash|merge|rebase|cherry-pick|revert|pull)\b|\bgit\s+(checkout|switch)\s+([^-\s]|--\s)|\bpatch\b|\bcp\b|\bmv\b|\btouch\b|\bmkdir\b|\brm\b|\bln\b|\btruncate\b|\bdd\b`
	if joined := strings.Join(res, "|"); joined != before {
		t.Fatalf("writesPatterns join to\n%s\nnot\n%s", joined, before)
	}
	all := regexp.MustCompile(before)
	cmds := []string{"go test ./... > out.txt", "echo x >/dev/null", "echo x > /tmp/x", "ls 2>&1", "sed -n 1p f", "sed -i s/a/b/ f",
		"perl -pi -e s/a/b/ f", "cat x | tee y", "prettier --write .", "eslint --fix", "gofmt -l -w .", "goimports -w x.go",
		"git status", "git pull --rebase", "git checkout main", "git checkout -b x", "git switch -- x", "patch -p1 < x.diff",
		"scp a b", "cp a b", "mv a b", "touch x", "mkdir -p x", "rm x", "format x", "ln -s a b", "println", "truncate -s 0 f",
		"dd if=a of=b", "add x", "npm run build", "make test", "go vet ./...", "x=>y", "a >> b", "a &> b", "a -> b"}
	for _, cmd := range cmds {
		if got, want := writes(cmd), all.MatchString(cmd); got != want {
			t.Errorf("writes(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestSelectiveAlternatives: selective, reading each of selectivePatterns
// only on a command holding its word, answers as the one expression it
// ran before.
func TestSelectiveAlternatives(t *testing.T) {
	before := regexp.MustCompile(`\s-(run|k|t|-filter|-grep|-testNamePattern|-tests?)[\s=]|::|_test\.go\b|\.(test|spec)\.[jt]sx?\b|\btest_\w+\.py\b|\w+_test\.py\b`)
	for _, cmd := range []string{"go test ./... -run TestX", "go test -run=TestX", "go test -race ./...", "pytest -k slow", "pytest -kx",
		"cargo test -t x", "npm test -- --filter x", "jest --grep=x", "jest --testNamePattern x", "cargo test --tests", "cargo test --test x",
		"cargo test --testx", "pytest tests/a.py::test_b", "go test x_test.go", "go test x_test.gox", "vitest a.test.ts", "vitest a.spec.jsx",
		"vitest a.spec.tsx.map", "pytest test_api.py", "pytest api_test.py", "pytest mytest_x.py", "make test", "go test\t-run\tX",
		"npm test", "go build ./...", "pytest -q"} {
		if got, want := matchAny(selectivePatterns, cmd), before.MatchString(cmd); got != want {
			t.Errorf("matchAny(selectivePatterns, %q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestIsSetting: isSetting, a scan, answers as the expression it stands
// for.
func TestIsSetting(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	for _, w := range []string{"FOO=1", "foo=bar", "_=x", "_A1=", "A=", "=x", "1A=2", "A1=2", "É=1", "AÉ=1", "A", "", "a-b=1",
		"CGO_ENABLED=0", "--x=1", "a b=1", "Z9_z=", "a=b=c"} {
		if got, want := isSetting(w), re.MatchString(w); got != want {
			t.Errorf("isSetting(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestQuotes: quotes, a scan, finds what quotedPattern finds, on texts
// made of the characters the expression turns on.
func TestQuotes(t *testing.T) {
	texts := []string{"`go test` fails", "'a'", "''", "x'a' 'b'", "é'x'", "\xff'x'", "\"a\"'b'", "`'a'", "`a", "a`b`c`d`",
		"'a\nb'", "\"a\"", "\"\"x\"", "_'a'", "'a''b'", "run 'npm i' and \"go test\" or `make`", "“a” 'b'"}
	const alphabet = "`'\"\n a_1é\xff.-"
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, 1+rng.IntN(16))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		var want []quote
		for _, m := range quotedPattern().FindAllStringSubmatchIndex(text, -1) {
			want = append(want, quote{m[0], m[1], max(m[2], m[4], m[6]), max(m[3], m[5], m[7])})
		}
		if got := quotes(text); !slices.Equal(got, want) {
			t.Errorf("quotes(%q) = %v, want %v", text, got, want)
		}
	}
}
