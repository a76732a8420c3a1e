package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"sort"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Hermes agent (NousResearch/hermes-agent), FORMATS.md sections 10 and
// 10b. One message model (OpenAI chat completions) in four forms:
//   - sessions/<session_id>.jsonl: one message a line, written by Python's
//     json.dumps (", " and ": " separators), timestamps naive local ISO or
//     epoch numbers; newer files start with a {"role":"session_meta",…}
//     line;
//   - sessions/session_<session_id>.json: a snapshot rewritten each turn;
//   - state.db (SQLite, any schema version; columns are read from PRAGMA
//     table_info): one session per sessions row, its messages from the
//     messages table;
//   - trajectory_samples.jsonl / failed_trajectories.jsonl (batch runs):
//     ShareGPT records, one trajectory a line, each its own session.
//
// The first three name a session hermes:<session_id>, so one found in
// several places is listed once, from the copy holding most of it.
//
// Counting rules:
//   - user turns are user messages with content; assistant turns are
//     assistant messages, one per model response, with or without text;
//     the "[CONTEXT COMPACTION …]" message compaction inserts is not a turn
//     whatever its role; system and tool messages are not turns;
//   - tool calls are the ids of assistant tool_calls, each once;
//   - a tool error is a tool message whose content is a JSON object with a
//     non-zero exit_code or an "error" that is not null, false or empty,
//     each call once (trajectories: the same test on each <tool_response>);
//   - tokens come from the state.db sessions row (input, output, cache
//     read, cache write); the JSON forms carry none.
//
// Outcome: an assistant answer with no tool call pending is success
// (failure when its finish_reason is length, content_filter or error); a
// failed tool result nobody answered is failure; a session that stopped
// with a user message, a tool call or a result waiting for the model is
// aborted when state.db says it ended (ended_at or end_reason set, except
// a compression split, whose work goes on in its child session), else
// unknown. A trajectory's "completed" flag decides its outcome.

// hermesRoots: $HERMES_HOME, else ~/.hermes (hermes_constants.py
// get_hermes_home; FORMATS.md section 10): its sessions/ folder and
// state.db.
func hermesRoots(e Env) []Root {
	home, src := e.get("HERMES_HOME"), "HERMES_HOME"
	if home == "" {
		home, src = e.home(".hermes"), "default"
	}
	return []Root{
		{Agent: lore.AgentHermes, Path: filepath.Join(home, "sessions"), Source: src},
		{Agent: lore.AgentHermes, Path: filepath.Join(home, "state.db"), Source: src},
	}
}

// hermesSniffLine claims a JSON-lines file whose first line is a Hermes
// session_meta line or a chat message stamped with a "timestamp": plain
// OpenAI message lists have no timestamp, Goose lines have "created",
// Claude Code lines a "type".
func hermesSniffLine(_ string, v *fastjson.Value) bool {
	switch string(v.GetStringBytes("role")) {
	case "session_meta":
		return true
	case "user", "assistant", "tool", "system":
	default:
		return false
	}
	if has(v, "created") || has(v, "type") || has(v, "uuid") || has(v, "sessionId") {
		return false
	}
	ts := v.Get("timestamp")
	return ts != nil && (ts.Type() == fastjson.TypeString || ts.Type() == fastjson.TypeNumber)
}

// hermesSniffSnapshot claims a session_<id>.json snapshot.
func hermesSniffSnapshot(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject || len(doc.GetStringBytes("session_id")) == 0 {
		return false
	}
	if m := doc.Get("messages"); m == nil || m.Type() != fastjson.TypeArray {
		return false
	}
	return has(doc, "session_start") || has(doc, "last_updated") || has(doc, "system_prompt") ||
		has(doc, "base_url") || has(doc, "platform")
}

