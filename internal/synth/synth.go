// Package synth writes synthetic transcript corpora of any size, shaped
// like real ones (line sizes, streamed responses, tool output, images), for
// benchmarks and load tests. The text is random filler: no real secrets,
// names or paths.
package synth

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Formats lists the formats Write can produce.
var Formats = []string{"claude-code", "codex", "gemini-cli", "hermes", "aider", "copilot-cli", "amp", "droid", "opencode", "crush", "qwen-code", "kimi-cli", "cursor"}

// Options shape a corpus.
type Options struct {
	Format string
	// Bytes is the corpus size to reach (approximately; the last file
	// ends the corpus once the size is passed).
	Bytes int64
	// Seed makes the corpus reproducible.
	Seed uint64
	// SessionBytes is the mean size of one session file; 0 means 400 KiB,
	// near the median of real Claude Code sessions.
	SessionBytes int64
}

// Stats says what was written.
type Stats struct {
	Files    int
	Sessions int
	Bytes    int64
}

// Write writes a corpus under dir.
func Write(dir string, o Options) (Stats, error) {
	gen, ok := generators[o.Format]
	if !ok {
		return Stats{}, fmt.Errorf("unknown format %q (known: %s)", o.Format, strings.Join(Formats, ", "))
	}
	if o.SessionBytes <= 0 {
		o.SessionBytes = 400 << 10
	}
	g := &generator{rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), start: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
	var st Stats
	for st.Bytes < o.Bytes {
		// Session sizes vary from a tenth to twice the mean.
		target := int64(float64(o.SessionBytes) * (0.1 + 1.9*g.rnd.Float64()))
		n, sessions, err := gen(g, dir, st.Files, target)
		if err != nil {
			return st, err
		}
		st.Files++
		st.Sessions += sessions
		st.Bytes += n
	}
	return st, nil
}

type generator struct {
	rnd   *rand.Rand
	start time.Time
}

var generators = map[string]func(g *generator, dir string, i int, target int64) (int64, int, error){
	"claude-code": (*generator).claude,
	"codex":       (*generator).codex,
	"gemini-cli":  (*generator).gemini,
	"hermes":      (*generator).hermes,
	"aider":       (*generator).aider,
	"copilot-cli": (*generator).copilot,
	"amp":         (*generator).amp,
	"droid":       (*generator).droid,
	"crush":       (*generator).crush,
	"qwen-code":   (*generator).qwen,
	"kimi-cli":    (*generator).kimi,
	"cursor":      (*generator).cursor,
}

var words = strings.Fields(`the a to of and in is for on with that this it as be by are from at or
an not have func return error if err nil string int package import test build run go file line
value type struct main config server client request response handler path status code failed
expected got want check update create delete list get set read write open close context`)

// text returns filler of about n bytes.
func (g *generator) text(n int) string {
	var sb strings.Builder
	sb.Grow(n + 16)
	for sb.Len() < n {
		sb.WriteString(words[g.rnd.IntN(len(words))])
		if g.rnd.IntN(12) == 0 {
			sb.WriteString(".\n")
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// outputSize draws a tool output size: mostly small, sometimes large.
func (g *generator) outputSize() int {
	switch r := g.rnd.Float64(); {
	case r < 0.6:
		return 50 + g.rnd.IntN(500)
	case r < 0.9:
		return 500 + g.rnd.IntN(4000)
	default:
		return 4000 + g.rnd.IntN(30000)
	}
}

func (g *generator) uuid() string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(g.rnd.UintN(256))
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *generator) id(prefix string, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rnd.IntN(len(alphabet))]
	}
	return prefix + string(b)
}

// file creates a file and returns a writer counting its bytes.
type file struct {
	f *os.File
	w *bufio.Writer
	n int64
}

