package harvest

import (
	"fmt"
	"testing"
)

func TestActionKey(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"go test ./...", "go test"},
		{"cd /repo && go vet ./...", "go vet"},
		{"npm run build", "npm run build"},
		{"mise run lint", "mise run lint"},
		{"make lint 2>&1 | tail -20", "make lint"},
		{"FOO=1 sudo -E timeout 60 cargo test", "cargo test"},
		{"python3 -m pytest -q", "pytest"},
		{"uv run pytest tests/", "pytest"},
		{"pnpm exec vitest run", "vitest"},
		{"python3 scripts/gen.py --all", "python3 gen.py"},
		{"./gradlew test", "gradlew test"},
		{"git -C /repo status", "git"},
		{"cat x | grep y", "cat"},
		{"go build ./... && echo ok", "go build"},
		{"cd web; export X=1", ""},
		{"cat > notes.md <<'EOF'\nrm -rf /\nEOF", "cat"},
		{"bd update x --set branch=$(git branch --show-current) --claim", "bd"},
		{"(cd web && npm ci)", "npm ci"},
		{"", ""},
	} {
		if got := actionKey(c.cmd); got != c.want {
			t.Errorf("actionKey(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestNormCommand(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"cd /repo && go test ./... 2>&1 | tail -30", "go test ./..."},
		{`echo start; grep -rn "\bfoo\b" src > out.txt`, `grep -rn \bfoo\b src`},
		{"npm ci && npm run build", "npm ci && npm run build"},
		{"cat > f.md <<'EOF'\nsome text && more\nEOF\ngit add f.md", "cat && git add f.md"},
		{`find . \( -name '*.go' \)`, `find . \( -name *.go \)`},
	} {
		if got := normCommand(c.cmd); got != c.want {
			t.Errorf("normCommand(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestDryRun(t *testing.T) {
	for cmd, want := range map[string]bool{
		"make -n build":                     true,
		"terraform plan && apply --dry-run": true,
		"make build":                        false,
		"cat <<EOF\n-n\nEOF":                false,
	} {
		if got := dryRun(cmd); got != want {
			t.Errorf("dryRun(%q) = %v", cmd, got)
		}
	}
}

// definitionPattern keeps each symbol's expression, and past
// maxDefinitions starts afresh: each symbol gets its own expression
// whatever came before.
func TestDefinitionPatternKept(t *testing.T) {
	for round := range 2 {
		for i := range maxDefinitions + 10 {
			sym := fmt.Sprintf("sym%d", i)
			re := definitionPattern(sym)
			if !re.MatchString("func "+sym+"(x int) {") || re.MatchString("func "+sym+"x() {") {
				t.Fatalf("round %d: definitionPattern(%q) = %q", round, sym, re)
			}
			if again := definitionPattern(sym); again != re {
				t.Fatalf("round %d: definitionPattern(%q) compiled again", round, sym)
			}
		}
	}
}