// hermesSniffTrajectory claims a batch-run trajectory file: ShareGPT
// "conversations" with the "completed" flag Hermes adds (generic ShareGPT
// data sets lack it).
func hermesSniffTrajectory(_ string, v *fastjson.Value) bool {
	convs := v.GetArray("conversations")
	if len(convs) == 0 || !has(v, "completed") {
		return false
	}
	return len(convs[0].GetStringBytes("from")) > 0 && has(convs[0], "value")
}

type hermesEnd int

const (
	hermesEndNone    hermesEnd = iota
	hermesEndPending           // a user message, tool call or result awaits the model
	hermesEndAnswer
	hermesEndFailed // a failed tool result, or a response cut off
)

// hermesSession accumulates one Hermes session from any of its forms.
type hermesSession struct {
	b     *builder
	p     fastjson.Parser // tool contents and tool_calls, apart from the document's parser
	model string
	end   hermesEnd
	// ended is set when state.db says the session was closed.
	ended bool
}

func hermesNew(in *input) *hermesSession {
	return &hermesSession{b: in.builder(lore.AgentHermes)}
}

// hermesMsg is one message of any form. content is the message content;
// in count-only reads of state.db it is only what the counting rules look
// at (see hermesContentSQL).
type hermesMsg struct {
	role      string
	content   []byte
	toolCalls []byte // JSON text of tool_calls (state.db)
	calls     *fastjson.Value
	callID    string
	finish    []byte
	thinking  string
	t         time.Time
}

var hermesCompaction = []byte("[CONTEXT COMPACTION")

// add applies the counting rules to one message.
func (h *hermesSession) add(m *hermesMsg) {
	keep := h.b.keep
	head := bytes.TrimLeft(m.content, " \t\r\n")
	var text string
	if keep {
		text = string(m.content)
	}
	if bytes.HasPrefix(head, hermesCompaction) {
		h.b.add(lore.Message{Role: lore.RoleSystem, Time: m.t, Text: text})
		return
	}
	switch m.role {
	case "user":
		if len(head) == 0 {
			h.b.add(lore.Message{Role: lore.RoleSystem, Time: m.t})
			return
		}
		h.b.add(lore.Message{Role: lore.RoleUser, Time: m.t, Text: text})
		h.end = hermesEndPending
	case "assistant":
		msg := lore.Message{Role: lore.RoleAssistant, Time: m.t, Text: text, Thinking: m.thinking, Model: h.keptModel()}
		msg.ToolCalls = h.toolCalls(m)
		h.b.add(msg)
		switch f := string(m.finish); {
		case len(msg.ToolCalls) > 0:
			h.end = hermesEndPending
		case f == "length" || f == "content_filter" || f == "error":
			h.end = hermesEndFailed
		case len(head) > 0:
			h.end = hermesEndAnswer
		}
	case "tool":
		isErr, exit := hermesToolError(&h.p, m.content)
		res := lore.ToolResult{CallID: m.callID, IsError: isErr, ExitCode: exit}
		if keep {
			res.Output = text
		}
		h.b.add(lore.Message{Role: lore.RoleTool, Time: m.t, ToolResults: []lore.ToolResult{res}})
		if isErr {
			h.end = hermesEndFailed
		} else {
			h.end = hermesEndPending
		}
	default:
		if keep {
			h.b.add(lore.Message{Role: lore.RoleSystem, Time: m.t, Text: text})
		} else {
			h.b.at(m.t)
		}
	}
}

func (h *hermesSession) keptModel() string {
	if h.b.keep {
		return h.model
	}
	return ""
}

// toolCalls lists the calls of an assistant message: [{id, call_id,
// type:"function", function{name, arguments}}].
func (h *hermesSession) toolCalls(m *hermesMsg) []lore.ToolCall {
	arr := m.calls
	if arr == nil && len(m.toolCalls) > 0 {
		v, err := h.p.ParseBytes(m.toolCalls)
		if err != nil {
			h.b.warn(0, fmt.Errorf("tool_calls of a message: %v", jsonDamage(m.toolCalls)))
			return nil
		}
		arr = v
	}
	if arr == nil || arr.Type() != fastjson.TypeArray {
		return nil
	}
	var out []lore.ToolCall
	for _, c := range arr.GetArray() {
		id := str(c, "id")
		if id == "" {
			id = str(c, "call_id")
		}
		tc := lore.ToolCall{ID: id}
		if h.b.keep {
			tc.Name = str(c, "function", "name")
			tc.Input = raw(c, "function", "arguments")
		}
		out = append(out, tc)
	}
	return out
}

