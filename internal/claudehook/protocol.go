package claudehook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
)

// The events lore hooks into. PostToolUse runs only after a tool call
// that worked; a failed one (a shell command's non-zero exit included)
// runs PostToolUseFailure, whose input holds the error as the agent was
// told it. PostToolUse is named here to tell it from a failure.
const (
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
)

// Gemini CLI's tool events speak the same JSON (session_id, cwd,
// tool_name, tool_input, tool_response; hookSpecificOutput with
// hookEventName and additionalContext), under their own names. BeforeTool
// takes no additional context: its answer can only block the call or
// change its input, which lore never does.
const (
	GeminiBeforeTool = "BeforeTool"
	GeminiAfterTool  = "AfterTool"
)

// Input is what Claude Code sends a hook on standard input.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Source         string `json:"source"`
	Reason         string `json:"reason"`
	HookEventName  string `json:"hook_event_name"`
	// Tool events: the tool's name (Bash, Edit, an MCP tool's
	// mcp__server__tool) and its arguments.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	// ToolResponse is what a tool that worked returned (PostToolUse;
	// Gemini CLI's AfterTool, with llmContent and an error when it failed).
	ToolResponse json.RawMessage `json:"tool_response"`
	// Error is what went wrong (PostToolUseFailure), as the agent was told
	// it: for Bash, "Exit code N" and the command's output. A string; kept
	// raw so that another shape fails only the failure's reading.
	Error json.RawMessage `json:"error"`
	// IsInterrupt is set when the user stopped the call: no error of the
	// environment.
	IsInterrupt bool `json:"is_interrupt"`
}

// Failure is the text of a failed tool call's error, as the agent was
// told it, when in reports one: Claude Code's PostToolUseFailure (not an
// interruption), or Gemini CLI's AfterTool whose response carries an
// error or, for a shell command, a non-zero exit code (its shell tool
// sets error only when the command could not run). ok is false for a
// call that worked or an input of another event.
func (in Input) Failure() (text string, ok bool) {
	switch in.HookEventName {
	case PostToolUseFailure:
		if in.IsInterrupt {
			return "", false
		}
		text = jsonText(in.Error)
	case GeminiAfterTool:
		var resp struct {
			LLMContent json.RawMessage `json:"llmContent"`
			Error      json.RawMessage `json:"error"`
		}
		if json.Unmarshal(in.ToolResponse, &resp) != nil {
			return "", false
		}
		text = jsonText(resp.LLMContent)
		if len(resp.Error) == 0 || isNull(resp.Error) {
			if !geminiExitCode.MatchString(text) {
				return "", false
			}
			return text, true
		}
		var e struct {
			Message string `json:"message"`
		}
		if text == "" && json.Unmarshal(resp.Error, &e) == nil {
			text = e.Message
		}
		if text == "" {
			text = jsonText(resp.Error)
		}
	}
	return text, text != ""
}

// geminiExitCode finds the non-zero exit code Gemini CLI's shell tool
// writes at the end of what it tells the model ("Exit Code: 1").
var geminiExitCode = regexp.MustCompile(`(?m)^Exit Code: [1-9][0-9]*\s*$`)

// jsonText is a JSON string's value, or the JSON as written for another
// value, "" for none or null.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
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

// SessionStartOutput is a SessionStart hook's answer, and any hook's
// that hands the agent context (WriteContext).
type SessionStartOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// WriteSessionStart writes a SessionStart hook's answer, handing the new
// session text as its additional context ("" for none).
func WriteSessionStart(w io.Writer, text string) error { return WriteContext(w, SessionStart, text) }

// WriteContext writes the answer of a hook of event that hands the agent
// text as additional context: SessionStart's, PreToolUse's,
// PostToolUseFailure's, Gemini CLI's AfterTool. It asks for nothing else:
// no permission decision, no block, no change to the call.
func WriteContext(w io.Writer, event, text string) error {
	var out SessionStartOutput
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	return json.NewEncoder(w).Encode(out)
}
