package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

const (
	clineNativeTask = "testdata/cline/saoudrizwan.claude-dev/tasks/1770482470358"
	clineRooTask    = "testdata/cline/rooveterinaryinc.roo-cline/tasks/0d2c6f1e-5b7a-4c1e-9a33-2f7f0c3e8b11"
	clineUITask     = "testdata/cline/tasks/1749000000000"
)

// The answers were worked out by hand from the fixtures (written from
// FORMATS.md section 8; see the notes beside each number).
func TestClineTasks(t *testing.T) {
	tests := []struct {
		dir, id, agent, model, cwd string
		user, asst, calls, errs    int
		usage                      lore.Usage
		outcome                    lore.Outcome
		start, end                 int64 // ms
	}{
		// native tool_use: 6 answers; the task and the feedback given when
		// denying `npm test` are turns, tool results with environment
		// details are not; the failed SEARCH block and the browser's
		// is_error are errors, the denial is not; six api_req_started.
		{clineNativeTask, "cline:1770482470358", lore.AgentCline, "claude-opus-4-6", "/Users/dev/jira-ui",
			2, 6, 6, 2, lore.Usage{InputTokens: 1850, OutputTokens: 820, CacheWriteTokens: 9700, CacheReadTokens: 47500},
			lore.OutcomeSuccess, 1770482470358, 1770482470358 + 36000},
		// XML tool calls: the second tag of the apply_diff answer is not a
		// call (Roo runs one); "Tool [read_file] was not executed" is not
		// a turn, the <answer> and the completion <feedback> are; the
		// last request was cancelled and the task left at resume_task.
		{clineRooTask, "roo-code:0d2c6f1e-5b7a-4c1e-9a33-2f7f0c3e8b11", lore.AgentRooCode, "", "/home/dev/api",
			3, 5, 5, 1, lore.Usage{InputTokens: 17400, OutputTokens: 420},
			lore.OutcomeAborted, 1750000000000, 1750000060000},
		// ui messages only: the task is the turn; two requests produced
		// output, the third failed; a readFile then an error message.
		{clineUITask, "cline:1749000000000", lore.AgentCline, "anthropic/claude-sonnet-4.5", "/home/dev/notes",
			1, 2, 2, 1, lore.Usage{InputTokens: 2000, OutputTokens: 90},
			lore.OutcomeFailure, 1749000000000, 1749000009000},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			for _, keep := range []bool{true, false} {
				ss, err := Read(context.Background(), tt.dir, Options{Messages: keep, NoGit: true})
				if err != nil || len(ss) != 1 {
					t.Fatalf("read: %v, %d sessions", err, len(ss))
				}
				s := ss[0]
				checkInvariants(t, s)
				if s.ID != tt.id || s.Agent != tt.agent || s.Model != tt.model || s.Cwd != tt.cwd {
					t.Errorf("keep=%v: id %q agent %q model %q cwd %q", keep, s.ID, s.Agent, s.Model, s.Cwd)
				}
				if s.UserMessages != tt.user || s.AssistantMessages != tt.asst || s.ToolCalls != tt.calls || s.ToolErrors != tt.errs {
					t.Errorf("keep=%v: u=%d a=%d calls=%d errs=%d, want %d %d %d %d", keep,
						s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors, tt.user, tt.asst, tt.calls, tt.errs)
				}
				if s.Usage != tt.usage || s.Outcome != tt.outcome {
					t.Errorf("keep=%v: usage %+v outcome %s, want %+v %s", keep, s.Usage, s.Outcome, tt.usage, tt.outcome)
				}
				if !s.StartedAt.Equal(time.UnixMilli(tt.start)) || !s.EndedAt.Equal(time.UnixMilli(tt.end)) {
					t.Errorf("keep=%v: span %v – %v", keep, s.StartedAt, s.EndedAt)
				}
				if s.Warnings != 0 {
					t.Errorf("keep=%v: warnings %v", keep, s.WarningSamples)
				}
			}
		})
	}
}

func TestClineBodies(t *testing.T) {
	s := readOne(t, clineNativeTask)
	var users []string
	for _, m := range s.Messages {
		if m.Role == lore.RoleUser {
			users = append(users, m.Text)
		}
		for _, r := range m.ToolResults {
			if strings.Contains(r.Output, "iVBORw0KGgo") {
				t.Errorf("a base64 image was kept in a tool result")
			}
		}
	}
	if len(users) != 2 || !strings.HasPrefix(users[0], "<task>\nAdd an Open button") {
		t.Errorf("user turns %q", users)
	}
	first := s.Messages[1]
	if first.Role != lore.RoleAssistant || first.Thinking != "Look at the list first." || len(first.ToolCalls) != 1 ||
		first.ToolCalls[0].Name != "read_file" || first.ToolCalls[0].Input != `{"path":"src/List.svelte"}` {
		t.Errorf("first answer %+v", first)
	}
	roo := readOne(t, clineRooTask)
	var names []string
	for _, m := range roo.Messages {
		for _, c := range m.ToolCalls {
			names = append(names, c.Name)
		}
	}
	if strings.Join(names, ",") != "read_file,execute_command,apply_diff,ask_followup_question,attempt_completion" {
		t.Errorf("XML calls %v", names)
	}
	ui := readOne(t, clineUITask)
	for _, m := range ui.Messages {
		if strings.Contains(m.Text, "base64") {
			t.Errorf("a data URL was kept: %q", m.Text)
		}
	}
}