var (
	hermesExitKey  = []byte(`"exit_code"`)
	hermesErrorKey = []byte(`"error"`)
)

// hermesToolError applies the tool error rule to a tool message's
// content. Content that names neither key is not parsed; state.db's
// count-only query applies the same test in SQL (hermesContentSQL), so
// both reads count alike.
func hermesToolError(p *fastjson.Parser, content []byte) (bool, *int) {
	if !bytes.Contains(content, hermesExitKey) && !bytes.Contains(content, hermesErrorKey) {
		return false, nil
	}
	v, err := p.ParseBytes(content)
	if err != nil {
		return false, nil
	}
	return hermesErrorValue(v)
}

// hermesErrorValue reports whether a tool result object says it failed.
func hermesErrorValue(v *fastjson.Value) (bool, *int) {
	if v == nil || v.Type() != fastjson.TypeObject {
		return false, nil
	}
	exit := optInt(v, "exit_code")
	if exit != nil && *exit != 0 {
		return true, exit
	}
	e := v.Get("error")
	if e == nil {
		return false, exit
	}
	switch e.Type() {
	case fastjson.TypeNull, fastjson.TypeFalse:
		return false, exit
	case fastjson.TypeString:
		return len(bytes.TrimSpace(e.GetStringBytes())) > 0, exit
	case fastjson.TypeObject:
		return e.GetObject().Len() > 0, exit
	case fastjson.TypeArray:
		return len(e.GetArray()) > 0, exit
	}
	return true, exit
}

// finish sets the outcome and the id.
func (h *hermesSession) finish(native, fallback string) *lore.Session {
	s := h.b.s
	s.Model = h.model
	switch h.end {
	case hermesEndAnswer:
		s.Outcome = lore.OutcomeSuccess
	case hermesEndFailed:
		s.Outcome = lore.OutcomeFailure
	case hermesEndPending:
		if h.ended {
			s.Outcome = lore.OutcomeAborted
		}
	}
	h.b.setNative(native)
	return h.b.finish(fallback)
}

// hermesRole maps a role to a constant string without allocating.
func hermesRole(b []byte) string {
	switch string(b) {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "tool":
		return "tool"
	case "system":
		return "system"
	}
	return "other"
}

// hermesTime reads a timestamp written as naive local ISO text or as epoch
// seconds.
func hermesTime(v *fastjson.Value) time.Time {
	if v == nil {
		return time.Time{}
	}
	switch v.Type() {
	case fastjson.TypeString:
		return parseTime(string(v.GetStringBytes()))
	case fastjson.TypeNumber:
		return sqlitedbEpoch(v.GetFloat64())
	}
	return time.Time{}
}

// hermesFromJSON reads a message of the JSON forms. Its byte slices point
// into v.
func hermesFromJSON(v *fastjson.Value, keep bool) hermesMsg {
	m := hermesMsg{
		role:   hermesRole(v.GetStringBytes("role")),
		callID: str(v, "tool_call_id"),
		finish: v.GetStringBytes("finish_reason"),
		t:      hermesTime(v.Get("timestamp")),
	}
	if c := v.Get("content"); c != nil {
		if c.Type() == fastjson.TypeString {
			m.content = c.GetStringBytes()
		} else {
			m.content = []byte(contentText(c))
		}
	}
	if tc := v.Get("tool_calls"); tc != nil && tc.Type() == fastjson.TypeArray {
		m.calls = tc
	}
	if keep {
		m.thinking = str(v, "reasoning")
		if m.thinking == "" {
			m.thinking = str(v, "reasoning_content")
		}
	}
	return m
}

