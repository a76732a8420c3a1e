package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// want is what a test expects of a session's counters.
type want struct {
	id              string
	user, asst      int
	tools, errs     int
	in, out, cr, cw int64
	outcome         lore.Outcome
	warnings        int
	started, ended  string // RFC 3339, "" to skip
	model, branch   string
	cwd             string
}

func (w want) check(t *testing.T, s *lore.Session) {
	t.Helper()
	checkInvariants(t, s)
	if s.ID != w.id {
		t.Errorf("id = %q, want %q", s.ID, w.id)
	}
	if s.UserMessages != w.user || s.AssistantMessages != w.asst {
		t.Errorf("%s: user/assistant = %d/%d, want %d/%d", w.id, s.UserMessages, s.AssistantMessages, w.user, w.asst)
	}
	if s.ToolCalls != w.tools || s.ToolErrors != w.errs {
		t.Errorf("%s: tool calls/errors = %d/%d, want %d/%d", w.id, s.ToolCalls, s.ToolErrors, w.tools, w.errs)
	}
	u := s.Usage
	if u.InputTokens != w.in || u.OutputTokens != w.out || u.CacheReadTokens != w.cr || u.CacheWriteTokens != w.cw {
		t.Errorf("%s: tokens in/out/cr/cw = %d/%d/%d/%d, want %d/%d/%d/%d", w.id,
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, w.in, w.out, w.cr, w.cw)
	}
	if w.outcome != "" && s.Outcome != w.outcome {
		t.Errorf("%s: outcome = %s, want %s", w.id, s.Outcome, w.outcome)
	}
	if s.Warnings != w.warnings {
		t.Errorf("%s: warnings = %d (%v), want %d", w.id, s.Warnings, s.WarningSamples, w.warnings)
	}
	checkTime(t, "started", s.StartedAt, w.started)
	checkTime(t, "ended", s.EndedAt, w.ended)
	if w.model != "" && s.Model != w.model {
		t.Errorf("%s: model = %q, want %q", w.id, s.Model, w.model)
	}
	if w.branch != "" && s.Branch != w.branch {
		t.Errorf("%s: branch = %q, want %q", w.id, s.Branch, w.branch)
	}
	if w.cwd != "" && s.Cwd != w.cwd {
		t.Errorf("%s: cwd = %q, want %q", w.id, s.Cwd, w.cwd)
	}
}

func checkTime(t *testing.T, name string, got time.Time, want string) {
	t.Helper()
	if want == "" {
		return
	}
	w, err := time.Parse(time.RFC3339Nano, want)
	if err != nil {
		t.Fatalf("bad want time %q", want)
	}
	if !got.Equal(w) {
		t.Errorf("%s = %v, want %v", name, got, w)
	}
}

