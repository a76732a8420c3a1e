package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

const (
	codexFixture125  = "testdata/codex/rollout-2026-04-24T20-03-07-019dc116-c183-74f3-9a1b-2c3d4e5f6a7b.jsonl"
	codexFixtureBare = "testdata/codex/rollout-2025-08-10T09-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"
	codexFixtureTS   = "testdata/codex/rollout-2025-04-20-1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d.json"
)

// codexWant is what a test expects of a session's counters.
type codexWant struct {
	id            string
	user, asst    int
	tools, errs   int
	usage         lore.Usage
	outcome       lore.Outcome
	model, branch string
	repo, cwd     string
	start, end    string // RFC 3339, "" for zero
	warnings      int
}

func codexCheck(t *testing.T, s *lore.Session, w codexWant) {
	t.Helper()
	checkInvariants(t, s)
	if s.ID != w.id {
		t.Errorf("id = %q, want %q", s.ID, w.id)
	}
	if s.UserMessages != w.user || s.AssistantMessages != w.asst {
		t.Errorf("turns = %d user, %d assistant; want %d, %d", s.UserMessages, s.AssistantMessages, w.user, w.asst)
	}
	if s.ToolCalls != w.tools || s.ToolErrors != w.errs {
		t.Errorf("tools = %d calls, %d errors; want %d, %d", s.ToolCalls, s.ToolErrors, w.tools, w.errs)
	}
	if s.Usage != w.usage {
		t.Errorf("usage = %+v, want %+v", s.Usage, w.usage)
	}
	if s.Outcome != w.outcome {
		t.Errorf("outcome = %s, want %s", s.Outcome, w.outcome)
	}
	if s.Model != w.model || s.Branch != w.branch || s.Repo != w.repo || s.Cwd != w.cwd {
		t.Errorf("model/branch/repo/cwd = %q %q %q %q, want %q %q %q %q", s.Model, s.Branch, s.Repo, s.Cwd, w.model, w.branch, w.repo, w.cwd)
	}
	if got := codexRFC(s.StartedAt); got != w.start {
		t.Errorf("start = %s, want %s", got, w.start)
	}
	if got := codexRFC(s.EndedAt); got != w.end {
		t.Errorf("end = %s, want %s", got, w.end)
	}
	if s.Warnings != w.warnings {
		t.Errorf("warnings = %d (%v), want %d", s.Warnings, s.WarningSamples, w.warnings)
	}
}

