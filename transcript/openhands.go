package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// OpenHands (FORMATS.md section 5) writes four shapes, all read here:
//
//   - V0 trajectory export (save_trajectory_path, the UI's download): a JSON
//     array of event dicts, or {"trajectory": [event…]}; native id from the
//     file name.
//   - V0 event folders: <file store>/sessions/<sid>/events/<id>.json, one
//     event a file, beside metadata.json (multi-user servers nest them under
//     users/<uid>/conversations/<sid>/). The conversation folder is one
//     transcript, and so is its events/ folder when named alone; the native
//     id is <sid>, the conversation folder's name.
//   - Evaluation output.jsonl: one benchmark instance a line, {instance_id,
//     instruction, instance, metadata, history:[event…], metrics, error,
//     test_result}; each line is its own session, native id = instance_id.
//   - V1 (software-agent-sdk, CLI 1.x): <conversation hex>/base_state.json
//     and events/event-NNNNN-<uuid>.json; native id = the conversation
//     folder's name (the id in hex, as the CLI names the folder).
//
// Counting rules (V0 events; V1 in brackets):
//   - user turns are "message" actions from the user [MessageEvent with
//     role user];
//   - assistant turns are model responses: an agent "message" action, or
//     the tool-running actions of one response, merged by the response id of
//     tool_call_metadata.model_response [ActionEvents and MessageEvents
//     merged by llm_response_id]; "system", "recall" and state-change actions
//     are not turns;
//   - tool calls are agent actions carrying tool_call_metadata (finish and
//     think included: they are function calls of the model), and actions
//     that run tools without it (run, read, edit, browse, … from builds
//     before function calling), each tool_call_id once [ActionEvent, each
//     tool_call_id once];
//   - a tool error is an "error" observation answering a call (one with no
//     call to answer, written by the agent, is a call OpenHands rejected
//     before running it and counts as a call and an error; one reporting that
//     the user stopped the agent does not count), or a non-zero exit code in
//     extras.metadata.exit_code or extras.exit_code; -1, a command still
//     running at its timeout, counts, as OpenHands' own "success": false
//     says [an ObservationEvent with observation.is_error or a non-zero
//     exit_code, or an AgentErrorEvent]; each call once;
//   - tokens are the last llm_metrics.accumulated_token_usage (a running
//     total, so the last one, not a sum), or metrics.accumulated_token_usage
//     of an evaluation line, else the usage of each distinct model response
//     [the sum over base_state stats.usage_to_metrics, one entry per LLM];
//     prompt_tokens includes cached tokens, so input = prompt − cache read −
//     cache write;
//   - timestamps are naive local ISO times, read in time.Local;
//   - cwd is the working_dir of the first command (not the sandbox mount
//     /workspace itself) [base_state workspace.working_dir]; the repository
//     is metadata.json selected_repository or an evaluation's instance.repo.
//
// Outcome: an evaluation line with an error is failure, with a boolean
// test_result resolved, that verdict. Otherwise the last agent state: error
// and rejected are failure; stopped, paused and user_rejected are aborted;
// finished and awaiting_user_input are success, unless the finish action
// said task_completed "false" or "partial" (failure); without any state, a
// finish action decides, else a last agent message is success; anything
// else is unknown [base_state execution_status, else the last
// ConversationStateUpdateEvent: finished is success; error and stuck are
// failure; paused is aborted; without a status a ConversationErrorEvent is
// failure, a finish action or a last agent message success].

