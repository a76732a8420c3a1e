package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

const (
	// copilotFixtureCLI is cut from a real Copilot CLI 1.0.64 log
	// (corpus-projects EntityProcess+agentv/26_9e1b9e5502_0): its first
	// five turns, the three turns whose tool calls failed, and the last
	// answer; hook and permission events left out, long strings cut.
	copilotFixtureCLI = "testdata/copilot/cli-events.jsonl"
	// copilotFixtureResumed is written from the event schema: a run ended
	// by a shutdown, a damaged line, a resumed run with a sub-agent, an
	// abort and a truncated last line.
	copilotFixtureResumed = "testdata/copilot/cli-resumed.jsonl"
	// copilotFixtureVSCode is a real VS Code Copilot Chat 0.49 transcript
	// (corpus-projects Zephyrxx0+DevBridge/54_95edf2ca6a_0, long strings
	// cut) in its workspace storage folder, with a workspace.json.
	copilotFixtureVSCode = "testdata/copilot/workspaceStorage/5f2c0de1/GitHub.copilot-chat/transcripts/9b1d7472-3f50-46ef-a89d-c3452954ca84.jsonl"
)

// Worked by hand from the fixture: 1 user message, 9 assistant messages
// (outputTokens 174+97+274+112+98+933+536+331+250), 10 tool call ids;
// errors: a stop_bash call with success false, and two bash calls whose
// result ends "<shellId: 50 completed with exit code 1>" and "… exit code
// 128>". No shutdown: only output tokens are known.
func TestCopilotCLI(t *testing.T) {
	s := codexReadBoth(t, copilotFixtureCLI)
	codexCheck(t, s, codexWant{
		id: "copilot-cli:10fb4666-56f0-4352-90fc-715caf95b418", user: 1, asst: 9, tools: 10, errs: 3,
		usage:   lore.Usage{OutputTokens: 2805},
		outcome: lore.OutcomeSuccess, model: "claude-sonnet-4.6", branch: "main",
		repo: "agentv", cwd: "/home/entity/projects/EntityProcess/agentv",
		start: "2026-06-25T01:50:34.04Z", end: "2026-06-25T02:02:28.938Z",
	})
	var exit1, failed bool
	for _, m := range s.Messages {
		for _, r := range m.ToolResults {
			switch r.CallID {
			case "toolu_bdrk_0189Lhu3UcGQiuaXUbXZi8CC":
				exit1 = r.IsError && r.ExitCode != nil && *r.ExitCode == 1
			case "toolu_bdrk_01P2kfcyiHNFBK6JThexoPya":
				failed = r.IsError && r.Output != ""
			}
		}
	}
	if !exit1 || !failed {
		t.Errorf("tool results: exit 1 marked %v, failed call with its error %v", exit1, failed)
	}
	if s.Messages[0].Role != lore.RoleSystem && s.Messages[0].Role != lore.RoleUser {
		t.Errorf("first message role %q", s.Messages[0].Role)
	}
}

// Run 1 ends with a shutdown: input 5000 − 3000 cached − 500 written =
// 1500, output max(60, 40+25) = 65. Run 2 has no shutdown: output 30 + 15
// (the sub-agent's m4, written twice, once). Turns: u e02, e11 (the
// sub-agent's prompt has a source and an agentId: not a turn); assistant
// m1 m2 m3 (m4 is the sub-agent's). Calls c1 c2 c3; errors c1 (exit 1) and
// c3 (success false). The model is the main agent's last; the abort is
// last; a garbage line and a truncated one are warnings.
func TestCopilotResumed(t *testing.T) {
	s := codexReadBoth(t, copilotFixtureResumed)
	codexCheck(t, s, codexWant{
		id: "copilot-cli:7c0ffee0-0000-4000-8000-000000000001", user: 2, asst: 3, tools: 3, errs: 2,
		usage:   lore.Usage{InputTokens: 1500, CacheReadTokens: 3000, CacheWriteTokens: 500, OutputTokens: 65 + 45},
		outcome: lore.OutcomeAborted, model: "claude-sonnet-4.6", branch: "fix-x",
		repo: "acme/proj", cwd: "/work/proj",
		start: "2026-07-01T09:00:00Z", end: "2026-07-02T10:00:40Z", warnings: 2,
	})
	side := 0
	for _, m := range s.Messages {
		if m.Sidechain {
			side++
		}
	}
	if side != 3 { // the prompt, m4, c3's result
		t.Errorf("%d sidechain messages, want 3", side)
	}
}

