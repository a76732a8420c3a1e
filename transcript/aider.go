package transcript

import (
	"bytes"
	"context"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// Aider: .aider.chat.history.md, Markdown appended by aider/io.py
// (FORMATS.md section 4), many sessions a file. Each
// "# aider chat started at YYYY-MM-DD HH:MM:SS" header (local time) starts
// a session; 2023 builds wrote "# Aider chat started at" with tool lines in
// _italics_ or *italics* and user lines "#### > text". The file is read as
// a stream and each session is emitted when the next header starts.
//
// Lines: "#### text  " is user input (one input may span several such
// lines); "> text  " is aider's own output (tool output, warnings,
// errors, confirmations — aider ends all of them and user lines with two
// spaces, which tells them from a "> quote" or "#### heading" in a model's
// answer); every other line belongs to the model's answer (one answer a
// response).
//
// Native id: the header's time as YYYYMMDD-HHMMSS, a hash of the session's
// startup lines (the launch command, version, model, git repo: what tells
// two sessions started in the same second in different repositories apart)
// and, for a second session with the same time and startup in one file, a
// counter. The id does not depend on where the file lies.
//
// Cwd: the folder holding the history file (aider writes it at the git
// root), unless the session prints "Cur working dir: …".
//
// Counting rules:
//   - user turns are inputs sent to the model: text, and /ask, /code,
//     /architect, /help, /context followed by text; other /commands,
//     confirmations and empty inputs are not turns;
//   - assistant turns are the answers;
//   - aider has no machine-readable tool calls; counted as calls are edits
//     applied ("Applied edit to …", one a file), edits that failed ("The LLM
//     did not conform to the edit format."), shell commands aider ran for
//     the model ("Running …") and the user's /run, /test and !commands;
//   - tool errors: aider writes no exit codes, so only explicit markers
//     count: the failed edit, and "Error running command" after a command;
//   - tokens: the sum of the "Tokens: … sent, … cache write, … cache hit,
//     … received" lines, which aider rounds (2.4k, 12k).
//
// Outcome, from the last event after the first input: an answer or an
// applied edit or commit is success; "^C KeyboardInterrupt" is aborted; an
// error (API errors "litellm.…", a failed edit, "Error running command", a
// token limit) is failure; an input with no answer is unknown.

// aiderHistoryName is aider's default --chat-history-file (aider/args.py).
const aiderHistoryName = ".aider.chat.history.md"

// aiderRoots: $AIDER_CHAT_HISTORY_FILE (aider reads every option from an
// AIDER_* variable: configargparse with auto_env_var_prefix="AIDER_" in
// aider/args.py, and aider.chat/docs/config.html), and
// .aider.chat.history.md in the working folder and each parent up to the
// git root, where aider writes it by default.
func aiderRoots(e Env) []Root {
	var out []Root
	if f := e.get("AIDER_CHAT_HISTORY_FILE"); f != "" {
		if !filepath.IsAbs(f) && e.Cwd != "" {
			f = filepath.Join(e.Cwd, f)
		}
		out = append(out, Root{Agent: lore.AgentAider, Path: f, Source: "AIDER_CHAT_HISTORY_FILE"})
	}
	if e.Cwd == "" {
		return out
	}
	dirs := []string{e.Cwd}
	for dir := e.Cwd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break // the git root, already listed
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			dirs = dirs[:1] // in no repository: only the working folder
			break
		}
		dir = parent
		dirs = append(dirs, dir)
	}
	for _, d := range dirs {
		out = append(out, Root{Agent: lore.AgentAider, Path: filepath.Join(d, aiderHistoryName), Source: "default"})
	}
	return out
}

var (
	aiderHeaderRe = regexp.MustCompile(`^# ([Aa])ider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$`)
	aiderHeaderA  = []byte("# aider chat started at ")
	aiderHeaderB  = []byte("# Aider chat started at ")
)

// aiderSniff claims a file whose first line is a session header, or a
// file named like a chat history with a header in its first bytes.
func aiderSniff(name string, head []byte) bool {
	rest := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	if bytes.HasPrefix(rest, aiderHeaderA) || bytes.HasPrefix(rest, aiderHeaderB) {
		return true
	}
	return strings.HasSuffix(name, "aider.chat.history.md") &&
		(bytes.Contains(head, append([]byte("\n"), aiderHeaderA...)) || bytes.Contains(head, append([]byte("\n"), aiderHeaderB...)))
}

