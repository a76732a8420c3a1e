package errsig

import "testing"

func TestCommand(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Bash", `{"command":"go test ./...","description":"Run tests","timeout":120000}`, "go test ./..."},
		{"shell", `{"command":["bash","-lc","rg --files -g '*test*'"],"workdir":"/x"}`, "rg --files -g '*test*'"},
		{"shell", `{"command":["apply_patch","*** Begin Patch\n*** End Patch"]}`, "apply_patch '*** Begin Patch\n*** End Patch'"},
		{"local_shell", `{"type":"exec","command":["ls","-la"]}`, "ls -la"},
		{"exec_command", `{"cmd":"git status --short","workdir":"/x"}`, "git status --short"},
		{"shell_command", `{"command":"cargo test"}`, "cargo test"},
		{"run_shell_command", `{"command":"ls -l docs/blue.md","description":"Verify"}`, "ls -l docs/blue.md"},
		{"execute_bash", `{"command":"cd /workspace && make","is_input":false,"thought":"Build it."}`, "cd /workspace && make"},
		{"run", `{"command":"pytest -x","thought":""}`, "pytest -x"},
		{"terminal", `{"command":"pwd > out.txt","security_risk":"LOW"}`, "pwd > out.txt"},
		{"developer__shell", `{"command":"ps aux | grep worker"}`, "ps aux | grep worker"},
		{"execute_command", `{"command":"npm run build","requires_approval":false}`, "npm run build"},
		{"bash", "cd /testbed && python reproduce.py", "cd /testbed && python reproduce.py"},
		{"curl", "curl http://web.chal.csaw.io:8000", "curl http://web.chal.csaw.io:8000"},
		{"python", "python reproduce.py", "python reproduce.py"},
		{"Bash", `{"command":"echo \"a\tb\" \u0026\u0026 ls"}`, "echo \"a\tb\" && ls"},
		{"Bash", `{"description":"x","nested":{"command":"no"},"command":"yes"}`, "yes"},
		// not shell commands
		{"edit", "edit 1475:1475", ""},
		{"open", "open setup.py", ""},
		{"create", "create reproduce.py", ""},
		{"Edit", `{"file_path":"/x","old_string":"a","new_string":"b"}`, ""},
		{"Read", `{"file_path":"/x"}`, ""},
		{"str_replace_editor", `{"command":"view","path":"/x"}`, ""},
		{"Bash", `{"command":`, ""},
		{"Bash", ``, ""},
	} {
		if got := Command(c.tool, c.input); got != c.want {
			t.Errorf("Command(%q, %q) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
}

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

func TestIsShell(t *testing.T) {
	for tool, want := range map[string]bool{
		"Bash": true, "shell": true, "exec_command": true, "run_shell_command": true, "execute_bash": true,
		"developer__shell": true, "terminal": true, "Edit": false, "Read": false, "str_replace_editor": false,
		"WebFetch": false, "": false,
	} {
		if IsShell(tool) != want {
			t.Errorf("IsShell(%q) = %v", tool, !want)
		}
	}
}