func hermesReadLines(ctx context.Context, in *input, emit emitFunc) error {
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	h := hermesNew(in)
	var native string
	msgs := 0
	err = eachJSONLine(ctx, rc, in.parser(), h.b.warn, func(_ int, v *fastjson.Value) error {
		if v.Type() != fastjson.TypeObject {
			return nil
		}
		if is(v, "session_meta", "role") {
			if m := str(v, "model"); m != "" {
				h.model = m
			}
			if id := str(v, "session_id"); id != "" && native == "" {
				native = id
			}
			h.b.at(hermesTime(v.Get("timestamp")))
			return nil
		}
		msgs++
		m := hermesFromJSON(v, h.b.keep)
		h.add(&m)
		return nil
	})
	if err != nil {
		return err
	}
	if msgs == 0 && h.b.s.Warnings == 0 {
		return notTranscript("a Hermes session file with no messages")
	}
	emit(h.finish(native, baseID(in.path)))
	return nil
}

func hermesReadSnapshot(_ context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	h := hermesNew(in)
	h.model = str(doc, "model")
	h.b.at(hermesTime(doc.Get("session_start")))
	h.b.at(hermesTime(doc.Get("last_updated")))
	for _, v := range doc.GetArray("messages") {
		if v.Type() != fastjson.TypeObject {
			continue
		}
		m := hermesFromJSON(v, h.b.keep)
		h.add(&m)
	}
	emit(h.finish(str(doc, "session_id"), baseID(in.path)))
	return nil
}

// hermesReadTrajectories reads a ShareGPT trajectory file, one session a
// line. A session is emitted when the next is read, so that damage found
// after the last one still lands on a session.
func hermesReadTrajectories(ctx context.Context, in *input, emit emitFunc) error {
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	var (
		prev    *lore.Session
		pending []string // warnings waiting for a session
		damaged int
		inner   fastjson.Parser
		inner2  fastjson.Parser
	)
	warn := func(line int, err error) {
		damaged++
		if len(pending) < maxWarningSamples {
			pending = append(pending, fmt.Sprintf("line %d: %v", line, err))
		}
	}
	attach := func(s *lore.Session) {
		s.Warnings += damaged
		for _, w := range pending {
			if len(s.WarningSamples) < maxWarningSamples {
				s.WarningSamples = append(s.WarningSamples, w)
			}
		}
		damaged, pending = 0, nil
	}
	err = eachJSONLine(ctx, rc, in.parser(), warn, func(_ int, v *fastjson.Value) error {
		convs := v.GetArray("conversations")
		if len(convs) == 0 {
			return nil
		}
		s := hermesTrajectory(in, v, convs, &inner, &inner2)
		attach(s)
		if prev != nil {
			emit(prev)
		}
		prev = s
		return nil
	})
	if err != nil {
		return err
	}
	if prev == nil {
		return notTranscript("a trajectory file with no readable trajectory")
	}
	attach(prev)
	emit(prev)
	return nil
}

var (
	hermesToolCallOpen  = []byte("<tool_call>")
	hermesToolRespOpen  = []byte("<tool_response>")
	hermesToolRespClose = []byte("</tool_response>")
)