func aiderRead(ctx context.Context, in *input, emit emitFunc) error {
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	dir := filepath.Dir(in.path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	r := &aiderReader{in: in, dir: dir, seen: map[string]int{}}
	lr := newLineReader(rc)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if lr.n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if lr.skipped {
			if r.cur != nil {
				r.cur.b.warn(lr.n, errLineTooLong)
			}
			continue
		}
		if len(line) > 2 && line[0] == '#' && line[1] == ' ' {
			if m := aiderHeaderRe.FindSubmatch(line); m != nil {
				if r.cur != nil {
					emit(r.cur.finish(r))
				}
				r.cur = r.start(string(m[2]), m[1][0] == 'A')
				continue
			}
		}
		if r.cur != nil {
			r.cur.line(line)
		}
	}
	if r.cur == nil {
		return notTranscript("no \"# aider chat started at\" header")
	}
	emit(r.cur.finish(r))
	return nil
}

type aiderReader struct {
	in  *input
	dir string
	// seen counts sessions by time and startup hash, for the counter of
	// a repeated one.
	seen map[string]int
	cur  *aiderSession
}

func (r *aiderReader) start(stamp string, old bool) *aiderSession {
	s := &aiderSession{b: r.in.builder(lore.AgentAider), old: old, stamp: stamp, startup: fnv.New32a()}
	if t, err := time.ParseInLocation("2006-01-02 15:04:05", stamp, time.Local); err == nil {
		s.b.at(t)
	}
	return s
}

type aiderBlock int

const (
	aiderNone aiderBlock = iota
	aiderUser
	aiderAnswer
	aiderTool
)

type aiderEnd int

const (
	aiderEndNone aiderEnd = iota
	aiderEndPending
	aiderEndAnswer
	aiderEndFailed
	aiderEndAborted
)

type aiderInput int

const (
	aiderPrompt  aiderInput = iota // sent to the model: a turn
	aiderCommand                   // a /command, confirmation or empty input
	aiderRun                       // /run, /test, !cmd: a tool call
)

type aiderSession struct {
	b     *builder
	old   bool // the 2023 dialect
	stamp string
	cwd   string
	model string

	// startup hashes the tool lines printed before the first input or
	// answer; startupDone is set when one arrives.
	startup     hash.Hash32
	startupN    int
	startupDone bool

	block aiderBlock
	// the input being read: its kind and, kept, its lines
	input     aiderInput
	inputText []string
	// answer and tool are the answer and aider's output after it, held
	// back until the next input or answer so that the calls the output
	// reports land on the answer.
	answer   *lore.Message
	tool     *lore.Message
	text     []string // lines of the block being read, kept
	calls    int
	lastRun  string // id of the last command run, for "Error running command"
	prompted bool
	end      aiderEnd
}

// line handles one line of the session after its header.
func (s *aiderSession) line(line []byte) {
	switch kind, content := s.classify(line); kind {
	case aiderNone: // blank
		switch s.block {
		case aiderUser:
			s.endInput()
		case aiderAnswer:
			if s.b.keep {
				s.text = append(s.text, "")
			}
		case aiderTool:
			s.block = aiderNone
		}
	case aiderUser:
		if s.block != aiderUser {
			s.closeBlock()
			s.flush()
			s.startupDone = true
			s.block = aiderUser
			s.input = s.inputKind(content)
		}
		if s.b.keep || s.input == aiderRun {
			s.inputText = append(s.inputText, string(content))
		}
	case aiderTool:
		if s.block == aiderUser {
			s.endInput()
		}
		if s.block == aiderAnswer {
			s.closeBlock()
		}
		s.block = aiderTool
		s.toolLine(content)
	case aiderAnswer:
		if s.block != aiderAnswer {
			s.closeBlock()
			s.flush()
			s.startupDone = true
			s.block = aiderAnswer
			s.answer = &lore.Message{Role: lore.RoleAssistant}
			s.end = aiderEndAnswer
		}
		if s.b.keep {
			s.text = append(s.text, string(content))
		}
	}
}

var (
	aiderUserPrefix = []byte("####")
	aiderTwoSpaces  = []byte("  ")
)

