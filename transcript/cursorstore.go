package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// The cursor-agent CLI's chat store (FORMATS.md, section "Cursor"):
// ~/.cursor/chats/<md5 of the workspace path>/<agent id>/store.db, one
// SQLite database per chat with two tables:
//   - meta (key, value): key "0" holds hex-encoded JSON {agentId,
//     latestRootBlobId, name, mode, createdAt (epoch ms), lastUsedModel};
//   - blobs (id, data): content-addressed (id the SHA-256 of data, in hex).
//     A blob is a message as JSON ({"role":"user"|"assistant"|"tool"|
//     "system","content":…}, the AI SDK's message shapes) or a tree node in
//     protobuf wire format whose field 1 entries are the 32-byte ids of its
//     children, in order. The chat is the messages met walking the tree
//     from latestRootBlobId, depth first.
//
// Counting rules:
//   - a user message with a <user_query>, or with text that is not only
//     tagged context, is a user message; one that is only context
//     (<user_info>, <rules>, …) is a system message; system messages are
//     not kept;
//   - an assistant message with text, reasoning or a tool-call part is an
//     assistant message; each tool-call part is a tool call, by its
//     toolCallId, counted once;
//   - tool errors: tool-result parts with isError true (Cursor's own mark),
//     each call once;
//   - tokens are not stored; the model is the reasoning parts'
//     providerOptions.cursor.modelName, else meta's lastUsedModel;
//   - times are not stored per message: the chat starts at meta's
//     createdAt and ends at the database's (or its WAL's) modification time;
//   - cwd: the "Workspace Path:" line Cursor writes in the <user_info> it
//     adds to the first user message, when there is one;
//   - when the root cannot be walked, the JSON blobs are read in the order
//     they were written (rowid), with a warning.
//
// Outcome: an assistant answer with no call pending is success; a failed
// tool result nobody answered is failure; anything else is unknown.

func cursorStoreHint(head []byte) bool {
	return bytes.Contains(head, []byte("CREATE TABLE blobs")) && bytes.Contains(head, []byte("CREATE TABLE meta"))
}

func cursorStoreMatch(s sqlitedbSchema) bool {
	return s.has("blobs", "id", "data") && s.has("meta", "key", "value")
}

// maxCursorTree bounds the nodes one walk visits, against a damaged or
// hostile tree that references itself.
const maxCursorTree = 1 << 18

type cursorStore struct {
	b      *builder
	d      *sqlitedbDB
	blob   *sql.Stmt
	p      fastjson.Parser
	model  string
	cwd    string
	end    gooseEnd
	msgs   int
	visits int
	nodes  map[string]bool // tree nodes walked
}