// hermesTrajectory reads one ShareGPT trajectory. It has no session id, so
// its id is a hash of its time and turns: the same trajectory in
// trajectory_samples.jsonl and a copy elsewhere is one session.
func hermesTrajectory(in *input, v *fastjson.Value, convs []*fastjson.Value, p, p2 *fastjson.Parser) *lore.Session {
	b := in.builder(lore.AgentHermes)
	keep := b.keep
	hash := fnv.New64a()
	ts := v.GetStringBytes("timestamp")
	hash.Write(ts)
	t := hermesTime(v.Get("timestamp"))
	b.at(t)
	var queue []string // call ids waiting for a response, in order
	calls := 0
	for _, c := range convs {
		from, val := c.GetStringBytes("from"), c.GetStringBytes("value")
		hash.Write(from)
		hash.Write([]byte{0})
		hash.Write(val)
		hash.Write([]byte{0})
		var text string
		if keep {
			text = string(val)
		}
		switch string(from) {
		case "human":
			b.add(lore.Message{Role: lore.RoleUser, Text: text})
		case "gpt":
			m := lore.Message{Role: lore.RoleAssistant, Text: text}
			for rest := val; ; {
				i := bytes.Index(rest, hermesToolCallOpen)
				if i < 0 {
					break
				}
				rest = rest[i+len(hermesToolCallOpen):]
				calls++
				id := fmt.Sprintf("tc%d", calls)
				queue = append(queue, id)
				m.ToolCalls = append(m.ToolCalls, lore.ToolCall{ID: id})
			}
			b.add(m)
		case "tool":
			m := lore.Message{Role: lore.RoleTool, Text: text}
			for rest := val; ; {
				i := bytes.Index(rest, hermesToolRespOpen)
				if i < 0 {
					break
				}
				rest = rest[i+len(hermesToolRespOpen):]
				body := rest
				if j := bytes.Index(rest, hermesToolRespClose); j >= 0 {
					body, rest = rest[:j], rest[j+len(hermesToolRespClose):]
				}
				var id string
				if len(queue) > 0 {
					id, queue = queue[0], queue[1:]
				}
				isErr, exit := hermesTrajectoryError(p, p2, bytes.TrimSpace(body))
				m.ToolResults = append(m.ToolResults, lore.ToolResult{CallID: id, IsError: isErr, ExitCode: exit})
			}
			b.add(m)
		default:
			if keep {
				b.add(lore.Message{Role: lore.RoleSystem, Text: text})
			}
		}
	}
	s := b.s
	s.Model = str(v, "model")
	if x := v.Get("completed"); x != nil {
		switch x.Type() {
		case fastjson.TypeTrue:
			s.Outcome = lore.OutcomeSuccess
		case fastjson.TypeFalse:
			s.Outcome = lore.OutcomeFailure
		}
	}
	return b.finish(fmt.Sprintf("trajectory-%016x", hash.Sum64()))
}

// hermesTrajectoryError applies the tool error rule to one
// <tool_response> body: {"tool_call_id", "name", "content"} where content
// is the result object or its JSON text.
func hermesTrajectoryError(p, p2 *fastjson.Parser, body []byte) (bool, *int) {
	if !bytes.Contains(body, []byte("exit_code")) && !bytes.Contains(body, []byte("error")) {
		return false, nil
	}
	v, err := p.ParseBytes(body)
	if err != nil || v.Type() != fastjson.TypeObject {
		return false, nil
	}
	if c := v.Get("content"); c != nil {
		switch c.Type() {
		case fastjson.TypeObject:
			return hermesErrorValue(c)
		case fastjson.TypeString:
			if inner, err := p2.ParseBytes(c.GetStringBytes()); err == nil {
				return hermesErrorValue(inner)
			}
			return false, nil
		}
	}
	return hermesErrorValue(v)
}

// state.db

func hermesDBHint(head []byte) bool {
	return bytes.Contains(head, []byte("end_reason")) && bytes.Contains(head, []byte("tool_call_count"))
}

func hermesDBMatch(s sqlitedbSchema) bool {
	return s.has("sessions", "id", "started_at") && s.has("messages", "session_id", "role", "content") &&
		(s["sessions"]["source"] || s["messages"]["tool_calls"])
}

// hermesContentSQL selects the content column. A count-only read needs no
// message bodies: for tool messages it fetches the content only when it
// names a key the tool error rule looks for (what hermesToolError tests
// first), for the others the first bytes after leading white space (what
// add tests). The rules then run on the same Go code as a full read.
const hermesContentSQL = `CASE WHEN role = 'tool' THEN
	CASE WHEN instr(content, '"exit_code"') > 0 OR instr(content, '"error"') > 0 THEN content END
	ELSE substr(ltrim(content, ' ' || char(9, 10, 13)), 1, 64) END`

