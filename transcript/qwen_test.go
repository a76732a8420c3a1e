package transcript

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// The fixture is written from chatRecordingService.ts (no real Qwen Code
// file was at hand).
const qwenFixture = "testdata/qwen-code/7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.jsonl"

// Worked by hand: one user turn (the notification is the CLI's own); five
// main-chain model responses and one of the Explore sub-agent, which is no
// turn; five calls, of which the first go test (Exit Code: 1) and the read
// of a missing file failed, the second go test (Exit Code: 0) did not;
// tokens summed over the six responses, the last in the earlier
// {input, output, cached} shape: input 4000+1000+3000+500+600+500, cached
// 8000+12000+13000+13600+13500, output 150+40+60+50+200+20+30; the model's
// answer is last, so success.
var qwenWant = codexWant{
	id: "qwen-code:7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e", user: 1, asst: 5, tools: 5, errs: 2,
	usage:   lore.Usage{InputTokens: 9600, CacheReadTokens: 60100, OutputTokens: 550},
	outcome: lore.OutcomeSuccess, model: "qwen3-coder-plus", branch: "fix-tests",
	repo: "widgets", cwd: "/home/dev/widgets",
	start: "2026-03-02T09:00:00Z", end: "2026-03-02T09:00:46Z",
}

func TestQwenSession(t *testing.T) {
	s := codexReadBoth(t, qwenFixture)
	codexCheck(t, s, qwenWant)
	if s.Agent != lore.AgentQwenCode {
		t.Errorf("agent = %s", s.Agent)
	}
	// Bodies: the commands and their outputs, the failures marked.
	var results []lore.ToolResult
	var calls []lore.ToolCall
	side := 0
	for _, m := range s.Messages {
		results = append(results, m.ToolResults...)
		calls = append(calls, m.ToolCalls...)
		if m.Sidechain {
			side++
		}
	}
	if len(calls) != 5 || calls[0].Name != "run_shell_command" || !strings.Contains(calls[0].Input, "go test ./...") {
		t.Errorf("calls = %+v", calls)
	}
	if len(results) != 5 {
		t.Fatalf("results = %+v", results)
	}
	if r := results[4]; r.IsError || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("second go test result = %+v", r)
	}
	if r := results[0]; !r.IsError || r.ExitCode == nil || *r.ExitCode != 1 || !strings.Contains(r.Output, "want 3, got 2") {
		t.Errorf("go test result = %+v", r)
	}
	if r := results[1]; !r.IsError || !strings.Contains(r.Output, "File not found") {
		t.Errorf("read_file result = %+v", r)
	}
	if results[2].IsError || results[3].IsError {
		t.Errorf("successful results marked failed: %+v %+v", results[2], results[3])
	}
	if side != 2 {
		t.Errorf("sidechain messages = %d, want 2", side)
	}
}

// A damaged line is a warning and the rest is read; a response written
// twice (same uuid) counts its tokens once.
func TestQwenDamaged(t *testing.T) {
	data, err := os.ReadFile(qwenFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Line 3 is the first response; write it again, add garbage, and cut
	// the last line in half.
	body := strings.Join(lines[:3], "") + lines[2] + "{not json\n" + strings.Join(lines[3:len(lines)-2], "") + lines[len(lines)-2][:40]
	s := codexReadBoth(t, writeFile(t, "7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.jsonl", body))
	want := qwenWant
	want.warnings = 2
	want.asst++ // the repeated record is a message again, its tokens are not
	want.end = "2026-03-02T09:00:45Z"
	codexCheck(t, s, want)
}

func TestQwenOutcome(t *testing.T) {
	const head = `{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","type":"user","cwd":"/w","version":"0.6.2","message":{"role":"user","parts":[{"text":"go"}]}}`
	call := `{"uuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","type":"assistant","model":"m","message":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"x","args":{}}}]}}`
	result := func(status string) string {
		return `{"uuid":"t1","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"x","response":{"output":"ok"}}}]},"toolCallResult":{"callId":"c1","status":"` + status + `"}}`
	}
	turnResult := func(state string) string {
		return `{"uuid":"z","sessionId":"s","timestamp":"2026-01-01T00:00:03Z","type":"system","subtype":"turn_result","systemPayload":{"promptId":"p","state":"` + state + `","endedAt":1}}`
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  lore.Outcome
		errs  int
	}{
		{"user last", []string{head}, lore.OutcomeUnknown, 0},
		{"call pending", []string{head, call}, lore.OutcomeUnknown, 0},
		{"result awaiting the model", []string{head, call, result("success")}, lore.OutcomeUnknown, 0},
		{"failed", []string{head, call, result("error")}, lore.OutcomeFailure, 1},
		{"cancelled", []string{head, call, result("cancelled")}, lore.OutcomeAborted, 0},
		{"turn completed", []string{head, call, result("success"), turnResult("completed")}, lore.OutcomeSuccess, 0},
		{"turn error", []string{head, turnResult("error")}, lore.OutcomeFailure, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := codexReadBoth(t, writeFile(t, "s.jsonl", strings.Join(tc.lines, "\n")+"\n"))
			if s.Outcome != tc.want || s.ToolErrors != tc.errs {
				t.Errorf("outcome %s, errors %d; want %s, %d", s.Outcome, s.ToolErrors, tc.want, tc.errs)
			}
		})
	}
}

