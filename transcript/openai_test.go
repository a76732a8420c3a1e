package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

func TestOpenAIFixtures(t *testing.T) {
	tests := []struct {
		name string
		path string
		want ohsweWant
	}{
		// call_2 is answered twice (its arguments were invalid JSON, then
		// it was called again with the same id): one call, one error; call_3
		// exits 1. Content null, content parts and an image are read.
		{"array", "chat.json", ohsweWant{id: "openai:chat", user: 2, asst: 3, calls: 3, errors: 2, outcome: lore.OutcomeUnknown}},
		// A request-shaped object with the legacy function_call and a
		// function result carrying an error.
		{"request object", "request.json", ohsweWant{id: "openai:request", user: 1, asst: 2, calls: 1, errors: 1,
			model: "gpt-4o", outcome: lore.OutcomeUnknown}},
		// A line that is not JSON and a truncated last line are warnings.
		{"jsonl", "chat.jsonl", ohsweWant{id: "openai:chat", user: 1, asst: 2, calls: 1,
			usage: lore.Usage{InputTokens: 12, OutputTokens: 3}, outcome: lore.OutcomeUnknown, warnings: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", "openai", tt.path)
			s := readOne(t, path)
			ohsweCheck(t, s, tt.want)
			ohsweSameCounts(t, path, []*lore.Session{s})
		})
	}
}

func TestOpenAIMessages(t *testing.T) {
	s := readOne(t, filepath.Join("testdata", "openai", "chat.json"))
	var roles []string
	for _, m := range s.Messages {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool tool assistant tool tool assistant user" {
		t.Errorf("roles = %s", got)
	}
	if c := s.Messages[2].ToolCalls[1]; c.ID != "call_2" || c.Input != `{"path": "main.go"` {
		t.Errorf("invalid arguments not kept as written: %+v", c)
	}
	// The repeated call_2 is not a second call.
	if n := len(s.Messages[5].ToolCalls); n != 1 || s.Messages[5].ToolCalls[0].ID != "call_3" {
		t.Errorf("message 5 calls = %+v", s.Messages[5].ToolCalls)
	}
	if r := s.Messages[7].ToolResults[0]; !r.IsError || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Errorf("call_3 result = %+v", r)
	}
	if got := s.Messages[9].Text; got != "Thanks, here is a screenshot\n[image_url]" {
		t.Errorf("user text = %q", got)
	}
}

// TestOpenAILeavesOthersAlone: look-alikes written by other agents are
// not read as plain OpenAI lists (their own readers, or none, take them).
func TestOpenAILeavesOthersAlone(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "openai", "not", "*"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("testdata", "openai", "not", "task", "api_conversation_history.json"),
		filepath.Join("testdata", "sweagent", "mini-old", "last_mini_run.traj.json"),
		filepath.Join("testdata", "openhands", "trajectory-finish.json"))
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue
		}
		ss, _ := Read(context.Background(), f, Options{NoGit: true})
		for _, s := range ss {
			if s.Agent == lore.AgentOpenAI {
				t.Errorf("%s read as plain OpenAI messages", f)
			}
		}
	}
	// Hermes' session snapshot holds plain messages, but is no request.
	var p fastjson.Parser
	v, err := p.Parse(`{"session_id":"20260515_201841_a64c801a","model":"gpt-5","messages":[{"role":"user","content":"hi"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if sniffOpenAIDoc("session_20260515_201841_a64c801a.json", v) {
		t.Error("Hermes session snapshot claimed")
	}
}

func TestOpenAIResultError(t *testing.T) {
	var p, q fastjson.Parser
	for content, want := range map[string]bool{
		`"{\"exit_code\": 2, \"output\": \"\"}"`: true,
		`"{\"returncode\": 0}"`:                  false,
		`"{\"error\": \"\"}"`:                    false,
		`"{\"error\": {\"code\": 1}}"`:           true,
		`"Error: not found"`:                     false,
		`"{not json"`:                            false,
		`null`:                                   false,
	} {
		v, err := q.Parse(content)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := openaiResultError(&p, v); got != want {
			t.Errorf("openaiResultError(%s) = %v, want %v", content, got, want)
		}
	}
}

func FuzzOpenAI(f *testing.F) {
	ohsweSeeds(f, "testdata/openai/*.json", "testdata/openai/not/*.json")
	f.Add([]byte(`[{"role":"tool","content":"{\"exit_code\":\"x\"}","tool_call_id":"a"},{"role":"user","content":[]}]`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "chat.json", data)
	})
}

func FuzzOpenAIJSONL(f *testing.F) {
	ohsweSeeds(f, "testdata/openai/*.jsonl", "testdata/openai/not/*.jsonl")
	f.Add([]byte("{\"role\":\"function\",\"content\":null}\n{\"role\":\"assistant\",\"function_call\":{}}\n"))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "chat.jsonl", data)
	})
}
