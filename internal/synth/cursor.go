package synth

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// cursor writes, in turn, a cursor-agent transcript (one JSON line per
// message, tool calls without results) and a Cursor IDE state.vscdb whose
// cursorDiskKV holds composers and their bubbles, about target bytes of
// them, so a corpus exercises both the line reader and the database one.
func (g *generator) cursor(dir string, i int, target int64) (int64, int, error) {
	if i%2 == 1 {
		return g.cursorDB(dir, i, target)
	}
	sid := g.uuid()
	f, err := create(filepath.Join(dir, "projects", fmt.Sprintf("home-dev-project%d", i%40), "agent-transcripts", sid, sid+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	msg := func(role string, content ...obj) {
		f.line(obj{"role": role, "message": obj{"content": content}})
	}
	for f.n < target {
		msg("user", obj{"type": "text", "text": "<user_query>\n" + g.text(40+g.rnd.IntN(300)) + "\n</user_query>"})
		for s := 0; s < 1+g.rnd.IntN(6); s++ {
			msg("assistant", obj{"type": "text", "text": g.text(50 + g.rnd.IntN(300))})
			msg("assistant", obj{"type": "tool_use", "name": "Shell", "input": obj{"command": "npm test", "description": g.text(30)}})
		}
		msg("assistant", obj{"type": "text", "text": g.text(100 + g.rnd.IntN(600))})
		f.line(obj{"type": "turn_ended", "status": "success"})
	}
	n, err := f.close()
	return n, 1, err
}

func (g *generator) cursorDB(dir string, i int, target int64) (int64, int, error) {
	path := filepath.Join(dir, fmt.Sprintf("Cursor%d", i), "User", "globalStorage", "state.vscdb")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, 0, err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	ctx := context.Background()
	for _, s := range []string{
		`CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`,
		`CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return 0, 0, err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	put := func(key string, v any) (int64, error) {
		b, _ := json.Marshal(v)
		_, err := tx.ExecContext(ctx, `INSERT INTO cursorDiskKV VALUES (?, CAST(? AS BLOB))`, key, b)
		return int64(len(b)), err
	}
	t := g.start.Add(time.Duration(i) * 37 * time.Minute)
	stamp := func() string {
		t = t.Add(time.Duration(1+g.rnd.IntN(15)) * time.Second)
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	var written int64
	sessions := 0
	for written < target {
		cid := g.uuid()
		created := t.UnixMilli()
		var headers []obj
		bubble := func(typ int, v obj) error {
			bid := g.uuid()
			v["_v"], v["type"], v["bubbleId"], v["createdAt"] = 3, typ, bid, stamp()
			n, err := put("bubbleId:"+cid+":"+bid, v)
			written += n
			headers = append(headers, obj{"bubbleId": bid, "type": typ})
			return err
		}
		size := target / 4
		for start := written; written-start < size; {
			if err := bubble(1, obj{"text": g.text(40 + g.rnd.IntN(300)), "modelInfo": obj{"modelName": "claude-4-sonnet"}}); err != nil {
				return 0, 0, err
			}
			for s := 0; s < 1+g.rnd.IntN(6); s++ {
				status := "completed"
				if g.rnd.IntN(10) == 0 {
					status = "error"
				}
				if err := bubble(2, obj{"text": "", "tokenCount": obj{"inputTokens": 12000, "outputTokens": 300},
					"toolFormerData": obj{"tool": 15, "toolCallId": g.id("toolu_", 24), "name": "run_terminal_cmd", "status": status,
						"rawArgs": `{"command":"npm test"}`, "result": g.text(g.outputSize())}}); err != nil {
					return 0, 0, err
				}
			}
			if err := bubble(2, obj{"text": g.text(100 + g.rnd.IntN(600)), "tokenCount": obj{"inputTokens": 14000, "outputTokens": 500}}); err != nil {
				return 0, 0, err
			}
		}
		n, err := put("composerData:"+cid, obj{"_v": 10, "composerId": cid, "name": g.text(30), "createdAt": created, "lastUpdatedAt": t.UnixMilli(),
			"status": "completed", "modelConfig": obj{"modelName": "default"}, "fullConversationHeadersOnly": headers})
		if err != nil {
			return 0, 0, err
		}
		written += n
		sessions++
	}
	size, err := finishDB(tx, db, path)
	return size, sessions, err
}
