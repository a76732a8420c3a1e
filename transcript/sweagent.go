package transcript

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// SWE-agent .traj (FORMATS.md section 6): one pretty-printed JSON object
// {trajectory[], history[], info{exit_status, submission, model_stats},
// environment, replay_config}, written as <instance_id>.traj; a RetryAgent
// adds attempts[] (each a whole trajectory) and copies the chosen attempt to
// the top level. The native id is the instance id, from the file name.
//
// Counting rules:
//   - the conversation is history[] (trajectory[] when there is no
//     history); with attempts, every attempt's history, since each attempt
//     is work the agent did (the top-level copy of the chosen one is not
//     read twice);
//   - demonstrations (is_demo, message_type "demonstration") and system
//     prompts are not turns: they are replayed examples and instructions,
//     not this session's conversation;
//   - each assistant message is a turn; each of its tool_calls is a tool
//     call (each id once), or its action is one call when it has no
//     tool_calls;
//   - a user (or tool) message right after an action is that action's
//     observation, a tool result; other user messages (the task) are turns;
//   - messages of another agent than main/primary are sidechain;
//   - SWE-agent marks no tool result as failed, so only what its own
//     harness writes into an observation when a command fails counts as a
//     tool error: "EXECUTION TIMED OUT", "COMMAND FAILED TO EXECUTE",
//     "BROKEN PIPE ERROR", "EXECUTION FAILED OR COMMAND MALFORMED" (0.x
//     SWEEnv.step) and "was cancelled because it took more than" (1.x
//     command_cancelled_timeout_template); the command's own output is not
//     judged;
//   - tokens: info.model_stats tokens_sent / tokens_received (with
//     attempts, the top-level total of all attempts); no cache split exists;
//   - no timestamps; model and repository from replay_config when it names
//     them, else the model from a 0.x run folder name
//     (<model>__<data>__<config>__t-…__p-…__c-…); cwd from the first step's
//     state.working_dir.
//
// Outcome, from info.exit_status: "submitted" is success; a submission the
// harness made after a limit or an error ("submitted (exit_cost)", …) and
// every exit_* or early_exit status are failure; an interrupt is aborted; no
// status (a run in progress) is unknown.

// sweRoots: SWE-agent writes under ./trajectories of the folder it runs
// in (0.x trajectories/<user>/<run>/, 1.x the default output_dir
// trajectories/<user>/<run>/). mini-swe-agent saves the last interactive
// run as last_mini_run.traj.json in its global config folder:
// $MSWEA_GLOBAL_CONFIG_DIR, else platformdirs.user_config_dir
// ("mini-swe-agent") — $XDG_CONFIG_HOME/mini-swe-agent on Linux,
// ~/Library/Application Support/mini-swe-agent on macOS
// (SWE-agent/mini-swe-agent src/minisweagent/__init__.py, run/mini.py).
func sweRoots(e Env) []Root {
	var out []Root
	if e.Cwd != "" {
		out = append(out, Root{Agent: lore.AgentSWEAgent, Path: filepath.Join(e.Cwd, "trajectories"), Source: "cwd"})
	}
	switch {
	case e.get("MSWEA_GLOBAL_CONFIG_DIR") != "":
		out = append(out, Root{Agent: lore.AgentMiniSWEAgent, Path: e.get("MSWEA_GLOBAL_CONFIG_DIR"), Source: "MSWEA_GLOBAL_CONFIG_DIR"})
	case e.GOOS == "darwin":
		out = append(out, Root{Agent: lore.AgentMiniSWEAgent, Path: e.macAppSupport("mini-swe-agent"), Source: "default"})
	default:
		out = append(out, Root{Agent: lore.AgentMiniSWEAgent, Path: filepath.Join(e.xdg("XDG_CONFIG_HOME", ".config"), "mini-swe-agent"), Source: "default"})
	}
	return out
}

// ---------------------------------------------------------------------------
// SWE-agent

func sniffSWEAgent(_ string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject {
		return false
	}
	if a := doc.GetArray("attempts"); len(a) > 0 && sweIsTraj(a[0]) {
		return true
	}
	return sweIsTraj(doc)
}