// openhandsRoots: the V0 file store is file_store_path, "~/.openhands" in
// All-Hands-AI/OpenHands openhands/core/config/openhands_config.py (set
// from $FILE_STORE_PATH by load_from_env in core/config/utils.py, which maps
// every field to its upper-case name; early builds defaulted to
// /tmp/openhands_file_store), holding sessions/ and, on multi-user servers,
// users/ (openhands/storage/locations.py). The V1 CLI writes
// $OPENHANDS_CONVERSATIONS_DIR, else $OPENHANDS_PERSISTENCE_DIR/conversations,
// else ~/.openhands/conversations (OpenHands/OpenHands-CLI
// openhands_cli/locations.py). The same on Linux and macOS.
func openhandsRoots(e Env) []Root {
	var out []Root
	store, src := e.home(".openhands"), "default"
	if v := e.get("FILE_STORE_PATH"); v != "" {
		store, src = openhandsExpand(e, v), "FILE_STORE_PATH"
	}
	out = append(out,
		Root{Agent: lore.AgentOpenHands, Path: filepath.Join(store, "sessions"), Source: src},
		Root{Agent: lore.AgentOpenHands, Path: filepath.Join(store, "users"), Source: src},
	)
	if src == "default" {
		out = append(out, Root{Agent: lore.AgentOpenHands, Path: filepath.Join(string(filepath.Separator), "tmp", "openhands_file_store", "sessions"), Source: "default"})
	}
	switch {
	case e.get("OPENHANDS_CONVERSATIONS_DIR") != "":
		out = append(out, Root{Agent: lore.AgentOpenHands, Path: openhandsExpand(e, e.get("OPENHANDS_CONVERSATIONS_DIR")), Source: "OPENHANDS_CONVERSATIONS_DIR"})
	case e.get("OPENHANDS_PERSISTENCE_DIR") != "":
		out = append(out, Root{Agent: lore.AgentOpenHands, Path: filepath.Join(openhandsExpand(e, e.get("OPENHANDS_PERSISTENCE_DIR")), "conversations"), Source: "OPENHANDS_PERSISTENCE_DIR"})
	default:
		out = append(out, Root{Agent: lore.AgentOpenHands, Path: e.home(".openhands", "conversations"), Source: "default"})
	}
	return out
}

// openhandsExpand expands a leading "~" of a path set in the environment.
func openhandsExpand(e Env, p string) string {
	if p == "~" {
		return e.Home
	}
	if strings.HasPrefix(p, "~/") {
		return e.home(p[2:])
	}
	return p
}

// ---------------------------------------------------------------------------
// Detection

// openhandsIsEvent reports whether v looks like a V0 event dict.
func openhandsIsEvent(v *fastjson.Value) bool {
	if v == nil || v.Type() != fastjson.TypeObject {
		return false
	}
	if !has(v, "action") && !has(v, "observation") {
		return false
	}
	return has(v, "source") && (has(v, "id") || has(v, "timestamp"))
}

// openhandsEvents returns the event list of a V0 document, or nil.
func openhandsEvents(doc *fastjson.Value) []*fastjson.Value {
	var events []*fastjson.Value
	switch doc.Type() {
	case fastjson.TypeArray:
		events = doc.GetArray()
	case fastjson.TypeObject:
		switch {
		case has(doc, "trajectory") && !has(doc, "info"):
			events = doc.GetArray("trajectory")
		case has(doc, "instance_id"):
			events = doc.GetArray("history")
		}
	}
	if len(events) == 0 {
		return nil
	}
	// The first few must all be events: other agents write arrays too.
	for i, e := range events {
		if i == 3 {
			break
		}
		if !openhandsIsEvent(e) {
			return nil
		}
	}
	return events
}

func sniffOpenHandsDoc(_ string, doc *fastjson.Value) bool {
	return openhandsEvents(doc) != nil
}

func sniffOpenHandsEvalLine(_ string, v *fastjson.Value) bool {
	if str(v, "instance_id") == "" {
		return false
	}
	h := v.Get("history")
	return h != nil && h.Type() == fastjson.TypeArray &&
		(has(v, "instruction") || has(v, "metadata") || has(v, "test_result"))
}

// matchOpenHandsV1 claims a V1 conversation folder (base_state.json beside
// events/), or an events/ folder of event-NNNNN-<uuid>.json files named on
// its own.
func matchOpenHandsV1(dir string, names map[string]bool) bool {
	if names["base_state.json"] && names["events"] {
		return true
	}
	if filepath.Base(dir) != "events" {
		return false
	}
	for n := range names {
		if _, ok := openhandsV1Index(n); ok {
			return true
		}
	}
	return false
}