func codexRFC(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// codexReadBoth reads path with and without message bodies, checks both
// give the same counters, and returns the read with bodies.
func codexReadBoth(t *testing.T, path string) *lore.Session {
	t.Helper()
	full := readOne(t, path)
	lean, err := Read(context.Background(), path, Options{NoGit: true})
	if err != nil {
		t.Fatalf("read %s without bodies: %v", path, err)
	}
	if len(lean) != 1 {
		t.Fatalf("read %s without bodies: %d sessions", path, len(lean))
	}
	l := lean[0]
	if len(l.Messages) != 0 {
		t.Errorf("messages kept without Options.Messages: %d", len(l.Messages))
	}
	lc, fc := *l, *full
	lc.Messages, fc.Messages = nil, nil
	lc.WarningSamples, fc.WarningSamples = nil, nil
	if lc.ID != fc.ID || lc.UserMessages != fc.UserMessages || lc.AssistantMessages != fc.AssistantMessages ||
		lc.ToolCalls != fc.ToolCalls || lc.ToolErrors != fc.ToolErrors || lc.Usage != fc.Usage ||
		lc.Outcome != fc.Outcome || lc.Warnings != fc.Warnings || !lc.StartedAt.Equal(fc.StartedAt) || !lc.EndedAt.Equal(fc.EndedAt) {
		t.Errorf("counters differ with and without bodies:\nlean %+v\nfull %+v", lc, fc)
	}
	return full
}

// The 0.125 fixture, worked by hand: two real user messages (the
// AGENTS.md/environment block, the developer message and the trailing
// <turn_aborted> note are injected); six model responses (reasoning+c1,
// c2, c3, c4, reasoning+final answer, c5); five calls; c2 (exit 1), c3
// (failed patch) and c4 (MCP Err) failed, the user's own failing "!cmd"
// does not count; the last total is 9000 in (6000 cached) and 700 out; the
// second task was interrupted.
var codexWant125 = codexWant{
	id: "codex:019dc116-c183-74f3-9a1b-2c3d4e5f6a7b", user: 2, asst: 6, tools: 5, errs: 3,
	usage:   lore.Usage{InputTokens: 3000, CacheReadTokens: 6000, OutputTokens: 700},
	outcome: lore.OutcomeAborted, model: "gpt-5.1-codex", branch: "compact-transcript-pi",
	repo: "entireio/external-agents", cwd: "/Users/nina/entire/external-agents",
	start: "2026-04-24T20:03:07.272Z", end: "2026-04-24T20:05:09Z",
}

func TestCodexRollout125(t *testing.T) {
	s := codexReadBoth(t, codexFixture125)
	codexCheck(t, s, codexWant125)

	// Bodies: the kept messages carry what the counters were made of.
	var results = map[string]lore.ToolResult{}
	var names []string
	var users []string
	for _, m := range s.Messages {
		for _, r := range m.ToolResults {
			results[r.CallID] = r
		}
		for _, c := range m.ToolCalls {
			names = append(names, c.Name)
		}
		if m.Role == lore.RoleUser {
			users = append(users, m.Text)
		}
	}
	if got := strings.Join(names, ","); got != "exec_command,shell,apply_patch,mcp__codex_apps__github_fetch_pr,exec_command" {
		t.Errorf("tool names = %s", got)
	}
	if len(users) != 2 || users[0] != "Add compact transcript support for Pi and run the tests." || users[1] != "Fix line 12.\n[image]" {
		t.Errorf("user texts = %q", users)
	}
	for id, want := range map[string]struct {
		err  bool
		code int // -1: none
	}{"call_c1": {false, 0}, "call_c2": {true, 1}, "call_c3": {true, -1}, "call_c4": {true, -1}} {
		r, ok := results[id]
		switch {
		case !ok:
			t.Errorf("%s: no result", id)
		case r.IsError != want.err:
			t.Errorf("%s: IsError = %v", id, r.IsError)
		case want.code < 0 && r.ExitCode != nil, want.code >= 0 && (r.ExitCode == nil || *r.ExitCode != want.code):
			t.Errorf("%s: exit code = %v, want %d", id, r.ExitCode, want.code)
		}
	}
	if r := results["call_c2"]; !strings.Contains(r.Output, "FAIL pi_test.go:12") {
		t.Errorf("call_c2 output = %q", r.Output)
	}
	last := s.Messages[len(s.Messages)-1]
	if last.Role != lore.RoleSystem || !strings.HasPrefix(last.Text, "<turn_aborted>") {
		t.Errorf("last message = %s %q, want the injected note as a system message", last.Role, last.Text)
	}
}

// A .jsonl.zst rollout reads like the plain one; a scan of a folder
// holding both lists the session once.
func TestCodexZstd(t *testing.T) {
	data, err := os.ReadFile(codexFixture125)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	name := filepath.Base(codexFixture125)
	zpath := filepath.Join(dir, name+".zst")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zpath, enc.EncodeAll(data, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	codexCheck(t, codexReadBoth(t, zpath), codexWant125)

	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || len(res.Problems) != 0 {
		t.Fatalf("scan: %d sessions, problems %v; want 1 and none", len(res.Sessions), res.Problems)
	}
	if got := filepath.Base(res.Sessions[0].Path); got != name {
		t.Errorf("scan kept %s, want the plain %s", got, name)
	}
}

// The bare era: no envelope, cwd from the environment context, the branch
// and repository from the first line. Three responses (reasoning+call_a,
// call_b, the answer), call_b exited 2 (an escaped "metadata" inside its
// output must not be taken for Codex's own).
func TestCodexBareEra(t *testing.T) {
	codexCheck(t, codexReadBoth(t, codexFixtureBare), codexWant{
		id: "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e", user: 1, asst: 3, tools: 2, errs: 1,
		outcome: lore.OutcomeSuccess, branch: "main", repo: "acme/widgets", cwd: "/home/dev/widgets",
		start: "2025-08-10T09:00:00.123Z", end: "2025-08-10T09:00:00.123Z",
	})
}

func TestCodexTypeScript(t *testing.T) {
	codexCheck(t, codexReadBoth(t, codexFixtureTS), codexWant{
		id: "codex:1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d", user: 1, asst: 2, tools: 1, errs: 1,
		outcome: lore.OutcomeSuccess, start: "2025-04-20T10:00:00Z", end: "2025-04-20T10:00:00Z",
	})
}

// Real 0.45 rollouts; the expected numbers come from an independent
// Python pass over the files with the same rules.
func TestCodexCorpus(t *testing.T) {
	dir := corpusDir(t, "codex")
	for _, tc := range []struct {
		file string
		want codexWant
	}{
		{"guideai__real-session-large_0.45.0.rollout.jsonl", codexWant{
			id: "codex:019a005e-c8fc-7512-8e78-c2322cbf0875", user: 1, asst: 19, tools: 18, errs: 0,
			usage:   lore.Usage{InputTokens: 156040 - 121216, CacheReadTokens: 121216, OutputTokens: 2912},
			outcome: lore.OutcomeSuccess, model: "gpt-5-codex", branch: "main", repo: "guideai-dev/guideai",
			cwd: "/Users/cliftonc/work/guideai", start: "2025-10-20T06:46:43.196Z", end: "2025-10-20T06:48:08.913Z",
		}},
		{"guideai__sample-codex-session_0.45.0.rollout.jsonl", codexWant{
			id: "codex:0199bb2a-4c23-76b1-bfb0-2d78295c0f29", user: 13, asst: 169, tools: 157, errs: 29,
			usage:   lore.Usage{InputTokens: 8241201 - 7535360, CacheReadTokens: 7535360, OutputTokens: 80990},
			outcome: lore.OutcomeUnknown, model: "gpt-5-codex", branch: "main", repo: "guideai-dev/guideai",
			cwd: "/Users/cliftonc/work/guideai", start: "2025-10-06T20:15:35.459Z", end: "2025-10-07T03:40:00.757Z",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			codexCheck(t, codexReadBoth(t, filepath.Join(dir, tc.file)), tc.want)
		})
	}
}

// Damage: a garbage line and a truncated last line are warnings; the rest
// is read.
func TestCodexDamaged(t *testing.T) {
	data, err := os.ReadFile(codexFixture125)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	// Insert a broken line after line 10, and cut the last line (the
	// injected <turn_aborted> note) in half.
	broken := append([]string{}, lines[:10]...)
	broken = append(broken, `{"timestamp":"2026-04-24T20:03:44.000Z","type":"response_item","payload":{"type":"function_call",`)
	broken = append(broken, lines[10:]...)
	lastLine := broken[len(broken)-1]
	broken[len(broken)-1] = lastLine[:len(lastLine)/2]
	path := writeFile(t, filepath.Base(codexFixture125), strings.Join(broken, "\n"))
	want := codexWant125
	want.warnings = 2
	want.end = "2026-04-24T20:05:09Z"
	codexCheck(t, codexReadBoth(t, path), want)
}

func codexLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const (
	codexMeta      = `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"11111111-2222-4333-8444-555555555555","cwd":"/w"}}`
	codexUser      = `{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`
	codexAnswer    = `{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}`
	codexCall      = `{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}`
	codexOutOK     = `{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nExit code: 1\n"}}`
	codexOutBad    = `{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 2\nWall time: 0.1 seconds\nOutput:\n"}}`
	codexComplete  = `{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"hello"}}`
	codexTurnDone  = `{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"turn_complete"}}`
	codexAborted   = `{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`
	codexErrEvent  = `{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"error","message":"stream disconnected"}}`
	codexStreamErr = `{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"stream_error","message":"Reconnecting... 1/5"}}`
)

func TestCodexOutcome(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  lore.Outcome
	}{
		{"answer", []string{codexMeta, codexUser, codexAnswer}, lore.OutcomeSuccess},
		{"task complete", []string{codexMeta, codexUser, codexCall, codexOutOK, codexComplete}, lore.OutcomeSuccess},
		{"turn complete alias", []string{codexMeta, codexUser, codexCall, codexOutOK, codexTurnDone}, lore.OutcomeSuccess},
		{"aborted", []string{codexMeta, codexUser, codexCall, codexAborted}, lore.OutcomeAborted},
		{"error event", []string{codexMeta, codexUser, codexErrEvent}, lore.OutcomeFailure},
		{"stream error last", []string{codexMeta, codexUser, codexAnswer, codexStreamErr}, lore.OutcomeFailure},
		{"stream error then answer", []string{codexMeta, codexUser, codexStreamErr, codexAnswer}, lore.OutcomeSuccess},
		{"failed tool last", []string{codexMeta, codexUser, codexCall, codexOutBad}, lore.OutcomeFailure},
		{"tool result last", []string{codexMeta, codexUser, codexCall, codexOutOK}, lore.OutcomeUnknown},
		{"call in flight", []string{codexMeta, codexUser, codexCall}, lore.OutcomeUnknown},
		{"new question after completion", []string{codexMeta, codexUser, codexAnswer, codexComplete, codexUser}, lore.OutcomeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := readOne(t, writeFile(t, "rollout.jsonl", codexLines(tc.lines...)))
			checkInvariants(t, s)
			if s.Outcome != tc.want {
				t.Errorf("outcome = %s, want %s", s.Outcome, tc.want)
			}
		})
	}
}