// VS Code's transcript: no model or tokens, and the cwd from the
// workspace storage's workspace.json (a Windows drive in a file URI).
func TestCopilotVSCodeTranscript(t *testing.T) {
	s := codexReadBoth(t, copilotFixtureVSCode)
	codexCheck(t, s, codexWant{
		id: "copilot-chat:9b1d7472-3f50-46ef-a89d-c3452954ca84", user: 2, asst: 5, tools: 7,
		outcome: lore.OutcomeSuccess, repo: "DevBridge-AMD", cwd: "d:/Codes/Personal/DevBridge-AMD",
		start: "2026-05-21T09:16:14.65Z", end: "2026-05-21T09:20:55.482Z",
	})
}

// A log with only its start is an empty session; other agents' first
// lines are not claimed.
func TestCopilotSniff(t *testing.T) {
	start := `{"type":"session.start","data":{"sessionId":"s1","version":1,"producer":"copilot-agent","copilotVersion":"1.0.1","startTime":"2026-07-01T09:00:00.000Z"},"id":"e1","timestamp":"2026-07-01T09:00:00.000Z","parentId":null}` + "\n"
	_, err := Read(t.Context(), writeFile(t, "s1.jsonl", start), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("start only: err = %v, want an empty session", err)
	}
	for _, other := range []string{
		`{"type":"session.start","data":{"id":"x"}}`,
		`{"type":"user","sessionId":"s","uuid":"u"}`,
		`{"type":"session.start","data":{"sessionId":"s1"}}`,
	} {
		if sniffCopilot("x.jsonl", fastjson.MustParse(other)) {
			t.Errorf("claimed %s", other)
		}
	}
	ss := readPath(t, writeFile(t, filepath.Join("abc", "events.jsonl"), start[:len(start)-1]+"\n"+
		`{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"2026-07-01T09:00:01.000Z","parentId":"e1"}`+"\n"))
	if len(ss) != 1 || ss[0].ID != "copilot-cli:s1" || ss[0].UserMessages != 1 {
		t.Errorf("sessions = %+v", ss)
	}
}

// The real logs of the shared corpus all read, with no warning.
func TestCopilotCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpus-projects")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		v, err := fastjson.ParseBytes(first)
		if err != nil || !sniffCopilot("", v) {
			continue
		}
		n++
		s := readOne(t, f)
		checkInvariants(t, s)
		if s.Warnings != 0 || s.MessageCount() == 0 {
			t.Errorf("%s: %d warnings, %d messages", f, s.Warnings, s.MessageCount())
		}
	}
	if n == 0 {
		t.Skip("no Copilot logs in the shared corpus here")
	}
}

func TestCopilotRoots(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string { return vars[k] }}
	}
	if got := copilotRoots(env(nil)); len(got) != 1 || got[0].Path != "/home/u/.copilot/session-state" || got[0].Source != "default" {
		t.Errorf("default roots = %+v", got)
	}
	if got := copilotRoots(env(map[string]string{"COPILOT_HOME": "/ci/cp"})); len(got) != 1 || got[0].Path != "/ci/cp/session-state" || got[0].Source != "COPILOT_HOME" {
		t.Errorf("COPILOT_HOME roots = %+v", got)
	}
}

func FuzzCopilot(f *testing.F) {
	seedFiles(f, "", "testdata/copilot/*.jsonl")
	if data, err := os.ReadFile(copilotFixtureVSCode); err == nil {
		f.Add(data)
	}
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "events.jsonl", data)
	})
}

func BenchmarkCopilot(b *testing.B) { codexBenchRead(b, copilotFixtureCLI) }
