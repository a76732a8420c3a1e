package harvest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/shellcmd"
)

// How much of a session a model reads. A model learns from what happened
// and what went wrong, not from whole files and logs: tool output keeps
// its first and last lines and, when the call failed, its error lines.
const (
	maxCallInput   = 300  // a tool call's command or arguments
	maxToolOutput  = 600  // a tool result's first and last lines
	maxErrorLines  = 600  // a failed result's error lines, on top
	maxMessageText = 3000 // a user, assistant or system message
	maxOutputLine  = 200  // one line of tool output
	maxTextLine    = 1000 // one line (a paragraph) of a message
	maxSideLine    = 160  // a sub-agent's message, which gets one line
	headTailLines  = 4    // lines kept from each end of a trimmed text
)

// condensed is a session as a model reads it: a header and a block of
// numbered lines per message that says something.
type condensed struct {
	header string
	blocks []block
	// redactions counts the secrets taken out of header and blocks.
	redactions int
}

// block is one message: lines that start with "[#<index>] ", each
// further line of a text indented, so that nothing in a message can pass
// for another message.
type block struct {
	index int
	text  string
}

// condense renders s for a model. Every part is redacted before it is
// trimmed, so that a cut never leaves part of a secret behind, and each
// block once more as it is sent.
func condense(s *lore.Session, r *redact.Redactor) condensed {
	c := condenser{r: r}
	var out condensed
	var head []string
	for _, kv := range [][2]string{{"agent", s.Agent}, {"repo", s.Repo}, {"cwd", s.Cwd}, {"branch", s.Branch}} {
		if kv[1] != "" {
			head = append(head, kv[0]+" "+kv[1])
		}
	}
	out.header = "Session."
	if len(head) > 0 {
		out.header = c.redact("Session: " + strings.Join(head, ", ") + ".")
	}
	for _, m := range s.Messages {
		// Trimming joins lines and words; what it joins is redacted again.
		if text := c.redact(c.message(m)); text != "" {
			out.blocks = append(out.blocks, block{index: m.Index, text: text})
		}
	}
	out.redactions = c.redactions
	return out
}

type condenser struct {
	r          *redact.Redactor
	redactions int
}

// message renders one message, or "" when it says nothing a model can
// use. Thinking is left out: it is the model's, not what happened.
func (c *condenser) message(m lore.Message) string {
	if m.Sidechain {
		return c.sidechain(m)
	}
	prefix := fmt.Sprintf("[#%d] ", m.Index)
	var lines []string
	if text := c.clean(m.Text); strings.TrimSpace(text) != "" {
		lines = append(lines, prefix+string(m.Role)+": "+indent(trimLines(text, maxMessageText, maxTextLine, true)))
	}
	for _, tc := range m.ToolCalls {
		lines = append(lines, prefix+"tool call "+tc.Name+": "+clip(c.clean(callInput(tc)), maxCallInput))
	}
	for _, tr := range m.ToolResults {
		failed := tr.Failed()
		label := "tool result: "
		if failed {
			label = "tool result (error): "
		}
		out := trimLines(c.clean(tr.Output), maxToolOutput, maxOutputLine, failed)
		if out == "" {
			out = "(no output)"
		}
		lines = append(lines, prefix+label+indent(out))
	}
	return strings.Join(lines, "\n")
}

// sidechain renders a sub-agent's message as one line: the session's own
// messages say what came of it.
func (c *condenser) sidechain(m lore.Message) string {
	var what string
	switch {
	case strings.TrimSpace(m.Text) != "":
		what = string(m.Role) + ": " + firstLine(c.clean(m.Text))
	case len(m.ToolCalls) > 0:
		what = "tool call " + m.ToolCalls[0].Name + ": " + c.clean(callInput(m.ToolCalls[0]))
	case len(m.ToolResults) > 0:
		tr := m.ToolResults[0]
		what = "tool result: "
		if tr.Failed() {
			what = "tool result (error): "
		}
		what += firstLine(c.clean(tr.Output))
	default:
		return ""
	}
	return fmt.Sprintf("[#%d] sidechain %s", m.Index, clip(what, maxSideLine))
}

