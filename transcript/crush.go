package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Crush (charmbracelet/crush), FORMATS.md section "Crush": one SQLite
// database per project, <project>/.crush/crush.db (internal/db, schema from
// the goose migrations in internal/db/migrations; columns are read from
// PRAGMA table_info, never assumed). A sessions row is a session; its
// messages are the messages rows, each holding its content in parts, a
// JSON array of {"type": "text"|"reasoning"|"image_url"|"binary"|
// "tool_call"|"tool_result"|"finish"|"shell_command", "data": {…}}
// (internal/message/message.go marshalParts). Times are epoch seconds
// (strftime('%s', 'now'), whatever the migration comments say).
//
// Child sessions (parent_session_id set) are folded into the session at
// the top of their chain, as sub-agent work: the agent and agentic_fetch
// tools run a sub-agent in a session whose id is "<message id>$$<tool
// call id>" (coordinator.go runSubAgent). Their messages come in the
// parent's order of time, marked Sidechain: they add tool calls, errors
// and tokens, no turns. Title sessions ("title-<parent id>", written by
// the first versions) are Crush's own bookkeeping and are skipped. A child
// whose parent is not in the database is read as a session of its own.
//
// Counting rules:
//   - user turns are user messages with text, an attachment or a bang-mode
//     shell command; assistant turns are assistant messages with text,
//     reasoning or tool calls; the summary auto-compaction writes
//     (is_summary_message) is a system message, not a turn;
//   - tool calls are the ids of tool_call parts, each once;
//   - a tool error is a tool_result part with is_error true, or a bash
//     result whose output ends with the "Exit code N" line (N non-zero)
//     Crush's bash tool writes instead of marking it, each call once;
//   - tokens are the sessions row's prompt_tokens (input) and
//     completion_tokens (output), once per row, children's rows added to
//     their parent's (Crush propagates only their cost); Crush records no
//     usage per message and overwrites these counters with the last
//     response's figures, so they are what `crush stats` sums, not a sum
//     of every call; cache tokens are not told apart.
//
// Outcome: from the finish part of the last assistant message, if nothing
// came after it: end_turn is success, error and content_filter are
// failure, canceled is aborted; anything else is unknown.

