package claudehook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadInput(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     Input
		err      bool
	}{
		{"SessionStart", `{"session_id":"5c0375b4","transcript_path":"/x.jsonl","cwd":"/src/api","hook_event_name":"SessionStart","source":"startup"}`,
			Input{SessionID: "5c0375b4", TranscriptPath: "/x.jsonl", Cwd: "/src/api", Source: "startup", HookEventName: SessionStart}, false},
		{"SessionEnd", `{"session_id":"x","transcript_path":"/t.jsonl","cwd":"/tmp","hook_event_name":"SessionEnd","reason":"exit"}`,
			Input{SessionID: "x", TranscriptPath: "/t.jsonl", Cwd: "/tmp", Reason: "exit", HookEventName: SessionEnd}, false},
		{"PreToolUse", `{"session_id":"x","cwd":"/src/api","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_use_id":"toolu_01"}`,
			Input{SessionID: "x", Cwd: "/src/api", HookEventName: PreToolUse, ToolName: "Bash",
				ToolInput: json.RawMessage(`{"command":"go test ./...","description":"Run the tests"}`)}, false},
		{"PostToolUseFailure", `{"session_id":"x","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_02","error":"Exit code 2\nmake: *** No rule to make target","is_interrupt":false}`,
			Input{SessionID: "x", HookEventName: PostToolUseFailure, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"make"}`),
				Error: json.RawMessage(`"Exit code 2\nmake: *** No rule to make target"`)}, false},
		{"nothing", "", Input{}, false},
		{"one value, then more", `{"session_id":"a"} {"session_id":"b"}`, Input{SessionID: "a"}, false},
		{"garbage", "{not json", Input{}, true},
		{"not an object", `["a"]`, Input{}, true},
	} {
		got, err := ReadInput(context.Background(), strings.NewReader(tt.in))
		if !reflect.DeepEqual(got, tt.want) || (err != nil) != tt.err {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

// Input left open after the JSON value does not hold the hook up; input
// that never comes gives up when ctx ends.
func TestReadInputKeptOpen(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"session_id":"5c0375b4"}` + "\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if in, err := ReadInput(ctx, pr); err != nil || in.SessionID != "5c0375b4" {
		t.Errorf("%+v, %v", in, err)
	}

	silent, w := io.Pipe()
	defer w.Close()
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := ReadInput(ctx, silent); err != context.DeadlineExceeded {
		t.Errorf("no input: %v, want the deadline", err)
	}
}

func TestWriteSessionStart(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}` + "\n"},
		{"# Notes\n- use a < b & c", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Notes\n- use a \u003c b \u0026 c"}}` + "\n"},
	} {
		var b bytes.Buffer
		if err := WriteSessionStart(&b, tt.text); err != nil || b.String() != tt.want {
			t.Errorf("%q: %s (%v), want %s", tt.text, b.String(), err, tt.want)
		}
		var out SessionStartOutput
		if err := json.Unmarshal(b.Bytes(), &out); err != nil || out.HookSpecificOutput.AdditionalContext != tt.text {
			t.Errorf("%q does not read back: %+v, %v", tt.text, out, err)
		}
	}
}

func TestFailure(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
		ok             bool
	}{
		{"Bash's non-zero exit", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"Exit code 1\nno"}`, "Exit code 1\nno", true},
		{"an interruption", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"Interrupted","is_interrupt":true}`, "", false},
		{"an error of another shape", `{"hook_event_name":"PostToolUseFailure","tool_name":"X","error":{"message":"boom"}}`, `{"message":"boom"}`, true},
		{"no error", `{"hook_event_name":"PostToolUseFailure","tool_name":"X"}`, "", false},
		{"a call that worked", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"error: x","stderr":"","interrupted":false}}`, "", false},
		{"Gemini CLI's failed call", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"llmContent":"Command: make\nExit Code: 2","returnDisplay":"x","error":{"message":"exit 2","type":"shell_execute_error"}}}`,
			"Command: make\nExit Code: 2", true},
		{"Gemini CLI's error alone", `{"hook_event_name":"AfterTool","tool_name":"read_file","tool_response":{"error":{"message":"File not found"}}}`, "File not found", true},
		{"Gemini CLI's command that exited non-zero", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"llmContent":"Command: make\nDirectory: (root)\nOutput: make: *** No rule\nExit Code: 2","returnDisplay":"Command exited with code: 2"}}`,
			"Command: make\nDirectory: (root)\nOutput: make: *** No rule\nExit Code: 2", true},
		{"Gemini CLI's command that exited 0", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"llmContent":"Command: make\nOutput: ok\nExit Code: 0"}}`, "", false},
		{"Gemini CLI's call that worked", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"llmContent":"ok","returnDisplay":"ok"}}`, "", false},
		{"Gemini CLI's null error", `{"hook_event_name":"AfterTool","tool_response":{"llmContent":"ok","error":null}}`, "", false},
		{"another event", `{"hook_event_name":"PreToolUse","tool_name":"Bash","error":"x"}`, "", false},
	} {
		in, err := ReadInput(context.Background(), strings.NewReader(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := strings.ReplaceAll(tt.want, `\n`, "\n")
		if got, ok := in.Failure(); got != want || ok != tt.ok {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, got, ok, want, tt.ok)
		}
	}
}

func TestWriteContext(t *testing.T) {
	var b bytes.Buffer
	if err := WriteContext(&b, PreToolUse, "- [lore:1a2b3c4d] `make` fails"); err != nil {
		t.Fatal(err)
	}
	var out map[string]map[string]string
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "- [lore:1a2b3c4d] `make` fails"}}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("%s, want %v and nothing else (no permission decision)", b.String(), want)
	}
}
