package transcript

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

const (
	cursorID      = "6f1c2a3e-9b4d-4e7a-8c21-0d5e7f9a1b2c"
	cursorFixture = "testdata/cursor/agent-transcripts/" + cursorID + "/" + cursorID + ".jsonl"
)

// Worked out by hand from the fixture: two user queries; eight assistant
// lines (six in the first turn, two in the second); five tool_use blocks
// and the sub-agent's Grep; no tool results, so no errors; the last
// turn_ended says success.
func TestCursorTranscript(t *testing.T) {
	for _, keep := range []bool{true, false} {
		ss, err := Read(context.Background(), cursorFixture, Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("read: %v (%d sessions)", err, len(ss))
		}
		s := ss[0]
		checkInvariants(t, s)
		if s.ID != "cursor:"+cursorID || s.Agent != lore.AgentCursor || s.Cwd != "" || s.Model != "" {
			t.Errorf("id %q agent %q cwd %q model %q", s.ID, s.Agent, s.Cwd, s.Model)
		}
		if s.UserMessages != 2 || s.AssistantMessages != 8 || s.ToolCalls != 6 || s.ToolErrors != 0 {
			t.Errorf("u=%d a=%d calls=%d errs=%d, want 2 8 6 0", s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors)
		}
		if s.Outcome != lore.OutcomeSuccess || s.Warnings != 0 || s.Usage != (lore.Usage{}) {
			t.Errorf("outcome %s warnings %d usage %+v", s.Outcome, s.Warnings, s.Usage)
		}
		fi, _ := os.Stat(cursorFixture)
		if !s.StartedAt.Equal(fi.ModTime()) || !s.EndedAt.Equal(fi.ModTime()) {
			t.Errorf("span %v – %v, want the file's time %v", s.StartedAt, s.EndedAt, fi.ModTime())
		}
		if !keep {
			continue
		}
		var calls, side []string
		for _, m := range s.Messages {
			for _, c := range m.ToolCalls {
				if m.Sidechain {
					side = append(side, c.Name)
				} else {
					calls = append(calls, c.Name)
				}
			}
		}
		if strings.Join(calls, ",") != "Shell,Read,Task,StrReplace,Shell" || strings.Join(side, ",") != "Grep" {
			t.Errorf("calls %v, sub-agent calls %v", calls, side)
		}
		if !strings.Contains(s.Messages[2].ToolCalls[0].Input, `"go test ./pkg/store/..."`) {
			t.Errorf("call input %q", s.Messages[2].ToolCalls[0].Input)
		}
	}
}

func TestCursorTranscriptDamage(t *testing.T) {
	data, err := os.ReadFile(cursorFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	tests := []struct {
		name, data string
		warnings   int
		user, asst int
		outcome    lore.Outcome
	}{
		// Cut in the last turn_ended line while Cursor wrote it: the
		// second turn has not ended.
		{"truncated", string(data[:len(data)-12]), 1, 2, 8, lore.OutcomeUnknown},
		{"garbage line", strings.Join(lines[:3], "") + "{\"role\":\"assistant\",\"mess\x00\n" + strings.Join(lines[3:], ""), 1, 2, 8, lore.OutcomeSuccess},
		{"failed turn", strings.Join(lines[:7], "") + `{"type":"turn_ended","status":"error","error":"rate limited"}` + "\n", 0, 1, 6, lore.OutcomeFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readOne(t, writeFile(t, "x.jsonl", tt.data))
			if s.Agent != lore.AgentCursor || s.Warnings != tt.warnings || s.UserMessages != tt.user || s.AssistantMessages != tt.asst || s.Outcome != tt.outcome {
				t.Errorf("agent %s warnings %d u=%d a=%d outcome %s, want %d %d %d %s",
					s.Agent, s.Warnings, s.UserMessages, s.AssistantMessages, s.Outcome, tt.warnings, tt.user, tt.asst, tt.outcome)
			}
		})
	}
	// Only a turn_ended line: a Cursor transcript without messages.
	_, err = Read(context.Background(), writeFile(t, "y.jsonl", `{"type":"turn_ended","status":"aborted"}`+"\n"), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("err %v, want an empty session", err)
	}
}

