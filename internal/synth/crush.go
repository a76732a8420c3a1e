package synth

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// crushSchema is the schema Crush's migrations leave (charmbracelet/crush
// internal/db/migrations, all of them applied), without the triggers.
const crushSchema = `
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE files (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    UNIQUE(path, session_id, version));
CREATE TABLE messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]',
    model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
    provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE INDEX idx_sessions_created_at ON sessions (created_at);
CREATE INDEX idx_messages_created_at ON messages (created_at);
CREATE TABLE read_files (session_id TEXT NOT NULL, path TEXT NOT NULL, read_at INTEGER NOT NULL, PRIMARY KEY (path, session_id));`

// crush writes a project's .crush/crush.db: sessions of turns with bash
// calls (one in ten exits non-zero), some with a sub-agent session.
func (g *generator) crush(dir string, i int, target int64) (int64, int, error) {
	path := filepath.Join(dir, fmt.Sprintf("project%d", i), ".crush", "crush.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, 0, err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	if _, err := db.Exec(crushSchema); err != nil {
		return 0, 0, err
	}
	tx, err := db.Begin()
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	t := g.start.Add(time.Duration(i) * 41 * time.Minute)
	var written int64
	msg := func(sid, role, model string, parts []obj) error {
		t = t.Add(time.Duration(1+g.rnd.IntN(20)) * time.Second)
		b, _ := json.Marshal(parts)
		written += int64(len(b))
		var m any
		if model != "" {
			m = model
		}
		_, err := tx.Exec(`INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, 'anthropic', ?, ?, ?)`,
			g.uuid(), sid, role, string(b), m, t.Unix(), t.Unix(), t.Unix())
		return err
	}
	session := func(id, parent string) error {
		var p any
		if parent != "" {
			p = parent
		}
		_, err := tx.Exec(`INSERT INTO sessions (id, parent_session_id, title, prompt_tokens, completion_tokens, cost, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0.1, ?, ?)`,
			id, p, g.text(30), 20000+g.rnd.IntN(80000), 500+g.rnd.IntN(4000), t.Unix(), t.Unix())
		return err
	}
	text := func(s string) obj { return obj{"type": "text", "data": obj{"text": s}} }
	finish := func(reason string) obj { return obj{"type": "finish", "data": obj{"reason": reason, "time": t.Unix()}} }
	// turn writes a prompt, some bash calls and their results, an answer.
	turn := func(sid, model string) error {
		if err := msg(sid, "user", "", []obj{text(g.text(40 + g.rnd.IntN(300)))}); err != nil {
			return err
		}
		for s := 0; s < 1+g.rnd.IntN(6); s++ {
			call := "toolu_" + g.id("", 24)
			if err := msg(sid, "assistant", model, []obj{text(g.text(20 + g.rnd.IntN(200))),
				{"type": "tool_call", "data": obj{"id": call, "name": "bash", "input": `{"command":"go test ./..."}`, "finished": true}},
				finish("tool_use")}); err != nil {
				return err
			}
			out := g.text(g.outputSize())
			if g.rnd.IntN(10) == 0 {
				out += "\nExit code 1"
			}
			out += "\n\n<cwd>/home/dev/project</cwd>"
			if err := msg(sid, "tool", "", []obj{{"type": "tool_result", "data": obj{"tool_call_id": call, "name": "bash", "content": out, "is_error": false}}}); err != nil {
				return err
			}
		}
		return msg(sid, "assistant", model, []obj{text(g.text(100 + g.rnd.IntN(600))), finish("end_turn")})
	}
	sessions := 0
	for written < target {
		sid := g.uuid()
		if err := session(sid, ""); err != nil {
			return 0, 0, err
		}
		sessions++
		for n := 0; n < 1+g.rnd.IntN(8) && written < target; n++ {
			if err := turn(sid, "claude-sonnet-4-5"); err != nil {
				return 0, 0, err
			}
			if g.rnd.IntN(5) == 0 {
				// A sub-agent: its own session, named after the call.
				sub := g.uuid() + "$$toolu_" + g.id("", 24)
				if err := session(sub, sid); err != nil {
					return 0, 0, err
				}
				if err := turn(sub, "claude-haiku-4-5"); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	size, err := finishDB(tx, db, path)
	return size, sessions, err
}

// finishDB commits tx, closes db and returns the size of its file at
// path: the end of every generator that writes a SQLite database.
func finishDB(tx *sql.Tx, db *sql.DB, path string) (int64, error) {
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	if err := db.Close(); err != nil {
		return 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