// sweIsTraj reports whether v is one attempt's trajectory data.
func sweIsTraj(v *fastjson.Value) bool {
	if v == nil || v.Type() != fastjson.TypeObject {
		return false
	}
	t := v.Get("trajectory")
	info := v.Get("info")
	if t == nil || t.Type() != fastjson.TypeArray || info == nil || info.Type() != fastjson.TypeObject {
		return false
	}
	return has(v, "history") || has(v, "environment") || has(v, "replay_config")
}

// sweMarkers are what SWE-agent's harness writes into an observation when
// running a command failed.
var sweMarkers = [][]byte{
	[]byte("EXECUTION TIMED OUT"),
	[]byte("COMMAND FAILED TO EXECUTE"),
	[]byte("BROKEN PIPE ERROR"),
	[]byte("EXECUTION FAILED OR COMMAND MALFORMED"),
	[]byte("was cancelled because it took more than"),
}

type sweReader struct {
	b *builder
	p fastjson.Parser // for replay_config and state, written as JSON text
}

func readSWEAgent(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	b := in.builder(lore.AgentSWEAgent)
	r := &sweReader{b: b}
	info := doc.Get("info")
	attempts := doc.GetArray("attempts")
	if len(attempts) > 0 {
		for i, a := range attempts {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.attempt(a, "a"+strconv.Itoa(i)+"-")
		}
		if info == nil && len(attempts) > 0 {
			// A retry run in progress has no top-level info yet.
			info = attempts[len(attempts)-1].Get("info")
			var u lore.Usage
			for _, a := range attempts {
				u.Add(sweUsage(a.Get("info")))
			}
			b.s.Usage = u
		} else {
			b.s.Usage = sweUsage(info)
		}
	} else {
		r.attempt(doc, "")
		b.s.Usage = sweUsage(info)
	}
	if b.s.UserMessages+b.s.AssistantMessages+b.s.ToolCalls == 0 {
		return notTranscript("a SWE-agent trajectory without steps")
	}
	src := doc
	if len(attempts) > 0 && !has(doc, "replay_config") {
		src = attempts[len(attempts)-1]
	}
	r.replayConfig(src.Get("replay_config"))
	if b.s.Model == "" {
		b.s.Model = sweModelFromDir(in.path)
	}
	b.s.Outcome = sweOutcome(str(info, "exit_status"))
	emit(b.finish(baseID(in.path)))
	return nil
}

// attempt reads one attempt's conversation; prefix keeps the synthetic
// call ids of several attempts apart.
func (r *sweReader) attempt(a *fastjson.Value, prefix string) {
	steps := a.GetArray("trajectory")
	if r.b.s.Cwd == "" && len(steps) > 0 {
		r.b.s.Cwd = r.workingDir(steps[0].Get("state"))
	}
	if h := a.GetArray("history"); len(h) > 0 {
		r.history(h, prefix)
		return
	}
	r.steps(steps, prefix)
}

func (r *sweReader) history(items []*fastjson.Value, prefix string) {
	keep := r.b.keep
	var pending []string // calls of the last action, waiting for their observation
	for i, h := range items {
		if h.Type() != fastjson.TypeObject || sweIsDemo(h) {
			continue
		}
		side := false
		if ag := string(h.GetStringBytes("agent")); ag != "" && ag != "main" && ag != "primary" {
			side = true
		}
		role := string(h.GetStringBytes("role"))
		switch {
		case role == "system":
			pending = nil
			if keep {
				r.b.add(lore.Message{Role: lore.RoleSystem, Text: contentText(h.Get("content")), Sidechain: side})
			}
		case role == "assistant":
			m := lore.Message{Role: lore.RoleAssistant, Sidechain: side}
			if keep {
				m.Text = contentText(h.Get("content"))
				m.Thinking = str(h, "thought")
			}
			pending = pending[:0]
			m.ToolCalls = chatToolCalls(h, keep, prefix+"h"+strconv.Itoa(i)+"-")
			for _, c := range m.ToolCalls {
				pending = append(pending, c.ID)
			}
			if len(m.ToolCalls) == 0 && len(bytes.TrimSpace(h.GetStringBytes("action"))) > 0 {
				id := prefix + "h" + strconv.Itoa(i)
				c := lore.ToolCall{ID: id}
				if keep {
					c.Name, c.Input = sweCommand(str(h, "action"))
				}
				m.ToolCalls = []lore.ToolCall{c}
				pending = append(pending, id)
			}
			r.b.add(m)
		case role == "tool" || (role == "user" && len(pending) > 0):
			id := ""
			if ids := h.GetArray("tool_call_ids"); len(ids) > 0 {
				id = string(ids[0].GetStringBytes())
			}
			if id == "" && len(pending) > 0 {
				id = pending[0]
			}
			pending = nil
			if id == "" {
				continue
			}
			r.result(id, h.Get("content"), side)
		case role == "user":
			m := lore.Message{Role: lore.RoleUser, Sidechain: side}
			if keep {
				m.Text = contentText(h.Get("content"))
			}
			r.b.add(m)
		}
	}
}