// The "Exit code: 1" after "Output:" above is the command's output, not
// Codex's header: only c1's own header counts.
func TestCodexOutputHeaderOnly(t *testing.T) {
	s := readOne(t, writeFile(t, "rollout.jsonl", codexLines(codexMeta, codexUser, codexCall, codexOutOK)))
	if s.ToolCalls != 1 || s.ToolErrors != 0 {
		t.Errorf("tools = %d, errors = %d; want 1, 0", s.ToolCalls, s.ToolErrors)
	}
}

// A running total that drops (a resumed process counting from zero again)
// keeps what came before it.
func TestCodexTokenReset(t *testing.T) {
	tok := func(in, cached, out int) string {
		return `{"timestamp":"2026-01-01T00:00:09Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":` +
			strconv.Itoa(in) + `,"cached_input_tokens":` + strconv.Itoa(cached) + `,"output_tokens":` + strconv.Itoa(out) + `},"last_token_usage":{}}}}`
	}
	s := readOne(t, writeFile(t, "rollout.jsonl", codexLines(codexMeta, codexUser, codexAnswer,
		tok(100, 40, 10), tok(300, 100, 30), tok(300, 100, 30), // repeated total: once
		codexUser, codexAnswer, tok(50, 0, 5), tok(80, 20, 9))))
	want := lore.Usage{InputTokens: (300 + 80) - (100 + 20), CacheReadTokens: 120, OutputTokens: 39}
	if s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
}

