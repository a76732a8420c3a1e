package transcript

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

const (
	geminiFixtureLog  = "testdata/gemini/session-2026-04-20T10-00-a1b2c3d4.jsonl"
	geminiFixtureJSON = "testdata/gemini/session-2026-01-12T08-00-0c1d2e3f.json"
	geminiFixtureCkpt = "testdata/gemini/checkpoint-flaky%20test.json"
)

// The JSONL log, worked by hand. Records: u1; g1 streamed twice (the
// second, with tokens 1000/50/200/30 and a successful call, replaces the
// first); g2 (tokens 1500/40/1000/0, tool 10; a failed replace); a damaged
// line; an info message; u2 and g3 (tokens 2000/60/1500/20), both removed
// by $rewindTo u2; u3; g4 streamed twice (last tokens 3000/80/2500/40); a
// truncated last line. History left: u1 g1 g2 i1 u3 g4. Tokens (input −
// cached + tool, cached, output + thoughts), g3's included as spent:
// g1 800/200/80, g2 510/1000/40, g3 500/1500/80, g4 500/2500/120.
var geminiWantLog = codexWant{
	id: "gemini-cli:a1b2c3d4-0f1e-4d2c-9b8a-7f6e5d4c3b2a", user: 2, asst: 3, tools: 2, errs: 1,
	usage:   lore.Usage{InputTokens: 800 + 510 + 500 + 500, CacheReadTokens: 200 + 1000 + 1500 + 2500, OutputTokens: 80 + 40 + 80 + 120},
	outcome: lore.OutcomeSuccess, model: "gemini-2.5-pro",
	start: "2026-04-20T10:00:00Z", end: "2026-04-20T10:02:20Z", warnings: 2,
}

func TestGeminiLog(t *testing.T) {
	s := codexReadBoth(t, geminiFixtureLog)
	codexCheck(t, s, geminiWantLog)

	var texts []string
	var thinking string
	results := map[string]lore.ToolResult{}
	for _, m := range s.Messages {
		texts = append(texts, string(m.Role)+":"+m.Text)
		if m.Thinking != "" {
			thinking = m.Thinking
		}
		for _, r := range m.ToolResults {
			results[r.CallID] = r
		}
	}
	want := []string{
		"user:Run the tests and fix what fails.",
		"assistant:I'll run the tests.", "tool:",
		"assistant:", "tool:",
		"system:[info] Gemini CLI update available! 0.38.0 → 0.39.0",
		"user:Use sum.go's Add instead.",
		"assistant:Done: TestSum passes now.",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("messages =\n%q\nwant\n%q", texts, want)
	}
	if thinking != "Planning: Run go test first." {
		t.Errorf("thinking = %q", thinking)
	}
	if r := results["run_shell_command-1"]; r.IsError || r.Output != "FAIL: TestSum (sum_test.go:9)" {
		t.Errorf("run_shell_command-1 result = %+v", r)
	}
	if r := results["replace-2"]; !r.IsError || !strings.Contains(r.Output, "0 occurrences") {
		t.Errorf("replace-2 result = %+v", r)
	}
}

// The old whole-file record: four turns, one call, and an API error last
// (the warning after it does not count), so failure.
func TestGeminiRecord(t *testing.T) {
	codexCheck(t, codexReadBoth(t, geminiFixtureJSON), codexWant{
		id: "gemini-cli:0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", user: 2, asst: 2, tools: 1, errs: 0,
		usage:   lore.Usage{InputTokens: 5000 + 300, CacheReadTokens: 4900, OutputTokens: 120 + 30},
		outcome: lore.OutcomeFailure, model: "gemini-2.5-flash",
		start: "2026-01-12T08:00:00Z", end: "2026-01-12T08:03:00Z",
	})
}