// steps reads trajectory[] when there is no history: each step is a
// response, its action and the action's observation.
func (r *sweReader) steps(steps []*fastjson.Value, prefix string) {
	for i, s := range steps {
		if s.Type() != fastjson.TypeObject {
			continue
		}
		m := lore.Message{Role: lore.RoleAssistant}
		if r.b.keep {
			m.Text = str(s, "response")
			m.Thinking = str(s, "thought")
		}
		id := ""
		if len(bytes.TrimSpace(s.GetStringBytes("action"))) > 0 {
			id = prefix + "s" + strconv.Itoa(i)
			c := lore.ToolCall{ID: id}
			if r.b.keep {
				c.Name, c.Input = sweCommand(str(s, "action"))
			}
			m.ToolCalls = []lore.ToolCall{c}
		}
		r.b.add(m)
		if id != "" {
			r.result(id, s.Get("observation"), false)
		}
	}
}

func (r *sweReader) result(id string, content *fastjson.Value, side bool) {
	var text []byte
	var kept string
	switch {
	case content == nil:
	case content.Type() == fastjson.TypeString:
		text = content.GetStringBytes()
		if r.b.keep {
			kept = string(text)
		}
	default:
		kept = contentText(content)
		text = []byte(kept)
	}
	isErr := false
	for _, mk := range sweMarkers {
		if bytes.Contains(text, mk) {
			isErr = true
			break
		}
	}
	r.b.add(lore.Message{Role: lore.RoleTool, Sidechain: side, ToolResults: []lore.ToolResult{{CallID: id, Output: kept, IsError: isErr}}})
}

// sweIsDemo reports whether a history item is part of a demonstration.
func sweIsDemo(h *fastjson.Value) bool {
	if is(h, "demonstration", "message_type") {
		return true
	}
	d := h.Get("is_demo")
	if d == nil {
		return false
	}
	switch d.Type() {
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeString:
		return strings.EqualFold(string(d.GetStringBytes()), "true")
	}
	return false
}

// sweCommand splits an action into the command's name and the whole
// action text.
func sweCommand(action string) (name, input string) {
	input = strings.TrimSpace(action)
	name = input
	if i := strings.IndexAny(name, " \t\n"); i >= 0 {
		name = name[:i]
	}
	return name, input
}

// workingDir reads state.working_dir; 0.x wrote the state as JSON text.
func (r *sweReader) workingDir(state *fastjson.Value) string {
	if state == nil {
		return ""
	}
	if state.Type() == fastjson.TypeString {
		v, err := r.p.ParseBytes(state.GetStringBytes())
		if err != nil {
			return ""
		}
		state = v
	}
	return str(state, "working_dir")
}