// classify tells what a line is and returns its content without aider's
// markup.
func (s *aiderSession) classify(line []byte) (aiderBlock, []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return aiderNone, nil
	}
	marked := bytes.HasSuffix(line, aiderTwoSpaces)
	if marked && bytes.HasPrefix(line, aiderUserPrefix) && (len(line) == 4 || line[4] == ' ') {
		c := bytes.TrimSpace(line[4:])
		if s.old {
			c = bytes.TrimSpace(bytes.TrimPrefix(c, []byte(">")))
		}
		return aiderUser, c
	}
	if marked && line[0] == '>' && (len(line) == 1 || line[1] == ' ') {
		return aiderTool, bytes.TrimSpace(line[1:])
	}
	if s.old {
		t := bytes.TrimSpace(line)
		if string(t) == "---" {
			return aiderNone, nil
		}
		if marked && len(t) >= 2 && (t[0] == '_' || t[0] == '*') && t[len(t)-1] == t[0] {
			return aiderTool, bytes.TrimSpace(t[1 : len(t)-1])
		}
	}
	return aiderAnswer, line
}

// inputKind decides from an input's first line whether it is a turn.
func (s *aiderSession) inputKind(first []byte) aiderInput {
	switch {
	case len(first) == 0, string(first) == "<blank>", bytes.Contains(first, []byte("(Y)es/(N)o")):
		return aiderCommand
	case first[0] == '!':
		return aiderRun
	case first[0] != '/':
		return aiderPrompt
	}
	cmd, rest, _ := bytes.Cut(first, []byte(" "))
	switch strings.ToLower(string(cmd)) {
	case "/run", "/test":
		return aiderRun
	case "/ask", "/code", "/architect", "/help", "/context":
		if len(bytes.TrimSpace(rest)) > 0 {
			return aiderPrompt
		}
	}
	return aiderCommand
}

// endInput records the input just read.
func (s *aiderSession) endInput() {
	m := lore.Message{Role: lore.RoleUser}
	if s.b.keep {
		m.Text = strings.Join(s.inputText, "\n")
	}
	switch s.input {
	case aiderPrompt:
		s.prompted = true
		s.end = aiderEndPending
	case aiderCommand:
		m.Role = lore.RoleSystem
	case aiderRun:
		m.Role = lore.RoleSystem
		cmd := strings.Join(s.inputText, "\n")
		cmd = strings.TrimPrefix(cmd, "!")
		if c, rest, ok := strings.Cut(cmd, " "); ok && strings.HasPrefix(c, "/") {
			cmd = rest
		} else if strings.HasPrefix(c, "/") {
			cmd = ""
		}
		m.ToolCalls = []lore.ToolCall{s.call("run", cmd)}
		s.lastRun = m.ToolCalls[0].ID
		s.prompted = true
	}
	s.b.add(m)
	s.inputText = s.inputText[:0]
	s.block = aiderNone
}

// closeBlock ends an answer being read (its text is complete).
func (s *aiderSession) closeBlock() {
	switch s.block {
	case aiderUser:
		s.endInput()
	case aiderAnswer:
		if s.b.keep && s.answer != nil {
			s.answer.Text = strings.TrimSpace(strings.Join(s.text, "\n"))
		}
		s.text = s.text[:0]
	}
	s.block = aiderNone
}

// flush records the held-back answer and aider's output after it.
func (s *aiderSession) flush() {
	if s.answer != nil {
		s.b.add(*s.answer)
		s.answer = nil
	}
	if s.tool != nil {
		s.b.add(*s.tool)
		s.tool = nil
	}
}

func (s *aiderSession) call(name, input string) lore.ToolCall {
	s.calls++
	c := lore.ToolCall{ID: "t" + strconv.Itoa(s.calls)}
	if s.b.keep {
		c.Name, c.Input = name, input
	}
	return c
}

// toolMessage returns aider's output message being built.
func (s *aiderSession) toolMessage() *lore.Message {
	if s.tool == nil {
		s.tool = &lore.Message{Role: lore.RoleTool}
	}
	return s.tool
}

// addCall puts a call on the answer it follows, or on aider's output
// when there is none (a command the user ran).
func (s *aiderSession) addCall(c lore.ToolCall) {
	if s.answer != nil {
		s.answer.ToolCalls = append(s.answer.ToolCalls, c)
		return
	}
	t := s.toolMessage()
	t.ToolCalls = append(t.ToolCalls, c)
}

var aiderErrorPrefixes = []string{
	"litellm.", "The LLM did not conform to the edit format", "Error running command",
	"The API provider", "Unable to ",
}