// A .jsonl file can hold one JSON document (Entire stores Gemini sessions
// as full.jsonl): pretty-printed, and compact on one line. Both read like
// the .json they came from.
func TestGeminiDocumentInJSONL(t *testing.T) {
	data, err := os.ReadFile(geminiFixtureJSON)
	if err != nil {
		t.Fatal(err)
	}
	want := readOne(t, geminiFixtureJSON)
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"pretty": string(data), "one line": string(v.MarshalTo(nil)) + "\n"} {
		t.Run(name, func(t *testing.T) {
			s := readOne(t, writeFile(t, "full.jsonl", body))
			if s.ID != want.ID || s.MessageCount() != want.MessageCount() || s.ToolCalls != want.ToolCalls ||
				s.Usage != want.Usage || s.Outcome != want.Outcome || !s.EndedAt.Equal(want.EndedAt) {
				t.Errorf("got %s %d msgs %d tools %+v %s, want %s %d %d %+v %s", s.ID, s.MessageCount(), s.ToolCalls, s.Usage, s.Outcome,
					want.ID, want.MessageCount(), want.ToolCalls, want.Usage, want.Outcome)
			}
		})
	}
}

// Real sessions, stored by Entire; expected numbers from the files by hand
// (tokens: input − cached, output + thoughts, summed over gemini messages).
func TestGeminiCorpus(t *testing.T) {
	dir := corpusDir(t, "gemini-cli")
	for _, tc := range []struct {
		file string
		want codexWant
	}{
		{"entire-cli__12_cbfeaa512b_0.session.json", codexWant{
			id: "gemini-cli:faff42ab-6ea5-4f78-b8c4-f7dd6272af08", user: 2, asst: 4, tools: 2,
			usage:   lore.Usage{InputTokens: 48965 - 35330, CacheReadTokens: 35330, OutputTokens: 70 + 232},
			outcome: lore.OutcomeSuccess, model: "gemini-2.5-flash", start: "2026-01-10T02:08:26.108Z", end: "2026-01-10T02:09:27.575Z",
		}},
		{"entire-cli__51_3fab7adf0b_0.session.json", codexWant{
			id: "gemini-cli:fa4593e0-f7e1-4dd1-b656-da95fb4d60fa", user: 2, asst: 2, tools: 1,
			usage:   lore.Usage{InputTokens: 24176 - 11835, CacheReadTokens: 11835, OutputTokens: 33 + 120},
			outcome: lore.OutcomeSuccess, model: "gemini-2.5-flash", start: "2026-01-10T20:00:21.501Z", end: "2026-01-10T20:00:32.66Z",
		}},
		{"entire-cli__9c_53780d06b7_0.session.json", codexWant{
			id: "gemini-cli:f7633853-6663-4dbb-bbf4-6159afa29df8", user: 1, asst: 6, tools: 4,
			usage:   lore.Usage{InputTokens: 62895 - 50471, CacheReadTokens: 50471, OutputTokens: 309 + 464},
			outcome: lore.OutcomeSuccess, model: "gemini-2.5-flash", start: "2026-01-15T20:51:48.582Z", end: "2026-01-15T20:52:29.285Z",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			codexCheck(t, codexReadBoth(t, filepath.Join(dir, tc.file)), tc.want)
		})
	}
}

