package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// Cursor IDE's state.vscdb (FORMATS.md, section "Cursor"): a VS Code state
// database (tables ItemTable and cursorDiskKV, each key TEXT UNIQUE, value
// BLOB holding JSON text) in which Cursor keeps its chats ("composers"):
//   - cursorDiskKV "composerData:<composerId>": the composer: composerId,
//     name, createdAt and lastUpdatedAt (epoch ms), status, modelConfig
//     {modelName}, createdOnBranch, subComposerIds, and its messages
//     ("bubbles") as fullConversationHeadersOnly [{bubbleId, type}] (the
//     bubbles under their own keys, or in conversationMap) or, in older
//     builds, inline as conversation [bubble…];
//   - cursorDiskKV "bubbleId:<composerId>:<bubbleId>": one bubble: type
//     (1 user, 2 assistant), text, createdAt (ISO time), thinking {text},
//     modelInfo {modelName}, tokenCount {inputTokens, outputTokens},
//     timingInfo, and for a tool call toolFormerData {toolCallId, name,
//     rawArgs or params, result, status: loading, completed, error,
//     cancelled}.
//
// The database is the global one (User/globalStorage/state.vscdb), often
// gigabytes: lore reads composerData rows one at a time in key order, and
// each composer's bubbles by key, never the whole table. A workspace's own
// state.vscdb (User/workspaceStorage/<hash>/) lists its composers' ids in
// ItemTable "composer.composerData" beside a workspace.json naming the
// folder: it gives each composer its cwd, and holds no messages itself.
//
// Counting rules (one composer is one session, id cursor:<composerId>):
//   - a user bubble with text is a user message; an assistant bubble with
//     text, thinking or a tool call is an assistant message; empty bubbles
//     count nothing;
//   - each toolFormerData is one tool call, its id the toolCallId (else the
//     bubble id), counted once; a call whose status is "error" is a tool
//     error (Cursor's own mark); a "cancelled" call never ran and gets no
//     result; one still "loading" has none yet;
//   - tokens: each bubble's tokenCount once; Cursor records no cache tokens;
//   - model: the bubbles' modelInfo.modelName, else the composer's
//     modelConfig.modelName unless it is "default" (Cursor's automatic
//     choice, which names no model);
//   - times: the bubbles' createdAt, and the composer's createdAt and
//     lastUpdatedAt;
//   - sub-composers (subComposerIds) are folded into their parent as
//     sidechain messages: their calls, errors and tokens count, their turns
//     do not;
//   - a composer with no bubble (opened and closed unused) is no session.
//
// Outcome: the composer's status: "completed" is success, "error" failure,
// "aborted" or "cancelled" aborted; anything else unknown.

// cursorDBRoots: the IDE's global state.vscdb: $XDG_CONFIG_HOME/Cursor
// (~/.config/Cursor) on Linux, ~/Library/Application Support/Cursor on
// macOS; VS Code's --user-data-dir has no environment variable.
func cursorDBRoots(e Env) []Root {
	if e.GOOS == "darwin" {
		return []Root{{Agent: lore.AgentCursor, Path: e.macAppSupport("Cursor", "User", "globalStorage", "state.vscdb"), Source: "default"}}
	}
	src := "default"
	if e.get("XDG_CONFIG_HOME") != "" {
		src = "XDG_CONFIG_HOME"
	}
	return []Root{{Agent: lore.AgentCursor, Path: filepath.Join(e.xdg("XDG_CONFIG_HOME", ".config"), "Cursor", "User", "globalStorage", "state.vscdb"), Source: src}}
}

// cursorDBHint: the table's CREATE statement is on the first page.
func cursorDBHint(head []byte) bool {
	return bytes.Contains(head, []byte("cursorDiskKV"))
}

func cursorDBMatch(s sqlitedbSchema) bool {
	return s.has("cursorDiskKV", "key", "value")
}

// cursorComposerPrefix and cursorBubblePrefix start the keys lore reads;
// a key range [prefix, prefix with its last byte incremented) is read
// through the key's unique index.
const (
	cursorComposerPrefix = "composerData:"
	cursorBubblePrefix   = "bubbleId:"
)