// TestClaudeCorpus checks every real Claude Code file. The expected counts
// were computed by an independent Python script over the same files
// (json.JSONDecoder.raw_decode per line, one (message.id, requestId) per
// response with its last line's usage), not by this reader.
func TestClaudeCorpus(t *testing.T) {
	dir := corpusDir(t, "claude-code")
	cases := map[string]want{
		"claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": {id: "claude-code:1af7fc5e-8455-4414-9ccd-011d40f70b2a", user: 1, asst: 7, tools: 12, errs: 1, in: 93, out: 953, cr: 103219, cw: 12698, outcome: lore.OutcomeSuccess},
		"claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": {id: "claude-code:5c0375b4-57a5-4f26-b12d-d022ee4e51b7", user: 1, asst: 10, tools: 21, errs: 3, in: 129, out: 3629, cr: 324259, cw: 47747},
		"claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": {id: "claude-code:fe5e1c67-53e7-4862-81ae-d0e013e3270b", user: 2, asst: 9, tools: 167, errs: 23, in: 818, out: 51933, cr: 3647854, cw: 137976},
		"claude-reliability__coverage-test-fix.jsonl":                    {id: "claude-code:c64cc478-3430-40fe-8e9c-4ee9986e9754", user: 1, asst: 14, tools: 13, errs: 1, in: 9, out: 158, cr: 286596, cw: 7610},
		"claude-reliability__python-to-rust-port.jsonl":                  {id: "claude-code:c7d3d95c-57f0-4359-8f4b-926a9bef5a3f", user: 1, asst: 39, tools: 39, errs: 0, in: 38, out: 563, cr: 1114040, cw: 22988},
		"claude-reliability__stop-hook-reflection-first-stop.jsonl":      {id: "claude-code:cb88ae13-898d-4076-aeb5-bc37191c5d2e", user: 1, asst: 6, tools: 4, errs: 0, in: 3, out: 55, cr: 109646, cw: 4169},
		"entire-cli__1e_868c83dbb7_0.jsonl":                              {id: "claude-code:a318ad73-17a2-4575-845d-8952a1e5958b", user: 8, asst: 20, tools: 13, errs: 0, in: 202, out: 50, cr: 850255, cw: 94226, cwd: "/Users/soph/Work/entire/devenv/cli"},
		"entire-cli__26_dcd5518fea_0.jsonl":                              {id: "claude-code:062a8bdd-4322-4ffa-bc38-3e8b8bfb5a56", user: 22, asst: 89, tools: 74, errs: 1, in: 212, out: 962, cr: 10215274, cw: 245647},
		"entire-cli__4c_70d9b5734c_0.jsonl":                              {id: "claude-code:c010174c-a7cd-4bcc-b7d4-61258d6c463f", user: 2, asst: 32, tools: 46, errs: 1, in: 36, out: 4448, cr: 2813946, cw: 75913, model: "claude-opus-4-6"},
		// Holds two objects written on one line (FORMATS.md §12.1): both are read, no warning.
		"entire-cli__5a_c45bc32212_0.jsonl":            {id: "claude-code:86cc3044-7515-43f1-9c25-1444738c64c9", user: 6, asst: 58, tools: 55, errs: 2, in: 631, out: 1991, cr: 3334164, cw: 330249},
		"guideai__claude-code-sample-1_v1.0.115.jsonl": {id: "claude-code:b1a1efd7-96e7-47d0-aadf-9816572c4b5d", user: 2, asst: 17, tools: 18, errs: 1, in: 73, out: 2046, cr: 317047, cw: 37075, outcome: lore.OutcomeAborted, branch: "main"},
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != len(cases) {
		t.Errorf("corpus has %d Claude Code files, the test knows %d", len(files), len(cases))
	}
	for _, f := range files {
		w, ok := cases[filepath.Base(f)]
		if !ok {
			t.Errorf("no expectation for %s", f)
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			w.check(t, readOne(t, f))
			// Counting without message bodies must give the same numbers.
			ss, err := Read(context.Background(), f, Options{NoGit: true})
			if err != nil || len(ss) != 1 {
				t.Fatalf("count-only read: %v, %d sessions", err, len(ss))
			}
			w.check(t, ss[0])
			if len(ss[0].Messages) != 0 {
				t.Errorf("count-only read kept %d messages", len(ss[0].Messages))
			}
		})
	}
}

func TestClaudeInlineSidechain(t *testing.T) {
	s := readOne(t, "testdata/claude/v1_sidechain.jsonl")
	want{
		id: "claude-code:0b6c1a52-6f0e-4c7e-9b1a-1f2e3d4c5b6a", user: 1, asst: 2, tools: 2, errs: 1,
		in: 36, out: 88, cr: 4100, cw: 150, outcome: lore.OutcomeSuccess,
		started: "2025-09-03T10:00:00Z", ended: "2025-09-03T10:00:09Z", model: "claude-sonnet-4-20250514", cwd: "/home/u/proj",
	}.check(t, s)
	// The two lines of response msg_A merge into one message with text and a tool call.
	var merged *lore.Message
	for i := range s.Messages {
		if s.Messages[i].Role == lore.RoleAssistant && !s.Messages[i].Sidechain {
			merged = &s.Messages[i]
			break
		}
	}
	if merged == nil || merged.Text != "I'll delegate a search." || len(merged.ToolCalls) != 1 || merged.ToolCalls[0].Name != "Task" {
		t.Fatalf("streamed response not merged: %+v", merged)
	}
	if merged.ToolCalls[0].Input != `{"prompt":"find TestFoo"}` {
		t.Errorf("tool input = %s", merged.ToolCalls[0].Input)
	}
	var sawSide, sawErr bool
	for _, m := range s.Messages {
		sawSide = sawSide || m.Sidechain
		for _, r := range m.ToolResults {
			if r.CallID == "toolu_grep" && r.IsError && r.Output == "grep: bad regex" {
				sawErr = true
			}
		}
	}
	if !sawSide || !sawErr {
		t.Errorf("sidechain kept %v, error result kept %v", sawSide, sawErr)
	}
	for i, m := range s.Messages {
		if m.Index != i {
			t.Fatalf("message %d has index %d", i, m.Index)
		}
	}
}

