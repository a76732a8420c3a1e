package transcript

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// The fixtures are cut from two real exports of the shared corpus
// (alessandrojcm/dhc-dashboard 0b_2da37a6826_2 and _0, OpenCode 1.18):
// parent.json keeps 8 of the parent session's messages, child.json 3 of
// the @docs sub-agent session it started; long strings are cut. The
// answers were counted by hand (and by a script over the JSON) from them.
const (
	ocParent = "testdata/opencode/parent.json"
	ocChild  = "testdata/opencode/child.json"
)

type ocWant struct {
	id, agent, model, cwd string
	user, asst            int
	calls, errs           int
	usage                 lore.Usage
	outcome               lore.Outcome
	start, end            int64 // ms
}

// parent: 1 user turn, 7 answers, 10 tool calls; a read of a missing file
// (status "error") and a bash call that exited 1 are the errors.
var ocParentWant = ocWant{
	id: "opencode:ses_fd4e13d58ffetoIsfha64XDWNj", agent: lore.AgentOpenCode, model: "x-preview-f-free",
	cwd:  "/Users/alessandrojcm/.herdr/worktrees/dhc-dashboard/worktree-silver-forest-5b5f",
	user: 1, asst: 7, calls: 10, errs: 2,
	usage:   lore.Usage{InputTokens: 25970, OutputTokens: 2746, CacheReadTokens: 563456},
	outcome: lore.OutcomeSuccess, start: 1787429831335, end: 1787433735165,
}

// child: 1 user turn (the task prompt), 2 answers, 3 web tool calls.
var ocChildWant = ocWant{
	id: "opencode:ses_fd4c895f0ffe6gKgxHiEgiQCcd", agent: lore.AgentOpenCode, model: "minimax-m3",
	cwd:  "/Users/alessandrojcm/.herdr/worktrees/dhc-dashboard/worktree-silver-forest-5b5f",
	user: 1, asst: 2, calls: 3, errs: 0,
	usage:   lore.Usage{InputTokens: 18408, OutputTokens: 1325, CacheReadTokens: 32000},
	outcome: lore.OutcomeSuccess, start: 1787431447055, end: 1787431488783,
}

// folded is the parent with the child's calls, errors and tokens, and
// none of its turns.
func (w ocWant) folded(c ocWant) ocWant {
	w.calls += c.calls
	w.errs += c.errs
	w.usage.Add(c.usage)
	return w
}

func checkOC(t *testing.T, s *lore.Session, w ocWant) {
	t.Helper()
	checkInvariants(t, s)
	if s.ID != w.id || s.Agent != w.agent || s.Model != w.model || s.Cwd != w.cwd {
		t.Errorf("id %q agent %q model %q cwd %q; want %q %q %q %q", s.ID, s.Agent, s.Model, s.Cwd, w.id, w.agent, w.model, w.cwd)
	}
	if s.UserMessages != w.user || s.AssistantMessages != w.asst || s.ToolCalls != w.calls || s.ToolErrors != w.errs {
		t.Errorf("user %d asst %d calls %d errors %d; want %d %d %d %d",
			s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors, w.user, w.asst, w.calls, w.errs)
	}
	if s.Usage != w.usage {
		t.Errorf("usage %+v, want %+v", s.Usage, w.usage)
	}
	if s.Outcome != w.outcome {
		t.Errorf("outcome %s, want %s", s.Outcome, w.outcome)
	}
	if s.StartedAt.UnixMilli() != w.start || s.EndedAt.UnixMilli() != w.end {
		t.Errorf("times %d..%d, want %d..%d", s.StartedAt.UnixMilli(), s.EndedAt.UnixMilli(), w.start, w.end)
	}
}

func TestOpenCodeExport(t *testing.T) {
	for _, keep := range []bool{true, false} {
		// The parent named alone takes in its sub-agent's export beside it.
		ss, err := Read(context.Background(), ocParent, Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("parent: %v, %d sessions", err, len(ss))
		}
		checkOC(t, ss[0], ocParentWant.folded(ocChildWant))
		// A sub-agent export named alone is a session of its own.
		ss, err = Read(context.Background(), ocChild, Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("child: %v, %d sessions", err, len(ss))
		}
		checkOC(t, ss[0], ocChildWant)
	}
}