// clean drops what a model cannot read (invalid UTF-8, terminal escapes,
// progress lines overwritten with \r, base64 blobs), then redacts, so
// that the redactor sees the text as it will be sent.
func (c *condenser) clean(s string) string {
	if s == "" {
		return ""
	}
	s = ansiEscape().ReplaceAllString(strings.ToValidUTF8(s, "\uFFFD"), "")
	if strings.Contains(s, "\r") {
		lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
		for i, l := range lines {
			l = strings.TrimRight(l, "\r")
			lines[i] = l[strings.LastIndexByte(l, '\r')+1:]
		}
		s = strings.Join(lines, "\n")
	}
	s = base64Blob().ReplaceAllStringFunc(s, func(b string) string {
		if !strings.ContainsAny(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || !strings.ContainsAny(b, "abcdefghijklmnopqrstuvwxyz") ||
			!strings.ContainsAny(b, "0123456789") {
			return b // a run of one letter, a long word: not data
		}
		return fmt.Sprintf("[base64, %d bytes]", len(b))
	})
	return c.redact(s)
}

// redact redacts s, counting what it finds.
func (c *condenser) redact(s string) string {
	s, n := c.r.Count(s)
	for _, k := range n {
		c.redactions += k
	}
	return s
}

var (
	ansiEscape = lazyRegexp(`\x1b\[[0-9;?]*[ -/]*[@-~]`)
	base64Blob = lazyRegexp(`[A-Za-z0-9+/]{200,}={0,2}`)
)

// callInput is what a tool call asks for: the command of a shell tool,
// else its arguments as name=value.
func callInput(tc lore.ToolCall) string {
	if cmd := shellcmd.FromCall(tc.Name, tc.Input); cmd != "" {
		return cmd
	}
	in := strings.TrimSpace(tc.Input)
	dec := json.NewDecoder(strings.NewReader(in))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return in
	}
	var args []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return in
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return in
		}
		var v string
		if json.Unmarshal(raw, &v) != nil {
			v = string(raw)
		}
		args = append(args, fmt.Sprintf("%v=%s", k, v))
	}
	return strings.Join(args, " ")
}

// errorLine matches the lines of output that say what went wrong:
// compiler and linter positions, exceptions, failing tests, HTTP
// statuses, missing commands and files.
var errorLine = lazyRegexp(`(?i:\b(errors?|fatal|panic|traceback|exception|failed|failure|denied|refused|cannot|can't|unable to|not found|no such file|no matches found|undefined|timed out|segmentation fault)\b)` +
	`|\bFAIL\b|\w(Error|Exception)\b|command not found|(?i:\bHTTP(/[\d.]+)? [45]\d\d\b|\bstatus( code)?[ :=]+[45]\d\d\b)` +
	`|^\s*[\w./-]+\.\w+:\d+(:\d+)?:`)

// trimLines shortens text longer than limit bytes to its first and last
// lines, each clipped to lineLimit, and, when errs is set, the error lines
// from anywhere in it (up to maxErrorLines bytes more). Left-out lines
// are counted in their place.
func trimLines(text string, limit, lineLimit int, errs bool) string {
	text = strings.TrimSpace(text)
	if len(text) <= limit {
		return text
	}
	lines := strings.Split(text, "\n")
	if len(lines) <= 2 {
		// Room for the clip mark and the new line.
		lineLimit = max(lineLimit, limit/len(lines)-len("…\n"))
	}
	keep := make([]bool, len(lines))
	take := func(i int, budget *int) bool {
		if keep[i] {
			return true
		}
		l := clip(lines[i], lineLimit)
		if len(l)+1 > *budget {
			return false
		}
		lines[i], keep[i] = l, true
		*budget -= len(l) + 1
		return true
	}
	if errs {
		budget := maxErrorLines
		for i, l := range lines {
			if errorLine().MatchString(l) && !take(i, &budget) {
				break
			}
		}
	}
	budget := limit
	for k := 0; k < headTailLines && k < len(lines); k++ {
		if !take(k, &budget) || !take(len(lines)-1-k, &budget) {
			break
		}
	}
	var b strings.Builder
	left := 0
	for i, l := range lines {
		if !keep[i] {
			left++
			continue
		}
		if left > 0 {
			fmt.Fprintf(&b, "… %d lines left out …\n", left)
			left = 0
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if left > 0 {
		fmt.Fprintf(&b, "… %d lines left out …\n", left)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// indent indents every line of s after the first, and leaves out blank
// lines.
func indent(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		switch {
		case i == 0:
			b.WriteString(l)
		case strings.TrimSpace(l) != "":
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}