// replayConfig takes the model and repository from the run's replay
// config: a JSON string in 1.x, an object in late 0.x.
func (r *sweReader) replayConfig(rc *fastjson.Value) {
	if rc == nil {
		return
	}
	if rc.Type() == fastjson.TypeString {
		v, err := r.p.ParseBytes(rc.GetStringBytes())
		if err != nil {
			return
		}
		rc = v
	}
	if rc.Type() != fastjson.TypeObject {
		return
	}
	for _, path := range [][]string{{"agent", "model", "name"}, {"agent", "agent_configs", "0", "model", "name"}, {"agent", "model", "model_name"}, {"model", "model_name"}} {
		if m := str(rc, path...); m != "" {
			r.b.s.Model = m
			break
		}
	}
	for _, path := range [][]string{{"env", "repo", "github_url"}, {"env", "repo", "url"}, {"environment", "repo_path"}, {"environment", "data_path"}} {
		u := str(rc, path...)
		if strings.Contains(u, "://") || strings.HasPrefix(u, "git@") {
			if strings.Contains(u, "/issues/") {
				u = u[:strings.Index(u, "/issues/")]
			}
			if repo := RepoFromURL(u); repo != "" {
				r.b.s.Repo = repo
				return
			}
		}
	}
}

// sweModelFromDir reads the model from a 0.x run folder name,
// <model>__<data>__<config>__t-<temp>__p-<top_p>__c-<cost>__install-<n>.
func sweModelFromDir(path string) string {
	dir := filepath.Base(filepath.Dir(path))
	if !strings.Contains(dir, "__t-") || !strings.Contains(dir, "__p-") || !strings.Contains(dir, "__c-") {
		return ""
	}
	m, _, _ := strings.Cut(dir, "__")
	return m
}

func sweUsage(info *fastjson.Value) lore.Usage {
	return lore.Usage{
		InputTokens:  integer(info, "model_stats", "tokens_sent"),
		OutputTokens: integer(info, "model_stats", "tokens_received"),
	}
}

// sweOutcome reads an exit status of SWE-agent or mini-swe-agent:
// submitted is success, an interrupt aborted, any other exit a failure.
func sweOutcome(status string) lore.Outcome {
	s := strings.ToLower(strings.TrimSpace(status))
	switch {
	case s == "":
		return lore.OutcomeUnknown
	case s == "submitted":
		return lore.OutcomeSuccess
	case strings.Contains(s, "interrupt"):
		return lore.OutcomeAborted
	}
	return lore.OutcomeFailure
}

// ---------------------------------------------------------------------------
// mini-swe-agent
//
// mini-swe-agent .traj.json (FORMATS.md section 7): {info{model_stats,
// config, mini_version, exit_status, submission}, messages[],
// trajectory_format, instance_id?}. The native id is instance_id when the
// file names one, else the file name (<instance_id>.traj.json in batch runs,
// last_mini_run.traj.json for the interactive CLI).
//
// Two message shapes:
//   - "mini-swe-agent-1.1" (2026+): OpenAI chat messages with an extra
//     dict: assistant messages carry tool_calls (tool-calling models) or
//     extra.actions (text-based models), the litellm response with its usage,
//     and a timestamp; results are role "tool" messages, or for text-based
//     models user messages whose extra holds returncode/raw_output; a last
//     role "exit" message holds the exit status.
//   - earlier files: role/content only; the action is the one ```bash block
//     of an assistant message, and the next user message is its observation.
//
// Counting rules:
//   - system messages are not turns; user messages are turns except
//     observations and the harness's format-error and timeout feedback (in
//     1.1 extra.interrupt_type; earlier, a user message after an assistant
//     message with no single bash block);
//   - each assistant message is a turn; tool calls are its tool_calls (each
//     id once), else its extra.actions, else its one bash block;
//   - a tool error is an explicit non-zero returncode (extra.returncode, or
//     a "<returncode>N</returncode>" observation in the SWE-bench template of
//     earlier versions) or an extra.exception_info; each call once;
//   - tokens: the usage of each assistant message's response (prompt_tokens
//     include cached tokens, which lore keeps apart), once per message;
//   - times from extra.timestamp (epoch seconds; 1.1 only); model from
//     info.config.model.model_name; cwd from info.config.environment.cwd
//     when the environment is local (a container's cwd is no project).
//
// Outcome, from info.exit_status (or the exit message): Submitted is
// success; an interrupt by the user is aborted; LimitsExceeded and every
// exception name are failure; none is unknown.