// cursorUpper is the least key above every key starting with prefix.
func cursorUpper(prefix string) string {
	return prefix[:len(prefix)-1] + string(prefix[len(prefix)-1]+1)
}

type cursorDB struct {
	in   *input
	d    *sqlitedbDB
	emit emitFunc
	// parent maps a sub-composer's id to its parent's.
	parent map[string]string
	// cwds maps composer ids to the workspace folders that list them.
	cwds       map[string]string
	bubbleStmt *sql.Stmt
	// done holds the composers emitted; composers counts those met.
	done      map[string]bool
	composers int
	// tolerant is set when reading around damage: a bubble that cannot
	// be read is a warning on its chat, not the end of the read.
	tolerant bool
	unread   int // bubbles or sub-composers passed over for damage
	// one parser for composers, one for the bubble being read
	pc, pb fastjson.Parser
}

func cursorReadDB(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	r := &cursorDB{in: in, d: d, emit: emit, done: map[string]bool{}}
	var err error
	if r.parent, err = r.subComposers(ctx); err != nil {
		if !sqlitedbDamaged(err) {
			return err
		}
		// Sub-composers whose parent could not be learnt are read as
		// chats of their own.
		r.parent = map[string]string{}
	}
	r.cwds = cursorWorkspaceFolders(ctx, in.path)
	r.bubbleStmt, err = d.tx.PrepareContext(ctx, `SELECT value FROM cursorDiskKV WHERE key = ?`)
	if err != nil {
		return sqlitedbError(err)
	}
	defer r.bubbleStmt.Close()
	err = r.inOrder(ctx)
	if err != nil && sqlitedbDamaged(err) {
		return r.around(ctx)
	}
	if err != nil {
		return err
	}
	return r.noneFound()
}

func (r *cursorDB) noneFound() error {
	switch {
	case len(r.done) > 0:
		return nil
	case r.composers == 0:
		return emptySession("a Cursor state database with no chat (a workspace's, or VS Code's)")
	}
	return emptySession("a Cursor state database whose %d chats hold no message", r.composers)
}

// inOrder reads the composers in key order through the key's index.
func (r *cursorDB) inOrder(ctx context.Context) error {
	rows, err := r.d.query(ctx, `SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key`,
		cursorComposerPrefix, cursorUpper(cursorComposerPrefix))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var key, value sql.RawBytes
		if err := rows.Scan(&key, &value); err != nil {
			return sqlitedbError(err)
		}
		r.composers++
		if err := r.read(ctx, string(key), value); err != nil {
			return err
		}
	}
	return sqlitedbError(rows.Err())
}

// read reads and emits one composer, unless it was emitted already or is
// read with its parent.
func (r *cursorDB) read(ctx context.Context, key string, value []byte) error {
	id := strings.TrimPrefix(key, cursorComposerPrefix)
	if _, ok := r.parent[id]; ok || r.done[id] {
		return nil
	}
	s, err := r.composer(ctx, id, value)
	if err != nil || s == nil {
		return err
	}
	r.done[id] = true
	r.emit(s)
	return nil
}

// around reads a damaged database row by row (rowid order) past the
// damaged pages, reading the composers the ordered scan did not reach;
// a bubble on a damaged page is a warning on its chat.
func (r *cursorDB) around(ctx context.Context) error {
	r.tolerant, r.composers = true, 0
	cols := fmt.Sprintf(`CASE WHEN key >= '%s' AND key < '%s' THEN key END, CASE WHEN key >= '%s' AND key < '%s' THEN value END`,
		cursorComposerPrefix, cursorUpper(cursorComposerPrefix), cursorComposerPrefix, cursorUpper(cursorComposerPrefix))
	lost, err := r.d.eachRowAround(ctx, "cursorDiskKV", cols, func(rows *sql.Rows) (int64, error) {
		var (
			rowid      int64
			key, value sql.RawBytes
		)
		if err := rows.Scan(&rowid, &key, &value); err != nil || key == nil {
			return rowid, nil
		}
		r.composers++
		return rowid, r.read(ctx, string(key), value)
	})
	if err != nil {
		return err
	}
	if lost > 0 || r.unread > 0 {
		return fmt.Errorf("SQLite database is damaged: %d chats read, rows lost in %d places of cursorDiskKV, %d messages unreadable", len(r.done), lost, r.unread)
	}
	return r.noneFound()
}