// Walking the folder, the child is folded into its parent and not listed
// (nor reported) on its own.
func TestOpenCodeExportFolder(t *testing.T) {
	res, err := Scan(context.Background(), []string{"testdata/opencode"}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 || len(res.Sessions) != 1 {
		t.Fatalf("problems %v, %d sessions", res.Problems, len(res.Sessions))
	}
	checkOC(t, res.Sessions[0], ocParentWant.folded(ocChildWant))
}

// The bodies: tool calls with their inputs, results with outputs, the
// failed read, the bash exit code, sub-agent messages as sidechain.
func TestOpenCodeMessages(t *testing.T) {
	s := readOne(t, ocParent)
	var readErr, exit1, side bool
	for _, m := range s.Messages {
		side = side || m.Sidechain
		for _, r := range m.ToolResults {
			if r.IsError && strings.HasPrefix(r.Output, "File not found:") {
				readErr = true
			}
			if r.IsError && r.ExitCode != nil && *r.ExitCode == 1 {
				exit1 = true
			}
		}
	}
	if !readErr || !exit1 || !side {
		t.Errorf("failed read %v, bash exit 1 %v, sidechain %v", readErr, exit1, side)
	}
	if s.Messages[0].Role != lore.RoleUser || !strings.Contains(s.Messages[0].Text, "spec") {
		t.Errorf("first message %s %.60q", s.Messages[0].Role, s.Messages[0].Text)
	}
}

// ocExport is an export as the test reads it back.
type ocExport struct {
	Info     map[string]any `json:"info"`
	Messages []struct {
		Info  map[string]any   `json:"info"`
		Parts []map[string]any `json:"parts"`
	} `json:"messages"`
}

func loadOCExport(t testing.TB, path string) ocExport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e ocExport
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ocStorage lays the fixture exports out as OpenCode's JSON storage
// writes them (session/<projectID>/<id>.json, message/<sessionID>/
// <id>.json, part/<messageID>/<id>.json) under dir/storage.
func ocStorage(t testing.TB, dir string) string {
	storage := filepath.Join(dir, "storage")
	for _, f := range []string{ocParent, ocChild} {
		e := loadOCExport(t, f)
		sid := e.Info["id"].(string)
		writeJSON(t, filepath.Join(storage, "session", e.Info["projectID"].(string), sid+".json"), e.Info)
		for _, m := range e.Messages {
			mid := m.Info["id"].(string)
			writeJSON(t, filepath.Join(storage, "message", sid, mid+".json"), m.Info)
			for _, p := range m.Parts {
				writeJSON(t, filepath.Join(storage, "part", mid, p["id"].(string)+".json"), p)
			}
		}
	}
	writeJSON(t, filepath.Join(storage, "migration"), 2)
	return storage
}

func TestOpenCodeStorage(t *testing.T) {
	storage := ocStorage(t, t.TempDir())
	for _, keep := range []bool{true, false} {
		ss, err := Read(context.Background(), storage, Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("storage: %v, %d sessions", err, len(ss))
		}
		checkOC(t, ss[0], ocParentWant.folded(ocChildWant))
	}
	// A session file named alone reads its messages from the folders
	// beside it, and its sub-agents'.
	file := filepath.Join(storage, "session", "b56e6179f69f740273614dd8e3c2bcdf1ad94c3a", "ses_fd4e13d58ffetoIsfha64XDWNj.json")
	checkOC(t, readOne(t, file), ocParentWant.folded(ocChildWant))
	// Walking the data folder finds the storage as one input.
	res, err := Scan(context.Background(), []string{filepath.Dir(storage)}, Options{NoGit: true})
	if err != nil || len(res.Sessions) != 1 || len(res.Problems) != 0 || res.Inputs != 1 {
		t.Fatalf("scan: %v, %d sessions, %d inputs, %v", err, len(res.Sessions), res.Inputs, res.Problems)
	}
	// Kilo's data folder: the same storage, agent kilo-code.
	kilo := ocStorage(t, filepath.Join(t.TempDir(), "kilo"))
	s := readOne(t, kilo)
	if s.Agent != lore.AgentKiloCode || s.ID != "kilo-code:ses_fd4e13d58ffetoIsfha64XDWNj" {
		t.Errorf("kilo storage: agent %s id %s", s.Agent, s.ID)
	}
}

// A damaged message or part file is a warning; the rest is read.
func TestOpenCodeStorageDamage(t *testing.T) {
	storage := ocStorage(t, t.TempDir())
	msgs, _ := filepath.Glob(filepath.Join(storage, "message", "ses_fd4c895f0ffe6gKgxHiEgiQCcd", "*.json"))
	if len(msgs) != 3 {
		t.Fatalf("%d child messages", len(msgs))
	}
	// The child's first message (the user's task) is cut short.
	if err := os.WriteFile(msgs[0], []byte(`{"role":"user","ti`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := readOne(t, storage)
	if s.Warnings != 1 {
		t.Errorf("warnings %d, want 1 (%v)", s.Warnings, s.WarningSamples)
	}
	checkOC(t, s, ocParentWant.folded(ocChildWant))
}

// ocDB writes the fixture exports into a database with OpenCode's tables
// (packages/opencode/src/session/session.sql.ts, as drizzle creates them).
func ocDB(t testing.TB, path string) {
	db := sqlitedbExec(t, path,
		"CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL)",
		"CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_archived` integer)",
		"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)",
		"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)",
		"CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL)",
		ocIndexes,
	)
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	strip := func(m map[string]any, keys ...string) string {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		for _, k := range keys {
			delete(c, k)
		}
		data, _ := json.Marshal(c)
		return string(data)
	}
	for _, f := range []string{ocParent, ocChild} {
		e := loadOCExport(t, f)
		i := e.Info
		tm := i["time"].(map[string]any)
		parent, _ := i["parentID"].(string)
		exec("INSERT OR IGNORE INTO project VALUES (?, ?, 0, 0)", i["projectID"], i["directory"])
		exec("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)",
			i["id"], i["projectID"], sql.NullString{String: parent, Valid: parent != ""}, i["slug"], i["directory"], i["title"], i["version"], tm["created"], tm["updated"])
		for _, m := range e.Messages {
			mt := m.Info["time"].(map[string]any)["created"]
			exec("INSERT INTO message VALUES (?,?,?,?,?)", m.Info["id"], i["id"], mt, mt, strip(m.Info, "id", "sessionID"))
			for _, p := range m.Parts {
				exec("INSERT INTO part VALUES (?,?,?,?,?,?)", p["id"], m.Info["id"], i["id"], mt, mt, strip(p, "id", "messageID", "sessionID"))
			}
		}
	}
}

// ocIndexes are OpenCode's indexes of the message and part tables.
const ocIndexes = "CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`, `time_created`, `id`); " +
	"CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`, `id`); CREATE INDEX `part_session_idx` ON `part` (`session_id`)"

func TestOpenCodeDB(t *testing.T) {
	for _, tt := range []struct{ name, agent string }{{"opencode.db", lore.AgentOpenCode}, {"kilo.db", lore.AgentKiloCode}, {"opencode-dev.db", lore.AgentOpenCode}} {
		path := filepath.Join(t.TempDir(), tt.name)
		ocDB(t, path)
		for _, keep := range []bool{true, false} {
			ss, err := Read(context.Background(), path, Options{Messages: keep, NoGit: true})
			if err != nil || len(ss) != 1 {
				t.Fatalf("%s: %v, %d sessions", tt.name, err, len(ss))
			}
			w := ocParentWant.folded(ocChildWant)
			w.agent, w.id = tt.agent, tt.agent+":ses_fd4e13d58ffetoIsfha64XDWNj"
			checkOC(t, ss[0], w)
		}
	}
}

// A message whose data is not JSON is a warning; the rest is read.
func TestOpenCodeDBDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	ocDB(t, path)
	db := sqlitedbExec(t, path, "UPDATE message SET data = '{\"role\":' WHERE id = (SELECT id FROM message WHERE session_id = 'ses_fd4c895f0ffe6gKgxHiEgiQCcd' ORDER BY id LIMIT 1)")
	db.Close()
	s := readOne(t, path)
	if s.Warnings != 1 {
		t.Errorf("warnings %d, want 1", s.Warnings)
	}
	checkOC(t, s, ocParentWant.folded(ocChildWant))
}

// A damaged export entry is a warning; a truncated export is no session.
func TestOpenCodeExportDamage(t *testing.T) {
	data, err := os.ReadFile(ocChild)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"messages": [`, `"messages": [7, {"parts": []},`, 1)
	s := readOne(t, writeFile(t, "x.json", bad))
	if s.Warnings != 2 {
		t.Errorf("warnings %d, want 2", s.Warnings)
	}
	checkOC(t, s, ocChildWant)
	if _, err := Read(context.Background(), writeFile(t, "y.json", string(data[:len(data)/2])), Options{}); err == nil {
		t.Error("a truncated export read without error")
	}
	empty := `{"info":{"id":"ses_1","projectID":"p","directory":"/w","time":{"created":1787431447055}},"messages":[]}`
	if _, err := Read(context.Background(), writeFile(t, "z.json", empty), Options{}); err == nil {
		t.Error("an export with no messages read without error")
	}
}

// Tool error rules: status "error" counts, an aborted call does not and
// makes the outcome aborted; a bash call's non-zero exit counts.
func TestOpenCodeToolErrors(t *testing.T) {
	tool := func(id, tool, state string) string {
		return `{"type":"tool","tool":"` + tool + `","callID":"` + id + `","state":` + state + `}`
	}
	doc := `{"info":{"id":"ses_t","projectID":"p","directory":"/w","time":{"created":1787431447055,"updated":1787431447999}},"messages":[
{"info":{"id":"m1","role":"user","time":{"created":1787431447060}},"parts":[{"type":"text","text":"run it"}]},
{"info":{"id":"m2","role":"assistant","modelID":"m","path":{"cwd":"/w"},"time":{"created":1787431447100},"finish":"tool-calls","tokens":{"input":10,"output":2,"reasoning":3,"cache":{"read":5,"write":7}}},"parts":[` +
		tool("c1", "bash", `{"status":"completed","input":{"command":"make"},"output":"err","metadata":{"exit":2}}`) + `,` +
		tool("c2", "bash", `{"status":"completed","input":{"command":"ls"},"output":"ok","metadata":{"exit":0}}`) + `,` +
		tool("c3", "edit", `{"status":"error","input":{},"error":"oldString not found"}`) + `,` +
		tool("c3", "edit", `{"status":"error","input":{},"error":"oldString not found"}`) + `,` +
		`{"type":"step-finish","tokens":{"input":4,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}]},
{"info":{"id":"m3","role":"user","time":{"created":1787431447200}},"parts":[{"type":"text","text":"note","synthetic":true}]},
{"info":{"id":"m4","role":"assistant","modelID":"m","time":{"created":1787431447300},"error":{"name":"MessageAbortedError","data":{"message":"Aborted"}},"tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}},"parts":[` +
		tool("c4", "bash", `{"status":"error","input":{},"error":"Tool execution aborted"}`) + `]}]}`
	for _, keep := range []bool{true, false} {
		ss, err := Read(context.Background(), writeFile(t, "t.json", doc), Options{Messages: keep, NoGit: true})
		if err != nil || len(ss) != 1 {
			t.Fatal(err)
		}
		s := ss[0]
		checkInvariants(t, s)
		if s.UserMessages != 1 || s.AssistantMessages != 2 || s.ToolCalls != 4 || s.ToolErrors != 2 || s.Outcome != lore.OutcomeAborted {
			t.Errorf("user %d asst %d calls %d errors %d outcome %s", s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors, s.Outcome)
		}
		// One step-finish: the message's own tokens, reasoning as output.
		if want := (lore.Usage{InputTokens: 11, OutputTokens: 6, CacheReadTokens: 5, CacheWriteTokens: 7}); s.Usage != want {
			t.Errorf("usage %+v, want %+v", s.Usage, want)
		}
		if !s.EndedAt.Equal(time.UnixMilli(1787431447999)) {
			t.Errorf("end %v", s.EndedAt)
		}
	}
}

// Kilo Code's VS Code extension writes Roo Code's task folders under its
// own globalStorage folder: the Cline reader reads them as kilo-code.
func TestKiloCodeExtension(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Code", "User", "globalStorage", "kilocode.kilo-code", "tasks", "0d2c6f1e-5b7a-4c1e-9a33-2f7f0c3e8b11")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(clineRooTask, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := readOne(t, dir)
	if s.Agent != lore.AgentKiloCode || s.ID != "kilo-code:0d2c6f1e-5b7a-4c1e-9a33-2f7f0c3e8b11" {
		t.Errorf("agent %s id %s", s.Agent, s.ID)
	}
	if s.UserMessages != 3 || s.AssistantMessages != 5 || s.ToolCalls != 5 || s.ToolErrors != 1 {
		t.Errorf("user %d asst %d calls %d errors %d", s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolErrors)
	}
}

func TestOpenCodeRoots(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string { return vars[k] }}
	}
	paths := func(rs []Root) map[string]string {
		out := map[string]string{}
		for _, r := range rs {
			out[r.Path] = r.Agent
		}
		return out
	}
	got := paths(opencodeRoots(env(nil)))
	for path, agent := range map[string]string{
		"/home/u/.local/share/opencode/storage":                                   lore.AgentOpenCode,
		"/home/u/.local/share/opencode/opencode.db":                               lore.AgentOpenCode,
		"/home/u/.local/share/kilo/kilo.db":                                       lore.AgentKiloCode,
		"/home/u/.config/Code/User/globalStorage/kilocode.kilo-code/tasks":        lore.AgentKiloCode,
		"/home/u/.kilocode/cli/global/tasks":                                      lore.AgentKiloCode,
		"/home/u/.vscode-server/data/User/globalStorage/kilocode.kilo-code/tasks": lore.AgentKiloCode,
	} {
		if got[path] != agent {
			t.Errorf("no %s root %s", agent, path)
		}
	}
	got = paths(opencodeRoots(env(map[string]string{"XDG_DATA_HOME": "/d", "OPENCODE_DB": "/x/oc.db", "KILO_DB": "k.db"})))
	for _, p := range []string{"/d/opencode/storage", "/x/oc.db", "/d/kilo/k.db", "/d/kilo/storage"} {
		if got[p] == "" {
			t.Errorf("no root %s in %v", p, got)
		}
	}
	mac := Env{Home: "/Users/u", GOOS: "darwin"}
	if got := paths(opencodeRoots(mac)); got["/Users/u/.local/share/opencode/opencode.db"] == "" ||
		got["/Users/u/Library/Application Support/Code/User/globalStorage/kilocode.kilo-code/tasks"] == "" {
		t.Errorf("darwin roots %v", got)
	}
}

func FuzzOpenCode(f *testing.F) {
	for _, file := range []string{ocParent, ocChild} {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"info":{"id":"ses_1","slug":"x"},"messages":[{"info":{"role":"assistant","tokens":{"cache":1}},"parts":[{"type":"tool","state":{"status":"error"}},{"type":"step-finish"},{"type":"step-finish","tokens":[]}]}]}`))
	f.Add([]byte(`{"id":"ses_1","projectID":"p","time":{"created":1}}`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "export.json", data)
	})
}

// Both files named: the child is folded, not listed nor reported; the
// child named alone is its own session (TestOpenCodeExport).
func TestOpenCodeExportBothNamed(t *testing.T) {
	res, err := Scan(context.Background(), []string{ocChild, ocParent}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 || len(res.Sessions) != 1 {
		t.Fatalf("problems %v, %d sessions", res.Problems, len(res.Sessions))
	}
	checkOC(t, res.Sessions[0], ocParentWant.folded(ocChildWant))
}

// Older versions kept each step's tokens on its step-finish part and only
// the last on the message: several steps count their sum.
func TestOpenCodeSteps(t *testing.T) {
	step := func(in int) string {
		return fmt.Sprintf(`{"type":"step-finish","tokens":{"input":%d,"output":1,"reasoning":1,"cache":{"read":2,"write":3}}}`, in)
	}
	doc := `{"info":{"id":"ses_s","projectID":"p","directory":"/w","time":{"created":1787431447055}},"messages":[
{"info":{"id":"m1","role":"user","time":{"created":1787431447060}},"parts":[{"type":"text","text":"go"}]},
{"info":{"id":"m2","role":"assistant","modelID":"m","finish":"stop","time":{"created":1787431447100},"tokens":{"input":30,"output":1,"reasoning":1,"cache":{"read":2,"write":3}}},"parts":[` +
		step(10) + `,` + step(20) + `,` + step(30) + `,{"type":"text","text":"done"}]}]}`
	s := readOne(t, writeFile(t, "s.json", doc))
	if want := (lore.Usage{InputTokens: 60, OutputTokens: 6, CacheReadTokens: 6, CacheWriteTokens: 9}); s.Usage != want {
		t.Errorf("usage %+v, want %+v", s.Usage, want)
	}
	if s.Outcome != lore.OutcomeSuccess {
		t.Errorf("outcome %s", s.Outcome)
	}
}

// TestOpenCodeCorpusProjects reads every opencode-json file of the shared
// corpus-projects (when present): each named alone is one session with
// turns, times and no damage; read together, every file is a session or
// a sub-agent folded into its parent, with no problem.
func TestOpenCodeCorpusProjects(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpus-projects")
	data, err := os.ReadFile(filepath.Join(root, "SOURCES.tsv"))
	if err != nil {
		t.Skipf("no shared corpus-projects: %v", err)
	}
	var files []string
	ids := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) > 6 && f[5] == "opencode-json" {
			files = append(files, filepath.Join(root, f[0]))
			ids[f[6]] = true
		}
	}
	if len(files) == 0 {
		t.Skip("no opencode-json files")
	}
	for _, f := range files {
		s := readOne(t, f)
		checkInvariants(t, s)
		if s.Agent != lore.AgentOpenCode || s.UserMessages < 1 || s.AssistantMessages < 1 || s.StartedAt.IsZero() || s.Warnings != 0 || s.Model == "" {
			t.Errorf("%s: agent %s, %d user, %d assistant, start %v, %d warnings, model %q",
				f, s.Agent, s.UserMessages, s.AssistantMessages, s.StartedAt, s.Warnings, s.Model)
		}
	}
	res, err := Scan(context.Background(), files, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems: %v", res.Problems)
	}
	folded := 0
	for _, f := range files {
		if res.Held[f] == 0 {
			folded++
		}
	}
	if len(res.Sessions)+folded != len(ids) {
		t.Errorf("%d sessions and %d folded files for %d sessions in SOURCES.tsv", len(res.Sessions), folded, len(ids))
	}
	t.Logf("%d files: %d sessions, %d sub-agent files folded into their parent", len(files), len(res.Sessions), folded)
}

// A damaged page of the session table costs the sessions on it; one of
// the message table, the messages on it (a warning on their sessions).
func TestOpenCodeDamagedDB(t *testing.T) {
	const n = 300
	for _, table := range []string{"session", "message"} {
		t.Run(table, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "opencode.db")
			db := sqlitedbExec(t, path,
				"CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL)",
				"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)",
				"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)",
				ocIndexes)
			pad := strings.Repeat("p", 300)
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				sid, at := fmt.Sprintf("ses_%04d", i), 1787431447055+int64(i)*1000
				exec := func(q string, args ...any) {
					if _, err := tx.Exec(q, args...); err != nil {
						t.Fatal(err)
					}
				}
				exec("INSERT INTO session VALUES (?, 'p', NULL, 's', '/w', ?, '1.2.16', ?, ?)", sid, pad, at, at)
				exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", "msg_u"+sid, sid, at, at, `{"role":"user","time":{"created":`+fmt.Sprint(at)+`},"pad":"`+pad+`"}`)
				exec("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", "prt_u"+sid, "msg_u"+sid, sid, at, at, `{"type":"text","text":"go"}`)
				exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", "msg_a"+sid, sid, at+1, at+1, `{"role":"assistant","modelID":"m","finish":"stop","time":{"created":`+fmt.Sprint(at+1)+`},"pad":"`+pad+`"}`)
				exec("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", "prt_a"+sid, "msg_a"+sid, sid, at+1, at+1, `{"type":"text","text":"done"}`)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			lost := damagePages(t, db, path, table)
			res, err := Scan(context.Background(), []string{path}, Options{NoGit: true})
			if err != nil {
				t.Fatal(err)
			}
			turns, warned := 0, 0
			for _, s := range res.Sessions {
				turns += s.MessageCount()
				if s.Warnings > 0 {
					warned++
				}
			}
			switch table {
			case "session":
				if want := n - lost["session"]; len(res.Sessions) != want || turns != 2*want {
					t.Errorf("%d sessions, %d turns; want %d, %d", len(res.Sessions), turns, want, 2*want)
				}
				if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Err.Error(), "damaged") {
					t.Errorf("problems %v, want one saying the database is damaged", res.Problems)
				}
			case "message":
				if len(res.Sessions) < n-lost["message"] || turns < 2*n-lost["message"] || warned == 0 {
					t.Errorf("%d sessions, %d turns, %d warned; %d messages were on the damaged page", len(res.Sessions), turns, warned, lost["message"])
				}
			}
		})
	}
}