func cursorReadStore(ctx context.Context, in *input, d *sqlitedbDB, emit emitFunc) error {
	r := &cursorStore{b: in.builder(lore.AgentCursor), d: d}
	var metaRaw []byte
	err := d.tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = '0'`).Scan(&metaRaw)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return sqlitedbError(err)
	}
	meta := cursorStoreMeta(metaRaw)
	r.b.setNative(str(meta, "agentId"))
	r.b.at(epoch(num(meta, "createdAt")))
	r.blob, err = d.tx.PrepareContext(ctx, `SELECT data FROM blobs WHERE id = ?`)
	if err != nil {
		return sqlitedbError(err)
	}
	defer r.blob.Close()

	root := str(meta, "latestRootBlobId")
	walked := false
	if root != "" {
		walked, err = r.walk(ctx, root, 0)
		if err != nil {
			return err
		}
	}
	if !walked {
		if root != "" {
			r.b.warn(0, fmt.Errorf("root blob %.12s… not found: messages read in the order they were written", root))
		}
		if err := r.scan(ctx); err != nil {
			return err
		}
	}
	if r.msgs == 0 {
		return emptySession("a Cursor chat store with no message")
	}
	r.b.s.Cwd = r.cwd
	r.b.s.Model = r.model
	if r.model == "" {
		r.b.s.Model = str(meta, "lastUsedModel")
	}
	for _, p := range []string{in.path + "-wal", in.path} {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			r.b.at(fi.ModTime())
			break
		}
	}
	switch r.end {
	case gooseEndAnswer:
		r.b.s.Outcome = lore.OutcomeSuccess
	case gooseEndFailed:
		r.b.s.Outcome = lore.OutcomeFailure
	}
	emit(r.b.finish(filepath.Base(filepath.Dir(in.path))))
	return nil
}

// cursorStoreMeta decodes meta "0": hex-encoded JSON, or JSON as it is.
func cursorStoreMeta(v []byte) *fastjson.Value {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] != '{' {
		dec := make([]byte, hex.DecodedLen(len(v)))
		n, err := hex.Decode(dec, v)
		if err != nil {
			return nil
		}
		v = dec[:n]
	}
	meta, err := fastjson.ParseBytes(v)
	if err != nil {
		return nil
	}
	return meta
}

// walk reads the subtree at id, depth first; false when the blob is not
// there.
func (r *cursorStore) walk(ctx context.Context, id string, depth int) (bool, error) {
	if r.visits++; r.visits > maxCursorTree || depth > maxDepth {
		return true, nil
	}
	// A node met twice is a cycle or a shared subtree of a damaged or
	// hostile tree: a chat's tree holds each node once.
	if r.nodes[id] {
		return true, nil
	}
	var data []byte
	err := r.blob.QueryRowContext(ctx, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, sqlitedbError(err)
	}
	r.b.s.Size += int64(len(data))
	if len(data) > 0 && data[0] == '{' {
		r.message(data)
		return true, nil
	}
	if r.nodes == nil {
		r.nodes = map[string]bool{}
	}
	r.nodes[id] = true
	for _, child := range cursorChildren(data) {
		found, err := r.walk(ctx, child, depth+1)
		if err != nil {
			return true, err
		}
		if !found {
			r.b.warn(0, fmt.Errorf("blob %.12s… missing", child))
		}
	}
	return true, nil
}

// cursorChildren reads a tree node's field 1 entries that are 32 bytes
// long (child blob ids), passing over its other fields. It stops at the
// first byte that is not protobuf.
func cursorChildren(data []byte) []string {
	var out []string
	for len(data) > 0 {
		key, n := protoVarint(data)
		if n <= 0 {
			return out
		}
		data = data[n:]
		field, wire := key>>3, key&7
		switch wire {
		case 0:
			_, n = protoVarint(data)
			if n <= 0 {
				return out
			}
			data = data[n:]
		case 1:
			if len(data) < 8 {
				return out
			}
			data = data[8:]
		case 5:
			if len(data) < 4 {
				return out
			}
			data = data[4:]
		case 2:
			l, n := protoVarint(data)
			if n <= 0 || l > uint64(len(data)-n) {
				return out
			}
			v := data[n : n+int(l)]
			data = data[n+int(l):]
			if field == 1 && len(v) == 32 {
				out = append(out, hex.EncodeToString(v))
			}
		default:
			return out
		}
	}
	return out
}

// protoVarint reads a protobuf varint; n is 0 when there is none.
func protoVarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// scan reads the JSON blobs in rowid order, for a chat whose tree cannot
// be walked.
func (r *cursorStore) scan(ctx context.Context) error {
	rows, err := r.d.query(ctx, `SELECT data FROM blobs WHERE substr(data, 1, 1) = X'7B' OR substr(data, 1, 1) = '{' ORDER BY rowid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var data sql.RawBytes
		if err := rows.Scan(&data); err != nil {
			return sqlitedbError(err)
		}
		r.b.s.Size += int64(len(data))
		r.message(data)
	}
	return sqlitedbError(rows.Err())
}

