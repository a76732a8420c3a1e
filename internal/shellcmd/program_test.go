package shellcmd

import "testing"

func TestProgram(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"go test ./...", "go test"},
		{"go test -v -run TestX ./cmd/ 2>&1 | tail -30", "go test"},
		{"cd /repo && go vet ./...", "go vet"},
		{"git -C /repo push origin main", "git push"},
		{"git --no-pager log --oneline -5", "git log"},
		{"npm run build", "npm run"},
		{"npm install --save-dev vitest", "npm install"},
		{"npx tsc --noEmit", "tsc"},
		{"pnpm exec vitest run", "vitest"},
		{"pnpm test --filter @x/desktop -- --run", "pnpm test"},
		{"uv run pytest -q", "pytest"},
		{"python3 -m pytest tests/", "pytest"},
		{"python3 scripts/report.py", "python"},
		{"./scripts/gen.py", "python"},
		{"FOO=1 BAR=2 make -j4", "make"},
		{"sudo apt-get install -y llvm-dev", "apt-get install"},
		{"timeout 30 cargo test", "cargo test"},
		{"cat log.txt | grep error | wc -l", "cat"},
		{"cat log.txt | python summarize.py", "python"},
		{"curl -s https://x | jq .items", "curl"},
		{"find . -name '*.ts' | xargs grep -l foo", "find"},
		{"mkdir -p build && cd build && cmake ..", "cmake"},
		{"rm -rf build; mkdir build", "mkdir"},
		{"cd x", "cd"},
		{"gh api repos/acme/api", "gh api"},
		{"gh pr create --title \"x y\" --body 'a && b'", "gh pr"},
		{"cat > types/README.md << 'EOF'\n# Types\nThis is text && more\nEOF", "cat"},
		{"git add . && git commit -m \"$(cat <<'EOF'\nfix: x\n\nCo-Authored-By: y\nEOF\n)\"", "git commit"},
		{"(cd web && npm ci)", "npm ci"},
		{"docker compose up -d", "docker compose"},
		{"", ""},
	} {
		if got := Program(c.cmd); got != c.want {
			t.Errorf("Program(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}
