package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/recall"
)

// Search and list limits.
const (
	DefaultLimit = 10
	MaxLimit     = 100
	// DefaultPage and MaxPage are how many items a page of GET /v1/items
	// holds.
	DefaultPage = 100
	MaxPage     = 1000
)

// query reads a request's query parameters, refusing those a route
// does not know, so that a misspelt one is not silently dropped.
func query(r *http.Request, known ...string) (url.Values, error) {
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains(known, k) {
			return nil, invalidf("unknown parameter %q (this route takes: %s)", k, strings.Join(known, ", "))
		}
	}
	return q, nil
}

// intParam reads a whole number from 0 to most, def when absent.
func intParam(q url.Values, name string, def, most int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > most {
		return 0, invalidf("%s=%q: want a whole number from 0 to %d", name, s, most)
	}
	if n == 0 {
		return def, nil
	}
	return n, nil
}

// filterParams reads the filter a search or list names: repo (any owner
// for a bare name, as lore search --repo), agent, category, status (a
// list, or any).
func filterParams(q url.Values) (lore.Filter, error) {
	f := lore.Filter{Repo: strings.TrimSpace(q.Get("repo")), AnyOwner: true}
	if strings.ContainsAny(f.Repo, " \t\r\n") {
		return f, invalidf("repo %q: want owner/name", f.Repo)
	}
	agent, err := agentParam(q.Get("agent"))
	if err != nil {
		return f, err
	}
	f.Agent = agent
	if c := q.Get("category"); c != "" {
		if f.Category, err = lore.ParseCategory(c); err != nil {
			return f, invalidf("category: %s", err)
		}
	}
	for _, part := range strings.Split(q.Get("status"), ",") {
		switch part = strings.TrimSpace(part); part {
		case "":
		case "any", "all":
			f.AnyStatus, f.Statuses = true, nil
		default:
			st, err := lore.ParseStatus(part)
			if err != nil {
				return f, invalidf("status: %s, or any", err)
			}
			if !f.AnyStatus {
				f.Statuses = append(f.Statuses, st)
			}
		}
	}
	return f, nil
}

func agentParam(agent string) (string, error) {
	agent = strings.TrimSpace(agent)
	if agent != "" && !slices.Contains(lore.Agents, agent) {
		return "", invalidf("unknown agent %q; known agents: %s", agent, strings.Join(lore.Agents, ", "))
	}
	return agent, nil
}

// Hit is one search result.
type Hit struct {
	Item  lore.Item `json:"item"`
	Score float64   `json:"score"`
}

func (s *Server) search(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "q", "repo", "agent", "category", "status", "limit")
	if err != nil {
		return nil, err
	}
	lq := lore.Query{Text: q.Get("q")}
	if strings.TrimSpace(lq.Text) == "" {
		return nil, invalidf("q is empty: say what you want to know")
	}
	if lq.Filter, err = filterParams(q); err != nil {
		return nil, err
	}
	if lq.Limit, err = intParam(q, "limit", DefaultLimit, MaxLimit); err != nil {
		return nil, err
	}
	hits, err := c.store.Search(ctx, lq)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := struct {
		Hits []Hit `json:"hits"`
	}{Hits: []Hit{}}
	for _, h := range hits {
		out.Hits = append(out.Hits, Hit{h.Item, math.Round(h.Score*1000) / 1000})
	}
	return out, nil
}

// text is an answer in plain text.
type text string

func (t text) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(t))
}

// boot answers as lore boot does: the context as JSON (format=json, the
// default: lore boot --format json's object) or as the text an agent
// reads (format=text). The boot is recorded, for measure.
func (s *Server) boot(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "repo", "agent", "task", "budget", "session", "format")
	if err != nil {
		return nil, err
	}
	o := boot.Options{Repo: strings.TrimSpace(q.Get("repo")), Task: strings.TrimSpace(q.Get("task")), Now: s.opts.Now()}
	if strings.ContainsAny(o.Repo, " \t\r\n") {
		return nil, invalidf("repo %q: want owner/name", o.Repo)
	}
	if o.Agent, err = agentParam(q.Get("agent")); err != nil {
		return nil, err
	}
	if o.Budget, err = intParam(q, "budget", 0, 1<<20); err != nil {
		return nil, err
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "text" {
		return nil, invalidf("format %q: want json or text", format)
	}
	bc, err := boot.Build(ctx, c.store, o)
	if err != nil {
		return nil, fmt.Errorf("boot: %w", err)
	}
	ids := make([]string, len(bc.Items))
	for i, p := range bc.Items {
		ids[i] = p.ID
	}
	s.recordBoot(ctx, c.store, lore.Boot{Session: q.Get("session"), Repo: o.Repo, Agent: o.Agent, Task: o.Task, Items: ids, Tokens: bc.Tokens})
	if format == "text" {
		return text(bc.Text), nil
	}
	return bc, nil
}

// recordBootDeadline is how long a boot or note waits to be recorded
// before it is answered without the record, as lore boot's hook.
const recordBootDeadline = 500 * time.Millisecond

