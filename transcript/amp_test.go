package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

const ampFixture = "testdata/amp/T-7f3c9a2e-1b4d-4e8a-9c21-5d6e7f8a9b0c.json"

// The fixture, written from readers of Amp threads and worked by hand:
// two user turns (the other user messages carry only tool results), five
// assistant messages, six tool calls; toolu_01 (Bash, exitCode 1) and
// toolu_03 (run status "error") failed, toolu_05 was refused by the user,
// which is no error; usage per assistant message 10/120/900/11000,
// 5/200/0/12000, 4/150/100/12500, 3/80/0/13000, 2/40/0/13100 (input,
// output, cache write, cache read); the thread ends with an answer.
var ampWant = codexWant{
	id: "amp:T-7f3c9a2e-1b4d-4e8a-9c21-5d6e7f8a9b0c", user: 2, asst: 5, tools: 6, errs: 2,
	usage: lore.Usage{InputTokens: 24, OutputTokens: 590, CacheWriteTokens: 1000,
		CacheReadTokens: 11000 + 12000 + 12500 + 13000 + 13100},
	outcome: lore.OutcomeSuccess, model: "claude-sonnet-4-5-20250929",
	branch: "main", repo: "acme/widget", cwd: "/home/dev/widget",
	start: "2026-01-08T09:50:03.494Z", end: "2026-01-08T09:51:10Z",
}

func TestAmp(t *testing.T) {
	s := codexReadBoth(t, ampFixture)
	codexCheck(t, s, ampWant)

	var roles []string
	results := map[string]lore.ToolResult{}
	calls := map[string]lore.ToolCall{}
	for _, m := range s.Messages {
		roles = append(roles, string(m.Role))
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
		for _, r := range m.ToolResults {
			results[r.CallID] = r
		}
	}
	want := "user assistant tool assistant tool assistant tool user assistant tool system assistant"
	if got := strings.Join(roles, " "); got != want {
		t.Errorf("roles = %s\nwant    %s", got, want)
	}
	if c := calls["toolu_01"]; c.Name != "Bash" || !strings.Contains(c.Input, `"cmd":"go test ./..."`) {
		t.Errorf("toolu_01 = %+v", c)
	}
	if r := results["toolu_01"]; !r.IsError || r.ExitCode == nil || *r.ExitCode != 1 || !strings.HasPrefix(r.Output, "--- FAIL: TestParse") {
		t.Errorf("toolu_01 result = %+v", r)
	}
	if r := results["toolu_03"]; !r.IsError || r.Output != "old_str not found in file" {
		t.Errorf("toolu_03 result = %+v", r)
	}
	if r, ok := results["toolu_05"]; ok || s.Messages[6].Text != "[rejected-by-user] toolu_05: user rejected" {
		t.Errorf("the refused toolu_05 has result %+v, note %q", r, s.Messages[6].Text)
	}
	if r := results["toolu_06"]; r.IsError || r.ExitCode == nil || *r.ExitCode != 0 || !strings.HasPrefix(r.Output, "ok") {
		t.Errorf("toolu_06 result = %+v", r)
	}
	if s.Messages[1].Thinking == "" || s.Messages[10].Text != "[summary] Fixed the expectation in TestParse." {
		t.Errorf("thinking %q, info %q", s.Messages[1].Thinking, s.Messages[10].Text)
	}
}

// ampDoc builds a thread around the given messages.
func ampDoc(msgs ...string) string {
	return `{"v":1,"id":"T-00000000-0000-4000-8000-000000000001","created":1767865803494,"messages":[` + strings.Join(msgs, ",") + `]}`
}