// Reading one of a task's files gives the task's session; a copy of
// ui_messages.json under another name is read by itself.
func TestClineFiles(t *testing.T) {
	folder := readOne(t, clineNativeTask)
	for _, name := range []string{"ui_messages.json", "api_conversation_history.json"} {
		s := readOne(t, filepath.Join(clineNativeTask, name))
		if s.ID != folder.ID || s.MessageCount() != folder.MessageCount() || s.ToolErrors != folder.ToolErrors {
			t.Errorf("%s: %s with %d turns, want %s with %d", name, s.ID, s.MessageCount(), folder.ID, folder.MessageCount())
		}
	}
	data, err := os.ReadFile(filepath.Join(clineUITask, "ui_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := readOne(t, writeFile(t, "Cline-Xray__ui_messages.json", string(data)))
	if s.ID != "cline:Cline-Xray__ui_messages" || s.UserMessages != 1 || s.AssistantMessages != 2 || s.Outcome != lore.OutcomeFailure {
		t.Errorf("lone file: %s u=%d a=%d %s", s.ID, s.UserMessages, s.AssistantMessages, s.Outcome)
	}
	// The legacy name of ui_messages.json.
	dir := filepath.Dir(writeFile(t, "1700000000000/claude_messages.json", string(data)))
	if s := readOne(t, dir); s.ID != "cline:1700000000000" || s.UserMessages != 1 {
		t.Errorf("claude_messages.json: %s u=%d", s.ID, s.UserMessages)
	}
}

// The user-turn and XML rules, one history each (api_conversation_history
// only: no ui messages, so the outcome is the history's).
func TestClineHistoryRules(t *testing.T) {
	tests := []struct {
		name, api               string
		user, asst, calls, errs int
		outcome                 lore.Outcome
	}{
		{"string task", `[{"role":"user","content":"<task>\nhi\n</task>"}]`, 1, 0, 0, 0, lore.OutcomeUnknown},
		{"resumed, nothing new", `[{"role":"user","content":[{"type":"text","text":"[TASK RESUMPTION] This task was interrupted 5 minutes ago."},{"type":"text","text":"<environment_details>\n</environment_details>"}]}]`, 0, 0, 0, 0, lore.OutcomeUnknown},
		{"resumed with instructions", `[{"role":"user","content":[{"type":"text","text":"[TASK RESUMPTION] This task was interrupted.\n\nNew instructions for task continuation:\n<user_message>\nfix it\n</user_message>"}]}]`, 1, 0, 0, 0, lore.OutcomeUnknown},
		{"no tool used", `[{"role":"user","content":[{"type":"text","text":"[ERROR] You did not use a tool in your previous response! Please retry with a tool use."}]}]`, 0, 0, 0, 0, lore.OutcomeUnknown},
		{"XML error in string content", `[{"role":"assistant","content":"<read_file>\n<path>a</path>\n</read_file>"},{"role":"user","content":"[read_file for 'a'] Result:\nThe tool execution failed with the following error:\n<error>\nENOENT\n</error>"}]`, 0, 1, 1, 1, lore.OutcomeUnknown},
		{"result of an unknown tag", `[{"role":"assistant","content":"<frobnicate>x</frobnicate>"},{"role":"user","content":[{"type":"text","text":"[frobnicate] Result:"},{"type":"text","text":"ok"}]}]`, 0, 1, 1, 0, lore.OutcomeUnknown},
		{"answer to a question", `[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"ask_followup_question","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"<answer>\nyes\n</answer>"}]}]`, 1, 1, 1, 0, lore.OutcomeUnknown},
		{"attached image", `[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]`, 1, 0, 0, 0, lore.OutcomeUnknown},
		{"completion last", `[{"role":"user","content":"<task>x</task>"},{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"attempt_completion","input":{"result":"done"}}]}]`, 1, 1, 1, 0, lore.OutcomeSuccess},
		{"XML completion last", `[{"role":"user","content":"<task>x</task>"},{"role":"assistant","content":"Done.\n<attempt_completion>\n<result>ok</result>\n</attempt_completion>"}]`, 1, 1, 1, 0, lore.OutcomeSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Dir(writeFile(t, "1700000000001/api_conversation_history.json", tt.api))
			for _, keep := range []bool{true, false} {
				ss, err := Read(context.Background(), dir, Options{Messages: keep})
				if err != nil || len(ss) != 1 {
					t.Fatalf("read: %v", err)
				}
				s := ss[0]
				if s.UserMessages != tt.user || s.AssistantMessages != tt.asst || s.ToolCalls != tt.calls || s.ToolErrors != tt.errs || s.Outcome != tt.outcome {
					t.Errorf("keep=%v: u=%d a=%d calls=%d errs=%d %s, want %d %d %d %d %s", keep, s.UserMessages, s.AssistantMessages,
						s.ToolCalls, s.ToolErrors, s.Outcome, tt.user, tt.asst, tt.calls, tt.errs, tt.outcome)
				}
			}
		})
	}
	// The fixtures' histories alone: the same counts, the history's outcome.
	for _, tt := range []struct {
		dir     string
		outcome lore.Outcome
	}{{clineNativeTask, lore.OutcomeSuccess}, {clineRooTask, lore.OutcomeUnknown}} {
		data, err := os.ReadFile(filepath.Join(tt.dir, "api_conversation_history.json"))
		if err != nil {
			t.Fatal(err)
		}
		full := readOne(t, tt.dir)
		s := readOne(t, filepath.Dir(writeFile(t, filepath.Base(tt.dir)+"/api_conversation_history.json", string(data))))
		if s.MessageCount() != full.MessageCount() || s.ToolCalls != full.ToolCalls || s.ToolErrors != full.ToolErrors || s.Outcome != tt.outcome {
			t.Errorf("%s alone: %d turns %d calls %d errors %s", filepath.Base(tt.dir), s.MessageCount(), s.ToolCalls, s.ToolErrors, s.Outcome)
		}
	}
}

func TestClineDamage(t *testing.T) {
	ui, err := os.ReadFile(filepath.Join(clineNativeTask, "ui_messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	api, err := os.ReadFile(filepath.Join(clineNativeTask, "api_conversation_history.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A history cut off while Cline rewrote it: the ui messages still
	// give the counts, with a warning.
	dir := filepath.Dir(writeFile(t, "t1/ui_messages.json", string(ui)))
	if err := os.WriteFile(filepath.Join(dir, "api_conversation_history.json"), api[:len(api)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	s := readOne(t, dir)
	if s.Warnings != 1 || s.UserMessages != 2 || s.Outcome != lore.OutcomeSuccess || s.Usage.InputTokens != 1850 {
		t.Errorf("truncated history: warnings %d u=%d outcome %s in=%d", s.Warnings, s.UserMessages, s.Outcome, s.Usage.InputTokens)
	}
	for _, w := range s.WarningSamples {
		if strings.Contains(w, "Open button") {
			t.Errorf("warning quotes the transcript: %q", w)
		}
	}
	// Nothing usable.
	dir = filepath.Dir(writeFile(t, "t2/ui_messages.json", ""))
	if _, err := Read(context.Background(), dir, Options{}); !errors.Is(err, ErrNotTranscript) {
		t.Errorf("empty task: %v", err)
	}
	// Not Cline: an array of chat messages with another name.
	if _, err := Read(context.Background(), writeFile(t, "chat.json", `[{"ts":1,"type":"note"}]`), Options{}); err == nil {
		t.Error("an unrelated array was read")
	}
}

// Scanning a globalStorage folder finds each task once.
func TestClineScan(t *testing.T) {
	res, err := Scan(context.Background(), []string{"testdata/cline"}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range res.Sessions {
		ids = append(ids, s.ID)
	}
	want := "cline:1770482470358,roo-code:0d2c6f1e-5b7a-4c1e-9a33-2f7f0c3e8b11,cline:1749000000000"
	if strings.Join(ids, ",") != want || len(res.Problems) != 0 {
		t.Errorf("scan found %v (problems %v), want %s", ids, res.Problems, want)
	}
}

func TestClineRoots(t *testing.T) {
	env := Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string {
		if k == "CLINE_DIR" {
			return "/opt/cline"
		}
		return ""
	}}
	got := map[string]string{}
	for _, r := range clineRoots(env) {
		got[r.Path] = r.Agent
	}
	for path, agent := range map[string]string{
		"/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks":       lore.AgentCline,
		"/home/u/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks": lore.AgentRooCode,
		"/opt/cline/data/tasks": lore.AgentCline,
	} {
		if got[path] != agent {
			t.Errorf("linux: %s → %q, want %q", path, got[path], agent)
		}
	}
	env = Env{Home: "/Users/u", GOOS: "darwin"}
	got = map[string]string{}
	for _, r := range clineRoots(env) {
		got[r.Path] = r.Agent
	}
	for _, path := range []string{
		"/Users/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/Users/u/Library/Application Support/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
		"/Users/u/Library/Application Support/Windsurf/User/globalStorage/saoudrizwan.claude-dev/tasks",
		"/Users/u/.cline/data/tasks",
	} {
		if got[path] == "" {
			t.Errorf("darwin: %s not listed", path)
		}
	}
}

func FuzzCline(f *testing.F) {
	for _, p := range []string{
		filepath.Join(clineNativeTask, "ui_messages.json"),
		filepath.Join(clineNativeTask, "api_conversation_history.json"),
		filepath.Join(clineRooTask, "api_conversation_history.json"),
		filepath.Join(clineUITask, "ui_messages.json"),
	} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, p := range []string{"Cline-Xray__ui_messages.json", "mcp-vscode-server__ui_messages.json"} {
		if data, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", "cline", p)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"ts":1,"type":"say","say":"api_req_started","text":"{\"tokensIn\":"}]`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "ui_messages.json", data)
		fuzzFile(t, "api_conversation_history.json", data)
	})
}