// Claude Code 2.0 wrote sub-agents to sibling agent-*.jsonl files: they fold
// into the parent found beside them; one whose parent is absent stands alone.
func TestClaudeSiblingAgentFiles(t *testing.T) {
	res, err := Scan(context.Background(), []string{"testdata/claude/v20"}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	if len(res.Sessions) != 2 {
		t.Fatalf("got %d sessions, want 2 (parent with its agent folded in, and the orphan agent file)", len(res.Sessions))
	}
	byID := map[string]*lore.Session{}
	for _, s := range res.Sessions {
		byID[s.ID] = s
	}
	parent := byID["claude-code:7f3e2a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b"]
	if parent == nil {
		t.Fatalf("parent missing: %v", byID)
	}
	want{
		id: parent.ID, user: 1, asst: 2, tools: 2, errs: 1, in: 13, out: 40, cr: 350, cw: 10,
		outcome: lore.OutcomeSuccess, started: "2025-11-02T09:00:00Z", ended: "2025-11-02T09:00:31Z",
		model: "claude-sonnet-4-5-20250929", branch: "main", cwd: "/home/u/proj",
	}.check(t, parent)
	orphan := byID["claude-code:aaaaaaaa-0000-4000-8000-000000000001"]
	if orphan == nil {
		t.Fatalf("orphan agent file not listed: %v", byID)
	}
	want{id: orphan.ID, tools: 0, in: 1, out: 1, outcome: lore.OutcomeUnknown}.check(t, orphan)
}

// Claude Code 2.1 writes <session>/subagents/agent-*.jsonl; an API error
// ends the session, and the synthetic error message is no turn.
func TestClaudeSubagentFolder(t *testing.T) {
	res, err := Scan(context.Background(), []string{"testdata/claude/v21"}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || len(res.Problems) != 0 {
		t.Fatalf("got %d sessions, problems %v; want 1 session", len(res.Sessions), res.Problems)
	}
	want{
		id: "claude-code:5d1e0c55-2b7e-4f0e-9d7a-2f6c3b1e8a10", user: 1, asst: 1, tools: 3, errs: 0,
		in: 5, out: 25, cr: 410, cw: 40, outcome: lore.OutcomeFailure,
		started: "2026-02-01T12:00:00Z", ended: "2026-02-01T12:06:00Z",
		model: "claude-opus-4-6", branch: "feature/x",
	}.check(t, res.Sessions[0])
}

// claudeLine builds one transcript line.
func claudeLine(sid, typ, version, body string) string {
	return `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"` + sid +
		`","version":"` + version + `","gitBranch":"main","type":"` + typ + `",` + body + `,"timestamp":"2026-01-01T00:00:00.000Z"}`
}

func TestClaudeDamage(t *testing.T) {
	user := claudeLine("s1", "user", "2.0.1", `"message":{"role":"user","content":"hi"},"uuid":"a"`)
	answer := claudeLine("s1", "assistant", "2.1.3", `"message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"r1","uuid":"b"`)
	cases := []struct {
		name, data string
		w          want
	}{
		{"truncated last line", user + "\n" + answer + "\n" + answer[:len(answer)/2],
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, warnings: 1, outcome: lore.OutcomeSuccess}},
		{"garbage line in the middle", user + "\nnot json at all\n" + answer + "\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, warnings: 1, outcome: lore.OutcomeSuccess}},
		{"two objects on one line", user + answer + "\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeSuccess}},
		{"CRLF line ends and blank lines", user + "\r\n\r\n" + answer + "\r\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeSuccess}},
		// Several CLI versions in one file (a resume after an upgrade).
		{"versions mixed", user + "\n" + answer + "\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeSuccess}},
		{"user spoke last", answer + "\n" + user + "\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeUnknown}},
		{"interrupted", user + "\n" + claudeLine("s1", "user", "2.1.3", `"message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},"uuid":"c"`) + "\n",
			want{id: "claude-code:s1", user: 1, outcome: lore.OutcomeAborted}},
		{"compaction", user + "\n" +
			claudeLine("s1", "system", "2.1.3", `"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155068},"uuid":"d"`) + "\n" +
			claudeLine("s1", "user", "2.1.3", `"message":{"role":"user","content":"This session is being continued from a previous conversation"},"isCompactSummary":true,"isVisibleInTranscriptOnly":true,"uuid":"e"`) + "\n" + answer + "\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeSuccess}},
		{"image from the user", claudeLine("s1", "user", "2.1.3", `"message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+strings.Repeat("QUJD", 50000)+`"}},{"type":"text","text":"what is this"}]},"uuid":"f"`) + "\n" + answer + "\n",
			want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeSuccess}},
		{"the session id of the last line wins", user + "\n" + strings.Replace(answer, `"s1"`, `"s2"`, 1) + "\n",
			want{id: "claude-code:s2", user: 1, asst: 1, in: 1, out: 2, outcome: lore.OutcomeSuccess}},
		{"no session id: the file name", `{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}` + "\n",
			want{id: "claude-code:c0ffee", user: 1, outcome: lore.OutcomeUnknown}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, "c0ffee.jsonl", c.data)
			c.w.check(t, readOne(t, path))
		})
	}
}

// A line longer than the reader's bound is skipped with a warning and the
// rest of the file is read.
func TestClaudeEnormousLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 65 MiB file")
	}
	user := claudeLine("s1", "user", "2.0.1", `"message":{"role":"user","content":"hi"},"uuid":"a"`)
	huge := claudeLine("s1", "user", "2.0.1", `"message":{"role":"user","content":"`+strings.Repeat("x", maxLine)+`"},"uuid":"b"`)
	answer := claudeLine("s1", "assistant", "2.1.3", `"message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"r1","uuid":"c"`)
	path := writeFile(t, "big.jsonl", user+"\n"+huge+"\n"+answer+"\n")
	s := readOne(t, path)
	want{id: "claude-code:s1", user: 1, asst: 1, in: 1, out: 2, warnings: 1, outcome: lore.OutcomeSuccess}.check(t, s)
	if !strings.Contains(s.WarningSamples[0], "line 2") {
		t.Errorf("warning does not say which line: %v", s.WarningSamples)
	}
}

// Warnings must never quote transcript content: it may hold secrets.
func TestClaudeWarningsQuoteNothing(t *testing.T) {
	secret := "sk-ant-api03-SECRETSECRETSECRET"
	data := claudeLine("s1", "user", "2.0.1", `"message":{"role":"user","content":"hi"},"uuid":"a"`) + "\n" +
		`{"type":"user","message":{"content":"` + secret + `"` + "\n"
	s := readOne(t, writeFile(t, "s.jsonl", data))
	if s.Warnings != 1 {
		t.Fatalf("warnings = %d", s.Warnings)
	}
	for _, w := range s.WarningSamples {
		if strings.Contains(w, "SECRET") {
			t.Errorf("warning quotes the transcript: %q", w)
		}
	}
}

func TestNotTranscripts(t *testing.T) {
	cases := map[string]string{
		"empty.jsonl":   "",
		"blank.jsonl":   "\n\n  \n",
		"binary.jsonl":  "\x00\x01\x02\x89PNG\x00\x00",
		"other.jsonl":   `{"level":"info","msg":"server started"}` + "\n" + `{"level":"info","msg":"ok"}` + "\n",
		"history.md":    "# Notes\n\nnothing here\n",
		"broken.json":   `{"sessionId": "x", "messages": [`,
		"numbers.json":  `[1, 2, 3]`,
		"emptyobj.json": `{}`,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Read(context.Background(), writeFile(t, name, data), Options{})
			if err == nil || !isNotTranscript(err) {
				t.Fatalf("err = %v, want a not-a-transcript error", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func isNotTranscript(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrNotTranscript.Error())
}

// The same session copied to two places (a checkpoint, a backup) is listed
// once, from the copy that holds most of it.
func TestDedupeKeepsTheFullestCopy(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile("testdata/claude/v1_sidechain.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	partial := strings.Join(lines[:4], "")
	for name, data := range map[string]string{"a/copy.jsonl": partial, "b/0b6c1a52-6f0e-4c7e-9b1a-1f2e3d4c5b6a.jsonl": string(full)} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 {
		t.Fatalf("got %d sessions, want 1", len(res.Sessions))
	}
	if got := filepath.Base(filepath.Dir(res.Sessions[0].Path)); got != "b" {
		t.Errorf("kept the copy in %s, want the full one in b", got)
	}
}

func FuzzClaude(f *testing.F) {
	seedFiles(f, "claude-code", "*.jsonl")
	seedFiles(f, "", "testdata/claude/*.jsonl")
	seedFiles(f, "", "testdata/claude/*/*/*.jsonl")
	f.Add([]byte(`{"type":"assistant","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use"}],"usage":{"input_tokens":"x"}}}` + "\n" + `{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","is_error":true}]}}{"type":"user"`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzFile(t, "f.jsonl", data) })
}

// Past the window of remembered responses and tool call ids, counts stay
// exact for responses whose lines are near each other, as they are in
// real files.
func TestClaudeLongTranscriptWindow(t *testing.T) {
	var sb strings.Builder
	n := claudeWindow*2 + 100
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("msg_%d", i)
		call := fmt.Sprintf("toolu_%d", i)
		for part := 1; part <= 2; part++ {
			sb.WriteString(claudeLine("s1", "assistant", "2.1.3", fmt.Sprintf(
				`"message":{"id":%q,"role":"assistant","model":"m","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{}}],"usage":{"input_tokens":1,"output_tokens":%d}},"requestId":"r"`,
				id, call, part)))
			sb.WriteByte('\n')
		}
		sb.WriteString(claudeLine("s1", "user", "2.1.3", fmt.Sprintf(
			`"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"is_error":%v}]}`, call, i%2 == 0)))
		sb.WriteByte('\n')
	}
	path := writeFile(t, "long.jsonl", sb.String())
	ss, err := Read(context.Background(), path, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	want{id: "claude-code:s1", asst: n, tools: n, errs: (n + 1) / 2, in: int64(n), out: int64(2 * n), outcome: lore.OutcomeUnknown}.check(t, ss[0])
}

// Claude Code 2.1.1xx starts a transcript with the title it gave the
// session: the file is still Claude Code's.
func TestClaudeAITitleFirst(t *testing.T) {
	id := "4601cee9-10d9-4afc-889d-253b74f14046"
	path := writeFile(t, id+".jsonl", `{"type":"ai-title","sessionId":"`+id+`","aiTitle":"Set up nightly releases"}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"set up nightly releases"},"uuid":"u1","timestamp":"2026-04-17T15:29:39.500Z","sessionId":"`+id+`","cwd":"/home/dev/orpheus"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"model":"claude-opus-4-6","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":5,"output_tokens":2}},"uuid":"a1","timestamp":"2026-04-17T15:29:41.000Z","sessionId":"`+id+`","cwd":"/home/dev/orpheus"}
`)
	s := readOne(t, path)
	if s.Agent != lore.AgentClaudeCode || s.NativeID != id || s.UserMessages != 1 || s.AssistantMessages != 1 || s.Warnings != 0 {
		t.Errorf("got %+v", s)
	}
}

// TestClaudeNestedMemory checks that a nested_memory attachment, the
// CLAUDE.md of a subfolder Claude Code loaded, is a system message with
// the file's path and text, and that other attachments are not read; no
// turn is added either way.
func TestClaudeNestedMemory(t *testing.T) {
	user := claudeLine("s1", "user", "2.1.112", `"message":{"role":"user","content":"fix the web build"},"uuid":"a"`)
	memory := claudeLine("s1", "attachment", "2.1.112", `"attachment":{"type":"nested_memory","path":"/w/web/CLAUDE.md",`+
		`"content":{"path":"/w/web/CLAUDE.md","type":"Project","content":"# Web\nBuild with `+"`pnpm build`"+`.\n","contentDiffersFromDisk":false},`+
		`"displayPath":"web/CLAUDE.md"},"uuid":"b"`)
	hook := claudeLine("s1", "attachment", "2.1.112", `"attachment":{"type":"hook_success","content":"Contents of /w/CLAUDE.md:\n\nnot a memory"},"uuid":"c"`)
	s := readOne(t, writeFile(t, "s1.jsonl", user+"\n"+memory+"\n"+hook+"\n"))
	want{id: "claude-code:s1", user: 1, outcome: lore.OutcomeUnknown}.check(t, s)
	var got []string
	for _, m := range s.Messages {
		if m.Role == lore.RoleSystem {
			got = append(got, m.Text)
		}
	}
	if w := "Contents of /w/web/CLAUDE.md:\n\n# Web\nBuild with `pnpm build`.\n"; len(got) != 1 || got[0] != w {
		t.Errorf("system messages %q, want only %q", got, w)
	}
}
