package transcript

import (
	"bytes"
	"fmt"
	"time"

	"github.com/lorehq/lore"
	"github.com/valyala/fastjson"
)

// maxWarningSamples bounds the warning texts kept on a session; the
// count goes on.
const maxWarningSamples = 5

// builder accumulates one session as a reader goes through its transcript.
// It keeps the counters of lore.Session right whatever the reader does:
// each tool call id counts once, each failed tool call once, a streamed
// response once.
type builder struct {
	s    *lore.Session
	keep bool // keep message bodies

	calls  idSet // tool call ids seen
	failed idSet // tool call ids counted as errors
	// keyed maps a response key (Claude Code message id) to the index
	// of its message, so the lines of one streamed response merge.
	keyed map[string]int
}

func newBuilder(agent, path string, opts Options) *builder {
	return &builder{
		s: &lore.Session{
			Agent:   agent,
			Path:    path,
			Outcome: lore.OutcomeUnknown,
		},
		keep: opts.Messages,
	}
}

// setNative sets the agent's own id for the session.
func (b *builder) setNative(id string) {
	if id != "" {
		b.s.NativeID = id
	}
}

// at records that something happened at t, widening the session's span.
func (b *builder) at(t time.Time) {
	if t.IsZero() {
		return
	}
	if b.s.StartedAt.IsZero() || t.Before(b.s.StartedAt) {
		b.s.StartedAt = t
	}
	if t.After(b.s.EndedAt) {
		b.s.EndedAt = t
	}
}

// warn records damaged input at a line (0 when the format has no lines).
func (b *builder) warn(line int, err error) {
	b.s.Warnings++
	if len(b.s.WarningSamples) < maxWarningSamples {
		if line > 0 {
			b.s.WarningSamples = append(b.s.WarningSamples, fmt.Sprintf("line %d: %v", line, err))
		} else {
			b.s.WarningSamples = append(b.s.WarningSamples, err.Error())
		}
	}
}

// add records one message: user and assistant messages count as turns,
// tool and system messages and sub-agent (Sidechain) messages do not; its
// tool calls and results are counted once per id. The message's Index is
// set here.
func (b *builder) add(m lore.Message) {
	switch role := m.Role; {
	case m.Sidechain:
	case role == lore.RoleUser:
		b.s.UserMessages++
	case role == lore.RoleAssistant:
		b.s.AssistantMessages++
	}
	b.count(&m)
	b.at(m.Time)
	if b.keep {
		m.Index = len(b.s.Messages)
		b.s.Messages = append(b.s.Messages, m)
	}
}

// addKeyed records a message that may be one part of a response split
// over several records (Claude Code streams one content block a line): the
// first part with a key counts as a turn, later parts with the same key
// merge into it. An empty key behaves like add.
func (b *builder) addKeyed(key string, m lore.Message) {
	if key == "" {
		b.add(m)
		return
	}
	if b.keyed == nil {
		b.keyed = make(map[string]int)
	}
	i, seen := b.keyed[key]
	if !seen {
		b.keyed[key] = len(b.s.Messages)
		b.add(m)
		return
	}
	b.merge(i, m)
}

// merge adds the content of m, a further part of a streamed response,
// to the kept message at index i, and counts its tool calls.
func (b *builder) merge(i int, m lore.Message) {
	b.count(&m)
	b.at(m.Time)
	if !b.keep || i < 0 || i >= len(b.s.Messages) {
		return
	}
	prev := &b.s.Messages[i]
	prev.Text = joinText(prev.Text, m.Text)
	prev.Thinking = joinText(prev.Thinking, m.Thinking)
	prev.ToolCalls = append(prev.ToolCalls, m.ToolCalls...)
	prev.ToolResults = append(prev.ToolResults, m.ToolResults...)
	if prev.Model == "" {
		prev.Model = m.Model
	}
}

// count registers a message's tool calls and results.
func (b *builder) count(m *lore.Message) {
	kept := m.ToolCalls[:0]
	for _, c := range m.ToolCalls {
		if b.call(c.ID) {
			kept = append(kept, c)
		}
	}
	m.ToolCalls = kept
	for _, r := range m.ToolResults {
		if r.IsError {
			b.fail(r.CallID)
		}
	}
}

// callBytes is call for an id still in the parser's buffer: a known id
// costs no allocation.
func (b *builder) callBytes(id []byte) bool {
	if len(id) > 0 && b.calls.has(id) {
		return false
	}
	return b.call(string(id))
}

// failBytes is fail for an id still in the parser's buffer.
func (b *builder) failBytes(id []byte) {
	if len(id) > 0 && b.failed.has(id) {
		return
	}
	b.fail(string(id))
}

// call registers a tool call id and reports whether it is new. Calls
// without an id are always new.
func (b *builder) call(id string) bool {
	if id != "" && !b.calls.add(id) {
		return false
	}
	b.s.ToolCalls++
	return true
}

// fail counts a failed tool call, once per call id.
func (b *builder) fail(callID string) {
	if callID != "" && !b.failed.add(callID) {
		return
	}
	b.s.ToolErrors++
}

// idWindow bounds how many ids an idSet remembers. A tool call id comes
// back (a second channel, a re-emitted record) close to where it was first
// written, so a window of recent ids is enough, and memory stays flat
// however long the transcript.
const idWindow = 1 << 16

// idSet remembers recent ids, in two generations of at most idWindow.
type idSet struct {
	recent, older map[string]struct{}
}

func (s *idSet) has(id []byte) bool {
	if _, ok := s.recent[string(id)]; ok {
		return true
	}
	_, ok := s.older[string(id)]
	return ok
}

// add adds id and reports whether it was new.
func (s *idSet) add(id string) bool {
	if _, ok := s.recent[id]; ok {
		return false
	}
	if _, ok := s.older[id]; ok {
		return false
	}
	if s.recent == nil || len(s.recent) >= idWindow {
		s.older, s.recent = s.recent, make(map[string]struct{})
	}
	s.recent[id] = struct{}{}
	return true
}

// usage adds the token usage of one response.
func (b *builder) usage(u lore.Usage) { b.s.Usage.Add(u) }

// finish completes the session: its id, and a native id from the file
// name when the transcript named none.
func (b *builder) finish(fallbackID string) *lore.Session {
	if b.s.NativeID == "" {
		b.s.NativeID = fallbackID
	}
	b.s.ID = b.s.Agent + ":" + b.s.NativeID
	return b.s
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// anthropicBlocks adds an assistant's Anthropic content blocks (text,
// thinking, tool_use), as Amp, Droid and Cursor's agent transcripts write them, to m, and reports
// whether it said anything.
func anthropicBlocks(b *builder, blocks []*fastjson.Value, m *lore.Message) (text bool) {
	for _, c := range blocks {
		switch string(c.GetStringBytes("type")) {
		case "text":
			if s := c.GetStringBytes("text"); len(bytes.TrimSpace(s)) > 0 {
				text = true
				if b.keep {
					m.Text = joinText(m.Text, string(s))
				}
			}
		case "thinking":
			if b.keep {
				m.Thinking = joinText(m.Thinking, str(c, "thinking"))
			}
		case "tool_use":
			call := lore.ToolCall{ID: str(c, "id")}
			if b.keep {
				call.Name, call.Input = str(c, "name"), raw(c, "input")
			}
			m.ToolCalls = append(m.ToolCalls, call)
		}
	}
	return text
}
