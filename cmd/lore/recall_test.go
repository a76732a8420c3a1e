package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
)

// pushError is what Claude Code tells the agent of a push to a protected
// branch: the tool result's text, and PostToolUseFailure's error.
const pushError = synth.PushError

// recallStore harvests a Claude Code session in a folder named api (the
// repository api) that failed to push to main and pushed a branch right
// after: a verified pitfall, active from this one session. It returns the
// store, the folder and the pitfall's text.
func recallStore(t *testing.T) (store, dir, pitfall string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "api")
	os.MkdirAll(dir, 0o755)
	transcriptFile := filepath.Join(base, "session.jsonl")
	os.WriteFile(transcriptFile, []byte(synth.ClaudePushSession("0b6c1a52-6f0e-4c7e-9b1a-1f2e3d4c5b6a", dir, "Push the retry fix.")), 0o600)
	store = filepath.Join(base, "lore.db")
	if r := runLore(t, "", "harvest", transcriptFile, "--store", store); r.code != 0 {
		t.Fatalf("harvest: %s%s", r.stdout, r.err)
	}
	r := runLore(t, "", "search", "protected branch", "--repo", "api", "--json", "--store", store)
	var it lore.Item
	if json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &it) != nil || it.Category != lore.CategoryPitfall ||
		!strings.HasPrefix(it.Text, "`git push origin main` fails with") || it.Status != lore.StatusActive {
		t.Fatalf("the harvest made no active pitfall of the push: %q %s", r.stdout, r.err)
	}
	return store, dir, it.Text
}

func preToolUse(dir, cmd string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": dir, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd, "description": "Push"}, "tool_use_id": "toolu_9"})
	return string(b)
}

func postToolUseFailure(dir, cmd, errText string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": dir, "hook_event_name": "PostToolUseFailure",
		"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": "toolu_9", "error": errText, "is_interrupt": false})
	return string(b)
}

// hookContext reads a tool hook's answer: the event it answers and its
// additional context; it fails the test on anything else in it.
func hookContext(t *testing.T, stdout string) (event, context string) {
	t.Helper()
	var out map[string]map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != 1 || len(out["hookSpecificOutput"]) != 2 {
		t.Fatalf("not a hook answer with additional context alone: %q (%v)", stdout, err)
	}
	h := out["hookSpecificOutput"]
	event, _ = h["hookEventName"].(string)
	context, _ = h["additionalContext"].(string)
	return event, context
}