func geminiLog(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const (
	geminiMetaLine = `{"sessionId":"s-1","projectHash":"ab","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z"}`
	geminiU1       = `{"id":"u1","timestamp":"2026-01-01T00:00:01Z","type":"user","content":"go"}`
	geminiG1       = `{"id":"g1","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"done"}`
	geminiU2       = `{"id":"u2","timestamp":"2026-01-01T00:00:03Z","type":"user","content":"again"}`
	geminiG2       = `{"id":"g2","timestamp":"2026-01-01T00:00:04Z","type":"gemini","content":"ok","toolCalls":[{"id":"t2","name":"ls","status":"success"}]}`
)

// Rewind removes the named message and all after it; a later message with
// an old id is new again; a rewind to an unknown id is a warning.
func TestGeminiRewind(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		lines                    []string
		user, asst, tools, warns int
	}{
		{"rewind to the second turn", []string{geminiMetaLine, geminiU1, geminiG1, geminiU2, geminiG2, `{"$rewindTo":"u2"}`}, 1, 1, 0, 0},
		{"rewind to the first message", []string{geminiMetaLine, geminiU1, geminiG1, `{"$rewindTo":"u1"}`, geminiU2, geminiG2}, 1, 1, 1, 0},
		{"rewound id written again", []string{geminiMetaLine, geminiU1, geminiG1, `{"$rewindTo":"g1"}`, geminiG1}, 1, 1, 0, 0},
		{"unknown id", []string{geminiMetaLine, geminiU1, geminiG1, `{"$rewindTo":"nope"}`}, 1, 1, 0, 1},
		{"replace keeps the place", []string{geminiMetaLine, geminiU1, geminiG2, geminiU2, strings.Replace(geminiG2, `"ok"`, `"better"`, 1)}, 2, 1, 1, 0},
		{"$set messages adds and updates", []string{geminiMetaLine, geminiU1, geminiG1,
			`{"$set":{"messages":[` + geminiU1 + `,` + strings.Replace(geminiG2, `"g2"`, `"g1"`, 1) + `,` + geminiU2 + `]}}`}, 2, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := codexReadBoth(t, writeFile(t, "session-x.jsonl", geminiLog(tc.lines...)))
			if s.UserMessages != tc.user || s.AssistantMessages != tc.asst || s.ToolCalls != tc.tools || s.Warnings != tc.warns {
				t.Errorf("got %d user %d assistant %d tools %d warnings; want %d %d %d %d",
					s.UserMessages, s.AssistantMessages, s.ToolCalls, s.Warnings, tc.user, tc.asst, tc.tools, tc.warns)
			}
		})
	}
}

func TestGeminiOutcome(t *testing.T) {
	call := func(status string) string {
		return `{"id":"g9","timestamp":"2026-01-01T00:00:09Z","type":"gemini","content":"","toolCalls":[{"id":"t9","name":"x","status":"` + status + `"}]}`
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  lore.Outcome
	}{
		{"answer", []string{geminiMetaLine, geminiU1, geminiG1}, lore.OutcomeSuccess},
		{"answer then info", []string{geminiMetaLine, geminiU1, geminiG1, `{"id":"i","timestamp":"2026-01-01T00:00:09Z","type":"info","content":"update available"}`}, lore.OutcomeSuccess},
		{"error message", []string{geminiMetaLine, geminiU1, geminiG1, `{"id":"e","timestamp":"2026-01-01T00:00:09Z","type":"error","content":"[API Error]"}`}, lore.OutcomeFailure},
		{"cancelled call", []string{geminiMetaLine, geminiU1, call("cancelled")}, lore.OutcomeAborted},
		{"failed call", []string{geminiMetaLine, geminiU1, call("error")}, lore.OutcomeFailure},
		{"call awaiting the model", []string{geminiMetaLine, geminiU1, call("success")}, lore.OutcomeUnknown},
		{"user last", []string{geminiMetaLine, geminiU1, geminiG1, geminiU2}, lore.OutcomeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := codexReadBoth(t, writeFile(t, "session-x.jsonl", geminiLog(tc.lines...)))
			if s.Outcome != tc.want {
				t.Errorf("outcome = %s, want %s", s.Outcome, tc.want)
			}
		})
	}
}