// TestCursorSniff: lines of the other agents that write role and message
// are not Cursor's.
func TestCursorSniff(t *testing.T) {
	for _, line := range []string{
		`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`,
		`{"role":"user","content":"hi","message":{"content":[]}}`,
		`{"role":"user","timestamp":"2025-01-01T00:00:00Z","message":{"content":[]}}`,
		`{"role":"system","message":{"content":[]}}`,
		`{"role":"user","message":{"content":"hi"}}`,
	} {
		v, err := new(input).parser().Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if sniffCursorLine("x.jsonl", v) {
			t.Errorf("claimed %s", line)
		}
	}
}

// TestCursorScanFoldsSubagents: a scan of agent-transcripts reads the
// sub-agent file once, in its parent.
func TestCursorScanFoldsSubagents(t *testing.T) {
	res, err := Scan(context.Background(), []string{"testdata/cursor/agent-transcripts"}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || len(res.Problems) != 0 || res.Sessions[0].ToolCalls != 6 {
		t.Fatalf("sessions %d problems %v", len(res.Sessions), res.Problems)
	}
}

func TestCursorRoots(t *testing.T) {
	env := func(goos string, vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: goos, Getenv: func(k string) string { return vars[k] }}
	}
	tests := []struct {
		env  Env
		want []string
	}{
		{env("linux", nil), []string{"/home/u/.cursor/projects", "/home/u/.cursor/chats", "/home/u/.config/Cursor/User/globalStorage/state.vscdb"}},
		{env("linux", map[string]string{"CURSOR_CONFIG_DIR": "/c", "XDG_CONFIG_HOME": "/x"}), []string{"/c/projects", "/c/chats", "/x/Cursor/User/globalStorage/state.vscdb"}},
		{env("darwin", nil), []string{"/home/u/.cursor/projects", "/home/u/.cursor/chats", "/home/u/Library/Application Support/Cursor/User/globalStorage/state.vscdb"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range cursorRoots(tt.env) {
			if r.Agent != lore.AgentCursor {
				t.Errorf("agent %q", r.Agent)
			}
			got = append(got, r.Path)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: roots %v, want %v", tt.env.GOOS, got, tt.want)
		}
	}
}

// cursorSchema is VS Code's state database as Cursor has it.
const cursorSchema = `
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);`

// cursorRows are the cursorDiskKV rows of the test database, written from
// the shapes FORMATS.md documents:
//   - c0mp-a, the current form: headers and bubbles under their own keys,
//     a sub-composer, an empty assistant bubble, a cancelled call, a
//     missing bubble and a damaged one;
//   - c0mp-b, an older build's inline conversation;
//   - c0mp-c, opened and never used;
//   - c0mp-d, a damaged composerData whose bubbles are whole;
//   - c0mp-e, a bubble inline in conversationMap, the other under its key.
var cursorRows = [][2]string{
	{"composerData:c0mp-a", `{"_v":10,"composerId":"c0mp-a","name":"Fix store tests","createdAt":1767000000000,"lastUpdatedAt":1767000600000,
		"status":"completed","modelConfig":{"modelName":"default","maxMode":false},"createdOnBranch":"main","subComposerIds":["c0mp-sub"],
		"fullConversationHeadersOnly":[{"bubbleId":"b1","type":1},{"bubbleId":"b2","type":2},{"bubbleId":"b3","type":2},{"bubbleId":"b4","type":2},
		{"bubbleId":"b5","type":2},{"bubbleId":"b6","type":2},{"bubbleId":"gone","type":2},{"bubbleId":"b8","type":2},{"bubbleId":"b9","type":2},{"bubbleId":"b7","type":2}]}`},
	{"bubbleId:c0mp-a:b1", `{"_v":3,"type":1,"bubbleId":"b1","text":"the store tests fail, fix them","createdAt":"2025-12-29T09:20:01.000Z","modelInfo":{"modelName":"claude-4-sonnet"}}`},
	{"bubbleId:c0mp-a:b2", `{"_v":3,"type":2,"bubbleId":"b2","text":"Running the tests first.","createdAt":"2025-12-29T09:20:05.000Z","tokenCount":{"inputTokens":100,"outputTokens":20}}`},
	{"bubbleId:c0mp-a:b3", `{"_v":3,"type":2,"bubbleId":"b3","text":"","createdAt":"2025-12-29T09:20:10.000Z","tokenCount":{"inputTokens":200,"outputTokens":30},
		"toolFormerData":{"tool":15,"toolCallId":"tool_1","name":"run_terminal_cmd","status":"error","rawArgs":"{\"command\":\"go test ./pkg/store/...\"}",
		"result":"{\"output\":\"--- FAIL: TestRename (0.00s)\\n    store_test.go:42: no such column: user_name\\nFAIL\",\"exitCode\":1}"}}`},
	{"bubbleId:c0mp-a:b4", `{"_v":3,"type":2,"bubbleId":"b4","createdAt":"2025-12-29T09:21:00.000Z","tokenCount":{"inputTokens":300,"outputTokens":40},
		"toolFormerData":{"tool":7,"toolCallId":"tool_2","name":"edit_file","status":"completed","params":"{\"target_file\":\"pkg/store/store_test.go\"}","result":"{\"diff\":\"ok\"}"}}`},
	{"bubbleId:c0mp-a:b5", `{"_v":3,"type":2,"bubbleId":"b5","createdAt":"2025-12-29T09:22:00.000Z",
		"toolFormerData":{"toolCallId":"tool_3","name":"run_terminal_cmd","status":"cancelled","rawArgs":"{\"command\":\"rm -rf build\"}"}}`},
	{"bubbleId:c0mp-a:b6", `{"_v":3,"type":2,"bubbleId":"b6","text":"","createdAt":"2025-12-29T09:23:00.000Z","tokenCount":{"inputTokens":50,"outputTokens":5}}`},
	{"bubbleId:c0mp-a:b7", `{"_v":3,"type":2,"bubbleId":"b7","text":"Fixed: the test uses the renamed column.","createdAt":"2025-12-29T09:25:00.000Z",
		"tokenCount":{"inputTokens":400,"outputTokens":60},"timingInfo":{"clientRpcSendTime":1767000295000,"clientEndTime":1767000300000}}`},
	{"bubbleId:c0mp-a:b9", `{"_v":3,"type":2,"bubbleId":"b9","createdAt":"2025-12-29T09:24:00.000Z",
		"toolFormerData":{"tool":15,"toolCallId":"tool_4","name":"run_terminal_cmd","status":"completed","rawArgs":"{\"command\":\"go test ./pkg/store/...\"}","result":"{\"output\":\"ok  \\tshop/pkg/store\\t0.012s\",\"exitCode\":0}"}}`},
	{"bubbleId:c0mp-a:b8", `{"_v":3,"type":2,"bubbleId":"b8","text":"cut sho`},
	{"composerData:c0mp-sub", `{"_v":10,"composerId":"c0mp-sub","createdAt":1767000100000,"status":"completed",
		"fullConversationHeadersOnly":[{"bubbleId":"s1","type":1},{"bubbleId":"s2","type":2}]}`},
	{"bubbleId:c0mp-sub:s1", `{"type":1,"bubbleId":"s1","text":"find callers of renameColumn","createdAt":"2025-12-29T09:21:30.000Z"}`},
	{"bubbleId:c0mp-sub:s2", `{"type":2,"bubbleId":"s2","createdAt":"2025-12-29T09:21:40.000Z","tokenCount":{"inputTokens":70,"outputTokens":7},
		"toolFormerData":{"toolCallId":"tool_s1","name":"grep_search","status":"error","rawArgs":"{\"query\":\"renameColumn(\"}","result":"regex parse error: unclosed group"}}`},
	{"composerData:c0mp-b", `{"composerId":"c0mp-b","createdAt":1766000000000,"lastUpdatedAt":1766000060000,"status":"aborted","modelConfig":{"modelName":"gpt-4o"},
		"conversation":[{"type":1,"bubbleId":"o1","text":"explain main.go"},{"type":2,"bubbleId":"o2","text":"main.go starts the server."}]}`},
	{"composerData:c0mp-c", `{"_v":10,"composerId":"c0mp-c","createdAt":1766500000000,"fullConversationHeadersOnly":[],"conversationMap":{},"status":"none"}`},
	{"composerData:c0mp-d", `{"_v":10,"composerId":"c0mp-d","fullConversationHeadersOnly":[{"bubbleId":"x1"`},
	{"bubbleId:c0mp-d:x2", `{"type":2,"bubbleId":"x2","text":"Done.","createdAt":"2025-12-20T10:00:05.000Z"}`},
	{"bubbleId:c0mp-d:x1", `{"type":1,"bubbleId":"x1","text":"rename the flag","createdAt":"2025-12-20T10:00:00.000Z"}`},
	{"composerData:c0mp-e", `{"composerId":"c0mp-e","createdAt":1766900000000,"status":"completed",
		"fullConversationHeadersOnly":[{"bubbleId":"e1","type":1},{"bubbleId":"e2","type":2}],
		"conversationMap":{"e1":{"type":1,"bubbleId":"e1","text":"what does make lint run?"}}}`},
	{"bubbleId:c0mp-e:e2", `{"type":2,"bubbleId":"e2","text":"golangci-lint with the repo's config."}`},
	{"checkpointId:c0mp-a:b3", `{"files":[]}`},
	{"messageRequestContext:c0mp-a:b1", `{"gitStatusRaw":""}`},
}

// cursorDB writes a Cursor user folder under dir: the global state.vscdb
// with cursorRows, and one workspace that lists c0mp-a.
func cursorTestDB(t testing.TB, dir string) string {
	t.Helper()
	global := filepath.Join(dir, "User", "globalStorage", "state.vscdb")
	ws := filepath.Join(dir, "User", "workspaceStorage", "3f2a9c")
	for _, d := range []string{filepath.Dir(global), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	db := sqlitedbExec(t, global, cursorSchema, `INSERT INTO ItemTable VALUES ('cursorai/serverConfig', '{}')`)
	for _, r := range cursorRows {
		if _, err := db.Exec(`INSERT INTO cursorDiskKV VALUES (?, CAST(? AS BLOB))`, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	wdb := sqlitedbExec(t, filepath.Join(ws, "state.vscdb"), cursorSchema,
		`INSERT INTO ItemTable VALUES ('composer.composerData', '{"allComposers":[{"composerId":"c0mp-a","name":"Fix store tests","type":"head"}],"selectedComposerIds":["c0mp-a"]}')`)
	wdb.Close()
	if err := os.WriteFile(filepath.Join(ws, "workspace.json"), []byte(`{"folder":"file:///home/dev/shop"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return global
}

func TestCursorDB(t *testing.T) {
	path := cursorTestDB(t, t.TempDir())
	for _, keep := range []bool{true, false} {
		ss, err := Read(context.Background(), path, Options{Messages: keep, NoGit: true})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]*lore.Session{}
		for _, s := range ss {
			checkInvariants(t, s)
			byID[s.ID] = s
		}
		if len(ss) != 4 || byID["cursor:c0mp-a"] == nil || byID["cursor:c0mp-b"] == nil || byID["cursor:c0mp-d"] == nil || byID["cursor:c0mp-e"] == nil {
			t.Fatalf("sessions %v", byID)
		}
		if e := byID["cursor:c0mp-e"]; e.UserMessages != 1 || e.AssistantMessages != 1 || e.Outcome != lore.OutcomeSuccess {
			t.Errorf("e: u=%d a=%d outcome %s", e.UserMessages, e.AssistantMessages, e.Outcome)
		}
		// c0mp-a: b1; b2, b3, b4, b5, b9, b7 (b6 is empty, b8 damaged,
		// gone missing); tool_1 and the sub-composer's tool_s1 failed,
		// tool_3 was cancelled; tokens of b2, b3, b4, b6, b7 and s2.
		a := byID["cursor:c0mp-a"]
		if a.UserMessages != 1 || a.AssistantMessages != 6 || a.ToolCalls != 5 || a.ToolErrors != 2 || a.Warnings != 1 {
			t.Errorf("a: u=%d a=%d calls=%d errs=%d warnings=%d, want 1 6 5 2 1", a.UserMessages, a.AssistantMessages, a.ToolCalls, a.ToolErrors, a.Warnings)
		}
		if a.Usage != (lore.Usage{InputTokens: 1120, OutputTokens: 162}) {
			t.Errorf("a: usage %+v", a.Usage)
		}
		if a.Cwd != "/home/dev/shop" || a.Branch != "main" || a.Model != "claude-4-sonnet" || a.Outcome != lore.OutcomeSuccess {
			t.Errorf("a: cwd %q branch %q model %q outcome %s", a.Cwd, a.Branch, a.Model, a.Outcome)
		}
		if !a.StartedAt.Equal(time.UnixMilli(1767000000000)) || !a.EndedAt.Equal(time.UnixMilli(1767000600000)) {
			t.Errorf("a: span %v – %v", a.StartedAt, a.EndedAt)
		}
		b := byID["cursor:c0mp-b"]
		if b.UserMessages != 1 || b.AssistantMessages != 1 || b.ToolCalls != 0 || b.Model != "gpt-4o" || b.Outcome != lore.OutcomeAborted || b.Cwd != "" {
			t.Errorf("b: u=%d a=%d calls=%d model %q outcome %s cwd %q", b.UserMessages, b.AssistantMessages, b.ToolCalls, b.Model, b.Outcome, b.Cwd)
		}
		if !b.StartedAt.Equal(time.UnixMilli(1766000000000)) || !b.EndedAt.Equal(time.UnixMilli(1766000060000)) {
			t.Errorf("b: span %v – %v", b.StartedAt, b.EndedAt)
		}
		d := byID["cursor:c0mp-d"]
		if d.UserMessages != 1 || d.AssistantMessages != 1 || d.Warnings != 1 || d.Outcome != lore.OutcomeUnknown {
			t.Errorf("d: u=%d a=%d warnings=%d outcome %s", d.UserMessages, d.AssistantMessages, d.Warnings, d.Outcome)
		}
		if !keep {
			continue
		}
		if d.Messages[0].Text != "rename the flag" {
			t.Errorf("d: bubbles out of order: %q first", d.Messages[0].Text)
		}
		var failed []string
		for _, m := range a.Messages {
			for _, r := range m.ToolResults {
				if r.IsError {
					failed = append(failed, r.CallID+" "+r.Output)
				}
			}
		}
		if len(failed) != 2 || !strings.Contains(failed[0], "no such column: user_name") || !strings.HasPrefix(failed[1], "tool_s1 regex parse error") {
			t.Errorf("a: failed results %q", failed)
		}
		if c := a.Messages[2].ToolCalls; len(c) != 1 || c[0].Name != "run_terminal_cmd" || c[0].Input != `{"command":"go test ./pkg/store/..."}` {
			t.Errorf("a: third message's calls %+v", c)
		}
	}
}

// TestCursorDBNotOurs: a workspace's own database holds no chat, and a
// VS Code state database is no Cursor database.
func TestCursorDBNotOurs(t *testing.T) {
	dir := t.TempDir()
	cursorTestDB(t, dir)
	_, err := Read(context.Background(), filepath.Join(dir, "User", "workspaceStorage", "3f2a9c", "state.vscdb"), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("workspace database: %v, want an empty session", err)
	}
	vscode := filepath.Join(dir, "state.vscdb")
	sqlitedbExec(t, vscode, `CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`,
		`INSERT INTO ItemTable VALUES ('workbench.panel.chat', '{}')`).Close()
	if _, err := Read(context.Background(), vscode, Options{NoGit: true}); !errors.Is(err, ErrNotTranscript) {
		t.Errorf("VS Code database: %v, want not a transcript", err)
	}
}

// TestCursorDBScan: the default root is the database file; a walk of the
// user folder finds it and passes over the workspace's quietly.
func TestCursorDBScan(t *testing.T) {
	dir := t.TempDir()
	cursorTestDB(t, dir)
	res, err := Scan(context.Background(), []string{filepath.Join(dir, "User")}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 4 || len(res.Problems) != 0 {
		t.Errorf("sessions %d problems %v", len(res.Sessions), res.Problems)
	}
}

func FuzzCursor(f *testing.F) {
	seedFiles(f, "", "testdata/cursor/agent-transcripts/*/*.jsonl")
	seedFiles(f, "", "testdata/cursor/agent-transcripts/*/subagents/*.jsonl")
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "session.jsonl", data)
	})
}

// cursorStoreMessages are the message blobs of the test chat store, in
// the order the tree holds them, written from the shapes FORMATS.md
// documents.
var cursorStoreMessages = []string{
	`{"role":"system","content":"You are an AI coding assistant, powered by Claude."}`,
	`{"role":"user","content":"<user_info>\nOS Version: linux 6.8\n\nShell: bash\n\nWorkspace Path: /home/dev/shop\n</user_info>\n\n<user_query>\nthe store tests fail, fix them\n</user_query>"}`,
	`{"id":"1","role":"assistant","content":[{"type":"reasoning","text":"Run the tests first.","providerOptions":{"cursor":{"modelName":"claude-4.5-opus-high-thinking"}}},
		{"type":"tool-call","toolCallId":"toolu_01","toolName":"Shell","args":{"command":"go test ./pkg/store/..."}}]}`,
	`{"role":"tool","id":"toolu_01","content":[{"type":"tool-result","toolName":"Shell","toolCallId":"toolu_01","result":"pkg/store/store.go:5:2: missing go.sum entry for module providing package github.com/mattn/go-sqlite3 (imported by shop/pkg/store); to add:\n\tgo get shop/pkg/store\nexit status 1","isError":true}]}`,
	`{"id":"1","role":"assistant","content":[{"type":"text","text":"go.sum lacks the driver."},{"type":"tool-call","toolCallId":"toolu_02","toolName":"Shell","args":{"command":"go mod tidy"}}]}`,
	`{"role":"tool","id":"toolu_02","content":[{"type":"tool-result","toolName":"Shell","toolCallId":"toolu_02","result":[{"type":"text","text":"go: downloading github.com/mattn/go-sqlite3 v1.14.22"}],"isError":false}]}`,
	`{"id":"1","role":"assistant","content":[{"type":"tool-call","toolCallId":"toolu_03","toolName":"Shell","args":{"command":"go test ./pkg/store/..."}}]}`,
	`{"role":"tool","id":"toolu_03","content":[{"type":"tool-result","toolName":"Shell","toolCallId":"toolu_03","result":"ok  \tshop/pkg/store\t0.012s","isError":false}]}`,
	`{"id":"1","role":"assistant","content":[{"type":"text","text":"Fixed; the tests pass."}]}`,
}

func cursorBlobID(data []byte) (string, []byte) {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), sum[:]
}

// cursorTestStore writes a chat store: a root node holding a node with
// the first eight messages and the last one, plus a message of an
// earlier version of the chat that the tree no longer holds.
func cursorTestStore(t testing.TB, dir string, root bool) string {
	t.Helper()
	path := filepath.Join(dir, "chats", "e4e90b7bcae743c9a1a1a045a49e1b1d", "ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6", "store.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db := sqlitedbExec(t, path, `CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)`, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`)
	defer db.Close()
	put := func(data []byte) ([]byte, string) {
		id, raw := cursorBlobID(data)
		if _, err := db.Exec(`INSERT OR IGNORE INTO blobs VALUES (?, ?)`, id, data); err != nil {
			t.Fatal(err)
		}
		return raw, id
	}
	put([]byte(`{"role":"user","content":"<user_query>\nan earlier, edited question\n</user_query>"}`))
	node := func(children ...[]byte) []byte {
		var b []byte
		for _, c := range children {
			b = append(append(b, 0x0a, 0x20), c...)
		}
		return append(b, 0x10, 0x07) // a field lore passes over
	}
	var ids [][]byte
	for _, m := range cursorStoreMessages {
		raw, _ := put([]byte(m))
		ids = append(ids, raw)
	}
	inner, _ := put(node(ids[:8]...))
	_, rootID := put(node(inner, ids[8]))
	if !root {
		rootID = strings.Repeat("0", 64)
	}
	meta := fmt.Sprintf(`{"agentId":"ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6","latestRootBlobId":%q,"name":"Fix store tests","mode":"auto-run","createdAt":1768862746153,"lastUsedModel":"claude-4-sonnet"}`, rootID)
	if _, err := db.Exec(`INSERT INTO meta VALUES ('0', ?)`, hex.EncodeToString([]byte(meta))); err != nil {
		t.Fatal(err)
	}
	return path
}

// Worked out by hand: one user query (the system prompt is not a turn);
// four assistant messages; toolu_01 failed, toolu_02 and toolu_03 did
// not; the last answer leaves nothing pending.
func TestCursorStore(t *testing.T) {
	path := cursorTestStore(t, t.TempDir(), true)
	for _, keep := range []bool{true, false} {
		ss, err := Read(context.Background(), path, Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("read: %v", err)
		}
		s := ss[0]
		checkInvariants(t, s)
		if s.ID != "cursor:ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6" || s.Cwd != "/home/dev/shop" || s.Model != "claude-4.5-opus-high-thinking" {
			t.Errorf("id %q cwd %q model %q", s.ID, s.Cwd, s.Model)
		}
		if s.UserMessages != 1 || s.AssistantMessages != 4 || s.ToolCalls != 3 || s.ToolErrors != 1 || s.Warnings != 0 || s.Outcome != lore.OutcomeSuccess {
			t.Errorf("u=%d a=%d calls=%d errs=%d warnings=%d outcome %s, want 1 4 3 1 0 success",
				s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors, s.Warnings, s.Outcome)
		}
		fi, _ := os.Stat(path)
		if !s.StartedAt.Equal(time.UnixMilli(1768862746153)) || !s.EndedAt.Equal(fi.ModTime()) {
			t.Errorf("span %v – %v", s.StartedAt, s.EndedAt)
		}
		if keep && (len(s.Messages) != 8 || s.Messages[2].ToolResults[0].Output == "" || !s.Messages[2].ToolResults[0].IsError) {
			t.Errorf("messages %+v", s.Messages)
		}
	}
	// Without its root, the chat is read in the order it was written,
	// the earlier version's message too.
	s := readOne(t, cursorTestStore(t, t.TempDir(), false))
	if s.UserMessages != 2 || s.AssistantMessages != 4 || s.ToolErrors != 1 || s.Warnings != 1 {
		t.Errorf("no root: u=%d a=%d errs=%d warnings=%d", s.UserMessages, s.AssistantMessages, s.ToolErrors, s.Warnings)
	}
}

func TestCursorChildren(t *testing.T) {
	id := bytes.Repeat([]byte{0xab}, 32)
	node := append(append([]byte{0x0a, 0x20}, id...), 0x12, 0x02, 'h', 'i', 0x0a, 0x03, 1, 2, 3, 0x0a, 0x20)
	got := cursorChildren(node)
	if len(got) != 1 || got[0] != hex.EncodeToString(id) {
		t.Errorf("children %v", got)
	}
}

// damagedCursorDB writes a state.vscdb of n composers of two bubbles
// each, then damages a page of each of the tables or indexes named
// (damagePages).
func damagedCursorDB(t testing.TB, path string, n int, names ...string) map[string]int {
	t.Helper()
	db := sqlitedbExec(t, path, cursorSchema)
	pad := strings.Repeat("p", 300)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%04d", i)
		rows := [][2]string{
			{"composerData:" + id, `{"composerId":"` + id + `","createdAt":1767000000000,"status":"completed","fullConversationHeadersOnly":[{"bubbleId":"u","type":1},{"bubbleId":"a","type":2}]}`},
			{"bubbleId:" + id + ":u", `{"type":1,"bubbleId":"u","text":"user ` + pad + `"}`},
			{"bubbleId:" + id + ":a", `{"type":2,"bubbleId":"a","text":"assistant ` + pad + `"}`},
		}
		for _, r := range rows {
			if _, err := tx.Exec(`INSERT INTO cursorDiskKV VALUES (?, ?)`, r[0], r[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return damagePages(t, db, path, names...)
}

// A damaged page of state.vscdb costs the chats on it, not the others:
// the ordered scan stops at the damage, and the database is read again
// row by row around it.
func TestCursorDamagedDB(t *testing.T) {
	const n = 300
	for _, damage := range []string{"cursorDiskKV", "sqlite_autoindex_cursorDiskKV_1"} {
		t.Run(damage, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.vscdb")
			lost := damagedCursorDB(t, path, n, damage)[damage]
			for _, keep := range []bool{false, true} {
				res, err := Scan(context.Background(), []string{path}, Options{Messages: keep, NoGit: true})
				if err != nil {
					t.Fatal(err)
				}
				turns := 0
				for _, s := range res.Sessions {
					checkInvariants(t, s)
					turns += s.UserMessages + s.AssistantMessages
				}
				if len(res.Sessions) < n-lost || len(res.Sessions) >= n && damage == "cursorDiskKV" {
					t.Errorf("listed %d of %d chats, want all but those of the %d rows on the damaged page", len(res.Sessions), n, lost)
				}
				if turns < 2*len(res.Sessions)-lost {
					t.Errorf("read %d turns of %d chats, want all but the %d rows on the damaged page", turns, len(res.Sessions), lost)
				}
				if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Err.Error(), "damaged") {
					t.Errorf("problems %v, want one saying the file is damaged", res.Problems)
				}
			}
		})
	}
}

// FuzzCursorDB mutates the test chat store and state database: whatever
// the pages hold, reading must not panic.
func FuzzCursorDB(f *testing.F) {
	// A mutated header can read as a lock held: do not wait for it.
	busy := sqlitedbBusy
	sqlitedbBusy = 10 * time.Millisecond
	f.Cleanup(func() { sqlitedbBusy = busy })
	dir := f.TempDir()
	for _, p := range []string{cursorTestDB(f, dir), cursorTestStore(f, dir, true)} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "state.vscdb", data)
	})
}
