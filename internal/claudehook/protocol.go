package claudehook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
)

// The events lore hooks into.
const (
	SessionStart = "SessionStart"
	SessionEnd   = "SessionEnd"
)

// Input is what Claude Code sends a hook on standard input.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Source         string `json:"source"`
	Reason         string `json:"reason"`
}

// ReadInput reads the hook's input from r, giving up when ctx ends. It
// reads one JSON value, not to the end of input: a caller that keeps
// standard input open after writing it must not make the hook wait out its
// deadline. No input at all is an empty Input.
func ReadInput(ctx context.Context, r io.Reader) (Input, error) {
	type read struct {
		in  Input
		err error
	}
	done := make(chan read, 1)
	go func() {
		var rd read
		rd.err = json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(&rd.in)
		if errors.Is(rd.err, io.EOF) {
			rd.err = nil
		}
		done <- rd
	}()
	select {
	case rd := <-done:
		return rd.in, rd.err
	case <-ctx.Done():
		return Input{}, ctx.Err()
	}
}

// SessionStartOutput is a SessionStart hook's answer.
type SessionStartOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// WriteSessionStart writes a SessionStart hook's answer, handing the new
// session text as its additional context ("" for none).
func WriteSessionStart(w io.Writer, text string) error {
	var out SessionStartOutput
	out.HookSpecificOutput.HookEventName = SessionStart
	out.HookSpecificOutput.AdditionalContext = text
	return json.NewEncoder(w).Encode(out)
}