// subComposers maps each sub-composer to its parent. SQLite reads the ids
// out of the JSON, so the composers, megabytes each, are not copied out
// twice.
func (r *cursorDB) subComposers(ctx context.Context) (map[string]string, error) {
	rows, err := r.d.query(ctx, `SELECT key, json_extract(CAST(value AS TEXT), '$.subComposerIds')
		FROM cursorDiskKV WHERE key >= ? AND key < ?
		AND instr(CAST(value AS TEXT), '"subComposerIds"') > 0 AND json_valid(CAST(value AS TEXT))`,
		cursorComposerPrefix, cursorUpper(cursorComposerPrefix))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parent := map[string]string{}
	var p fastjson.Parser
	for rows.Next() {
		var key, ids sql.RawBytes
		if err := rows.Scan(&key, &ids); err != nil {
			return nil, sqlitedbError(err)
		}
		v, err := p.ParseBytes(ids)
		if err != nil {
			continue
		}
		id := strings.TrimPrefix(string(key), cursorComposerPrefix)
		for _, c := range v.GetArray() {
			if sub := string(c.GetStringBytes()); sub != "" && sub != id {
				parent[sub] = id
			}
		}
	}
	return parent, sqlitedbError(rows.Err())
}

// cursorSession is one composer being read.
type cursorSession struct {
	b        *builder
	model    string // from the bubbles
	lastRole lore.Role
}

// composer reads one composer and its sub-composers; nil when it holds no
// message.
func (r *cursorDB) composer(ctx context.Context, id string, value []byte) (*lore.Session, error) {
	cs := &cursorSession{b: r.in.builder(lore.AgentCursor)}
	b := cs.b
	b.s.Size = 0
	b.setNative(id)
	b.s.Size += int64(len(value))
	v, err := r.pc.ParseBytes(value)
	if err != nil {
		// The bubbles are under their own keys: read them all the same.
		b.warn(0, fmt.Errorf("composerData:%s: %v", id, jsonDamage(value)))
		v = nil
	}
	bubbles, err := r.bubbles(ctx, cs, id, v, false)
	if err = r.tolerate(cs, err); err != nil {
		return nil, err
	}
	b.at(epoch(num(v, "createdAt")))
	b.at(epoch(num(v, "lastUpdatedAt")))
	b.s.Cwd = r.cwds[id]
	if b.s.Cwd == "" {
		b.s.Cwd = cursorURIPath(v.Get("workspaceIdentifier", "uri"))
	}
	b.s.Branch = str(v, "createdOnBranch")
	b.s.Model = cs.model
	if m := str(v, "modelConfig", "modelName"); b.s.Model == "" && m != "default" {
		b.s.Model = m
	}
	switch str(v, "status") {
	case "completed":
		if cs.lastRole == lore.RoleAssistant {
			b.s.Outcome = lore.OutcomeSuccess
		}
	case "error":
		b.s.Outcome = lore.OutcomeFailure
	case "aborted", "cancelled":
		b.s.Outcome = lore.OutcomeAborted
	}
	// Sub-composers, read after the parent's own bubbles: v is not used
	// past this point, so the composer parser may be reused.
	for _, sub := range r.children(v, id) {
		if err := r.tolerate(cs, r.subComposer(ctx, cs, sub)); err != nil {
			return nil, err
		}
	}
	if bubbles == 0 {
		return nil, nil
	}
	return b.finish(id), nil
}

// tolerate turns damage met reading a chat's bubbles into a warning on
// the chat when reading around damage.
func (r *cursorDB) tolerate(cs *cursorSession, err error) error {
	if err != nil && r.tolerant && sqlitedbDamaged(err) {
		r.unread++
		cs.b.warn(0, err)
		return nil
	}
	return err
}

// children lists the sub-composers of the composer v whose parent is id.
func (r *cursorDB) children(v *fastjson.Value, id string) []string {
	var out []string
	for _, c := range v.GetArray("subComposerIds") {
		if sub := string(c.GetStringBytes()); r.parent[sub] == id {
			out = append(out, sub)
		}
	}
	return out
}