// matchOpenHandsV0Dir claims a V0 conversation folder (an events/ folder
// of numbered JSON files), or such an events/ folder named on its own.
func matchOpenHandsV0Dir(dir string, names map[string]bool) bool {
	if names["base_state.json"] {
		return false
	}
	if filepath.Base(dir) == "events" && names["0.json"] {
		return true
	}
	if !names["events"] {
		return false
	}
	events := filepath.Join(dir, "events")
	if fi, err := os.Stat(filepath.Join(events, "0.json")); err == nil && fi.Mode().IsRegular() {
		return true
	}
	entries, err := os.ReadDir(events)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, ok := openhandsV0Index(e.Name()); ok && e.Type().IsRegular() {
			return true
		}
	}
	return false
}

// openhandsV0Index parses "<id>.json".
func openhandsV0Index(name string) (int, bool) {
	s, ok := strings.CutSuffix(name, ".json")
	if !ok || s == "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// openhandsV1Index parses "event-<idx>-<uuid>.json".
func openhandsV1Index(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "event-")
	if !ok || !strings.HasSuffix(s, ".json") {
		return 0, false
	}
	i := strings.IndexByte(s, '-')
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:i])
	return n, err == nil && n >= 0
}

// ---------------------------------------------------------------------------
// V0 events, shared by the trajectory export, event folders and evaluation
// lines.

// openhandsRunnable are the V0 actions that run a tool even without
// function-calling metadata (CodeAct before native tool calls).
var openhandsRunnable = map[string]bool{
	"run": true, "run_ipython": true, "read": true, "write": true, "edit": true,
	"browse": true, "browse_interactive": true, "delegate": true, "call_tool_mcp": true,
}

// openhandsNotTurns are agent actions that are no model response.
var openhandsNotTurns = map[string]bool{
	"system": true, "recall": true, "change_agent_state": true, "null": true,
	"condensation": true, "condensation_request": true, "": true,
}

type openhandsV0 struct {
	b *builder
	// calls maps an action event id to the tool call id it carries, so
	// observations that only name their cause find their call.
	calls map[int64]string

	state      string       // last agent_state_changed
	finish     lore.Outcome // verdict of the last finish action this round
	lastAnswer bool         // the last model event was a plain agent message

	acc     *lore.Usage // last accumulated_token_usage
	perResp map[string]lore.Usage

	accModel  string
	respModel string
	cwd       string
}

func newOpenHandsV0(b *builder) *openhandsV0 {
	return &openhandsV0{b: b, calls: make(map[int64]string), finish: lore.OutcomeUnknown}
}

func (r *openhandsV0) event(v *fastjson.Value) {
	if v == nil || v.Type() != fastjson.TypeObject {
		return
	}
	t := timeOf(v, "timestamp")
	r.b.at(t)
	if acc := v.Get("llm_metrics", "accumulated_token_usage"); acc != nil && acc.Type() == fastjson.TypeObject {
		u := openhandsUsage(acc)
		r.acc = &u
		if m := acc.GetStringBytes("model"); len(m) > 0 && string(m) != "default" && string(m) != r.accModel {
			r.accModel = string(m)
		}
	}
	switch {
	case has(v, "action"):
		r.action(v, t)
	case has(v, "observation"):
		r.observation(v, t)
	}
}