// The setup exchange is not a turn; the failed read is a tool error; the
// tag is decoded from the file name.
func TestGeminiCheckpoint(t *testing.T) {
	codexCheck(t, codexReadBoth(t, geminiFixtureCkpt), func() codexWant {
		fi, err := os.Stat(geminiFixtureCkpt)
		if err != nil {
			t.Fatal(err)
		}
		at := codexRFC(fi.ModTime())
		return codexWant{id: "gemini-cli:checkpoint-flaky test", user: 1, asst: 2, tools: 1, errs: 1,
			outcome: lore.OutcomeSuccess, start: at, end: at}
	}())

	// The legacy bare Content[] form, in Gemini's tmp/<project>/ layout
	// with the project root marker: the id names the project, the cwd is
	// the marker's.
	data, err := os.ReadFile(geminiFixtureCkpt)
	if err != nil {
		t.Fatal(err)
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	bare := string(v.Get("history").MarshalTo(nil))
	root := t.TempDir()
	proj := filepath.Join(root, ".gemini", "tmp", "cache-svc")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".project_root"), []byte("/home/dev/cache\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(proj, "checkpoint-wip.json")
	if err := os.WriteFile(path, []byte(bare), 0o644); err != nil {
		t.Fatal(err)
	}
	s := readOne(t, path)
	if s.ID != "gemini-cli:cache-svc/checkpoint-wip" || s.Cwd != "/home/dev/cache" || s.UserMessages != 1 || s.ToolErrors != 1 {
		t.Errorf("bare checkpoint: id %q cwd %q user %d errors %d", s.ID, s.Cwd, s.UserMessages, s.ToolErrors)
	}

	// The same history under another name is not claimed: role/parts lists
	// alone are too plain to tell apart.
	ss, err := Read(context.Background(), writeFile(t, "history.json", bare), Options{NoGit: true})
	for _, s := range ss {
		if s.Agent == lore.AgentGeminiCLI {
			t.Errorf("history.json read as %s", s.ID)
		}
	}
	if err == nil && len(ss) == 0 {
		t.Error("history.json: no error and no session")
	}
}

// A session in tmp/<project>/chats/ takes its cwd from the project's
// .project_root; a sub-agent's in chats/<parent>/ too.
func TestGeminiProjectRoot(t *testing.T) {
	data, err := os.ReadFile(geminiFixtureLog)
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(t.TempDir(), "tmp", "widgets")
	for _, rel := range []string{"chats/session-2026-04-20T10-00-a1b2c3d4.jsonl", "chats/a1b2c3d4-0f1e-4d2c-9b8a-7f6e5d4c3b2a/sub-1.jsonl"} {
		path := filepath.Join(proj, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".project_root"), []byte("/Users/dev/widgets"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"chats/session-2026-04-20T10-00-a1b2c3d4.jsonl", "chats/a1b2c3d4-0f1e-4d2c-9b8a-7f6e5d4c3b2a/sub-1.jsonl"} {
		if s := readOne(t, filepath.Join(proj, rel)); s.Cwd != "/Users/dev/widgets" {
			t.Errorf("%s: cwd = %q", rel, s.Cwd)
		}
	}
}

// Other agents' files are not Gemini's; a log nobody spoke in is no
// transcript.
func TestGeminiSniff(t *testing.T) {
	var p fastjson.Parser
	for _, line := range []string{
		`{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`,
		`{"sessionId":"s","projectHash":"p","type":"queue-operation"}`,
	} {
		v, err := p.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if sniffGeminiLine("x.jsonl", v) {
			t.Errorf("gemini claims line %s", line)
		}
	}
	for _, doc := range []string{
		`{"session_id":"s","messages":[{"role":"user","content":"hi"}]}`,
		`{"sessionId":"s","messages":"not a list","projectHash":"p"}`,
		`[{"role":"user","parts":[{"text":"hi"}]}]`,
	} {
		v, err := p.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		if sniffGeminiDoc("x.json", v) || sniffGeminiCheckpoint("x.json", v) {
			t.Errorf("gemini claims document %s", doc)
		}
	}
	_, err := Read(context.Background(), writeFile(t, "session-x.jsonl", geminiLog(geminiMetaLine, `{"$set":{"lastUpdated":"2026-01-01T00:01:00Z"}}`)), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("metadata-only log: err = %v, want ErrEmpty", err)
	}
}

func TestGeminiRoots(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: "darwin", Getenv: func(k string) string { return vars[k] }}
	}
	if got := geminiRoots(env(nil)); len(got) != 1 || got[0].Path != "/home/u/.gemini/tmp" || got[0].Source != "default" {
		t.Errorf("default roots = %+v", got)
	}
	if got := geminiRoots(env(map[string]string{"GEMINI_CLI_HOME": "/ci/job-1"})); len(got) != 1 || got[0].Path != "/ci/job-1/.gemini/tmp" || got[0].Source != "GEMINI_CLI_HOME" {
		t.Errorf("GEMINI_CLI_HOME roots = %+v", got)
	}
}

