package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// The fixtures are written from kimi-cli's code (no real Kimi CLI session
// was at hand): a share folder with kimi.json, a session with its wire,
// context, state and a sub-agent's files, and an older session that has
// only its context.
const (
	kimiShare      = "testdata/kimi-cli/share"
	kimiSessionDir = kimiShare + "/sessions/11e9fe063b91149eb10c6daf331adfaa/3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"
	kimiOldDir     = kimiShare + "/sessions/11e9fe063b91149eb10c6daf331adfaa/9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
)

// Worked by hand from the wire: two user turns (the sub-agent's prompt is
// no turn); eight steps that said or called something (seven in the first
// turn, one in the second); eight calls (Shell:0, StrReplaceFile:1,
// Task:2, Shell:3, Shell:4, Shell:6, Shell:5 and the sub-agent's own
// Shell:0, which is another call), of which the failed replace, the
// sub-agent's failed bats run and the first npm test (bats: not found) are
// errors; tokens once per message id (chatcmpl-4 is reported twice):
// input 5200+800+300+2000+100+600+700+800+400+100, output
// 120+90+60+40+50+40+30+30+150+30, cache read
// 5100+5900+2000+6300+6900+7600+6200+6700, cache write 300; the user
// interrupted the last step.
var kimiWant = codexWant{
	id: "kimi-cli:3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c", user: 2, asst: 8, tools: 8, errs: 3,
	usage:   lore.Usage{InputTokens: 11000, OutputTokens: 640, CacheReadTokens: 46700, CacheWriteTokens: 300},
	outcome: lore.OutcomeAborted, repo: "shop", cwd: "/home/dev/shop",
	start: "2026-01-05T08:00:00Z", end: "2026-01-05T08:01:06Z",
}

// The session folder and its wire.jsonl given alone read the same.
func TestKimiWire(t *testing.T) {
	for _, path := range []string{kimiSessionDir, kimiSessionDir + "/wire.jsonl"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := codexReadBoth(t, path)
			codexCheck(t, s, kimiWant)
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
			if len(calls) != 8 || calls[0].Name != "Shell" || !strings.Contains(calls[0].Input, "cat scripts/deploy.sh") {
				t.Errorf("calls = %+v", calls)
			}
			if len(results) != 7 {
				t.Fatalf("results = %+v", results)
			}
			if r := results[1]; !r.IsError || !strings.Contains(r.Output, "No replacements were made") {
				t.Errorf("replace result = %+v", r)
			}
			if r := results[2]; !r.IsError || r.CallID != "a1b2c3d4/Shell:0" || !strings.Contains(r.Output, "not ok 2 dry-run") {
				t.Errorf("sub-agent result = %+v", r)
			}
			if calls[2].ID != "Task:2" || calls[3].ID != "a1b2c3d4/Shell:0" {
				t.Errorf("the sub-agent's call does not follow the Task call: %+v", calls)
			}
			if side != 4 { // the sub-agent's prompt, two steps, its result
				t.Errorf("sidechain messages = %d, want 4", side)
			}
		})
	}
}

// Scanning the share folder finds the two sessions; the sub-agent's own
// files, which repeat what the wire carries, are not a third.
func TestKimiScan(t *testing.T) {
	res, err := Scan(context.Background(), []string{kimiShare}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 2 || len(res.Problems) != 0 {
		t.Fatalf("sessions %d, problems %v", len(res.Sessions), res.Problems)
	}
	for _, s := range res.Sessions {
		if s.Agent != lore.AgentKimiCLI || s.Cwd != "/home/dev/shop" {
			t.Errorf("%s: agent %s cwd %q", s.ID, s.Agent, s.Cwd)
		}
	}
}

// A session with only its context: the checkpoint marker is no turn, the
// tool message that starts with <system>ERROR: is a failed call, the time
// is the file's.
func TestKimiContext(t *testing.T) {
	data, err := os.ReadFile(kimiOldDir + "/context.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 10, 9, 8, 53, 20, 0, time.UTC)
	for _, name := range []string{"folder", "file"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "context.jsonl")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, at, at); err != nil {
				t.Fatal(err)
			}
			if name == "folder" {
				path = dir
			}
			s := codexReadBoth(t, path)
			codexCheck(t, s, codexWant{
				id: "kimi-cli:9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", user: 1, asst: 2, tools: 1, errs: 1,
				outcome: lore.OutcomeSuccess,
				start:   "2025-10-09T08:53:20Z", end: "2025-10-09T08:53:20Z",
			})
		})
	}
}