const (
	ampU     = `{"role":"user","content":[{"type":"text","text":"go"}],"meta":{"sentAt":1767865804000}}`
	ampA     = `{"role":"assistant","content":[{"type":"text","text":"done"}],"state":{"type":"complete","stopReason":"end_turn"},"usage":{"model":"m","inputTokens":1,"outputTokens":2}}`
	ampCall  = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"cmd":"make"}}],"state":{"type":"complete","stopReason":"tool_use"}}`
	ampError = `{"role":"user","content":[{"type":"tool_result","toolUseID":"t1","run":{"status":"error","error":{"message":"boom"}}}]}`
	ampStop  = `{"role":"user","content":[{"type":"tool_result","toolUseID":"t1","run":{"status":"cancelled","reason":"user cancelled"}}]}`
	ampCanc  = `{"role":"assistant","content":[{"type":"text","text":"partial"}],"state":{"type":"cancelled"}}`
)

// A message that is no object is a warning, and the rest is read; the
// outcome follows the thread's last message.
func TestAmpDamageAndOutcome(t *testing.T) {
	for _, tc := range []struct {
		name     string
		doc      string
		outcome  lore.Outcome
		warnings int
		errs     int
	}{
		{"answer", ampDoc(ampU, `42`, ampA), lore.OutcomeSuccess, 1, 0},
		{"failed call", ampDoc(ampU, ampCall, ampError), lore.OutcomeFailure, 0, 1},
		{"cancelled call", ampDoc(ampU, ampCall, ampStop), lore.OutcomeAborted, 0, 0},
		{"cancelled answer", ampDoc(ampU, ampCanc), lore.OutcomeAborted, 0, 0},
		{"pending call", ampDoc(ampU, ampCall), lore.OutcomeUnknown, 0, 0},
		{"user last", ampDoc(ampU, ampA, ampU, `{"role":"robot"}`), lore.OutcomeUnknown, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := readOne(t, writeFile(t, "T-x.json", tc.doc))
			checkInvariants(t, s)
			if s.Outcome != tc.outcome || s.Warnings != tc.warnings || s.ToolErrors != tc.errs {
				t.Errorf("outcome %s, warnings %d, errors %d; want %s, %d, %d", s.Outcome, s.Warnings, s.ToolErrors, tc.outcome, tc.warnings, tc.errs)
			}
		})
	}
}

// A thread from before usage moved onto the messages counts its usage
// ledger; one with no messages is an empty session; a truncated thread
// is damaged JSON, not a session.
func TestAmpLedgerEmptyAndTruncated(t *testing.T) {
	doc := strings.TrimSuffix(ampDoc(ampU, `{"role":"assistant","content":[{"type":"text","text":"hi"}]}`), "}") +
		`,"usageLedger":{"events":[{"id":"e1","timestamp":"2026-01-08T09:50:10Z","model":"claude-opus-4-5","tokens":{"input":7,"output":9,"total":16},"toMessageId":1}]}}`
	s := readOne(t, writeFile(t, "T-ledger.json", doc))
	if s.Usage != (lore.Usage{InputTokens: 7, OutputTokens: 9}) || s.Model != "claude-opus-4-5" || s.Outcome != lore.OutcomeSuccess {
		t.Errorf("ledger thread: usage %+v, model %q, outcome %s", s.Usage, s.Model, s.Outcome)
	}
	_, err := Read(context.Background(), writeFile(t, "T-empty.json", ampDoc()), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("empty thread: err = %v, want ErrEmpty", err)
	}
	data, err := os.ReadFile(ampFixture)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Read(context.Background(), writeFile(t, "T-cut.json", string(data[:len(data)/2])), Options{NoGit: true})
	if !errors.Is(err, ErrNotTranscript) {
		t.Errorf("truncated thread: err = %v, want ErrNotTranscript", err)
	}
}

// Only a thread id (T-…) with messages and a thread field is Amp's; the
// same messages under another id go to the formats that read them.
func TestAmpSniff(t *testing.T) {
	other := strings.Replace(ampDoc(ampU, ampA), `"T-`, `"X-`, 1)
	ss, err := Read(context.Background(), writeFile(t, "x.json", other), Options{NoGit: true})
	for _, s := range ss {
		if s.Agent == lore.AgentAmp {
			t.Errorf("a thread without a T- id was read as Amp's (err %v)", err)
		}
	}
}

func TestAmpRoots(t *testing.T) {
	env := map[string]string{}
	e := Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string { return env[k] }}
	roots := ampRoots(e)
	if roots[0].Path != "/home/u/.local/share/amp/threads" || roots[0].Source != "default" {
		t.Errorf("default root = %+v", roots[0])
	}
	if roots[1].Path != "/home/u/.config/Code/User/globalStorage/sourcegraph.amp/threads3" {
		t.Errorf("legacy root = %+v", roots[1])
	}
	env["XDG_DATA_HOME"] = "/data"
	if r := ampRoots(e)[0]; r.Path != "/data/amp/threads" || r.Source != "XDG_DATA_HOME" {
		t.Errorf("XDG root = %+v", r)
	}
	e.GOOS = "darwin"
	if r := ampRoots(e)[1]; r.Path != filepath.Join("/home/u/Library/Application Support/Code/User/globalStorage/sourcegraph.amp/threads3") {
		t.Errorf("macOS legacy root = %+v", r)
	}
}

func FuzzAmp(f *testing.F) {
	if data, err := os.ReadFile(ampFixture); err == nil {
		f.Add(data)
	}
	f.Add([]byte(ampDoc(ampU, ampCall, ampError, ampStop, ampCanc, `null`, `{"role":"info","content":[{"type":"summary","summary":{"type":"thread","thread":"T-1"}}]}`)))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "T-00000000-0000-4000-8000-000000000001.json", data)
	})
}