// hermesDBQuery is what hermesReadDB selects from each table.
type hermesDBQuery struct {
	sessionCols, messageCols string
	byTime                   bool // messages are ordered by timestamp, then id
}

func hermesQuery(s sqlitedbSchema, keep bool) hermesDBQuery {
	content, reasoning := hermesContentSQL, "NULL"
	if keep {
		content = "content"
		if s["messages"]["reasoning"] {
			reasoning = `"reasoning"`
		} else {
			reasoning = s.col("messages", "reasoning_content")
		}
	}
	return hermesDBQuery{
		sessionCols: fmt.Sprintf(`id, %s, started_at, %s, %s, %s, %s, %s, %s`,
			s.col("sessions", "model"), s.col("sessions", "ended_at"), s.col("sessions", "end_reason"),
			s.col("sessions", "input_tokens"), s.col("sessions", "output_tokens"),
			s.col("sessions", "cache_read_tokens"), s.col("sessions", "cache_write_tokens")),
		messageCols: fmt.Sprintf(`session_id, role, %s, %s, %s, %s, %s, %s, length(CAST(content AS BLOB))`,
			content, s.col("messages", "tool_calls"), s.col("messages", "tool_call_id"),
			s.col("messages", "timestamp"), s.col("messages", "finish_reason"), reasoning),
		byTime: s["messages"]["timestamp"],
	}
}

// hermesRow is one sessions row, as hermesQuery selects it.
type hermesRow struct {
	id                                   string
	model, started, ended, reason        any
	inTok, outTok, cacheRead, cacheWrite any
}

func (r *hermesRow) scan(rows *sql.Rows, rowid ...any) error {
	var id any
	err := rows.Scan(append(rowid, &id, &r.model, &r.started, &r.ended, &r.reason, &r.inTok, &r.outTok, &r.cacheRead, &r.cacheWrite)...)
	r.id = sqlitedbText(id)
	return err
}

// session starts the session of the row.
func (r *hermesRow) session(in *input) *hermesSession {
	h := hermesNew(in)
	h.b.s.Size = 0
	h.model = sqlitedbText(r.model)
	h.b.at(sqlitedbTime(r.started, time.Local))
	end := sqlitedbTime(r.ended, time.Local)
	h.b.at(end)
	why := sqlitedbText(r.reason)
	h.ended = (!end.IsZero() || why != "") && why != "compression"
	h.b.usage(lore.Usage{
		InputTokens:      sqlitedbInt(r.inTok),
		OutputTokens:     sqlitedbInt(r.outTok),
		CacheReadTokens:  sqlitedbInt(r.cacheRead),
		CacheWriteTokens: sqlitedbInt(r.cacheWrite),
	})
	return h
}

// hermesMsgRow is one messages row, as hermesQuery selects it. The byte
// fields are the driver's until the next row unless copied.
type hermesMsgRow struct {
	sid, role, content, calls, callID, finish, reason sql.RawBytes
	t                                                 any
	size                                              sql.NullInt64
}

func (m *hermesMsgRow) scan(rows *sql.Rows, rowid ...any) error {
	return rows.Scan(append(rowid, &m.sid, &m.role, &m.content, &m.calls, &m.callID, &m.t, &m.finish, &m.reason, &m.size)...)
}

// own copies the row's bytes, for a row kept past the next.
func (m *hermesMsgRow) own() {
	for _, b := range []*sql.RawBytes{&m.sid, &m.role, &m.content, &m.calls, &m.callID, &m.finish, &m.reason} {
		if *b != nil {
			*b = append(sql.RawBytes{}, *b...)
		}
	}
}

// addTo adds the message to its session.
func (m *hermesMsgRow) addTo(h *hermesSession) {
	msg := hermesMsg{
		role:      hermesRole(m.role),
		content:   m.content,
		toolCalls: m.calls,
		callID:    string(m.callID),
		finish:    m.finish,
		t:         sqlitedbTime(m.t, time.Local),
	}
	if h.b.keep {
		msg.thinking = string(m.reason)
	}
	h.add(&msg)
	h.b.s.Size += m.size.Int64
}

