package shellcmd

import "testing"

func TestFromCall(t *testing.T) {
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
		if got := FromCall(c.tool, c.input); got != c.want {
			t.Errorf("FromCall(%q, %q) = %q, want %q", c.tool, c.input, got, c.want)
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
