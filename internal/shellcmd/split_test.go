package shellcmd

import (
	"reflect"
	"strings"
	"testing"
)

// show writes commands as words joined by spaces, | before a piped one
// and ; between the others.
func show(cmds []Command) string {
	var b strings.Builder
	for i, c := range cmds {
		if i > 0 {
			if c.Piped {
				b.WriteString(" | ")
			} else {
				b.WriteString(" ; ")
			}
		}
		b.WriteString(strings.Join(c.Words, " "))
	}
	return b.String()
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"go test ./...", "go test ./..."},
		{"cd /repo && go vet ./... || echo failed", "cd /repo ; go vet ./... ; echo failed"},
		{"make 2>&1 | tail -30 | grep -v ok", "make | tail -30 | grep -v ok"},
		{"npm test |& tee log", "npm test | tee log"},
		{"sleep 1 & curl localhost:8080", "sleep 1 ; curl localhost:8080"},
		{"a\nb;c", "a ; b ; c"},
		{"git add \\\n  a.txt \\\n  b.txt && git commit", "git add a.txt b.txt ; git commit"},
		{"echo a\\\nb \"c\\\nd\"", "echo ab cd"},
		// quotes and escapes
		{`git commit -m "fix: a && b; c | d"`, "git commit -m fix: a && b; c | d"},
		{`echo 'it''s' "a \"b\"" c\ d`, `echo its a "b" c d`},
		{`grep -r "x" . | head`, "grep -r x . | head"},
		// redirections and their files are left out
		{"go test > out.txt 2>&1", "go test"},
		{"cat < in.txt >> log 2>/dev/null", "cat"},
		{"pytest &> log.txt", "pytest"},
		{"node x.js 2> err.log | head", "node x.js | head"},
		{`python3 x.py > "out file.txt"`, "python3 x.py"},
		{`echo ">" x`, "echo > x"},
		// heredoc bodies are text
		{"cat > types/README.md << 'EOF'\n# Types\nThis is text && more\nEOF", "cat"},
		{"python3 - <<EOF\nimport x\nEOF\nls", "python3 - ; ls"},
		{"cat <<-A <<B\n\ta\n\tA\nb\nB\nmake", "cat ; make"},
		{"git add . && git commit -m \"$(cat <<'EOF'\nfix: x\n\nCo-Authored-By: y\nEOF\n)\"", "git add . ; git commit -m $(cat <<'EOF'\nfix: x\n\nCo-Authored-By: y\nEOF\n)"},
		// subshells and groups
		{"(cd web && npm ci)", "cd web ; npm ci"},
		{"{ make; make test; } 2>&1", "make ; make test"},
		{"echo ${HOME}/bin && go build -o ${OUT}/lore", "echo ${HOME}/bin ; go build -o ${OUT}/lore"},
		{`find . -name '*.go' -exec grep -l x {} \;`, "find . -name *.go -exec grep -l x {} ;"},
		{"echo {a,b}.txt", "echo {a,b}.txt"},
		// substitutions are part of their word
		{"bd update x --set machine=$(hostname) --claim", "bd update x --set machine=$(hostname) --claim"},
		{"git config --get branch.$(git branch --show-current).base", "git config --get branch.$(git branch --show-current).base"},
		{`f=$(grep -l "a)b" x | head -1); echo $f`, `f=$(grep -l "a)b" x | head -1) ; echo $f`},
		{"x=$(cat <<'EOF'\nit's (\nEOF\n) && make", "x=$(cat <<'EOF'\nit's (\nEOF\n) ; make"},
		{"diff <(jq . a.json) <(jq . b.json) 2>&1", "diff <(jq . a.json) <(jq . b.json)"},
		{"echo `date` && ls", "echo `date` ; ls"},
		{`gh pr edit 1 --body $'a\nb \'c\' | d' && ls`, "gh pr edit 1 --body a\nb 'c' | d ; ls"},
		{"", ""},
		{" ; && | ", ""},
	} {
		if got := show(Split(c.line)); got != c.want {
			t.Errorf("Split(%q)\n got %q\nwant %q", c.line, got, c.want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	for _, c := range []struct{ words, want string }{
		{"go test", "go test"},
		{"FOO=1 BAR=x/y make -j4", "make -j4"},
		{"sudo -E apt-get install -y x", "apt-get install -y x"},
		{"timeout 5m cargo test", "cargo test"},
		{"nice -n 10 make", "make"},
		{"env -i PATH=/bin ./run.sh", "./run.sh"},
		{"npx -p typescript tsc --noEmit", "tsc --noEmit"},
		{"/usr/bin/time -v xargs -0 grep x", "grep x"},
		{"then make", "make"},
		{"! grep -q x f", "grep -q x f"},
		{"--flag=x cmd", "--flag=x cmd"},
		{"1=x cmd", "1=x cmd"},
		{"sudo", ""},
	} {
		got := strings.Join(Unwrap(strings.Fields(c.words)), " ")
		if got != c.want {
			t.Errorf("Unwrap(%q) = %q, want %q", c.words, got, c.want)
		}
	}
}

func TestLaunched(t *testing.T) {
	for _, c := range []struct {
		words string
		want  []string
		ok    bool
	}{
		{"python3 -m pytest tests/", []string{"pytest", "tests/"}, true},
		{"uv run --frozen pytest -q", []string{"pytest", "-q"}, true},
		{"poetry run mypy .", []string{"mypy", "."}, true},
		{"bundle exec rspec", []string{"rspec"}, true},
		{"pnpm exec vitest run", []string{"vitest", "run"}, true},
		{"pnpm dlx prisma generate", []string{"prisma", "generate"}, true},
		{"npm run build", nil, false},
		{"uv run --frozen", nil, false},
		{"uv sync", nil, false},
		{"python3 -m", nil, false},
		{"python3 x.py -m", nil, false},
	} {
		got, ok := Launched(strings.Fields(c.words))
		if ok != c.ok || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Launched(%q) = %q, %v; want %q, %v", c.words, got, ok, c.want, c.ok)
		}
	}
}

func TestLists(t *testing.T) {
	for _, c := range []struct {
		prog                     string
		incidental, subcommanded bool
	}{
		{"cd", true, false},
		{"echo", true, false},
		{"mkdir", false, false}, // housekeeping, but it changes files
		{"make", false, true},
		{"podman", false, true},
		{"Gradle", false, true},
		{"pytest", false, false},
	} {
		if Incidental(c.prog) != c.incidental || Subcommanded(c.prog) != c.subcommanded {
			t.Errorf("%s: incidental %v, subcommanded %v", c.prog, Incidental(c.prog), Subcommanded(c.prog))
		}
	}
	for prog := range incidental {
		if !housekeeping[prog] {
			t.Errorf("%s is incidental but not housekeeping", prog)
		}
	}
}