// recordBoot records what was handed out; an agent is better served by
// its notes than by an error about bookkeeping, so a failure is logged.
func (s *Server) recordBoot(ctx context.Context, st lore.Store, b lore.Boot) {
	b.At = s.opts.Now()
	ctx, cancel := context.WithTimeout(ctx, recordBootDeadline)
	defer cancel()
	if err := st.RecordBoot(ctx, b); err != nil {
		s.log.Warn("record boot", "err", err)
	}
}

// RecallRequest asks for the note of a tool call, as lore's tool hooks
// do: before it runs (Tool and Input, or Command alone for a shell
// command), or after it failed (Output too).
type RecallRequest struct {
	Repo    string `json:"repo,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Tool    string `json:"tool,omitempty"`
	// Input is the call's arguments as JSON, as the agent gave them.
	Input json.RawMessage `json:"input,omitempty"`
	// Command is a shell command: Tool Bash, Input {"command": …}.
	Command string `json:"command,omitempty"`
	// Output is what the agent was told of the failure (after-tool).
	Output string `json:"output,omitempty"`
}

// Note is a hook's answer: Text is "" when lore knows nothing of the
// command or the error.
type Note struct {
	Text  string   `json:"note"`
	Items []string `json:"items"`
	// Episode says the note is an earlier session's failure and what
	// fixed it, as lore recall hands over when no item covers an error.
	Episode bool `json:"episode,omitempty"`
}

func (s *Server) recallRequest(c *call) (RecallRequest, recall.Options, error) {
	var in RecallRequest
	if err := decodeJSON(c.r.Body, &in); err != nil {
		return in, recall.Options{}, err
	}
	repo := strings.TrimSpace(in.Repo)
	if strings.ContainsAny(repo, " \t\r\n") {
		return in, recall.Options{}, invalidf("repo %q: want owner/name", repo)
	}
	agent, err := agentParam(in.Agent)
	if err != nil {
		return in, recall.Options{}, err
	}
	if in.Command != "" {
		if in.Tool != "" || len(in.Input) > 0 {
			return in, recall.Options{}, invalidf("give command, or tool and input, not both")
		}
		b, _ := json.Marshal(map[string]string{"command": in.Command})
		in.Tool, in.Input = "Bash", b
	}
	return in, recall.Options{Repo: repo, Agent: agent}, nil
}

func (s *Server) beforeTool(ctx context.Context, c *call) (any, error) {
	in, o, err := s.recallRequest(c)
	if err != nil {
		return nil, err
	}
	n, err := s.note(ctx, c.store, in.Session, o, func(o recall.Options) (recall.Note, error) {
		return recall.BeforeTool(ctx, c.store, o, in.Tool, string(in.Input))
	})
	if err != nil {
		return nil, err
	}
	return s.handOver(ctx, c.store, n, lore.Boot{Session: in.Session, Repo: o.Repo, Agent: o.Agent, Items: n.Items, Kind: lore.BootBeforeTool}), nil
}

func (s *Server) afterTool(ctx context.Context, c *call) (any, error) {
	in, o, err := s.recallRequest(c)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Output) == "" {
		return nil, invalidf("output is empty: give what the agent was told of the failure")
	}
	n, err := s.note(ctx, c.store, in.Session, o, func(o recall.Options) (recall.Note, error) {
		return recall.AfterFailure(ctx, c.store, o, in.Tool, string(in.Input), in.Output)
	})
	if err != nil {
		return nil, err
	}
	if n.Text != "" {
		return s.handOver(ctx, c.store, n, lore.Boot{Session: in.Session, Repo: o.Repo, Agent: o.Agent, Items: n.Items, Kind: lore.BootAfterFailure}), nil
	}
	a, err := recall.Episode(ctx, c.store, o, in.Tool, string(in.Input), in.Output)
	if err != nil || a.Note == "" {
		return Note{Items: []string{}}, err
	}
	s.recordBoot(ctx, c.store, lore.Boot{Session: in.Session, Repo: o.Repo, Agent: o.Agent, Items: []string{}, Kind: lore.BootEpisode, Tokens: a.Tokens})
	return Note{Text: a.Note, Items: []string{}, Episode: true}, nil
}

// note asks for a note, as lore recall does: a note is handed to a
// session once, so one whose items the session was handed already is
// asked for again without them.
func (s *Server) note(ctx context.Context, st lore.Store, session string, o recall.Options, ask func(recall.Options) (recall.Note, error)) (recall.Note, error) {
	n, err := ask(o)
	if err != nil || n.Text == "" || session == "" {
		return n, err
	}
	if o.Told, err = recall.Told(ctx, st, session, n.Items, s.opts.Now()); err != nil || len(o.Told) == 0 {
		return n, err
	}
	return ask(o)
}

// handOver records a note about to be handed over, and returns it.
func (s *Server) handOver(ctx context.Context, st lore.Store, n recall.Note, b lore.Boot) Note {
	if n.Text == "" {
		return Note{Items: []string{}}
	}
	s.recordBoot(ctx, st, b)
	return Note{Text: n.Text, Items: n.Items}
}