func (r *openhandsV0) action(v *fastjson.Value, t time.Time) {
	name := string(v.GetStringBytes("action"))
	src := string(v.GetStringBytes("source"))
	keep := r.b.keep
	args := v.Get("args")
	switch {
	case name == "message" && src == "user":
		r.finish, r.lastAnswer = lore.OutcomeUnknown, false
		m := lore.Message{Role: lore.RoleUser, Time: t}
		if keep {
			m.Text = openhandsMessageText(v)
		}
		r.b.add(m)
		return
	case name == "message" && src == "agent":
		r.lastAnswer = true
		m := lore.Message{Role: lore.RoleAssistant, Time: t}
		if keep {
			m.Text = openhandsMessageText(v)
		}
		r.b.addKeyed(r.response(v.Get("tool_call_metadata")), m)
		return
	case src != "agent":
		return // user-typed terminal commands, environment state changes
	case openhandsNotTurns[name]:
		if keep && name == "system" {
			r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: str(args, "content")})
		}
		return
	}
	r.lastAnswer = false
	tcm := v.Get("tool_call_metadata")
	callID := str(tcm, "tool_call_id")
	m := lore.Message{Role: lore.RoleAssistant, Time: t}
	if keep {
		m.Text = str(args, "thought")
	}
	if callID != "" || openhandsRunnable[name] {
		if callID == "" {
			callID = "event-" + strconv.FormatInt(integer(v, "id"), 10)
		}
		if has(v, "id") {
			r.calls[integer(v, "id")] = callID
		}
		c := lore.ToolCall{ID: callID}
		if keep {
			c.Name = str(tcm, "function_name")
			if c.Name == "" {
				c.Name = name
			}
			c.Input = raw(v, "args")
		}
		m.ToolCalls = []lore.ToolCall{c}
	}
	switch name {
	case "finish":
		r.finish = lore.OutcomeSuccess
		switch strings.ToLower(raw(args, "task_completed")) {
		case "false", "partial":
			r.finish = lore.OutcomeFailure
		}
		if keep && m.Text == "" {
			m.Text = str(args, "final_thought")
		}
	case "reject":
		r.finish = lore.OutcomeFailure
	}
	r.b.addKeyed(r.response(tcm), m)
}

func (r *openhandsV0) observation(v *fastjson.Value, t time.Time) {
	name := string(v.GetStringBytes("observation"))
	extras := v.Get("extras")
	switch name {
	case "agent_state_changed":
		if s := extras.GetStringBytes("agent_state"); len(s) > 0 {
			r.state = string(s)
		}
		return
	case "recall", "null", "agent_condensation":
		return
	}
	tcm := v.Get("tool_call_metadata")
	key := str(tcm, "tool_call_id")
	if key == "" && has(v, "cause") {
		key = r.calls[integer(v, "cause")]
	}
	isErr := false
	switch name {
	case "error":
		isErr = !strings.Contains(str(extras, "error_id"), "ACTION_NOT_EXECUTED_STOPPED")
		if key == "" {
			if !isErr || !is(v, "agent", "source") {
				return // a runtime or session error, not a tool's
			}
			key = "error-" + strconv.FormatInt(integer(v, "id"), 10)
		}
	}
	if key == "" {
		return
	}
	// The sandbox's mount point itself says nothing of the project.
	if wd := str(extras, "metadata", "working_dir"); r.cwd == "" && wd != "" && wd != "/workspace" {
		r.cwd = wd
	}
	exit := openhandsExitCode(extras)
	if exit != nil && *exit != 0 {
		isErr = true
	}
	// The call's action may be missing from a partial export; the result
	// proves the call was made.
	r.b.call(key)
	res := lore.ToolResult{CallID: key, IsError: isErr, ExitCode: exit}
	if r.b.keep {
		res.Output = contentText(v.Get("content"))
	}
	r.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}})
}

// response returns the id of the model response that produced an action,
// keeping its usage and model on the way.
func (r *openhandsV0) response(tcm *fastjson.Value) string {
	mr := tcm.Get("model_response")
	if mr == nil || mr.Type() != fastjson.TypeObject {
		return ""
	}
	id := str(mr, "id")
	if m := mr.GetStringBytes("model"); len(m) > 0 && r.respModel == "" {
		r.respModel = string(m)
	}
	if u := mr.Get("usage"); u != nil && u.Type() == fastjson.TypeObject && id != "" {
		if r.perResp == nil {
			r.perResp = make(map[string]lore.Usage)
		}
		r.perResp[id] = openhandsCompletionUsage(u)
	}
	return id
}

// outcome applies the V0 outcome rule.
func (r *openhandsV0) outcome() lore.Outcome {
	switch r.state {
	case "error", "rejected":
		return lore.OutcomeFailure
	case "stopped", "paused", "user_rejected":
		return lore.OutcomeAborted
	case "finished", "awaiting_user_input":
		if r.finish != lore.OutcomeUnknown {
			return r.finish
		}
		return lore.OutcomeSuccess
	}
	if r.finish != lore.OutcomeUnknown {
		return r.finish
	}
	if r.state == "" && r.lastAnswer {
		return lore.OutcomeSuccess
	}
	return lore.OutcomeUnknown
}