func sniffMini(name string, doc *fastjson.Value) bool {
	if doc.Type() != fastjson.TypeObject {
		return false
	}
	msgs := doc.Get("messages")
	info := doc.Get("info")
	if msgs == nil || msgs.Type() != fastjson.TypeArray || info == nil || info.Type() != fastjson.TypeObject {
		return false
	}
	if strings.HasPrefix(str(doc, "trajectory_format"), "mini-swe-agent") || has(info, "mini_version") {
		return true
	}
	return strings.HasSuffix(strings.ToLower(name), ".traj.json") && has(info, "exit_status")
}

func readMini(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error {
	b := in.builder(lore.AgentMiniSWEAgent)
	keep := b.keep
	info := doc.Get("info")
	exitStatus := str(info, "exit_status")
	var (
		pending    []string // calls of the last assistant message
		lastAction = -1     // whether the last assistant message had actions: -1 none yet, 0 no, 1 yes
		respModel  string
	)
	for i, m := range doc.GetArray("messages") {
		if i&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		if m.Type() != fastjson.TypeObject {
			continue
		}
		extra := m.Get("extra")
		t := epoch(num(extra, "timestamp"))
		b.at(t) // messages that are not kept still span the session
		role := string(m.GetStringBytes("role"))
		switch role {
		case "system":
			if keep {
				b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(m.Get("content"))})
			}
		case "assistant":
			msg := lore.Message{Role: lore.RoleAssistant, Time: t}
			if keep {
				msg.Text = contentText(m.Get("content"))
				msg.Thinking = str(m, "reasoning_content")
			}
			pending = pending[:0]
			msg.ToolCalls = chatToolCalls(m, keep, "m"+strconv.Itoa(i)+"-")
			for _, c := range msg.ToolCalls {
				pending = append(pending, c.ID)
			}
			if len(msg.ToolCalls) == 0 {
				for j, a := range extra.GetArray("actions") {
					id := str(a, "tool_call_id")
					if id == "" {
						id = "m" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
					}
					c := lore.ToolCall{ID: id}
					if keep {
						c.Name = "bash"
						if tool := str(a, "tool"); tool != "" {
							c.Name = tool
						}
						c.Input = str(a, "command")
						if c.Input == "" {
							c.Input = raw(a, "args")
						}
					}
					msg.ToolCalls = append(msg.ToolCalls, c)
					pending = append(pending, id)
				}
			}
			if len(msg.ToolCalls) == 0 && extra == nil {
				if cmd, ok := miniBashBlock(m.GetStringBytes("content")); ok {
					id := "m" + strconv.Itoa(i)
					c := lore.ToolCall{ID: id}
					if keep {
						c.Name, c.Input = "bash", cmd
					}
					msg.ToolCalls = []lore.ToolCall{c}
					pending = append(pending, id)
				}
			}
			lastAction = 0
			if len(pending) > 0 {
				lastAction = 1
			}
			if u := extra.Get("response", "usage"); u != nil && u.Type() == fastjson.TypeObject {
				b.usage(openhandsCompletionUsage(u))
			} else if u := extra.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
				b.usage(openhandsCompletionUsage(u))
			}
			if rm := str(extra, "response", "model"); rm != "" && respModel == "" {
				respModel = rm
			}
			b.add(msg)
		case "tool":
			id := str(m, "tool_call_id")
			if id == "" && len(pending) > 0 {
				id = pending[0]
			}
			if id == "" {
				continue
			}
			pending = miniDrop(pending, id)
			miniResult(b, id, m, extra, t)
		case "user":
			switch {
			case extra != nil && (has(extra, "returncode") || has(extra, "raw_output")):
				// A text-based model's observation: one per action.
				if len(pending) > 0 {
					id := pending[0]
					pending = pending[1:]
					miniResult(b, id, m, extra, t)
				}
			case extra != nil && has(extra, "interrupt_type") && !strings.Contains(str(extra, "interrupt_type"), "User"):
				// A malformed reply is kept only inside the feedback
				// about it, with its usage.
				if u := extra.Get("response", "usage"); u != nil && u.Type() == fastjson.TypeObject {
					b.usage(openhandsCompletionUsage(u))
				}
				if keep {
					b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(m.Get("content"))})
				}
			case extra == nil && lastAction == 1 && len(pending) > 0:
				id := pending[0]
				pending = nil
				miniResult(b, id, m, nil, t)
			case extra == nil && lastAction == 0:
				// Format-error feedback after a reply without one action.
				lastAction = -1
				if keep {
					b.add(lore.Message{Role: lore.RoleSystem, Time: t, Text: contentText(m.Get("content"))})
				}
			default:
				pending = nil
				msg := lore.Message{Role: lore.RoleUser, Time: t}
				if keep {
					msg.Text = contentText(m.Get("content"))
				}
				b.add(msg)
			}
		case "exit":
			if exitStatus == "" {
				exitStatus = str(extra, "exit_status")
			}
		}
	}
	if b.s.UserMessages+b.s.AssistantMessages == 0 {
		return notTranscript("a mini-swe-agent trajectory without messages")
	}
	cfg := info.Get("config")
	b.s.Model = str(cfg, "model", "model_name")
	if b.s.Model == "" {
		b.s.Model = respModel
	}
	env := cfg.Get("environment")
	if cwd := str(env, "cwd"); cwd != "" && !has(env, "image") &&
		(str(cfg, "environment_type") == "" || strings.Contains(str(cfg, "environment_type"), "Local")) {
		b.s.Cwd = cwd
	}
	b.s.Outcome = sweOutcome(exitStatus)
	b.setNative(str(doc, "instance_id"))
	emit(b.finish(baseID(in.path)))
	return nil
}