func TestCodexTextFailed(t *testing.T) {
	one, two, zero, n124 := 1, 2, 0, 124
	for _, tc := range []struct {
		text string
		bad  bool
		code *int // nil: none named
	}{
		{`{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.1}}`, false, &zero},
		{`{"output":"x","metadata":{"exit_code":124,"duration_seconds":12}}`, true, &n124},
		{`{"output":"\"metadata\":{\"exit_code\":1}","metadata":{"exit_code":0}}`, false, &zero},
		{`{"output":"no metadata"}`, false, nil},
		{"Exit code: 1\nWall time: 0.2 seconds\nOutput:\n", true, &one},
		{"Chunk ID: ab\nWall time: 0.01 seconds\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nx", true, &two},
		{"Chunk ID: ab\nWall time: 0.01 seconds\nProcess running with session ID 7\nOutput:\nProcess exited with code 9", false, nil},
		{"failed in sandbox: permission denied", true, nil},
		{"Total output lines: 282\n\nfailed in sandbox: stderr | x", true, nil},
		{"apply_patch verification failed: Failed to find expected lines", true, nil},
		{"Plan updated", false, nil},
		{"exec command rejected by user", false, nil},
		{"", false, nil},
	} {
		var p fastjson.Parser
		bad, code, ok := codexTextFailed([]byte(tc.text), &p)
		if bad != tc.bad || ok != (tc.code != nil) || ok && code != *tc.code {
			t.Errorf("%q: got %v %d %v, want %v %v", tc.text, bad, code, ok, tc.bad, tc.code)
		}
	}
}