// message applies the counting rules to one message blob.
func (r *cursorStore) message(data []byte) {
	v, err := r.p.ParseBytes(data)
	if err != nil {
		r.b.warn(0, fmt.Errorf("message blob: %v", jsonDamage(data)))
		return
	}
	if v.Type() != fastjson.TypeObject {
		return
	}
	r.msgs++
	keep := r.b.keep
	switch role := str(v, "role"); role {
	case "user":
		text := contentText(v.Get("content"))
		if r.cwd == "" {
			r.cwd = cursorWorkspacePath(text)
		}
		if strings.TrimSpace(text) == "" {
			return
		}
		m := lore.Message{Role: lore.RoleUser}
		if !strings.Contains(text, "<user_query>") && cursorOnlyContext(text) {
			m.Role = lore.RoleSystem
		} else {
			r.end = gooseEndPending
		}
		if keep {
			m.Text = text
		}
		r.b.add(m)
	case "assistant":
		var (
			text, thinking []string
			calls          []lore.ToolCall
		)
		content := v.Get("content")
		if content != nil && content.Type() == fastjson.TypeString {
			text = append(text, string(content.GetStringBytes()))
		}
		for _, part := range content.GetArray() {
			switch str(part, "type") {
			case "text":
				if t := str(part, "text"); strings.TrimSpace(t) != "" {
					text = append(text, t)
				}
			case "reasoning":
				thinking = append(thinking, str(part, "text"))
				if m := str(part, "providerOptions", "cursor", "modelName"); m != "" && r.model == "" {
					r.model = m
				}
			case "tool-call":
				c := lore.ToolCall{ID: str(part, "toolCallId")}
				if keep {
					c.Name = str(part, "toolName")
					c.Input = raw(part, "args")
				}
				calls = append(calls, c)
			}
		}
		if len(text) == 0 && len(thinking) == 0 && len(calls) == 0 {
			return
		}
		m := lore.Message{Role: lore.RoleAssistant, ToolCalls: calls}
		if keep {
			m.Text, m.Thinking, m.Model = strings.Join(text, "\n"), strings.Join(thinking, "\n"), r.model
		}
		r.b.add(m)
		switch {
		case len(calls) > 0:
			r.end = gooseEndPending
		case len(text) > 0:
			r.end = gooseEndAnswer
		}
	case "tool":
		var results []lore.ToolResult
		failed := false
		for _, part := range v.GetArray("content") {
			if str(part, "type") != "tool-result" {
				continue
			}
			res := lore.ToolResult{CallID: str(part, "toolCallId"), IsError: boolean(part, "isError")}
			if keep {
				res.Output = contentText(part.Get("result"))
			}
			failed = failed || res.IsError
			results = append(results, res)
		}
		if len(results) == 0 {
			return
		}
		r.b.add(lore.Message{Role: lore.RoleTool, ToolResults: results})
		if failed {
			r.end = gooseEndFailed
		} else {
			r.end = gooseEndPending
		}
	}
}

// cursorOnlyContext reports whether a user message is only tagged blocks
// Cursor adds (<user_info>…</user_info>, <rules>…</rules>), no words of
// the user's.
func cursorOnlyContext(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
}

// cursorWorkspacePath reads the "Workspace Path: /…" line of the
// <user_info> block Cursor puts before a user's first query.
func cursorWorkspacePath(text string) string {
	i := strings.Index(text, "<user_info>")
	if i < 0 {
		return ""
	}
	info := text[i:]
	if j := strings.Index(info, "</user_info>"); j >= 0 {
		info = info[:j]
	}
	const key = "Workspace Path:"
	k := strings.Index(info, key)
	if k < 0 {
		return ""
	}
	line := info[k+len(key):]
	if e := strings.IndexByte(line, '\n'); e >= 0 {
		line = line[:e]
	}
	line = strings.TrimSpace(line)
	if !filepath.IsAbs(line) && !(len(line) > 2 && line[1] == ':') {
		return ""
	}
	return line
}