func (r *cursorDB) subComposer(ctx context.Context, cs *cursorSession, id string) error {
	var value []byte
	err := r.bubbleStmt.QueryRowContext(ctx, cursorComposerPrefix+id).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return sqlitedbError(err)
	}
	v, err := r.pc.ParseBytes(value)
	if err != nil {
		cs.b.warn(0, fmt.Errorf("composerData:%s: %v", id, jsonDamage(value)))
		return nil
	}
	cs.b.s.Size += int64(len(value))
	_, err = r.bubbles(ctx, cs, id, v, true)
	return err
}

// bubbles reads the messages of composer v in their order and reports how
// many bubbles it found.
func (r *cursorDB) bubbles(ctx context.Context, cs *cursorSession, id string, v *fastjson.Value, side bool) (int, error) {
	if conv := v.GetArray("conversation"); len(conv) > 0 {
		for _, bv := range conv {
			cs.addInOrder(bv, side)
		}
		return len(conv), nil
	}
	headers := v.GetArray("fullConversationHeadersOnly")
	if len(headers) == 0 {
		return r.bubbleRange(ctx, cs, id, side)
	}
	if inline := v.Get("conversationMap"); r.tolerant || inline != nil && inline.Type() == fastjson.TypeObject && inline.GetObject().Len() > 0 {
		return r.bubblesByKey(ctx, cs, id, headers, inline, side)
	}
	// The listed bubbles, read in one scan of the composer's keys: one
	// statement, not one a bubble. Counters do not depend on order, so
	// bubbles are counted as they come; kept messages are put in the
	// headers' order afterwards.
	listed := make(map[string]int, len(headers))
	var order []string
	for _, h := range headers {
		if bid := str(h, "bubbleId"); bid != "" {
			if _, dup := listed[bid]; !dup {
				listed[bid] = len(order)
				order = append(order, bid)
			}
		}
	}
	roles := make([]lore.Role, len(order))
	var kept [][]byte
	if cs.b.keep {
		kept = make([][]byte, len(order))
	}
	prefix := cursorBubblePrefix + id + ":"
	rows, err := r.d.query(ctx, `SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?`, prefix, cursorUpper(prefix))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var key, value sql.RawBytes
		if err := rows.Scan(&key, &value); err != nil {
			return n, sqlitedbError(err)
		}
		i, ok := listed[strings.TrimPrefix(string(key), prefix)]
		if !ok {
			continue // a bubble of an edited-away branch of the chat
		}
		n++
		cs.b.s.Size += int64(len(value))
		if kept != nil {
			kept[i] = append([]byte(nil), value...)
			continue
		}
		roles[i] = r.bubble(cs, order[i], value, side)
	}
	if err := rows.Err(); err != nil {
		return n, sqlitedbError(err)
	}
	for i, value := range kept {
		if value != nil {
			roles[i] = r.bubble(cs, order[i], value, side)
			kept[i] = nil
		}
	}
	for i := len(roles) - 1; i >= 0 && !side; i-- {
		if roles[i] != "" {
			cs.lastRole = roles[i]
			break
		}
	}
	return n, nil
}

// bubble parses and counts one bubble, returning the role it added.
func (r *cursorDB) bubble(cs *cursorSession, bid string, value []byte, side bool) lore.Role {
	bv, err := r.pb.ParseBytes(value)
	if err != nil {
		cs.b.warn(0, fmt.Errorf("bubble %s: %v", bid, jsonDamage(value)))
		return ""
	}
	return cs.add(bv, side)
}

