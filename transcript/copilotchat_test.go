package transcript

import (
	"errors"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// Written from VS Code's writer (chatModel.ts toJSON, objectMutationLog.ts):
// no real chat session file was at hand.
const (
	copilotChatFixtureDoc = "testdata/copilot/workspaceStorage/5f2c0de1/chatSessions/4d7a5b1e-0c2f-4e8b-9a61-3f0e2d1c7b55.json"
	copilotChatFixtureLog = "testdata/copilot/workspaceStorage/5f2c0de1/chatSessions/9e3b0a77-5d1c-4f2a-8e4b-6a7c8d9e0f12.jsonl"
)

// Three requests: the first answered in three rounds with a terminal call
// that exited 2 and a file read; the second with an edit whose result is
// an error; the third failed with no answer (errorDetails). Tokens are the
// first request's usage.
func TestCopilotChatDocument(t *testing.T) {
	s := codexReadBoth(t, copilotChatFixtureDoc)
	codexCheck(t, s, codexWant{
		id: "copilot-chat:4d7a5b1e-0c2f-4e8b-9a61-3f0e2d1c7b55", user: 3, asst: 4, tools: 3, errs: 2,
		usage:   lore.Usage{InputTokens: 12000, OutputTokens: 300},
		outcome: lore.OutcomeFailure, model: "claude-sonnet-4",
		repo: "DevBridge-AMD", cwd: "d:/Codes/Personal/DevBridge-AMD",
		start: "2026-05-21T09:00:00Z", end: "2026-05-21T09:05:00Z",
	})
	var cmd, out string
	var code int
	for _, m := range s.Messages {
		for _, c := range m.ToolCalls {
			if c.ID == "tc-1" {
				cmd = c.Input
			}
		}
		for _, r := range m.ToolResults {
			if r.CallID == "tc-1" && r.ExitCode != nil {
				code, out = *r.ExitCode, r.Output
			}
		}
	}
	if cmd != "npm run build" || code != 2 || !strings.Contains(out, "TS2304") {
		t.Errorf("terminal call: %q exit %d output %q", cmd, code, out)
	}
}

// The mutation log: requests pushed, a response cut and replaced, a
// cancel set, a usage deleted; a damaged line and a change to a request
// that is not there are warnings.
func TestCopilotChatLog(t *testing.T) {
	s := codexReadBoth(t, copilotChatFixtureLog)
	codexCheck(t, s, codexWant{
		id: "copilot-chat:9e3b0a77-5d1c-4f2a-8e4b-6a7c8d9e0f12", user: 2, asst: 3, tools: 1, errs: 1,
		usage:   lore.Usage{InputTokens: 500, OutputTokens: 50},
		outcome: lore.OutcomeAborted, model: "gpt-5",
		repo: "DevBridge-AMD", cwd: "d:/Codes/Personal/DevBridge-AMD",
		start: "2026-05-22T09:00:00Z", end: "2026-05-22T09:01:40Z", warnings: 2,
	})
	var texts []string
	for _, m := range s.Messages {
		if m.Role == lore.RoleAssistant && m.Text != "" {
			texts = append(texts, m.Text)
		}
	}
	if got := strings.Join(texts, "|"); got != "Running the tests.TestSum fails.|Stopped." {
		t.Errorf("answers = %q", got)
	}
}

func TestCopilotChatEmpty(t *testing.T) {
	doc := `{"version":3,"requesterUsername":"dev","responderUsername":"GitHub Copilot","sessionId":"e1","creationDate":1779440400000,"requests":[]}`
	if _, err := Read(t.Context(), writeFile(t, "e1.json", doc), Options{NoGit: true}); !errors.Is(err, ErrEmpty) {
		t.Errorf("no requests: err = %v, want an empty session", err)
	}
	log := `{"kind":0,"v":` + doc + "}\n"
	if _, err := Read(t.Context(), writeFile(t, "e1.jsonl", log), Options{NoGit: true}); !errors.Is(err, ErrEmpty) {
		t.Errorf("log with no requests: err = %v, want an empty session", err)
	}
}

func TestCopilotChatRoots(t *testing.T) {
	linux := Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return "/cfg"
		}
		return ""
	}}
	mac := Env{Home: "/Users/u", GOOS: "darwin", Getenv: func(string) string { return "" }}
	want := map[string]bool{
		"/cfg/Code/User/workspaceStorage":                                                      true,
		"/cfg/Code - Insiders/User/globalStorage/emptyWindowChatSessions":                      true,
		"/home/u/.vscode-server/data/User/workspaceStorage":                                    true,
		"/Users/u/Library/Application Support/Code/User/workspaceStorage":                      true,
		"/Users/u/Library/Application Support/VSCodium/User/workspaceStorage":                  true,
		"/Users/u/Library/Application Support/Code/User/globalStorage/emptyWindowChatSessions": true,
	}
	got := map[string]bool{}
	for _, r := range append(copilotChatRoots(linux), copilotChatRoots(mac)...) {
		got[r.Path] = true
		if r.Agent != lore.AgentCopilotChat {
			t.Errorf("root %s for %s", r.Path, r.Agent)
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf("missing root %s", p)
		}
	}
}

func FuzzCopilotChat(f *testing.F) {
	seedFiles(f, "", copilotChatFixtureDoc)
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "4d7a5b1e.json", data)
	})
}

func FuzzCopilotChatLog(f *testing.F) {
	seedFiles(f, "", copilotChatFixtureLog)
	f.Add([]byte(`{"kind":0,"v":{"responderUsername":"x","version":3,"requests":[]}}` + "\n" + `{"kind":2,"k":["requests"],"v":[{"message":"hi"}],"i":-1}` + "\n" + `{"kind":1,"k":[],"v":[]}`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "9e3b0a77.jsonl", data)
	})
}