// usage returns the session's tokens: the last running total, else the
// sum of the distinct responses.
func (r *openhandsV0) usage() lore.Usage {
	if r.acc != nil {
		return *r.acc
	}
	var u lore.Usage
	for _, x := range r.perResp {
		u.Add(x)
	}
	return u
}

func (r *openhandsV0) model() string {
	if r.accModel != "" {
		return r.accModel
	}
	return r.respModel
}

// openhandsMessageText is a message action's text.
func openhandsMessageText(v *fastjson.Value) string {
	if c := v.Get("args", "content"); c != nil && c.Type() == fastjson.TypeString {
		return string(c.GetStringBytes())
	}
	return str(v, "message")
}

// openhandsUsage reads an OpenHands TokenUsage; its prompt_tokens count
// cached tokens too, which lore keeps apart.
func openhandsUsage(v *fastjson.Value) lore.Usage {
	return openhandsSplitUsage(integer(v, "prompt_tokens"), integer(v, "completion_tokens"),
		integer(v, "cache_read_tokens"), integer(v, "cache_write_tokens"))
}

// openhandsCompletionUsage reads the usage of a chat completion as
// litellm writes it.
func openhandsCompletionUsage(u *fastjson.Value) lore.Usage {
	read := integer(u, "cache_read_input_tokens")
	if read == 0 {
		read = integer(u, "prompt_tokens_details", "cached_tokens")
	}
	return openhandsSplitUsage(integer(u, "prompt_tokens"), integer(u, "completion_tokens"),
		read, integer(u, "cache_creation_input_tokens"))
}

func openhandsSplitUsage(prompt, completion, read, write int64) lore.Usage {
	in := prompt - read - write
	if in < 0 {
		in = 0
	}
	return lore.Usage{InputTokens: in, OutputTokens: completion, CacheReadTokens: read, CacheWriteTokens: write}
}

// openhandsExitCode returns an observation's exit code: extras.metadata
// (CmdOutputMetadata) in builds since 0.2x, extras.exit_code before.
func openhandsExitCode(extras *fastjson.Value) *int {
	if n := optInt(extras, "metadata", "exit_code"); n != nil {
		return n
	}
	return optInt(extras, "exit_code")
}

// ---------------------------------------------------------------------------
// V0 trajectory export

func readOpenHandsDoc(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	events := openhandsEvents(doc)
	if len(events) == 0 {
		return notTranscript("an OpenHands trajectory without events")
	}
	b := in.builder(lore.AgentOpenHands)
	r := newOpenHandsV0(b)
	for i, e := range events {
		if i&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		r.event(e)
	}
	var ev *openhandsEval
	if doc.Type() == fastjson.TypeObject && has(doc, "instance_id") {
		// One evaluation record saved on its own.
		ev = openhandsEvalFields(doc, r)
		b.setNative(str(doc, "instance_id"))
	}
	openhandsFinishV0(r, ev)
	emit(b.finish(baseID(in.path)))
	return nil
}

// openhandsFinishV0 copies what the events told onto the session. eval
// is the evaluation line the events came from, or nil.
func openhandsFinishV0(r *openhandsV0, eval *openhandsEval) {
	s := r.b.s
	s.Usage = r.usage()
	if s.Model == "" {
		s.Model = r.model()
	}
	if s.Cwd == "" {
		s.Cwd = r.cwd
	}
	s.Outcome = r.outcome()
	if eval == nil {
		return
	}
	switch {
	case eval.failed:
		s.Outcome = lore.OutcomeFailure
	case eval.resolved != nil && *eval.resolved:
		s.Outcome = lore.OutcomeSuccess
	case eval.resolved != nil:
		s.Outcome = lore.OutcomeFailure
	}
	if eval.usage != nil {
		s.Usage = *eval.usage
	}
}

// ---------------------------------------------------------------------------
// Evaluation output.jsonl

// openhandsEval is what an evaluation line says beside its history.
type openhandsEval struct {
	failed   bool
	resolved *bool
	usage    *lore.Usage
}