// bubblesByKey reads the bubbles a composer lists one by one, from its
// conversationMap or under their keys.
func (r *cursorDB) bubblesByKey(ctx context.Context, cs *cursorSession, id string, headers []*fastjson.Value, inline *fastjson.Value, side bool) (int, error) {
	n := 0
	for _, h := range headers {
		bid := str(h, "bubbleId")
		if bid == "" {
			continue
		}
		if bv := inline.Get(bid); bv != nil && bv.Type() == fastjson.TypeObject {
			n++
			cs.addInOrder(bv, side)
			continue
		}
		var value []byte
		err := r.bubbleStmt.QueryRowContext(ctx, cursorBubblePrefix+id+":"+bid).Scan(&value)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // deleted with an edited message, or never written
		case err != nil && r.tolerant && sqlitedbDamaged(err):
			r.unread++
			cs.b.warn(0, fmt.Errorf("bubble %s: %v", bid, sqlitedbError(err)))
			continue
		case err != nil:
			return n, sqlitedbError(err)
		}
		n++
		cs.b.s.Size += int64(len(value))
		// Not r.pb: inline belongs to the composer's parser, r.pb is free.
		if role := r.bubble(cs, bid, value, side); role != "" && !side {
			cs.lastRole = role
		}
	}
	return n, nil
}

// bubbleRange reads a composer's bubbles when it lists none: every
// bubbleId:<id>: key, ordered by the bubbles' createdAt.
func (r *cursorDB) bubbleRange(ctx context.Context, cs *cursorSession, id string, side bool) (int, error) {
	prefix := cursorBubblePrefix + id + ":"
	rows, err := r.d.query(ctx, `SELECT value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key`, prefix, cursorUpper(prefix))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	type kept struct {
		t     time.Time
		value []byte
	}
	var all []kept
	for rows.Next() {
		var value []byte
		if err := rows.Scan(&value); err != nil {
			return 0, sqlitedbError(err)
		}
		bv, err := r.pb.ParseBytes(value)
		if err != nil {
			cs.b.warn(0, fmt.Errorf("bubble: %v", jsonDamage(value)))
			continue
		}
		all = append(all, kept{cursorBubbleTime(bv), value})
	}
	if err := rows.Err(); err != nil {
		return 0, sqlitedbError(err)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t.Before(all[j].t) })
	for _, k := range all {
		cs.b.s.Size += int64(len(k.value))
		if bv, err := r.pb.ParseBytes(k.value); err == nil {
			cs.addInOrder(bv, side)
		}
	}
	return len(all), nil
}

func cursorBubbleTime(bv *fastjson.Value) time.Time {
	if t := bv.Get("createdAt"); t != nil && t.Type() == fastjson.TypeNumber {
		return epoch(t.GetFloat64())
	}
	if t := timeOf(bv, "createdAt"); !t.IsZero() {
		return t
	}
	return epoch(num(bv, "timingInfo", "clientRpcSendTime"))
}

// addInOrder adds a bubble met in the chat's order.
func (cs *cursorSession) addInOrder(bv *fastjson.Value, side bool) {
	if role := cs.add(bv, side); role != "" && !side {
		cs.lastRole = role
	}
}

// add applies the counting rules to one bubble and returns the role of
// the message it added, "" for none.
func (cs *cursorSession) add(bv *fastjson.Value, side bool) lore.Role {
	if bv.Type() != fastjson.TypeObject {
		return ""
	}
	b := cs.b
	t := cursorBubbleTime(bv)
	b.at(t)
	b.at(epoch(num(bv, "timingInfo", "clientEndTime")))
	b.usage(lore.Usage{InputTokens: integer(bv, "tokenCount", "inputTokens"), OutputTokens: integer(bv, "tokenCount", "outputTokens")})
	if m := str(bv, "modelInfo", "modelName"); m != "" && m != "default" && cs.model == "" {
		cs.model = m
	}
	keep := b.keep
	text := bv.GetStringBytes("text")
	hasText := len(bytes.TrimSpace(text)) > 0
	switch integer(bv, "type") {
	case 1:
		if !hasText {
			return ""
		}
		m := lore.Message{Role: lore.RoleUser, Time: t, Sidechain: side}
		if keep {
			m.Text = string(text)
		}
		b.add(m)
		return lore.RoleUser
	case 2:
		thinking := bv.GetStringBytes("thinking", "text")
		tf := bv.Get("toolFormerData")
		isCall := tf != nil && tf.Type() == fastjson.TypeObject && (has(tf, "name") || has(tf, "toolCallId") || has(tf, "tool"))
		if !hasText && len(bytes.TrimSpace(thinking)) == 0 && !isCall {
			return ""
		}
		m := lore.Message{Role: lore.RoleAssistant, Time: t, Sidechain: side}
		if keep {
			m.Text, m.Thinking = string(text), string(thinking)
			m.Model = str(bv, "modelInfo", "modelName")
		}
		var result *lore.ToolResult
		if isCall {
			id := str(tf, "toolCallId")
			if id == "" {
				id = str(bv, "bubbleId")
			}
			c := lore.ToolCall{ID: id}
			if keep {
				c.Name = str(tf, "name")
				if c.Input = raw(tf, "rawArgs"); c.Input == "" {
					c.Input = raw(tf, "params")
				}
			}
			m.ToolCalls = []lore.ToolCall{c}
			// A cancelled call never ran: it has no result, good or bad.
			switch status := str(tf, "status"); status {
			case "completed", "error":
				result = &lore.ToolResult{CallID: id, IsError: status == "error"}
				if keep {
					result.Output = raw(tf, "result")
					if result.Output == "" {
						result.Output = raw(tf, "error")
					}
				}
			}
		}
		b.add(m)
		if result != nil {
			b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{*result}, Sidechain: side})
		}
		return lore.RoleAssistant
	}
	return ""
}

