package claudehook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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
			Input{SessionID: "5c0375b4", TranscriptPath: "/x.jsonl", Cwd: "/src/api", Source: "startup"}, false},
		{"SessionEnd", `{"session_id":"x","transcript_path":"/t.jsonl","cwd":"/tmp","hook_event_name":"SessionEnd","reason":"exit"}`,
			Input{SessionID: "x", TranscriptPath: "/t.jsonl", Cwd: "/tmp", Reason: "exit"}, false},
		{"nothing", "", Input{}, false},
		{"one value, then more", `{"session_id":"a"} {"session_id":"b"}`, Input{SessionID: "a"}, false},
		{"garbage", "{not json", Input{}, true},
		{"not an object", `["a"]`, Input{}, true},
	} {
		got, err := ReadInput(context.Background(), strings.NewReader(tt.in))
		if got != tt.want || (err != nil) != tt.err {
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