// openhandsEvalFields reads an evaluation line's own fields into the
// session and returns the verdicts the outcome needs.
func openhandsEvalFields(v *fastjson.Value, r *openhandsV0) *openhandsEval {
	s := r.b.s
	var ev openhandsEval
	if e := v.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
		ev.failed = e.Type() != fastjson.TypeString || len(bytes.TrimSpace(e.GetStringBytes())) > 0
	}
	for _, path := range [][]string{{"test_result", "resolved"}, {"test_result", "report", "resolved"}} {
		if x := v.Get(path...); x != nil && (x.Type() == fastjson.TypeTrue || x.Type() == fastjson.TypeFalse) {
			ok := x.Type() == fastjson.TypeTrue
			ev.resolved = &ok
			break
		}
	}
	if acc := v.Get("metrics", "accumulated_token_usage"); acc != nil && acc.Type() == fastjson.TypeObject {
		u := openhandsUsage(acc)
		ev.usage = &u
	}
	if m := str(v, "metadata", "llm_config", "model"); m != "" {
		s.Model = m
	}
	if repo := str(v, "instance", "repo"); repo != "" {
		s.Repo = RepoFromURL(repo)
	}
	return &ev
}

func readOpenHandsEval(ctx context.Context, in *input, emit emitFunc) error {
	rc, err := in.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	var (
		pending  *lore.Session // emitted when the next line is read, so damage can be told
		early    []string      // damage before the first session
		sessions int
	)
	// A damaged line belongs to no instance; it is told on the session
	// before it (or after it, at the start of the file).
	warn := func(line int, err error) {
		msg := fmt.Sprintf("line %d: %v", line, err)
		if pending == nil {
			early = append(early, msg)
			return
		}
		pending.Warnings++
		if len(pending.WarningSamples) < maxWarningSamples {
			pending.WarningSamples = append(pending.WarningSamples, msg)
		}
	}
	record := func(line int, size int, v *fastjson.Value) {
		if h := v.Get("history"); str(v, "instance_id") == "" || h == nil || h.Type() != fastjson.TypeArray {
			warn(line, errors.New("not an OpenHands evaluation record"))
			return
		}
		b := in.builder(lore.AgentOpenHands)
		b.s.Size = int64(size)
		for _, msg := range early {
			b.s.Warnings++
			if len(b.s.WarningSamples) < maxWarningSamples {
				b.s.WarningSamples = append(b.s.WarningSamples, msg)
			}
		}
		early = nil
		r := newOpenHandsV0(b)
		for _, e := range v.GetArray("history") {
			r.event(e)
		}
		ev := openhandsEvalFields(v, r)
		openhandsFinishV0(r, ev)
		b.setNative(str(v, "instance_id"))
		if pending != nil {
			emit(pending)
		}
		pending = b.finish(baseID(in.path))
		sessions++
	}
	err = eachJSONLineSized(ctx, rc, in.parser(), warn, func(line, size int, v *fastjson.Value) error {
		record(line, size, v)
		return nil
	})
	if err != nil {
		return err
	}
	if pending != nil {
		emit(pending)
	}
	if sessions == 0 {
		return notTranscript("an OpenHands evaluation output without a readable instance")
	}
	return nil
}

// ---------------------------------------------------------------------------
// V0 event folders

func readOpenHandsV0Dir(ctx context.Context, in *input, emit emitFunc) error {
	convDir, eventsDir := in.path, filepath.Join(in.path, "events")
	if filepath.Base(in.path) == "events" {
		if _, err := os.Stat(eventsDir); err != nil {
			convDir, eventsDir = filepath.Dir(in.path), in.path
		}
	}
	b := in.builder(lore.AgentOpenHands)
	// metadata.json (ConversationMetadata) names the repository the user
	// picked, its branch and the model.
	var metaModel string
	if data, err := regularfile.ReadFile(filepath.Join(convDir, "metadata.json")); err == nil {
		if md, err := in.parser().ParseBytes(data); err == nil && md.Type() == fastjson.TypeObject {
			if repo := str(md, "selected_repository"); repo != "" {
				b.s.Repo = RepoFromURL(repo)
			}
			b.s.Branch = str(md, "selected_branch")
			metaModel = str(md, "llm_model")
		} else {
			b.warn(0, errors.New("metadata.json: invalid JSON"))
		}
	}
	r := newOpenHandsV0(b)
	read, err := openhandsEachEvent(ctx, in, b, eventsDir, openhandsV0Index, openhandsIsEvent, "not an OpenHands event", r.event)
	if err != nil {
		return err
	}
	if read == 0 {
		return notTranscript("an OpenHands events folder without readable events")
	}
	if metaModel != "" {
		b.s.Model = metaModel
	}
	openhandsFinishV0(r, nil)
	emit(b.finish(filepath.Base(convDir)))
	return nil
}