// miniResult records the observation m of call id.
func miniResult(b *builder, id string, m, extra *fastjson.Value, t time.Time) {
	res := lore.ToolResult{CallID: id}
	if extra != nil {
		res.ExitCode = optInt(extra, "returncode")
		if e := extra.Get("exception_info"); e != nil && e.Type() == fastjson.TypeString && len(bytes.TrimSpace(e.GetStringBytes())) > 0 {
			res.IsError = true
		}
	} else {
		res.ExitCode = miniReturnCode(m.GetStringBytes("content"))
	}
	if res.ExitCode != nil && *res.ExitCode != 0 {
		res.IsError = true
	}
	if b.keep {
		res.Output = contentText(m.Get("content"))
	}
	b.add(lore.Message{Role: lore.RoleTool, Time: t, ToolResults: []lore.ToolResult{res}})
}

func miniDrop(ids []string, id string) []string {
	for i, x := range ids {
		if x == id {
			return append(ids[:i:i], ids[i+1:]...)
		}
	}
	return ids
}

// miniReturnCode reads the "<returncode>N</returncode>" an observation of
// the SWE-bench template starts with.
func miniReturnCode(content []byte) *int {
	c := bytes.TrimSpace(content)
	rest, ok := bytes.CutPrefix(c, []byte("<returncode>"))
	if !ok {
		return nil
	}
	end := bytes.Index(rest, []byte("</returncode>"))
	if end < 0 {
		return nil
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(rest[:end])))
	if err != nil {
		return nil
	}
	return &n
}

// miniBashBlock returns the command of the one ```bash block of a reply,
// as mini-swe-agent's parse_action finds it; false when there is not
// exactly one.
func miniBashBlock(content []byte) (string, bool) {
	var cmd []byte
	count := 0
	for _, fence := range [][]byte{[]byte("```bash"), []byte("```mswea_bash_command")} {
		rest := content
		for {
			i := bytes.Index(rest, fence)
			if i < 0 {
				break
			}
			rest = rest[i+len(fence):]
			body := bytes.TrimLeft(rest, " \t\r")
			if len(body) == 0 || body[0] != '\n' {
				continue
			}
			body = body[1:]
			end := bytes.Index(body, []byte("\n```"))
			if end < 0 {
				break
			}
			count++
			cmd = body[:end]
			rest = body[end+4:]
		}
	}
	if count != 1 {
		return "", false
	}
	return strings.TrimSpace(string(cmd)), true
}