func TestCodexInjected(t *testing.T) {
	for text, want := range map[string]bool{
		"<environment_context>\n<cwd>/tmp</cwd>\n</environment_context>":      true,
		"  <user_instructions>be nice</user_instructions>":                    true,
		"# AGENTS.md instructions for /tmp\n\n<INSTRUCTIONS>x</INSTRUCTIONS>": true,
		"<permissions instructions>\nsandbox\n</permissions instructions>":    true,
		"<SUBAGENT_NOTIFICATION>{}</SUBAGENT_NOTIFICATION>":                   true,
		"<turn_aborted>\ninterrupted\n</turn_aborted>":                        true,
		"<div>render this</div>":                                              false,
		"Fix the <cwd> handling":                                              false,
		"# AGENTS.md is wrong, fix it":                                        false,
		"<":                                                                   false,
	} {
		if got := codexInjected([]byte(text)); got != want {
			t.Errorf("%q: injected = %v, want %v", text, got, want)
		}
	}
}

// Other agents' first lines are not Codex's, and a rollout with nothing
// said is no transcript.
func TestCodexSniff(t *testing.T) {
	var p fastjson.Parser
	for _, line := range []string{
		`{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}`,
		`{"sessionId":"a","projectHash":"b","startTime":"2026-01-01T00:00:00Z"}`,
		`{"id":"u1","timestamp":"2026-01-01T00:00:00Z","type":"user","content":"hi"}`,
		`{"id":0,"timestamp":"2025-02-01T00:14:10.787622","source":"user","message":"hi","action":"message"}`,
		`{"role": "session_meta", "model": "gpt-5", "timestamp": "2026-05-15T20:18:00"}`,
		`{"type":"message","role":"user","content":"hi"}`,
	} {
		v, err := p.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if sniffCodex("x.jsonl", v) {
			t.Errorf("codex claims %s", line)
		}
	}
	_, err := Read(context.Background(), writeFile(t, "rollout.jsonl", codexLines(codexMeta)), Options{NoGit: true})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("meta-only rollout: err = %v, want ErrEmpty", err)
	}
}

func TestCodexRoots(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", GOOS: "linux", Getenv: func(k string) string { return vars[k] }}
	}
	got := codexRoots(env(nil))
	if len(got) != 2 || got[0].Path != "/home/u/.codex/sessions" || got[1].Path != "/home/u/.codex/archived_sessions" || got[0].Source != "default" {
		t.Errorf("default roots = %+v", got)
	}
	got = codexRoots(env(map[string]string{"CODEX_HOME": "/data/codex"}))
	if len(got) != 2 || got[0].Path != "/data/codex/sessions" || got[1].Path != "/data/codex/archived_sessions" || got[0].Source != "CODEX_HOME" {
		t.Errorf("CODEX_HOME roots = %+v", got)
	}
}

func FuzzCodex(f *testing.F) {
	for _, pattern := range []string{"testdata/codex/*", "../../shared/corpus/codex/*.jsonl"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(codexLines(codexMeta, codexUser, codexCall, codexOutBad, codexAborted)))
	f.Add([]byte(codexLines(codexMeta, `{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-5}}}}`)))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "rollout-2026-01-01T00-00-00-11111111-2222-4333-8444-555555555555.jsonl", data)
	})
}

// codexBenchRead reads path repeatedly with counters only, as listing
// does.
func codexBenchRead(b *testing.B, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	b.SetBytes(fi.Size())
	in := &input{opts: Options{NoGit: true}}
	for i := 0; i < b.N; i++ {
		in.path, in.size = path, fi.Size()
		if err := readFile(context.Background(), in, func(*lore.Session) {}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCodex(b *testing.B) {
	codexBenchRead(b, "../../shared/corpus/codex/guideai__sample-codex-session_0.45.0.rollout.jsonl")
}