// ---------------------------------------------------------------------------
// V1 conversation folders

type openhandsV1 struct {
	b          *builder
	status     string // last ConversationStateUpdateEvent execution status
	convError  bool
	finished   bool // a FinishAction was the last word of the agent
	lastAnswer bool
}

func readOpenHandsV1(ctx context.Context, in *input, emit emitFunc) error {
	convDir, eventsDir := in.path, filepath.Join(in.path, "events")
	if filepath.Base(in.path) == "events" {
		if _, err := os.Stat(filepath.Join(in.path, "base_state.json")); err != nil {
			convDir, eventsDir = filepath.Dir(in.path), in.path
		}
	}
	b := in.builder(lore.AgentOpenHands)
	r := &openhandsV1{b: b}

	var baseStatus string
	var haveBase bool
	if data, err := regularfile.ReadFile(filepath.Join(convDir, "base_state.json")); err == nil {
		if st, err := in.parser().ParseBytes(data); err == nil && st.Type() == fastjson.TypeObject {
			haveBase = true
			b.s.Model = str(st, "agent", "llm", "model")
			b.s.Cwd = str(st, "workspace", "working_dir")
			baseStatus = str(st, "execution_status")
			if baseStatus == "" {
				baseStatus = str(st, "agent_status") // earlier SDK builds
			}
			var u lore.Usage
			if m := st.GetObject("stats", "usage_to_metrics"); m != nil {
				m.Visit(func(_ []byte, x *fastjson.Value) {
					if acc := x.Get("accumulated_token_usage"); acc != nil && acc.Type() == fastjson.TypeObject {
						u.Add(openhandsUsage(acc))
					}
					if b.s.Model == "" {
						b.s.Model = str(x, "model_name")
					}
				})
			}
			b.s.Usage = u
		} else {
			b.warn(0, errors.New("base_state.json: invalid JSON"))
		}
	}

	isObject := func(v *fastjson.Value) bool { return v.Type() == fastjson.TypeObject }
	read, err := openhandsEachEvent(ctx, in, b, eventsDir, openhandsV1Index, isObject, "not an event object", r.event)
	if err != nil && (!haveBase || ctx.Err() != nil) {
		return err
	}
	if read == 0 {
		return notTranscript("an OpenHands conversation without readable events")
	}
	status := baseStatus
	if status == "" {
		status = r.status
	}
	b.s.Outcome = r.outcome(status)
	emit(b.finish(filepath.Base(convDir)))
	return nil
}

// openhandsEachEvent reads the numbered event files of an events folder in
// their order (index gives a file's number, or false for other files),
// and passes each event that valid accepts to fn. An unreadable event is
// a warning on the session. It returns how many events were read.
func openhandsEachEvent(ctx context.Context, in *input, b *builder, dir string, index func(string) (int, bool),
	valid func(*fastjson.Value) bool, invalid string, fn func(*fastjson.Value)) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	type file struct {
		n    int
		name string
	}
	var files []file
	for _, e := range entries {
		if n, ok := index(e.Name()); ok && e.Type().IsRegular() {
			files = append(files, file{n, e.Name()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].n < files[j].n })
	read := 0
	for i, f := range files {
		if i&255 == 255 && ctx.Err() != nil {
			return read, ctx.Err()
		}
		data, err := regularfile.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			b.warn(0, fmt.Errorf("event %d: %w", f.n, cleanPathErr(err)))
			continue
		}
		v, err := in.parser().ParseBytes(data)
		if err != nil || !valid(v) {
			if err != nil {
				err = jsonDamage(data)
			} else {
				err = errors.New(invalid)
			}
			b.warn(0, fmt.Errorf("event %d: %w", f.n, err))
			continue
		}
		read++
		fn(v)
	}
	return read, nil
}