// crushRoots: Crush keeps a project's database in its data directory,
// .crush in the project (config.go defaultDataDirectory; the closest
// .crush above the working folder is used, so the cwd and its parents up
// to the git root are listed, as for Aider). The data_directory option and
// the --data-dir flag move it; every project Crush ran in is listed in
// projects.json, {"projects": [{"path", "data_dir"}]}, in the global data
// folder (config/load.go GlobalConfigData: $CRUSH_GLOBAL_DATA, else
// $XDG_DATA_HOME/crush, else ~/.local/share/crush, on macOS too), so
// each data_dir listed there is a root. There is no global database.
//
// A .crush folder is walked rather than its crush.db named, so that the
// empty database Crush makes at its first start in a folder is passed
// over quietly, as walked files with no turn are.
func crushRoots(e Env) []Root {
	var out []Root
	if e.Cwd != "" {
		for dir := e.Cwd; ; {
			out = append(out, Root{Agent: lore.AgentCrush, Path: filepath.Join(dir, ".crush"), Source: "default"})
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				out = out[:1] // in no repository: only the working folder
				break
			}
			dir = parent
		}
	}
	global, src := e.get("CRUSH_GLOBAL_DATA"), "CRUSH_GLOBAL_DATA"
	if global == "" || !filepath.IsAbs(global) {
		global, src = filepath.Join(e.xdg("XDG_DATA_HOME", ".local", "share"), "crush"), "projects.json"
	}
	data, err := os.ReadFile(filepath.Join(global, "projects.json"))
	if err != nil || len(data) > 16<<20 {
		return out
	}
	var list struct {
		Projects []struct {
			Path    string `json:"path"`
			DataDir string `json:"data_dir"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &list) != nil {
		return out
	}
	for _, p := range list.Projects {
		dir := p.DataDir
		if dir == "" && p.Path != "" {
			dir = filepath.Join(p.Path, ".crush")
		}
		switch {
		case !filepath.IsAbs(dir):
		case filepath.Base(dir) == ".crush":
			out = append(out, Root{Agent: lore.AgentCrush, Path: dir, Source: src})
		default:
			// A data directory of the user's choosing may hold anything:
			// only the database is read.
			out = append(out, Root{Agent: lore.AgentCrush, Path: filepath.Join(dir, "crush.db"), Source: src})
		}
	}
	return out
}

func crushDBHint(head []byte) bool {
	return bytes.Contains(head, []byte("parent_session_id")) && bytes.Contains(head, []byte("completion_tokens")) &&
		bytes.Contains(head, []byte("parts"))
}

func crushDBMatch(s sqlitedbSchema) bool {
	return s.has("sessions", "id", "parent_session_id", "prompt_tokens", "completion_tokens") &&
		s.has("messages", "session_id", "role", "parts")
}

// crushDBQuery is what crushReadDB selects from each table.
type crushDBQuery struct{ sessionCols, messageCols string }

func crushQuery(s sqlitedbSchema) crushDBQuery {
	m := func(c string) string { return s.col("messages", c) }
	return crushDBQuery{
		sessionCols: fmt.Sprintf(`id, parent_session_id, prompt_tokens, completion_tokens, %s, %s`,
			s.col("sessions", "created_at"), s.col("sessions", "updated_at")),
		messageCols: fmt.Sprintf(`session_id, role, parts, %s, %s, %s, %s, length(CAST(parts AS BLOB))`,
			m("model"), m("created_at"), m("finished_at"), m("is_summary_message")),
	}
}

// crushRow is one sessions row, as crushQuery selects it.
type crushRow struct {
	id, parent                     string
	prompt, completion, created, u any
}

func (r *crushRow) scan(rows *sql.Rows, rowid ...any) error {
	var id, parent any
	err := rows.Scan(append(rowid, &id, &parent, &r.prompt, &r.completion, &r.created, &r.u)...)
	r.id, r.parent = sqlitedbText(id), sqlitedbText(parent)
	return err
}

// crushTitle reports whether a row is a title session, which holds the
// title prompt of its parent and nothing of the user's work.
func (r *crushRow) title() bool {
	return r.parent != "" && strings.HasPrefix(r.id, "title-")
}

// crushPlan groups the sessions rows: each root (a row with no parent in
// the database) with the rows below it.
type crushPlan struct {
	roots   []*crushRow
	members map[string][]*crushRow // root id: the root, then its children
}

func newCrushPlan(rows []crushRow) *crushPlan {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	byID := make(map[string]*crushRow, len(rows))
	for i := range rows {
		if rows[i].id != "" && !rows[i].title() {
			if _, dup := byID[rows[i].id]; !dup {
				byID[rows[i].id] = &rows[i]
			}
		}
	}
	// Each row's root, found once: a walk up stops at a row whose root is
	// known, at a row without a parent in the table, or at a row it met
	// before (a loop, whose rows then stand alone).
	rootOf := make(map[*crushRow]*crushRow, len(byID))
	walked := make(map[*crushRow]int, len(byID))
	var path []*crushRow
	for i := range rows {
		r := &rows[i]
		if byID[r.id] != r {
			continue
		}
		path = path[:0]
		var top *crushRow
		for cur := r; ; {
			if t, ok := rootOf[cur]; ok {
				top = t
				break
			}
			if walked[cur] == i+1 {
				break // a loop
			}
			walked[cur] = i + 1
			path = append(path, cur)
			p, ok := byID[cur.parent]
			if cur.parent == "" || !ok {
				top = cur
				break
			}
			cur = p
		}
		for _, x := range path {
			if top == nil {
				rootOf[x] = x
			} else {
				rootOf[x] = top
			}
		}
	}
	p := &crushPlan{members: map[string][]*crushRow{}}
	for i := range rows {
		r := &rows[i]
		if byID[r.id] != r {
			continue
		}
		root := rootOf[r]
		if root == r {
			p.roots = append(p.roots, r)
			p.members[r.id] = append([]*crushRow{r}, p.members[r.id]...)
			continue
		}
		p.members[root.id] = append(p.members[root.id], r)
	}
	return p
}

// crushMsgRow is one messages row, as crushQuery selects it. The byte
// fields are the driver's until the next row unless copied.
type crushMsgRow struct {
	sid, role, parts, model sql.RawBytes
	created, finished       any
	summary                 any
	size                    sql.NullInt64
	rowid                   int64
}

func (m *crushMsgRow) scan(rows *sql.Rows, rowid ...any) error {
	return rows.Scan(append(rowid, &m.sid, &m.role, &m.parts, &m.model, &m.created, &m.finished, &m.summary, &m.size)...)
}

// own copies the row's bytes, for a row kept past the next.
func (m *crushMsgRow) own() {
	for _, b := range []*sql.RawBytes{&m.sid, &m.role, &m.parts, &m.model} {
		if *b != nil {
			*b = append(sql.RawBytes{}, *b...)
		}
	}
}

type crushEnd int

const (
	crushEndNone crushEnd = iota
	crushEndAnswer
	crushEndFailed
	crushEndAborted
)

// crushSession is one root session being read.
type crushSession struct {
	b    *builder
	root *crushRow
	p    fastjson.Parser
	msgs int
	end  crushEnd
}

func newCrushSession(in *input, root *crushRow, members []*crushRow) *crushSession {
	c := &crushSession{b: in.builder(lore.AgentCrush), root: root}
	c.b.s.Size = 0
	c.b.s.Cwd = crushCwd(in.path)
	for _, r := range members {
		c.b.usage(lore.Usage{InputTokens: sqlitedbInt(r.prompt), OutputTokens: sqlitedbInt(r.completion)})
	}
	return c
}

// crushCwd is the project folder of a database in a .crush folder; a
// data directory moved elsewhere does not say which project it serves.
func crushCwd(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(abs)
	if filepath.Base(dir) != ".crush" {
		return ""
	}
	return filepath.Dir(dir)
}

// message applies the counting rules to one messages row.
func (c *crushSession) message(m *crushMsgRow) {
	c.msgs++
	c.b.s.Size += m.size.Int64
	t := sqlitedbTime(m.created, time.UTC)
	c.b.at(sqlitedbTime(m.finished, time.UTC))
	side := string(m.sid) != c.root.id
	parts, err := c.p.ParseBytes(m.parts)
	if err != nil {
		c.b.warn(0, fmt.Errorf("message %d: parts: %v", c.msgs, jsonDamage(m.parts)))
		c.b.at(t)
		return
	}
	keep := c.b.keep
	var (
		text, thinking    []string
		content, think    bool
		calls             []lore.ToolCall
		results           []lore.ToolResult
		finish, finishMsg string
	)
	for _, part := range parts.GetArray() {
		data := part.Get("data")
		switch str(part, "type") {
		case "text":
			if s := data.GetStringBytes("text"); len(bytes.TrimSpace(s)) > 0 {
				content = true
				if keep {
					text = append(text, string(s))
				}
			}
		case "reasoning":
			if s := data.GetStringBytes("thinking"); len(bytes.TrimSpace(s)) > 0 {
				think = true
				if keep {
					thinking = append(thinking, string(s))
				}
			}
		case "image_url":
			content = true
			if keep {
				text = append(text, "[image]")
			}
		case "binary":
			content = true
			if keep {
				text = append(text, "[file "+str(data, "Path")+"]")
			}
		case "shell_command":
			// A command the user ran with "!": Crush hands it to the model
			// in this form (content.go ToAIMessage).
			content = true
			if keep {
				text = append(text, fmt.Sprintf("$ %s\n%s\n(exit code %d)", str(data, "command"), str(data, "output"), integer(data, "exit_code")))
			}
		case "tool_call":
			tc := lore.ToolCall{ID: str(data, "id")}
			if keep {
				tc.Name, tc.Input = str(data, "name"), str(data, "input")
			}
			calls = append(calls, tc)
		case "tool_result":
			results = append(results, crushResult(data, keep))
		case "finish":
			finish = str(data, "reason")
			if keep {
				finishMsg = strings.TrimSpace(str(data, "message") + "\n" + str(data, "details"))
			}
			c.b.at(epoch(num(data, "time")))
		}
	}
	role := string(m.role)
	summary := sqlitedbInt(m.summary) != 0
	if len(results) > 0 {
		c.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: results, Sidechain: side})
	}
	switch {
	case role == "assistant":
		failed := finish == "error" || finish == "content_filter"
		if finishMsg != "" && failed {
			// The error Crush shows in place of an answer.
			text = append(text, finishMsg)
		}
		msg := lore.Message{Role: lore.RoleAssistant, Time: t, Text: strings.Join(text, "\n"),
			Thinking: strings.Join(thinking, "\n"), ToolCalls: calls, Sidechain: side, Model: string(m.model)}
		switch {
		case summary || !(content || think || len(calls) > 0) && msg.Text != "":
			msg.Role = lore.RoleSystem
			c.b.add(msg)
		case content || think || len(calls) > 0:
			c.b.add(msg)
		default:
			c.b.at(t)
		}
		if side || summary {
			break
		}
		if len(m.model) > 0 {
			c.b.s.Model = string(m.model)
		}
		switch finish {
		case "end_turn":
			c.end = crushEndAnswer
		case "error", "content_filter":
			c.end = crushEndFailed
		case "canceled":
			c.end = crushEndAborted
		default:
			c.end = crushEndNone
		}
	case role == "user" && content:
		c.b.add(lore.Message{Role: lore.RoleUser, Time: t, Text: strings.Join(text, "\n"), Sidechain: side})
		if !side {
			c.end = crushEndNone
		}
	case content:
		c.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: strings.Join(text, "\n"), Sidechain: side})
	default:
		c.b.at(t)
		if !side && len(results) > 0 {
			c.end = crushEndNone
		}
	}
}

// crushResult reads a tool_result part.
func crushResult(data *fastjson.Value, keep bool) lore.ToolResult {
	r := lore.ToolResult{CallID: str(data, "tool_call_id"), IsError: boolean(data, "is_error")}
	out := data.GetStringBytes("content")
	if !r.IsError && is(data, "bash", "name") {
		if code, ok := crushExitCode(out); ok {
			r.ExitCode = &code
			r.IsError = code != 0
		}
	}
	if keep {
		r.Output = string(out)
	}
	return r
}

// crushExitCode reads the "Exit code N" line Crush's bash tool ends a
// failed command's output with (tools/bash.go formatOutput), before the
// <cwd> line it may add.
func crushExitCode(out []byte) (int, bool) {
	out = bytes.TrimRight(out, " \t\r\n")
	if bytes.HasSuffix(out, []byte("</cwd>")) {
		if i := bytes.LastIndex(out, []byte("<cwd>")); i >= 0 {
			out = bytes.TrimRight(out[:i], " \t\r\n")
		}
	}
	last := out[bytes.LastIndexByte(out, '\n')+1:]
	n, ok := bytes.CutPrefix(last, []byte("Exit code "))
	if !ok {
		return 0, false
	}
	code, err := strconv.Atoi(string(n))
	if err != nil {
		return 0, false
	}
	return code, true
}

func (c *crushSession) finish() *lore.Session {
	if c.msgs == 0 {
		c.b.at(sqlitedbTime(c.root.created, time.UTC))
		c.b.at(sqlitedbTime(c.root.u, time.UTC))
	}
	switch c.end {
	case crushEndAnswer:
		c.b.s.Outcome = lore.OutcomeSuccess
	case crushEndFailed:
		c.b.s.Outcome = lore.OutcomeFailure
	case crushEndAborted:
		c.b.s.Outcome = lore.OutcomeAborted
	}
	c.b.setNative(c.root.id)
	return c.b.finish(c.root.id)
}

// crushReadDB reads crush.db: the sessions rows first (they are small),
// then the messages of each root session and its children in one ordered
// query; a damaged database is read again row by row around the damage,
// as Hermes's state.db is.
func crushReadDB(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	return sqlitedbReadOrAround(ctx, in, d, emit, crushReadDBInOrder, crushReadDBAround)
}

func crushReadDBInOrder(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	q := crushQuery(d.schema)
	srows, err := d.query(ctx, `SELECT `+q.sessionCols+` FROM sessions`)
	if err != nil {
		return err
	}
	var rows []crushRow
	for srows.Next() {
		var r crushRow
		if err := r.scan(srows); err != nil {
			srows.Close()
			return sqlitedbError(err)
		}
		rows = append(rows, r)
	}
	srows.Close()
	if err := srows.Err(); err != nil {
		return sqlitedbError(err)
	}
	plan := newCrushPlan(rows)
	if len(plan.roots) == 0 {
		return crushEmpty
	}
	order := "rowid"
	if d.schema["messages"]["created_at"] {
		order = "created_at, rowid"
	}
	// The members' ids as one JSON array: a session may have more children
	// than SQLite takes parameters.
	mq, err := d.tx.PrepareContext(ctx, `SELECT `+q.messageCols+` FROM messages WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY `+order)
	if err != nil {
		return sqlitedbError(err)
	}
	defer mq.Close()
	var m crushMsgRow
	for _, root := range plan.roots {
		if err := ctx.Err(); err != nil {
			return err
		}
		members := plan.members[root.id]
		c := newCrushSession(in, root, members)
		if err := crushEachMessage(ctx, mq, crushIDs(members), &m, c); err != nil {
			return err
		}
		emit(c.finish())
	}
	return nil
}

func crushIDs(rows []*crushRow) string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// crushEachMessage adds the messages q selects for the sessions ids to c.
func crushEachMessage(ctx context.Context, q *sql.Stmt, ids string, m *crushMsgRow, c *crushSession) error {
	rows, err := q.QueryContext(ctx, ids)
	if err != nil {
		return sqlitedbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := m.scan(rows); err != nil {
			c.b.warn(0, fmt.Errorf("a messages row: %v", err))
			continue
		}
		c.message(m)
	}
	return sqlitedbError(rows.Err())
}

// crushReadDBAround reads a damaged crush.db by rowid, passing over the
// rows it cannot read, and orders each session's messages as
// crushReadDBInOrder's query would have.
func crushReadDBAround(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	q := crushQuery(d.schema)
	var rows []crushRow
	lostSessions, err := d.eachRowAround(ctx, "sessions", q.sessionCols, func(rs *sql.Rows) (int64, error) {
		var (
			rowid int64
			r     crushRow
		)
		if err := r.scan(rs, &rowid); err == nil {
			rows = append(rows, r)
		}
		return rowid, nil
	})
	if err != nil {
		return err
	}
	msgs := map[string][]crushMsgRow{}
	lostMessages, err := d.eachRowAround(ctx, "messages", q.messageCols, func(rs *sql.Rows) (int64, error) {
		var m crushMsgRow
		if err := m.scan(rs, &m.rowid); err == nil {
			m.own()
			msgs[string(m.sid)] = append(msgs[string(m.sid)], m)
		}
		return m.rowid, nil
	})
	if err != nil {
		return err
	}
	plan := newCrushPlan(rows)
	for _, root := range plan.roots {
		members := plan.members[root.id]
		var ms []crushMsgRow
		for _, r := range members {
			ms = append(ms, msgs[r.id]...)
		}
		sort.SliceStable(ms, func(i, j int) bool {
			if c := sqlitedbCompare(ms[i].created, ms[j].created); c != 0 {
				return c < 0
			}
			return ms[i].rowid < ms[j].rowid
		})
		c := newCrushSession(in, root, members)
		for k := range ms {
			c.message(&ms[k])
		}
		emit(c.finish())
	}
	if err := sqlitedbReadAround(len(plan.roots), lostSessions, lostMessages); err != nil || len(plan.roots) > 0 {
		return err
	}
	return crushEmpty
}

// crushEmpty is the error of a database with no session: Crush makes one
// at its first start in a folder, before anything is asked.
var crushEmpty = emptySession("a Crush database with no sessions")