// Claude Code's lines share Qwen's keys; neither reader takes the other's.
func TestQwenSniff(t *testing.T) {
	var p fastjson.Parser
	for _, tc := range []struct {
		line         string
		qwen, claude bool
	}{
		{`{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","version":"2.1.0","message":{"role":"user","content":"hi"}}`, false, true},
		{`{"type":"system","uuid":"u","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","subtype":"compact_boundary","content":"x"}`, false, true},
		{`{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","version":"0.6.2","message":{"role":"user","parts":[{"text":"hi"}]}}`, true, false},
		{`{"type":"system","uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","version":"0.6.2","subtype":"session_source","systemPayload":{"sourceType":"cli"}}`, true, false},
		{`{"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z"}`, false, false},
	} {
		v, err := p.Parse(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if got := sniffQwen("x.jsonl", v); got != tc.qwen {
			t.Errorf("sniffQwen(%s) = %v", tc.line, got)
		}
		// Qwen's entry comes before Claude Code's in formats, so a line
		// both would claim goes to Qwen: only Claude's own lines may reach
		// Claude's sniff.
		if tc.claude && sniffQwen("x.jsonl", v) {
			t.Errorf("a Claude Code line goes to Qwen: %s", tc.line)
		}
	}
	_, err := Read(context.Background(), writeFile(t, "s.jsonl",
		`{"type":"system","uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","version":"0.6.2","subtype":"custom_title","systemPayload":{"customTitle":"t"}}`+"\n"), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("title-only file: err = %v, want ErrEmpty", err)
	}
}

func TestQwenRoots(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string { return vars[k] }}
	}
	got := qwenRoots(env(nil))
	if len(got) != 2 || got[0].Path != "/home/u/.qwen/projects" || got[1].Path != "/home/u/.qwen/tmp" || got[0].Source != "default" {
		t.Errorf("default roots = %+v", got)
	}
	got = qwenRoots(env(map[string]string{"QWEN_RUNTIME_DIR": "/data/qwen"}))
	if len(got) != 2 || got[0].Path != "/data/qwen/projects" || got[0].Source != "QWEN_RUNTIME_DIR" {
		t.Errorf("QWEN_RUNTIME_DIR roots = %+v", got)
	}
}

func FuzzQwen(f *testing.F) {
	seedFiles(f, "", "testdata/qwen-code/*.jsonl")
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "7b1e2c3d.jsonl", data)
	})
}

func BenchmarkQwen(b *testing.B) { codexBenchRead(b, qwenFixture) }

// A /chat save checkpoint has Gemini's shape; Qwen's setup message makes
// it Qwen Code's, and it is read by Gemini's checkpoint rules: the setup
// exchange is no turn, the go vet that exited 1 is a failed call, and the
// folder the setup says Qwen was working in is the cwd.
func TestQwenCheckpoint(t *testing.T) {
	const path = "testdata/qwen-code/checkpoint-vet.json"
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	at := codexRFC(fi.ModTime())
	codexCheck(t, codexReadBoth(t, path), codexWant{
		id: "qwen-code:checkpoint-vet", user: 1, asst: 2, tools: 1, errs: 1,
		outcome: lore.OutcomeSuccess, start: at, end: at, cwd: "/home/dev/widgets", repo: "widgets",
	})
	// Gemini's own checkpoint stays Gemini's.
	if s := readOne(t, geminiFixtureCkpt); s.Agent != lore.AgentGeminiCLI {
		t.Errorf("Gemini checkpoint read as %s", s.Agent)
	}
}
