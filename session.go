package lore

import (
	"time"

	"github.com/lorehq/lore/internal/redact"
)

// Agent names, as they appear in session ids ("claude-code:1af7fc5e-…").
const (
	AgentClaudeCode   = "claude-code"
	AgentCodex        = "codex"
	AgentGeminiCLI    = "gemini-cli"
	AgentAider        = "aider"
	AgentOpenHands    = "openhands"
	AgentSWEAgent     = "swe-agent"
	AgentMiniSWEAgent = "mini-swe-agent"
	AgentCline        = "cline"
	AgentRooCode      = "roo-code"
	AgentGoose        = "goose"
	AgentHermes       = "hermes"
	AgentOpenCode     = "opencode"
	AgentCopilotCLI   = "copilot-cli"
	AgentCopilotChat  = "copilot-chat" // VS Code's Copilot Chat
	AgentCursor       = "cursor"
	AgentAmp          = "amp"
	AgentQwenCode     = "qwen-code"
	AgentKimiCLI      = "kimi-cli"
	AgentCrush        = "crush"
	AgentKiloCode     = "kilo-code"
	AgentDroid        = "droid"
	AgentOpenAI       = "openai"
)

// Agents lists every agent name lore knows, in a stable order.
var Agents = []string{
	AgentClaudeCode, AgentCodex, AgentGeminiCLI, AgentAider, AgentOpenHands,
	AgentSWEAgent, AgentMiniSWEAgent, AgentCline, AgentRooCode, AgentGoose,
	AgentHermes, AgentOpenCode, AgentCopilotCLI, AgentCopilotChat, AgentCursor,
	AgentAmp, AgentQwenCode, AgentKimiCLI, AgentCrush, AgentKiloCode, AgentDroid,
	AgentOpenAI,
}

// Outcome is how a session ended, as far as its transcript tells.
type Outcome string

const (
	OutcomeUnknown Outcome = "unknown"
	OutcomeSuccess Outcome = "success"
	OutcomeFailure Outcome = "failure"
	OutcomeAborted Outcome = "aborted"
)

// Role is who produced a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
	// RoleTool marks a message that only carries tool results.
	RoleTool Role = "tool"
)

// Session is one agent session, normalised from any transcript format.
//
// The counters are always filled. Messages is filled only when a reader is
// asked to keep message bodies; listing thousands of sessions does not need
// them and must not hold them in memory.
type Session struct {
	// ID is "AGENT:NATIVE_ID", stable across reads of the same session.
	ID       string
	Agent    string
	NativeID string
	// Path is the file or directory the session was read from.
	Path string
	// Size is how many bytes of transcript the session was read from; when
	// one session is found in several files, the one holding most wins.
	Size int64

	Repo   string // owner/name from the git remote, else the cwd's base name
	Cwd    string
	Branch string
	Model  string

	StartedAt time.Time // zero when unknown
	EndedAt   time.Time // zero when unknown

	Outcome Outcome

	// Messages counts user and assistant turns (a streamed response once,
	// tool results not at all).
	UserMessages      int
	AssistantMessages int
	ToolCalls         int // distinct tool call ids, sidechains included
	ToolErrors        int // tool calls whose result the agent marked as failed, each once
	Usage             Usage

	// Warnings counts damaged input (lines that could not be read); the
	// first few are kept in WarningSamples with their line numbers.
	Warnings       int
	WarningSamples []string

	Messages []Message
}

// MessageCount is the number of user and assistant turns.
func (s *Session) MessageCount() int { return s.UserMessages + s.AssistantMessages }

// LastActive is when the session was last seen active: its end, else its
// start; zero when the transcript gives neither. A --since filter keeps
// the sessions active on or after its day, so that a long session that
// began the day before still counts.
func (s *Session) LastActive() time.Time {
	if !s.EndedAt.IsZero() {
		return s.EndedAt
	}
	return s.StartedAt
}

// FirstActive is when the session was first seen active: its start, else
// its end; zero when the transcript gives neither. Measuring places a
// session at its start, where a context lore gave it would have been built.
func (s *Session) FirstActive() time.Time {
	if !s.StartedAt.IsZero() {
		return s.StartedAt
	}
	return s.EndedAt
}

// Usage is token usage, each model response counted once. The four
// counts do not overlap: InputTokens is the input neither read from nor
// written to the prompt cache (as Anthropic reports it), so their sum is
// everything the model was sent. Readers of APIs that report a prompt
// total including the cache (OpenAI, Gemini) subtract the cached part.
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CacheReadTokens += u2.CacheReadTokens
	u.CacheWriteTokens += u2.CacheWriteTokens
}

// Message is one turn of a session.
type Message struct {
	// Index is the message's position in the session, counted from 0; it
	// is what knowledge evidence cites.
	Index int
	Role  Role
	Time  time.Time // zero when the format has no per-message time
	Text  string
	// Thinking is reasoning text the model exposed, if any.
	Thinking    string
	ToolCalls   []ToolCall
	ToolResults []ToolResult
	// Sidechain marks messages of a sub-agent folded into this session.
	Sidechain bool
	Model     string
}

// ToolCall is a request by the model to run a tool.
type ToolCall struct {
	ID   string
	Name string
	// Input is the call's arguments, usually JSON text.
	Input string
}

// ToolResult is the answer to a tool call.
type ToolResult struct {
	CallID string
	Output string
	// IsError is set when the agent itself marked the result as failed.
	IsError bool
	// ExitCode is the process exit code, when the format records one.
	ExitCode *int
}

// Failed reports whether the call failed: the agent marked its result as
// failed, or the process it ran exited with a code other than 0.
func (r ToolResult) Failed() bool {
	return r.IsError || r.ExitCode != nil && *r.ExitCode != 0
}

// Redact replaces the secrets in everything shown of a session: its
// messages, the samples of its damaged lines (which quote them), and the
// path, folder and branch it names, in which a token can be too.
func (s *Session) Redact() {
	r := redact.New()
	s.Path, s.Cwd, s.Branch = r.String(s.Path), r.String(s.Cwd), r.String(s.Branch)
	for i, w := range s.WarningSamples {
		s.WarningSamples[i] = r.String(w)
	}
	for i := range s.Messages {
		m := &s.Messages[i]
		m.Text = r.String(m.Text)
		m.Thinking = r.String(m.Thinking)
		for j := range m.ToolCalls {
			m.ToolCalls[j].Input = r.String(m.ToolCalls[j].Input)
		}
		for j := range m.ToolResults {
			m.ToolResults[j].Output = r.String(m.ToolResults[j].Output)
		}
	}
}