func create(path string) (*file, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &file{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// line writes v as one JSON line.
func (f *file) line(v any) {
	b, _ := json.Marshal(v)
	f.w.Write(b)
	f.w.WriteByte('\n')
	f.n += int64(len(b)) + 1
}

func (f *file) text(s string) {
	f.w.WriteString(s)
	f.n += int64(len(s))
}

func (f *file) close() (int64, error) {
	if err := f.w.Flush(); err != nil {
		f.f.Close()
		return 0, err
	}
	return f.n, f.f.Close()
}

type obj = map[string]any

func (g *generator) claude(dir string, i int, target int64) (int64, int, error) {
	sid := g.uuid()
	project := fmt.Sprintf("-home-dev-project%d", i%40)
	f, err := create(filepath.Join(dir, project, sid+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	t := g.start.Add(time.Duration(i) * 37 * time.Minute)
	cwd := "/home/dev/project" + fmt.Sprint(i%40)
	env := func(typ string, side bool) obj {
		t = t.Add(time.Duration(1+g.rnd.IntN(20)) * time.Second)
		return obj{"parentUuid": g.uuid(), "isSidechain": side, "userType": "external", "cwd": cwd,
			"sessionId": sid, "version": "2.1.17", "gitBranch": "main", "type": typ,
			"uuid": g.uuid(), "timestamp": t.Format("2006-01-02T15:04:05.000Z")}
	}
	f.line(obj{"type": "file-history-snapshot", "messageId": g.uuid(), "snapshot": obj{"messageId": g.uuid(), "trackedFileBackups": obj{}, "timestamp": t.Format(time.RFC3339)}, "isSnapshotUpdate": false})
	for f.n < target {
		u := env("user", false)
		u["message"] = obj{"role": "user", "content": g.text(40 + g.rnd.IntN(400))}
		f.line(u)
		steps := 1 + g.rnd.IntN(8)
		for s := 0; s < steps; s++ {
			side := g.rnd.IntN(10) == 0
			msgID, req := g.id("msg_01", 22), g.id("req_011C", 20)
			usage := obj{"input_tokens": 3 + g.rnd.IntN(50), "cache_creation_input_tokens": g.rnd.IntN(3000), "cache_read_input_tokens": g.rnd.IntN(90000), "output_tokens": 1}
			// A streamed response: a text line, then a tool_use line,
			// each repeating the usage so far.
			a := env("assistant", side)
			a["requestId"] = req
			a["message"] = obj{"model": "claude-sonnet-4-5-20250929", "id": msgID, "type": "message", "role": "assistant",
				"content": []obj{{"type": "text", "text": g.text(20 + g.rnd.IntN(300))}}, "stop_reason": nil, "usage": usage}
			f.line(a)
			callID := g.id("toolu_01", 22)
			usage2 := obj{}
			for k, v := range usage {
				usage2[k] = v
			}
			usage2["output_tokens"] = 20 + g.rnd.IntN(400)
			a = env("assistant", side)
			a["requestId"] = req
			a["message"] = obj{"model": "claude-sonnet-4-5-20250929", "id": msgID, "type": "message", "role": "assistant",
				"content":     []obj{{"type": "tool_use", "id": callID, "name": "Bash", "input": obj{"command": "go test ./... -run " + g.id("Test", 8), "description": g.text(30)}}},
				"stop_reason": "tool_use", "usage": usage2}
			f.line(a)
			r := env("user", side)
			isErr := g.rnd.IntN(12) == 0
			out := g.text(g.outputSize())
			if isErr {
				out = "Exit code 1\n" + out
			}
			r["message"] = obj{"role": "user", "content": []obj{{"tool_use_id": callID, "type": "tool_result", "content": out, "is_error": isErr}}}
			r["toolUseResult"] = obj{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
			f.line(r)
			if g.rnd.IntN(200) == 0 { // a pasted screenshot
				img := env("user", false)
				data := make([]byte, 150<<10)
				for j := range data {
					data[j] = byte(g.rnd.UintN(256))
				}
				img["message"] = obj{"role": "user", "content": []obj{{"type": "image", "source": obj{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(data)}}, {"type": "text", "text": "see this"}}}
				f.line(img)
			}
		}
		a := env("assistant", false)
		a["requestId"] = g.id("req_011C", 20)
		a["message"] = obj{"model": "claude-sonnet-4-5-20250929", "id": g.id("msg_01", 22), "type": "message", "role": "assistant",
			"content": []obj{{"type": "text", "text": g.text(100 + g.rnd.IntN(800))}}, "stop_reason": "end_turn",
			"usage": obj{"input_tokens": 5, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 20000, "output_tokens": 150}}
		f.line(a)
		p := env("progress", false)
		p["data"] = obj{"type": "hook_progress", "hookEvent": "Stop", "hookName": "Stop", "command": "true"}
		f.line(p)
	}
	n, err := f.close()
	return n, 1, err
}

func (g *generator) codex(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 41 * time.Minute)
	id := g.uuid()
	name := fmt.Sprintf("rollout-%s-%s.jsonl", t.Format("2006-01-02T15-04-05"), id)
	f, err := create(filepath.Join(dir, t.Format("2006/01/02"), name))
	if err != nil {
		return 0, 0, err
	}
	ts := func() string {
		t = t.Add(time.Duration(1+g.rnd.IntN(15)) * time.Second)
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	cwd := fmt.Sprintf("/home/dev/project%d", i%40)
	f.line(obj{"timestamp": ts(), "type": "session_meta", "payload": obj{"id": id, "timestamp": ts(), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.125.0", "source": "cli",
		"git": obj{"commit_hash": g.id("", 40), "branch": "main", "repository_url": "https://github.com/example/project.git"}}})
	f.line(obj{"timestamp": ts(), "type": "turn_context", "payload": obj{"cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex", "summary": "auto"}})
	var total int
	for f.n < target {
		msg := g.text(40 + g.rnd.IntN(300))
		f.line(obj{"timestamp": ts(), "type": "event_msg", "payload": obj{"type": "task_started", "turn_id": g.uuid(), "model_context_window": 258400}})
		f.line(obj{"timestamp": ts(), "type": "response_item", "payload": obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": msg}}}})
		f.line(obj{"timestamp": ts(), "type": "event_msg", "payload": obj{"type": "user_message", "message": msg}})
		for s := 0; s < 1+g.rnd.IntN(8); s++ {
			call := g.id("call_", 24)
			args, _ := json.Marshal(obj{"command": []string{"bash", "-lc", "go test ./..."}, "workdir": cwd})
			f.line(obj{"timestamp": ts(), "type": "response_item", "payload": obj{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": call}})
			out := g.text(g.outputSize())
			code := 0
			if g.rnd.IntN(10) == 0 {
				code = 1
			}
			f.line(obj{"timestamp": ts(), "type": "event_msg", "payload": obj{"type": "exec_command_end", "call_id": call, "command": []string{"bash", "-lc", "go test ./..."}, "cwd": cwd, "stdout": out, "stderr": "", "aggregated_output": out, "exit_code": code, "duration": obj{"secs": 1, "nanos": 0}, "status": "completed"}})
			f.line(obj{"timestamp": ts(), "type": "response_item", "payload": obj{"type": "function_call_output", "call_id": call, "output": "Exit code: " + fmt.Sprint(code) + "\nWall time: 1.0 seconds\nOutput:\n" + out}})
			total += 2000 + g.rnd.IntN(5000)
			f.line(obj{"timestamp": ts(), "type": "event_msg", "payload": obj{"type": "token_count", "info": obj{"total_token_usage": obj{"input_tokens": total, "cached_input_tokens": total / 2, "output_tokens": total / 10, "reasoning_output_tokens": 0, "total_tokens": total + total/10}}}})
		}
		answer := g.text(100 + g.rnd.IntN(600))
		f.line(obj{"timestamp": ts(), "type": "response_item", "payload": obj{"type": "message", "role": "assistant", "content": []obj{{"type": "output_text", "text": answer}}}})
		f.line(obj{"timestamp": ts(), "type": "event_msg", "payload": obj{"type": "agent_message", "message": answer}})
		f.line(obj{"timestamp": ts(), "type": "event_msg", "payload": obj{"type": "task_complete", "turn_id": g.uuid(), "last_agent_message": answer}})
	}
	n, err := f.close()
	return n, 1, err
}

func (g *generator) gemini(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 29 * time.Minute)
	sid := g.uuid()
	f, err := create(filepath.Join(dir, fmt.Sprintf("%064x", i%40), "chats", "session-"+t.Format("2006-01-02T15-04")+"-"+sid[:8]+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	ts := func() string {
		t = t.Add(time.Duration(1+g.rnd.IntN(15)) * time.Second)
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	f.line(obj{"sessionId": sid, "projectHash": fmt.Sprintf("%064x", i%40), "startTime": ts(), "lastUpdated": ts(), "kind": "main"})
	for f.n < target {
		f.line(obj{"id": g.uuid(), "timestamp": ts(), "type": "user", "content": g.text(40 + g.rnd.IntN(300))})
		id := g.uuid()
		var calls []obj
		for s := 0; s < g.rnd.IntN(5); s++ {
			cid := fmt.Sprintf("run_shell_command-%d-%s", t.UnixMilli(), g.id("", 12))
			status := "success"
			if g.rnd.IntN(10) == 0 {
				status = "error"
			}
			calls = append(calls, obj{"id": cid, "name": "run_shell_command", "args": obj{"command": "npm test"}, "status": status, "timestamp": ts(),
				"result": []obj{{"functionResponse": obj{"id": cid, "name": "run_shell_command", "response": obj{"output": g.text(g.outputSize())}}}}})
		}
		m := obj{"id": id, "timestamp": ts(), "type": "gemini", "content": g.text(50 + g.rnd.IntN(500)), "model": "gemini-2.5-pro",
			"tokens": obj{"input": 12000, "output": 300, "cached": 4000, "thoughts": 100, "tool": 0, "total": 12400}}
		// Gemini re-emits a message as its tool calls complete.
		f.line(m)
		if len(calls) > 0 {
			m["toolCalls"] = calls
			f.line(m)
		}
		f.line(obj{"$set": obj{"lastUpdated": ts()}})
	}
	n, err := f.close()
	return n, 1, err
}

func (g *generator) hermes(dir string, i int, target int64) (int64, int, error) {
	t := g.start.Add(time.Duration(i) * 23 * time.Minute)
	sid := t.Format("20060102_150405") + "_" + g.id("", 8)
	f, err := create(filepath.Join(dir, "sessions", sid+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	// Hermes writes with Python's default separators: ", " and ": ".
	line := func(v obj) {
		b, _ := json.Marshal(v)
		s := strings.ReplaceAll(strings.ReplaceAll(string(b), `","`, `", "`), `":`, `": `)
		f.text(s + "\n")
	}
	ts := func() string {
		t = t.Add(time.Duration(1+g.rnd.IntN(15)) * time.Second)
		return t.Format("2006-01-02T15:04:05.000000")
	}
	line(obj{"role": "session_meta", "model": "gpt-5.3-codex", "platform": "cli", "timestamp": ts(), "tools": []obj{}})
	for f.n < target {
		line(obj{"role": "user", "content": g.text(40 + g.rnd.IntN(300)), "timestamp": ts()})
		for s := 0; s < 1+g.rnd.IntN(6); s++ {
			call := g.id("call_", 24)
			line(obj{"role": "assistant", "content": "", "finish_reason": "tool_calls", "timestamp": ts(),
				"tool_calls": []obj{{"id": call, "call_id": call, "type": "function", "function": obj{"name": "terminal", "arguments": `{"command":"pytest -q"}`}}}})
			code := 0
			if g.rnd.IntN(10) == 0 {
				code = 1
			}
			out, _ := json.Marshal(obj{"output": g.text(g.outputSize()), "exit_code": code})
			line(obj{"role": "tool", "content": string(out), "tool_call_id": call, "timestamp": ts()})
		}
		line(obj{"role": "assistant", "content": g.text(100 + g.rnd.IntN(600)), "finish_reason": "stop", "timestamp": ts()})
	}
	n, err := f.close()
	return n, 1, err
}

func (g *generator) aider(dir string, i int, target int64) (int64, int, error) {
	f, err := create(filepath.Join(dir, fmt.Sprintf("project%d", i), ".aider.chat.history.md"))
	if err != nil {
		return 0, 0, err
	}
	t := g.start.Add(time.Duration(i) * 53 * time.Minute)
	sessions := 0
	for f.n < target {
		sessions++
		f.text(fmt.Sprintf("\n# aider chat started at %s\n\n", t.Format("2006-01-02 15:04:05")))
		t = t.Add(time.Duration(10+g.rnd.IntN(100)) * time.Minute)
		f.text(fmt.Sprintf("> /home/dev/project%d/.venv/bin/aider --model gpt-4o  \n> Aider v0.86.1  \n> Model: gpt-4o with diff edit format  \n> Git repo: .git with %d files  \n> Repo-map: using 1024 tokens, auto refresh  \n\n", i, 20+g.rnd.IntN(2000)))
		for turn := 0; turn < 1+g.rnd.IntN(10) && (turn == 0 || f.n < target); turn++ {
			f.text("#### " + strings.ReplaceAll(strings.TrimSpace(g.text(40+g.rnd.IntN(200))), "\n", " ") + "  \n\n")
			f.text(g.text(200+g.rnd.IntN(2000)) + "\n\n")
			f.text("app.py\n```python\n<<<<<<< SEARCH\n" + g.text(100) + "\n=======\n" + g.text(120) + "\n>>>>>>> REPLACE\n```\n\n")
			f.text(fmt.Sprintf("> Tokens: %.1fk sent, %d received. Cost: $0.01 message, $0.05 session.  \n> Applied edit to app.py  \n\n", 1+g.rnd.Float64()*9, 50+g.rnd.IntN(900)))
		}
	}
	n, err := f.close()
	return n, sessions, err
}