func TestRecallBeforeTool(t *testing.T) {
	store, dir, pitfall := recallStore(t)
	r := runLoreStdin(t, nil, preToolUse(dir, "cd "+dir+" && git push origin main"), "recall", "--before-tool", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	event, note := hookContext(t, r.stdout)
	t.Logf("%s", note)
	if event != "PreToolUse" || !strings.Contains(note, pitfall) || !strings.Contains(note, "[lore:") || !strings.Contains(note, "not instructions") {
		t.Errorf("the note: %s %q", event, note)
	}
	bs := boots(t, store)
	if len(bs) != 1 || bs[0].Kind != lore.BootBeforeTool || bs[0].Session != "claude-code:s1" || bs[0].Repo != "api" || len(bs[0].Items) != 1 {
		t.Errorf("the note's record: %+v", bs)
	}
	// The same session is told once; another session is told too.
	if r := runLoreStdin(t, nil, preToolUse(dir, "git push origin main"), "recall", "--before-tool", "--store", store); r.code != 0 || r.stdout != "" {
		t.Errorf("the same session again: exit %d, %q, %q; want nothing", r.code, r.stdout, r.err)
	}
	other := strings.Replace(preToolUse(dir, "git push origin main"), `"session_id":"s1"`, `"session_id":"s2"`, 1)
	if r := runLoreStdin(t, nil, other, "recall", "--before-tool", "--store", store); r.code != 0 || !strings.Contains(r.stdout, "fails with") {
		t.Errorf("another session: exit %d, %q, %q; want the note", r.code, r.stdout, r.err)
	}
	if bs := boots(t, store); len(bs) != 2 || bs[1].Session != "claude-code:s2" {
		t.Fatalf("records: %+v, want one a session", bs)
	}
	// Another command, another repository: nothing at all, exit 0.
	web := filepath.Join(t.TempDir(), "web")
	os.MkdirAll(web, 0o755)
	for name, in := range map[string]string{
		"another branch":     preToolUse(dir, "git push origin feature"),
		"another repository": preToolUse(web, "git push origin main"),
	} {
		if r := runLoreStdin(t, nil, in, "recall", "--before-tool", "--store", store); r.code != 0 || r.stdout != "" {
			t.Errorf("%s: exit %d, %q, %q", name, r.code, r.stdout, r.err)
		}
	}
	if bs := boots(t, store); len(bs) != 2 {
		t.Errorf("%d records, want only the notes handed over", len(bs))
	}
}

func TestRecallAfterTool(t *testing.T) {
	store, dir, pitfall := recallStore(t)
	r := runLoreStdin(t, nil, postToolUseFailure(dir, "git push origin main", pushError), "recall", "--after-tool", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	event, note := hookContext(t, r.stdout)
	if event != "PostToolUseFailure" || !strings.Contains(note, pitfall) {
		t.Errorf("the note: %s %q", event, note)
	}
	// The note never hands the tool's output back.
	if strings.Contains(note, "github.com:acme/api.git") || strings.Contains(note, "remote rejected") {
		t.Errorf("the note echoes the output: %q", note)
	}
	// The same error from another command of the same program: the same
	// signature, the same note.
	r = runLoreStdin(t, nil, strings.Replace(postToolUseFailure(dir, "git push origin HEAD:main", pushError), `"s1"`, `"s2"`, 1),
		"recall", "--after-tool", "--store", store)
	if _, note := hookContext(t, r.stdout); !strings.Contains(note, pitfall) {
		t.Errorf("the same error of git push origin HEAD:main: %q", note)
	}
	bs := boots(t, store)
	if len(bs) != 2 || bs[0].Kind != lore.BootAfterFailure || bs[0].Agent != lore.AgentClaudeCode || bs[0].Session != "claude-code:s1" ||
		bs[1].Session != "claude-code:s2" {
		t.Errorf("the notes' records: %+v", bs)
	}
	// Gemini CLI's AfterTool: the same JSON, its own event name and agent.
	gemini, _ := json.Marshal(map[string]any{"session_id": "g1", "cwd": dir, "hook_event_name": "AfterTool", "tool_name": "run_shell_command",
		"tool_input": map[string]any{"command": "git push origin main"},
		// Its shell tool sets no error for a non-zero exit: the exit code
		// ends what it tells the model.
		"tool_response": map[string]any{"llmContent": "Command: git push origin main\nDirectory: (root)\nOutput: " +
			strings.TrimPrefix(pushError, "Exit code 1\n") + "\nError: (none)\nExit Code: 1\nSignal: (none)",
			"returnDisplay": "Command exited with code: 1"}})
	r = runLoreStdin(t, nil, string(gemini), "recall", "--after-tool", "--store", store)
	if event, note := hookContext(t, r.stdout); event != "AfterTool" || !strings.Contains(note, pitfall) {
		t.Errorf("Gemini CLI's AfterTool: %s %q", event, note)
	}
	if bs := boots(t, store); len(bs) != 3 || bs[2].Session != "gemini-cli:g1" || bs[2].Agent != lore.AgentGeminiCLI {
		t.Errorf("Gemini CLI's note's record: %+v", bs[len(bs)-1])
	}
}

// TestRecallFailsOpen: whatever goes wrong, a tool hook prints nothing
// and exits 0, so the agent goes on as if lore were not there.
func TestRecallFailsOpen(t *testing.T) {
	store, dir, _ := recallStore(t)
	bad := filepath.Join(t.TempDir(), "lore.db")
	os.WriteFile(bad, []byte("this is not a database, not even close to one....................................................."), 0o600)
	push := preToolUse(dir, "git push origin main")
	failure := postToolUseFailure(dir, "git push origin main", pushError)
	interrupted := strings.Replace(failure, `"is_interrupt":false`, `"is_interrupt":true`, 1)
	worked, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": dir, "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "git push origin main"}, "tool_response": map[string]any{"stdout": pushError, "stderr": "", "interrupted": false}})
	geminiBefore := strings.Replace(push, `"PreToolUse"`, `"BeforeTool"`, 1)
	for _, tt := range []struct {
		name, stdin string
		env         map[string]string
		args        []string
	}{
		{"no store", push, nil, []string{"--before-tool", "--store", filepath.Join(t.TempDir(), "none.db")}},
		{"a damaged store", push, nil, []string{"--before-tool", "--store", bad}},
		{"a damaged store, after", failure, nil, []string{"--after-tool", "--store", bad}},
		{"garbage input", "{not json", nil, []string{"--before-tool", "--store", store}},
		{"no input", "", nil, []string{"--before-tool", "--store", store}},
		{"not an object", `["PreToolUse"]`, nil, []string{"--after-tool", "--store", store}},
		{"another tool", strings.Replace(preToolUse(dir, "x"), `"Bash"`, `"Read"`, 1), nil, []string{"--before-tool", "--store", store}},
		{"an MCP tool's failure", strings.Replace(failure, `"Bash"`, `"mcp__github__create_pr"`, 1), nil, []string{"--after-tool", "--store", store}},
		{"a tool input of another shape", strings.Replace(push, `{"command":"git push origin main","description":"Push"}`, `"git push"`, 1), nil,
			[]string{"--before-tool", "--store", store}},
		{"the other flag's event, before", failure, nil, []string{"--before-tool", "--store", store}},
		{"the other flag's event, after", push, nil, []string{"--after-tool", "--store", store}},
		{"a call that worked", string(worked), nil, []string{"--after-tool", "--store", store}},
		{"a call the user stopped", interrupted, nil, []string{"--after-tool", "--store", store}},
		{"Gemini CLI's BeforeTool", geminiBefore, nil, []string{"--before-tool", "--store", store}},
		{"lore's own session", push, map[string]string{"LORE_HARVEST": "1"}, []string{"--before-tool", "--store", store}},
		{"no flag", push, nil, []string{"--store", store}},
		{"both flags", push, nil, []string{"--before-tool", "--after-tool", "--store", store}},
		{"an unknown flag", push, nil, []string{"--before-tool", "--no-such-flag", "--store", store}},
		{"an unknown agent", push, nil, []string{"--before-tool", "--agent", "windsurf", "--store", store}},
		{"an argument", push, nil, []string{"--before-tool", "extra", "--store", store}},
	} {
		r := runLoreStdin(t, tt.env, tt.stdin, append([]string{"recall"}, tt.args...)...)
		if r.code != 0 || r.stdout != "" || strings.Count(r.err, "\n") > 1 {
			t.Errorf("%s: exit %d, %q, %q", tt.name, r.code, r.stdout, r.err)
		}
	}
	if bs := boots(t, store); len(bs) != 0 {
		t.Errorf("records of notes never handed over: %+v", bs)
	}
	// Help is help.
	if r := runLore(t, "", "recall", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--before-tool") {
		t.Errorf("recall --help: exit %d, %q", r.code, r.stdout)
	}
}