// toolLine handles one line of aider's output.
func (s *aiderSession) toolLine(c []byte) {
	if s.b.keep {
		t := s.toolMessage()
		t.Text = joinText(t.Text, string(c))
	}
	line := string(c) // short lines; the prefixes below need a string
	if !s.startupDone && len(c) > 0 && c[0] != '^' && s.startupN < 8 {
		s.startup.Write(c)
		s.startup.Write([]byte{'\n'})
		s.startupN++
	}
	switch {
	case strings.HasPrefix(line, "Tokens: "):
		s.b.usage(aiderTokens(line[len("Tokens: "):]))
	case strings.HasPrefix(line, "Model: "), strings.HasPrefix(line, "Main model: "), strings.HasPrefix(line, "Models: "):
		_, m, _ := strings.Cut(line, ": ")
		if i := strings.Index(m, " with "); i >= 0 {
			m = m[:i]
		}
		if i := strings.Index(m, " using "); i >= 0 {
			m = m[:i]
		}
		if m = strings.TrimSpace(m); m != "" {
			s.model = m
		}
	case strings.HasPrefix(line, "Cur working dir: "):
		s.cwd = strings.TrimSpace(line[len("Cur working dir: "):])
	case strings.HasPrefix(line, "Applied edit to "):
		s.addCall(s.call("edit", strings.TrimSpace(line[len("Applied edit to "):])))
		if s.prompted {
			s.end = aiderEndAnswer
		}
	case strings.HasPrefix(line, "Commit "):
		if s.prompted {
			s.end = aiderEndAnswer
		}
	case strings.HasPrefix(line, "Running "):
		c := s.call("shell", strings.TrimSpace(line[len("Running "):]))
		s.addCall(c)
		s.lastRun = c.ID
	case line == "^C KeyboardInterrupt":
		s.end = aiderEndAborted
	}
	if strings.HasPrefix(line, "The LLM did not conform to the edit format") {
		c := s.call("edit", "")
		s.addCall(c)
		t := s.toolMessage()
		t.ToolResults = append(t.ToolResults, lore.ToolResult{CallID: c.ID, IsError: true})
	}
	if strings.HasPrefix(line, "Error running command") && s.lastRun != "" {
		t := s.toolMessage()
		t.ToolResults = append(t.ToolResults, lore.ToolResult{CallID: s.lastRun, IsError: true})
	}
	if s.prompted && aiderIsError(line) {
		s.end = aiderEndFailed
	}
}

func aiderIsError(line string) bool {
	for _, p := range aiderErrorPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return strings.Contains(line, "has hit a token limit") || strings.Contains(line, "reflections allowed, stopping")
}

// aiderTokens reads "2.4k sent, 2.1k cache write, 8.0k cache hit, 104
// received. Cost: …".
func aiderTokens(s string) lore.Usage {
	if i := strings.Index(s, ". Cost"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	var u lore.Usage
	for _, part := range strings.Split(s, ", ") {
		numText, label, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			continue
		}
		n := aiderNumber(numText)
		switch strings.TrimSpace(label) {
		case "sent":
			u.InputTokens += n
		case "received":
			u.OutputTokens += n
		case "cache write":
			u.CacheWriteTokens += n
		case "cache hit":
			u.CacheReadTokens += n
		}
	}
	return u
}

// aiderNumber reads aider's rounded counts: 104, 2.4k, 12k, 1.2M.
func aiderNumber(s string) int64 {
	s = strings.ReplaceAll(s, ",", "")
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0
	}
	return int64(f*mult + 0.5)
}

// finish ends the session at the next header or the end of the file.
func (s *aiderSession) finish(r *aiderReader) *lore.Session {
	s.closeBlock()
	s.flush()
	b := s.b
	b.s.Model = s.model
	b.s.Cwd = r.dir
	if s.cwd != "" {
		b.s.Cwd = s.cwd
	}
	switch s.end {
	case aiderEndAnswer:
		if s.prompted {
			b.s.Outcome = lore.OutcomeSuccess
		}
	case aiderEndFailed:
		b.s.Outcome = lore.OutcomeFailure
	case aiderEndAborted:
		b.s.Outcome = lore.OutcomeAborted
	}
	stamp := strings.NewReplacer("-", "", ":", "", " ", "-").Replace(s.stamp)
	id := fmt.Sprintf("%s-%06x", stamp, s.startup.Sum32()&0xffffff)
	r.seen[id]++
	if n := r.seen[id]; n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	b.setNative(id)
	return b.finish(id)
}