func (r *openhandsV1) event(v *fastjson.Value) {
	t := timeOf(v, "timestamp")
	r.b.at(t)
	keep := r.b.keep
	switch string(v.GetStringBytes("kind")) {
	case "MessageEvent":
		msg := v.Get("llm_message")
		m := lore.Message{Time: t}
		if keep {
			m.Text = contentText(msg.Get("content"))
			m.Thinking = str(msg, "reasoning_content")
		}
		switch string(msg.GetStringBytes("role")) {
		case "user":
			r.finished, r.lastAnswer = false, false
			m.Role = lore.RoleUser
			r.b.add(m)
		case "assistant":
			r.finished, r.lastAnswer = false, true
			m.Role = lore.RoleAssistant
			r.b.addKeyed(str(v, "llm_response_id"), m)
		default:
			if keep {
				m.Role = lore.RoleSystem
				r.b.add(m)
			}
		}
	case "ActionEvent":
		r.lastAnswer = false
		id := str(v, "tool_call_id")
		if id == "" {
			id = str(v, "tool_call", "id")
		}
		if id == "" {
			id = "event-" + str(v, "id")
		}
		c := lore.ToolCall{ID: id}
		m := lore.Message{Role: lore.RoleAssistant, Time: t}
		if keep {
			c.Name = str(v, "tool_name")
			if c.Name == "" {
				c.Name = str(v, "tool_call", "name")
			}
			c.Input = raw(v, "tool_call", "arguments")
			if c.Input == "" {
				c.Input = raw(v, "action")
			}
			m.Text = contentText(v.Get("thought"))
			m.Thinking = str(v, "reasoning_content")
		}
		m.ToolCalls = []lore.ToolCall{c}
		r.finished = is(v, "FinishAction", "action", "kind")
		r.b.addKeyed(str(v, "llm_response_id"), m)
	case "ObservationEvent", "UserRejectObservation":
		key := str(v, "tool_call_id")
		if key == "" {
			return
		}
		obs := v.Get("observation")
		exit := optInt(obs, "exit_code")
		if exit == nil {
			exit = optInt(obs, "metadata", "exit_code")
		}
		isErr := boolean(obs, "is_error") || (exit != nil && *exit != 0)
		if is(v, "UserRejectObservation", "kind") {
			isErr = false // a refusal is the user's, not the environment's
		}
		r.b.call(key)
		res := lore.ToolResult{CallID: key, IsError: isErr, ExitCode: exit}
		if keep {
			if obs != nil {
				res.Output = contentText(obs.Get("content"))
			} else {
				res.Output = str(v, "rejection_reason")
			}
		}
		r.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}})
	case "AgentErrorEvent":
		key := str(v, "tool_call_id")
		if key == "" {
			key = "error-" + str(v, "id")
		}
		r.b.call(key)
		res := lore.ToolResult{CallID: key, IsError: true}
		if keep {
			res.Output = str(v, "error")
		}
		r.b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}})
	case "SystemPromptEvent":
		if keep {
			r.b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(v.Get("system_prompt"))})
		}
	case "ConversationStateUpdateEvent":
		switch string(v.GetStringBytes("key")) {
		case "execution_status", "agent_status":
			if s := str(v, "value"); s != "" {
				r.status = s
			}
		case "full_state":
			if s := str(v, "value", "execution_status"); s != "" {
				r.status = s
			}
		}
	case "ConversationErrorEvent":
		r.convError = true
	case "PauseEvent":
		r.status = "paused"
	}
}

func (r *openhandsV1) outcome(status string) lore.Outcome {
	switch strings.ToLower(status) {
	case "finished":
		return lore.OutcomeSuccess
	case "error", "stuck":
		return lore.OutcomeFailure
	case "paused":
		return lore.OutcomeAborted
	case "":
		switch {
		case r.convError:
			return lore.OutcomeFailure
		case r.finished, r.lastAnswer:
			return lore.OutcomeSuccess
		}
	}
	if r.convError {
		return lore.OutcomeFailure
	}
	return lore.OutcomeUnknown
}