// A damaged line is a warning and the rest is read.
func TestKimiDamaged(t *testing.T) {
	data, err := os.ReadFile(kimiSessionDir + "/wire.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Garbage after the header, a line that is JSON but no event, and the
	// last line (StepInterrupted) cut in half.
	body := lines[0] + "{\"timestamp\": 17\n" + `{"foo":1}` + "\n" + strings.Join(lines[1:len(lines)-2], "") + lines[len(lines)-2][:30]
	dir := filepath.Join(t.TempDir(), "3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wire.jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := codexReadBoth(t, dir)
	want := kimiWant
	want.cwd, want.repo = "", "" // no kimi.json here
	want.warnings = 3
	want.outcome = lore.OutcomeUnknown // the call is still pending
	want.end = "2026-01-05T08:01:05Z"
	codexCheck(t, s, want)
}

func TestKimiOutcome(t *testing.T) {
	const head = `{"type":"metadata","protocol_version":"1.10"}
{"timestamp":1767600000,"message":{"type":"TurnBegin","payload":{"user_input":"go"}}}
{"timestamp":1767600001,"message":{"type":"StepBegin","payload":{"n":1}}}
`
	call := `{"timestamp":1767600002,"message":{"type":"ToolCall","payload":{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{}"}}}}` + "\n"
	result := func(isErr string) string {
		return `{"timestamp":1767600003,"message":{"type":"ToolResult","payload":{"tool_call_id":"c1","return_value":{"is_error":` + isErr + `,"output":"","message":"m","display":[]}}}}` + "\n"
	}
	text := `{"timestamp":1767600004,"message":{"type":"ContentPart","payload":{"type":"text","text":"done"}}}` + "\n"
	end := `{"timestamp":1767600005,"message":{"type":"TurnEnd","payload":{}}}` + "\n"
	for _, tc := range []struct {
		name, body string
		want       lore.Outcome
	}{
		{"answer", head + text + end, lore.OutcomeSuccess},
		{"call pending", head + call, lore.OutcomeUnknown},
		{"failed call last", head + call + result("true"), lore.OutcomeFailure},
		{"answer after failure", head + call + result("true") + text + end, lore.OutcomeSuccess},
		{"interrupted", head + call + `{"timestamp":1767600006,"message":{"type":"StepInterrupted","payload":{}}}` + "\n", lore.OutcomeAborted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := codexReadBoth(t, writeFile(t, "wire.jsonl", tc.body))
			if s.Outcome != tc.want {
				t.Errorf("outcome = %s, want %s", s.Outcome, tc.want)
			}
		})
	}
}

// Other files are not Kimi's; a wire with only its header and a context
// with only bookkeeping are empty sessions.
func TestKimiSniff(t *testing.T) {
	var p fastjson.Parser
	for _, line := range []string{
		`{"type":"metadata"}`,
		`{"timestamp":"2026-01-01T00:00:00Z","message":{"type":"x","payload":{}}}`,
		`{"role":"user","content":"hi"}`,
		`{"role":"_usage","token_count":5}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`,
	} {
		v, err := p.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if sniffKimiWire("wire.jsonl", v) || sniffKimiContext("context.jsonl", v) {
			t.Errorf("kimi claims %s", line)
		}
	}
	for name, body := range map[string]string{
		"wire.jsonl":    `{"type":"metadata","protocol_version":"1.10"}` + "\n",
		"context.jsonl": `{"role":"_system_prompt","content":"You are Kimi"}` + "\n" + `{"role":"_checkpoint","id":0}` + "\n",
	} {
		if _, err := Read(context.Background(), writeFile(t, name, body), Options{NoGit: true}); !errors.Is(err, ErrEmpty) {
			t.Errorf("%s: err = %v, want ErrEmpty", name, err)
		}
	}
}

func TestKimiRoots(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: "darwin", Getenv: func(k string) string { return vars[k] }}
	}
	if got := kimiRoots(env(nil)); len(got) != 1 || got[0].Path != "/home/u/.kimi/sessions" || got[0].Source != "default" {
		t.Errorf("default roots = %+v", got)
	}
	if got := kimiRoots(env(map[string]string{"KIMI_SHARE_DIR": "/srv/kimi"})); len(got) != 1 || got[0].Path != "/srv/kimi/sessions" || got[0].Source != "KIMI_SHARE_DIR" {
		t.Errorf("KIMI_SHARE_DIR roots = %+v", got)
	}
}

func FuzzKimiWire(f *testing.F) {
	seedFiles(f, "", kimiSessionDir+"/wire.jsonl")
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "wire.jsonl", data)
	})
}

func FuzzKimiContext(f *testing.F) {
	seedFiles(f, "", kimiOldDir+"/context.jsonl")
	seedFiles(f, "", kimiSessionDir+"/context.jsonl")
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "context.jsonl", data)
	})
}

func BenchmarkKimi(b *testing.B) { codexBenchRead(b, kimiSessionDir+"/wire.jsonl") }

// The fuzzers barely run on a loaded machine; this walks the same ground
// deterministically: every fixture cut at many points and with bytes
// overwritten must read without a panic or a broken session.
func TestQwenKimiCutAndCorrupt(t *testing.T) {
	for _, tc := range []struct{ path, name string }{
		{qwenFixture, "7b1e2c3d.jsonl"},
		{kimiSessionDir + "/wire.jsonl", "wire.jsonl"},
		{kimiOldDir + "/context.jsonl", "context.jsonl"},
		{"testdata/qwen-code/checkpoint-vet.json", "checkpoint-vet.json"},
	} {
		data, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		for cut := 1; cut < len(data); cut += 97 {
			fuzzFile(t, tc.name, data[:cut])
		}
		junk := []byte(`"{}[]:,\` + "\x00\n")
		for i := 3; i < len(data); i += 131 {
			bad := append([]byte(nil), data...)
			bad[i] = junk[i%len(junk)]
			fuzzFile(t, tc.name, bad)
		}
	}
}