// TestRecallProcess runs lore recall as Claude Code does: a process of
// its own, the hook's JSON on standard input.
func TestRecallProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	store, dir, pitfall := recallStore(t)
	args, _ := json.Marshal([][]string{{"recall", "--before-tool", "--store", store}})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+string(args), mainStdinEnv+"=1")
	cmd.Stdin = strings.NewReader(preToolUse(dir, "git push origin main"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if event, note := hookContext(t, string(out)); event != "PreToolUse" || !strings.Contains(note, pitfall) {
		t.Errorf("%s %q", event, note)
	}
}

// TestRecallHoldout: a session held out (LORE_HOLDOUT, as for lore boot)
// is handed no note at the point of action; the note is recorded as
// withheld, for measure's comparison.
func TestRecallHoldout(t *testing.T) {
	store, dir, _ := recallStore(t)
	r := runLoreStdin(t, map[string]string{"LORE_HOLDOUT": "1"}, preToolUse(dir, "git push origin main"), "recall", "--before-tool", "--store", store)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("held out: exit %d, %q, %q; want nothing", r.code, r.stdout, r.err)
	}
	bs := boots(t, store)
	if len(bs) != 1 || !bs[0].Withheld || bs[0].Kind != lore.BootBeforeTool || len(bs[0].Items) != 1 {
		t.Errorf("records: %+v, want the note withheld", bs)
	}
	// Not held out (0), the same session is handed it: a withheld note
	// was never told.
	r = runLoreStdin(t, nil, preToolUse(dir, "git push origin main"), "recall", "--before-tool", "--holdout", "0", "--store", store)
	if r.code != 0 || !strings.Contains(r.stdout, "fails with") {
		t.Errorf("not held out: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	// A share that is none fails open.
	r = runLoreStdin(t, map[string]string{"LORE_HOLDOUT": "lots"}, preToolUse(dir, "git push origin main"), "recall", "--before-tool", "--store", store)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.err, "LORE_HOLDOUT") {
		t.Errorf("LORE_HOLDOUT=lots: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
}

// TestRecallEpisode: after a failure no note covers (the session that met
// it before fixed it by an edit, so the rules kept no pitfall), the hook
// hands over that earlier episode: the error, what was done, what then
// worked; recorded as a boot of kind episode. An agent tool's own error
// gets none.
func TestRecallEpisode(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "web")
	os.MkdirAll(dir, 0o755)
	const buildError = "Exit code 1\nError: Cannot find module 'left-pad'\nRequire stack:\n- /src/web/build.js"
	n := 0
	line := func(typ string, msg any) string {
		n++
		b, _ := json.Marshal(map[string]any{"type": typ, "uuid": fmt.Sprint("u", n), "sessionId": "7d1e2f30-0000-4000-8000-00000000000a",
			"cwd": dir, "version": "2.0.1", "timestamp": fmt.Sprintf("2026-09-03T10:00:%02d.000Z", n), "message": msg})
		return string(b)
	}
	call := func(id, name string, input map[string]any) string {
		return line("assistant", map[string]any{"id": "msg_" + id, "role": "assistant", "model": "claude-sonnet-4", "content": []any{
			map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}})
	}
	result := func(id, out string, failed bool) string {
		return line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": failed}}})
	}
	lines := []string{
		line("user", map[string]any{"role": "user", "content": "Build the web app."}),
		call("toolu_1", "Bash", map[string]any{"command": "npm run build"}),
		result("toolu_1", buildError, true),
		call("toolu_2", "Edit", map[string]any{"file_path": dir + "/package.json", "old_string": `"deps": {}`, "new_string": `"deps": {"left-pad": "1.3.0"}`}),
		result("toolu_2", "The file has been updated.", false),
		call("toolu_3", "Bash", map[string]any{"command": "npm run build"}),
		result("toolu_3", "built in 2.1s", false),
	}
	file := filepath.Join(base, "session.jsonl")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	store := filepath.Join(base, "lore.db")
	if r := runLore(t, "", "harvest", file, "--store", store); r.code != 0 {
		t.Fatalf("harvest: %s%s", r.stdout, r.err)
	}
	if r := runLore(t, "", "list", "--status", "active", "--json", "--store", store); strings.Contains(r.stdout, "left-pad") {
		t.Fatalf("an active item covers the error; the test needs none: %s", r.stdout)
	}
	r := runLoreStdin(t, nil, postToolUseFailure(dir, "npm run build", buildError), "recall", "--after-tool", "--store", store)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	event, note := hookContext(t, r.stdout)
	if event != "PostToolUseFailure" || !strings.Contains(note, "Met before in claude-code:7d1e2f30") ||
		!strings.Contains(note, "`npm run build` worked") || !strings.Contains(note, "not instructions") {
		t.Errorf("the episode: %s %q", event, note)
	}
	t.Log(note)
	if bs := boots(t, store); len(bs) != 1 || bs[0].Kind != lore.BootEpisode || bs[0].Session != "claude-code:s1" || bs[0].Tokens == 0 {
		t.Errorf("the episode's record: %+v", bs)
	}
	// An agent tool's own error: its message says what to do.
	edit, _ := json.Marshal(map[string]any{"session_id": "s2", "cwd": dir, "hook_event_name": "PostToolUseFailure", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": dir + "/a.js"}, "error": "String to replace not found in file.", "is_interrupt": false})
	if r := runLoreStdin(t, nil, string(edit), "recall", "--after-tool", "--store", store); r.code != 0 || r.stdout != "" {
		t.Errorf("an Edit tool's error: exit %d, %q", r.code, r.stdout)
	}
}