// cursorURIPath reads a VS Code URI object ({fsPath, path, external}) or
// a file:// URI string as a local path.
func cursorURIPath(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	if v.Type() == fastjson.TypeString {
		return cursorFileURI(string(v.GetStringBytes()))
	}
	if p := str(v, "fsPath"); p != "" {
		return p
	}
	if p := str(v, "path"); p != "" && (str(v, "scheme") == "" || str(v, "scheme") == "file") {
		return p
	}
	return cursorFileURI(str(v, "external"))
}

// cursorFileURI returns the path of a file:// URI, "" for other schemes.
func cursorFileURI(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return u.Path
}

// maxCursorWorkspaces bounds how many workspace databases one read opens.
const maxCursorWorkspaces = 4096

// cursorWorkspaceFolders maps composer ids to workspace folders, from the
// workspaceStorage beside the global database (…/User/globalStorage/
// state.vscdb → …/User/workspaceStorage/<hash>/{workspace.json,
// state.vscdb}). Whatever cannot be read is passed over: the folders only
// add the cwd.
func cursorWorkspaceFolders(ctx context.Context, path string) map[string]string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "globalStorage" {
		return nil
	}
	ws := filepath.Join(filepath.Dir(dir), "workspaceStorage")
	entries, err := os.ReadDir(ws)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	var p fastjson.Parser
	for i, e := range entries {
		if i >= maxCursorWorkspaces || ctx.Err() != nil {
			break
		}
		if !e.IsDir() {
			continue
		}
		folder := cursorWorkspaceFolder(filepath.Join(ws, e.Name(), "workspace.json"), &p)
		if folder == "" {
			continue
		}
		for _, id := range cursorWorkspaceComposers(ctx, filepath.Join(ws, e.Name(), "state.vscdb"), &p) {
			out[id] = folder
		}
	}
	return out
}

// cursorWorkspaceFolder reads workspace.json's "folder" (a file:// URI);
// a multi-root "workspace" names no one folder.
func cursorWorkspaceFolder(path string, p *fastjson.Parser) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 {
		return ""
	}
	v, err := p.ParseBytes(data)
	if err != nil {
		return ""
	}
	return cursorFileURI(str(v, "folder"))
}

// cursorWorkspaceComposers lists the composer ids of a workspace database
// (ItemTable "composer.composerData": {allComposers: [{composerId}…]}).
func cursorWorkspaceComposers(ctx context.Context, path string, p *fastjson.Parser) []string {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	d, err := sqlitedbOpen(ctx, path)
	if err != nil {
		return nil
	}
	defer d.close()
	if !d.schema.has("ItemTable", "key", "value") {
		return nil
	}
	var value []byte
	if err := d.tx.QueryRowContext(ctx, `SELECT value FROM ItemTable WHERE key = 'composer.composerData'`).Scan(&value); err != nil {
		return nil
	}
	v, err := p.ParseBytes(value)
	if err != nil {
		return nil
	}
	var ids []string
	for _, c := range v.GetArray("allComposers") {
		if id := str(c, "composerId"); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