// hermesReadDB reads state.db in two ordered scans, sessions and messages
// side by side. A damaged database fails such a scan at the first bad
// page; it is then read again row by row around the damage
// (hermesReadDBAround), so that a bad page costs the sessions on it, not
// the listing.
func hermesReadDB(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	return sqlitedbReadOrAround(ctx, in, d, emit, hermesReadDBInOrder, hermesReadDBAround)
}

func hermesReadDBInOrder(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	q := hermesQuery(d.schema, in.opts.Messages)
	order := "id"
	if q.byTime {
		order = `"timestamp", id`
	}
	srows, err := d.query(ctx, `SELECT `+q.sessionCols+` FROM sessions ORDER BY id`)
	if err != nil {
		return err
	}
	defer srows.Close()
	mrows, err := d.query(ctx, `SELECT `+q.messageCols+` FROM messages ORDER BY session_id, `+order)
	if err != nil {
		return err
	}
	defer mrows.Close()

	var m hermesMsgRow
	nextMsg := func() bool {
		if !mrows.Next() {
			return false
		}
		if err := m.scan(mrows); err != nil {
			m.sid = nil
		}
		return true
	}
	haveMsg := nextMsg()
	for srows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var r hermesRow
		if err := r.scan(srows); err != nil {
			return sqlitedbError(err)
		}
		h := r.session(in)
		for haveMsg && string(m.sid) < r.id {
			haveMsg = nextMsg() // a message of no session
		}
		for haveMsg && string(m.sid) == r.id {
			m.addTo(h)
			haveMsg = nextMsg()
		}
		if r.id == "" {
			continue // a row without an id names no session
		}
		emit(h.finish(r.id, r.id))
	}
	if err := srows.Err(); err != nil {
		return sqlitedbError(err)
	}
	return sqlitedbError(mrows.Err())
}

// hermesReadDBAround reads a damaged state.db by rowid, passing over the
// rows it cannot read, and sorts what it read as hermesReadDBInOrder's
// scans would have. Sessions whose rows were lost are not listed; the
// error says how much was lost.
func hermesReadDBAround(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	q := hermesQuery(d.schema, in.opts.Messages)
	var rows []hermesRow
	lostSessions, err := d.eachRowAround(ctx, "sessions", q.sessionCols, func(rs *sql.Rows) (int64, error) {
		var (
			rowid int64
			r     hermesRow
		)
		if err := r.scan(rs, &rowid); err != nil {
			return rowid, nil // a row that does not scan names no session
		}
		rows = append(rows, r)
		return rowid, nil
	})
	if err != nil {
		return err
	}
	type keptMsg struct {
		hermesMsgRow
		rowid int64
	}
	msgs := map[string][]keptMsg{}
	lostMessages, err := d.eachRowAround(ctx, "messages", q.messageCols, func(rs *sql.Rows) (int64, error) {
		var m keptMsg
		if err := m.scan(rs, &m.rowid); err != nil {
			return m.rowid, nil
		}
		m.own()
		msgs[string(m.sid)] = append(msgs[string(m.sid)], m)
		return m.rowid, nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	listed := 0
	for i := range rows {
		r := &rows[i]
		if r.id == "" {
			continue
		}
		listed++
		ms := msgs[r.id]
		sort.SliceStable(ms, func(i, j int) bool {
			if q.byTime {
				if c := sqlitedbCompare(ms[i].t, ms[j].t); c != 0 {
					return c < 0
				}
			}
			return ms[i].rowid < ms[j].rowid
		})
		h := r.session(in)
		for k := range ms {
			ms[k].addTo(h)
		}
		emit(h.finish(r.id, r.id))
	}
	return sqlitedbReadAround(listed, lostSessions, lostMessages)
}