func FuzzGemini(f *testing.F) {
	for _, pattern := range []string{"testdata/gemini/*", "../../shared/corpus/gemini-cli/*.json"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(geminiLog(geminiMetaLine, geminiU1, geminiG2, `{"$rewindTo":"u1"}`, geminiG2, `{"$set":{"messages":[{"id":"u1"},{"id":5}]}}`)))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "session-2026-01-01T00-00-a1b2c3d4.jsonl", data)
	})
}

// FuzzGeminiCheckpoint fuzzes the checkpoint reader, which only a
// checkpoint-*.json name reaches.
func FuzzGeminiCheckpoint(f *testing.F) {
	if data, err := os.ReadFile(geminiFixtureCkpt); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`[{"role":"model","parts":[{"functionCall":{"name":"x"}}]},{"role":"user","parts":[{"functionResponse":{"response":{"error":1}}}]}]`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "checkpoint-x.json", data)
	})
}

func BenchmarkGemini(b *testing.B) { codexBenchRead(b, geminiFixtureLog) }

// A shell command that exits non-zero has status "success": the exit code
// is only in the output. It counts as a tool error, with and without
// message bodies; exit code 0 and a command killed by a signal do not.
func TestGeminiShellExitCode(t *testing.T) {
	shell := func(id, out string) string {
		return `{"id":"` + id + `","name":"run_shell_command","args":{"command":"make"},"status":"success","result":[{"functionResponse":{"id":"` + id +
			`","name":"run_shell_command","response":{"output":` + geminiQuote(out) + `}}}]}`
	}
	log := `{"sessionId":"5e11e7c0-0000-4000-8000-000000000001","projectHash":"ab","startTime":"2026-04-20T10:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-04-20T10:00:05.000Z","type":"user","content":[{"text":"Build it."}]}
{"id":"g1","timestamp":"2026-04-20T10:00:10.000Z","type":"gemini","content":"Building.","model":"gemini-2.5-pro","toolCalls":[` +
		shell("sh-1", "Command: make\nDirectory: (root)\nOutput: make: *** No rule to make target 'all'.\nError: (none)\nExit Code: 2\nSignal: (none)") + `,` +
		shell("sh-2", "Command: make build\nDirectory: (root)\nOutput: ok\nError: (none)\nExit Code: 0\nSignal: (none)") + `,` +
		shell("sh-3", "Command: sleep 99\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15") + `]}
{"id":"g2","timestamp":"2026-04-20T10:00:20.000Z","type":"gemini","content":"Built."}
`
	s := codexReadBoth(t, writeFile(t, "session-2026-04-20T10-00-5e11e7c0.jsonl", log))
	if s.ToolCalls != 3 || s.ToolErrors != 1 {
		t.Errorf("tool calls %d, errors %d; want 3, 1", s.ToolCalls, s.ToolErrors)
	}
	for _, m := range s.Messages {
		for _, r := range m.ToolResults {
			switch r.CallID {
			case "sh-1":
				if !r.IsError || r.ExitCode == nil || *r.ExitCode != 2 {
					t.Errorf("sh-1: %+v, want an error with exit code 2", r)
				}
			case "sh-2":
				if r.IsError || r.ExitCode == nil || *r.ExitCode != 0 {
					t.Errorf("sh-2: %+v, want exit code 0", r)
				}
			case "sh-3":
				if r.IsError || r.ExitCode != nil {
					t.Errorf("sh-3: %+v, want no exit code", r)
				}
			}
		}
	}
}

func geminiQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The setup context names the folder the CLI was started in, in each
// wording environmentContext.ts has had; other text names none.
func TestSetupWorkspace(t *testing.T) {
	const ctx = "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Sunday, 7 June 2026.\nMy operating system is: "
	for _, tc := range []struct{ name, text, want string }{
		{"workspace list, Windows", ctx + "win32\nThe project's temporary directory is: C:\\Users\\dev\\.gemini\\tmp\\shop\n- **Workspace Directories:**\n  - C:\\Users\\dev\\Desktop\\shop\n  - D:\\shared\n- **Directory Structure:**\n\nC:\\Users\\dev\\Desktop\\shop\\\n├───README.md\n</session_context>", `C:\Users\dev\Desktop\shop`},
		{"one folder, untagged", "This is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Monday.\nMy operating system is: linux\nI'm currently working in the directory: /home/dev/widgets\nHere is the folder structure of the current working directories:\n\n/home/dev/widgets/\n", "/home/dev/widgets"},
		{"folder list", ctx + "darwin\nI'm currently working in the following directories:\n  - /Users/dev/api\n  - /Users/dev/lib\n", "/Users/dev/api"},
		{"tree only", ctx + "linux\nThe workspace's temporary directory is: /home/dev/.gemini/tmp/x\n\n</session_context>", ""},
		{"relative folder", ctx + "linux\nI'm currently working in the directory: widgets\n", ""},
		{"list without items", ctx + "linux\n- **Workspace Directories:**\n- **Directory Structure:**\n", ""},
		{"not the setup", "I'm currently working in the directory: /home/dev/widgets", ""},
		{"Qwen's setup", "This is the Qwen Code. We are setting up the context for our chat.\nI'm currently working in the directory: /home/dev/widgets", ""},
	} {
		if got := setupWorkspace(tc.text, geminiSetupPrefix); got != tc.want {
			t.Errorf("%s: setupWorkspace = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A log with no .project_root beside it takes its cwd from the setup
// context the CLI wrote as the first user message (here inside a $set, as
// the CLI syncs it); a Windows folder gives its last folder's name as the
// repository. A later user message naming a folder does not count.
func TestGeminiSetupCwd(t *testing.T) {
	log := `{"sessionId":"fee94c8d-ce1b-4317-9d72-28415009e617","projectHash":"661f","startTime":"2026-06-07T15:50:29.489Z","lastUpdated":"2026-06-07T15:50:29.489Z","kind":"main"}
{"$set":{"messages":[{"id":"u0","timestamp":"2026-06-07T15:50:29.490Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: win32\n- **Workspace Directories:**\n  - C:\\Users\\bishw\\OneDrive\\Desktop\\eagerminds-bookmarks-task\n- **Directory Structure:**\n\nC:\\Users\\bishw\\OneDrive\\Desktop\\eagerminds-bookmarks-task\\\n├───README.md\n</session_context>"}]}]}}
{"id":"u1","timestamp":"2026-06-07T15:50:40.000Z","type":"user","content":[{"text":"This is the Gemini CLI. We are setting up the context for our chat.\nI'm currently working in the directory: /elsewhere"}]}
{"id":"g1","timestamp":"2026-06-07T15:50:50.000Z","type":"gemini","content":"Done.","model":"gemini-2.5-pro"}
`
	path := writeFile(t, "session-2026-06-07T15-50-fee94c8d.jsonl", log)
	full := codexReadBoth(t, path)
	ss, err := Read(context.Background(), path, Options{NoGit: true})
	if err != nil || len(ss) != 1 {
		t.Fatalf("read: %d sessions, %v", len(ss), err)
	}
	for _, s := range []*lore.Session{full, ss[0]} {
		if s.Cwd != `C:\Users\bishw\OneDrive\Desktop\eagerminds-bookmarks-task` || s.Repo != "eagerminds-bookmarks-task" {
			t.Errorf("cwd %q repo %q", s.Cwd, s.Repo)
		}
	}
}

// A checkpoint of a newer CLI, whose setup is wrapped in <session_context>:
// the setup exchange is still no turn, and names the cwd.
func TestGeminiCheckpointSessionContext(t *testing.T) {
	ckpt := `{"history":[
{"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\n- **Workspace Directories:**\n  - /home/dev/cache\n</session_context>"}]},
{"role":"model","parts":[{"text":"Got it. Thanks for the context!"}]},
{"role":"user","parts":[{"text":"Why is the cache cold?"}]},
{"role":"model","parts":[{"text":"It is never warmed."}]}]}`
	s := readOne(t, writeFile(t, "checkpoint-cold.json", ckpt))
	if s.Cwd != "/home/dev/cache" || s.UserMessages != 1 || s.AssistantMessages != 1 {
		t.Errorf("cwd %q user %d assistant %d, want /home/dev/cache 1 1", s.Cwd, s.UserMessages, s.AssistantMessages)
	}
}
