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

const droidFixture = "testdata/droid/-home-dev-api/3b2f6c1e-8d4a-4f1b-9e2c-7a5d6b8c9e0f.jsonl"

// The fixture, written from readers of Droid sessions and worked by hand:
// one user turn (m1, its reminder block before the user's words); m9 is
// only a <system-reminder>, not a turn; five assistant messages (m12 is
// written twice and counts once); five tool calls; toolu_a1 ("Error:
// Command failed (exit code: 2)") and toolu_a3 (is_error) failed; one
// truncated line (m6); tokens from the settings file, thinking counted as
// output.
var droidWant = codexWant{
	id: "droid:3b2f6c1e-8d4a-4f1b-9e2c-7a5d6b8c9e0f", user: 1, asst: 5, tools: 5, errs: 2,
	usage:   lore.Usage{InputTokens: 1200, OutputTokens: 800 + 150, CacheWriteTokens: 3000, CacheReadTokens: 45000},
	outcome: lore.OutcomeSuccess, model: "claude-sonnet-4-5-20250929", cwd: "/home/dev/api", repo: "api",
	start: "2026-02-03T10:00:00Z", end: "2026-02-03T10:05:00Z", warnings: 1,
}

func TestDroid(t *testing.T) {
	s := codexReadBoth(t, droidFixture)
	codexCheck(t, s, droidWant)

	var roles []string
	results := map[string]lore.ToolResult{}
	var execute lore.ToolCall
	for _, m := range s.Messages {
		roles = append(roles, string(m.Role))
		for _, c := range m.ToolCalls {
			if c.ID == "toolu_a1" {
				execute = c
			}
		}
		for _, r := range m.ToolResults {
			results[r.CallID] = r
		}
	}
	want := "user assistant tool assistant tool assistant tool system assistant tool assistant"
	if got := strings.Join(roles, " "); got != want {
		t.Errorf("roles = %s\nwant    %s", got, want)
	}
	if execute.Name != "Execute" || !strings.Contains(execute.Input, `"command":"make build"`) {
		t.Errorf("toolu_a1 = %+v", execute)
	}
	if r := results["toolu_a1"]; !r.IsError || r.ExitCode == nil || *r.ExitCode != 2 || !strings.Contains(r.Output, "undefined: foo") {
		t.Errorf("toolu_a1 result = %+v", r)
	}
	if r := results["toolu_a2"]; r.IsError || !strings.HasPrefix(r.Output, "package main") {
		t.Errorf("toolu_a2 result = %+v", r)
	}
	if r := results["toolu_a3"]; !r.IsError || r.ExitCode != nil {
		t.Errorf("toolu_a3 result = %+v", r)
	}
	if !strings.HasSuffix(s.Messages[0].Text, "The build fails, fix it.") || s.Messages[1].Thinking == "" {
		t.Errorf("first messages: %q, thinking %q", s.Messages[0].Text, s.Messages[1].Thinking)
	}
}

// droidLines builds a session from its lines after session_start.
func droidLines(lines ...string) string {
	return `{"type":"session_start","id":"s1","title":"t","cwd":"/tmp/p"}` + "\n" + strings.Join(lines, "\n") + "\n"
}

const (
	droidU    = `{"type":"message","id":"u1","timestamp":"2026-02-03T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"go"}]}}`
	droidCall = `{"type":"message","id":"a1","timestamp":"2026-02-03T10:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Execute","input":{"command":"make"}}]}}`
	droidFail = `{"type":"message","id":"r1","timestamp":"2026-02-03T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":true,"content":"Error: boom"}]}}`
	droidOK   = `{"type":"message","id":"r1","timestamp":"2026-02-03T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"Error: Command failed (exit code: 0)"}]}}`
)

// Without a settings file the session has no model and no tokens; the
// outcome follows the last message; garbage lines are warnings.
func TestDroidOutcomeAndDamage(t *testing.T) {
	for _, tc := range []struct {
		name          string
		data          string
		outcome       lore.Outcome
		errs, warning int
	}{
		{"failed last", droidLines(droidU, droidCall, droidFail), lore.OutcomeFailure, 1, 0},
		{"results last", droidLines(droidU, droidCall, droidOK), lore.OutcomeUnknown, 0, 0},
		{"call pending", droidLines(droidU, "\x00\x00garbage", droidCall), lore.OutcomeUnknown, 0, 1},
		{"user last", droidLines(droidCall, droidFail, droidU, `{"type":"message","id":"x","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>r</system-reminder>"}]}}`), lore.OutcomeUnknown, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := readOne(t, writeFile(t, "p/s1.jsonl", tc.data))
			checkInvariants(t, s)
			if s.Outcome != tc.outcome || s.ToolErrors != tc.errs || s.Warnings != tc.warning {
				t.Errorf("outcome %s, errors %d, warnings %d; want %s, %d, %d", s.Outcome, s.ToolErrors, s.Warnings, tc.outcome, tc.errs, tc.warning)
			}
			if s.Model != "" || s.Usage != (lore.Usage{}) || s.Cwd != "/tmp/p" || s.NativeID != "s1" {
				t.Errorf("model %q, usage %+v, cwd %q, id %q", s.Model, s.Usage, s.Cwd, s.NativeID)
			}
		})
	}
}

// A session that only started is empty; a damaged settings file is a
// warning; a truncated last line is a warning and the rest is read.
func TestDroidEmptySettingsTruncated(t *testing.T) {
	_, err := Read(context.Background(), writeFile(t, "s.jsonl", droidLines()), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("started-only session: err = %v, want ErrEmpty", err)
	}
	path := writeFile(t, "p/s2.jsonl", droidLines(droidU, droidCall, droidFail[:40]))
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "s2.settings.json"), []byte(`{"model":`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := readOne(t, path)
	if s.Warnings != 2 || s.ToolCalls != 1 || s.UserMessages != 1 || s.AssistantMessages != 1 || s.Outcome != lore.OutcomeUnknown {
		t.Errorf("warnings %d (%v), calls %d, turns %d/%d, outcome %s", s.Warnings, s.WarningSamples, s.ToolCalls, s.UserMessages, s.AssistantMessages, s.Outcome)
	}
}

// A file whose first line is not session_start is not Droid's.
func TestDroidSniff(t *testing.T) {
	ss, _ := Read(context.Background(), writeFile(t, "x.jsonl", droidU+"\n"+droidCall+"\n"), Options{NoGit: true})
	for _, s := range ss {
		if s.Agent == lore.AgentDroid {
			t.Errorf("a file without session_start was read as Droid's")
		}
	}
	if r := droidRoots(Env{Home: "/home/u"}); len(r) != 1 || r[0].Path != "/home/u/.factory/sessions" {
		t.Errorf("roots = %+v", r)
	}
}

func FuzzDroid(f *testing.F) {
	if data, err := os.ReadFile(droidFixture); err == nil {
		f.Add(data)
	}
	f.Add([]byte(droidLines(droidU, droidCall, droidFail, droidOK)))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "3b2f6c1e-8d4a-4f1b-9e2c-7a5d6b8c9e0f.jsonl", data)
	})
}
