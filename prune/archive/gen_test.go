package archive

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// gen makes sessions shaped like rows of a Hermes state.db (schema v11):
// a system prompt of about 10 KB that is the same across sessions but for
// a date and a memory block, and messages whose sizes and JSON columns
// follow what Hermes writes. Prose comes from common English words and a
// long tail of made-up ones with a natural frequency fall-off; tool
// output is excerpts of the files of one made-up project, which an agent
// reads again and again, and logs. Calibrated against real transcripts
// (the Claude Code corpus in FORMATS.md turned into Hermes message rows):
// zstd alone compressed those rows 2.3× and these 2.1×.
type gen struct {
	rnd     *rand.Rand
	vocab   []string
	zipf    *rand.Zipf
	prompt  string
	memory  []string
	files   []file
	start   time.Time
	message int64
}

type file struct {
	path, content string
}

var common = strings.Fields(`the be to of and a in that have I it for not on with he as you do at this
but his by from they we say her she or an will my one all would there their what so up out if about
who get which go me when make can like time no just him know take people into year your good some
could them see other than then now look only come its over think also back after use two how our
work first well way even new want because any these give day most us is are was were been has had
did does file test code function error return value type string line run build check change update
add remove fix call use need should must might output input result data config server client
request response path directory package module import export class method field struct interface
list map key index table query database session message user agent tool command shell process
version release branch commit merge diff patch log debug warning info trace stack frame memory`)

func newGen(seed uint64) *gen {
	// The vocabulary, the project and the prompt come from a fixed
	// stream, so every generator has the same ones, as every session of
	// one Hermes install does; the seed changes only the sessions.
	p := &gen{rnd: rand.New(rand.NewPCG(1, 1))}
	// Letters weighted roughly as in English.
	const letters = "eeeeeeeeeeeetttttttttaaaaaaaaoooooooiiiiiiinnnnnnnsssssshhhhhhrrrrrrddddllllcccuuummwwffggyyppbbvk"
	seen := map[string]bool{}
	p.vocab = append(p.vocab, common...)
	for _, w := range common {
		seen[w] = true
	}
	for len(p.vocab) < 8000 {
		n := 3 + p.rnd.IntN(4) + p.rnd.IntN(5)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[p.rnd.IntN(len(letters))]
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			p.vocab = append(p.vocab, string(b))
		}
	}
	p.zipf = rand.NewZipf(p.rnd, 1.1, 4, uint64(len(p.vocab)-1))
	var sb strings.Builder
	sb.WriteString("You are Hermes, an agent created by Nous Research.\n\n")
	for sb.Len() < 9000 {
		fmt.Fprintf(&sb, "## %s\n%s\n\n", p.text(20), p.text(300+p.rnd.IntN(500)))
	}
	p.prompt = sb.String()
	for range 6 {
		p.memory = append(p.memory, "<memory>\n"+p.text(600+p.rnd.IntN(600))+"\n</memory>")
	}
	for range 60 {
		dir := []string{"cmd", "internal/store", "internal/api", "pkg/agent", "web/src", "scripts"}[p.rnd.IntN(6)]
		p.files = append(p.files, file{path: dir + "/" + p.word() + "_" + p.word() + ".go", content: p.code(2000 + p.rnd.IntN(30000))})
	}
	g := &gen{rnd: rand.New(rand.NewPCG(seed, 7)), vocab: p.vocab, prompt: p.prompt, memory: p.memory, files: p.files,
		start: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
	g.zipf = rand.NewZipf(g.rnd, 1.1, 4, uint64(len(g.vocab)-1))
	return g
}

func (g *gen) word() string { return g.vocab[g.zipf.Uint64()] }

// text returns prose of about n bytes.
func (g *gen) text(n int) string {
	var sb strings.Builder
	sb.Grow(n + 16)
	capital := true
	for sb.Len() < n {
		w := g.word()
		if capital {
			w = strings.ToUpper(w[:1]) + w[1:]
			capital = false
		}
		sb.WriteString(w)
		switch r := g.rnd.IntN(40); {
		case r < 3:
			sb.WriteString(". ")
			capital = true
		case r < 5:
			sb.WriteString(", ")
		case r < 6:
			sb.WriteString(".\n")
			capital = true
		default:
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// code returns lines shaped like Go source, about n bytes.
func (g *gen) code(n int) string {
	var sb strings.Builder
	indent := 0
	tabs := func() string { return strings.Repeat("\t", indent) }
	for sb.Len() < n {
		switch g.rnd.IntN(6) {
		case 0:
			fmt.Fprintf(&sb, "%sfunc (s *%s) %s(ctx context.Context, %s string) error {\n", tabs(), g.word(), strings.ToUpper(g.word()[:1])+g.word(), g.word())
			indent = min(indent+1, 4)
		case 1:
			fmt.Fprintf(&sb, "%sif err := s.%s.%s(ctx, %s); err != nil {\n%s\treturn fmt.Errorf(\"%s %s: %%w\", err)\n%s}\n",
				tabs(), g.word(), g.word(), g.word(), tabs(), g.word(), g.word(), tabs())
		case 2:
			fmt.Fprintf(&sb, "%s%s := %s.%s(%q, %d)\n", tabs(), g.word(), g.word(), g.word(), g.word(), g.rnd.IntN(1000))
		case 3:
			if indent > 0 {
				indent--
			}
			fmt.Fprintf(&sb, "%s}\n", tabs())
		default:
			fmt.Fprintf(&sb, "%s// %s\n", tabs(), g.text(30+g.rnd.IntN(50)))
		}
	}
	return sb.String()
}

// output returns what a tool printed, about n bytes: a piece of a file of
// the project, a test run's log or search hits.
func (g *gen) output(n int) string {
	var sb strings.Builder
	switch g.rnd.IntN(3) {
	case 0:
		f := g.files[g.rnd.IntN(len(g.files))]
		at := g.rnd.IntN(max(1, len(f.content)-n))
		sb.WriteString(f.content[at:min(len(f.content), at+n)])
	case 1:
		for sb.Len() < n {
			f := g.files[g.rnd.IntN(len(g.files))]
			switch g.rnd.IntN(4) {
			case 0:
				fmt.Fprintf(&sb, "--- FAIL: Test%s (0.%02ds)\n    %s:%d: %s\n", strings.ToUpper(g.word()[:1])+g.word(), g.rnd.IntN(100), f.path, 1+g.rnd.IntN(400), g.text(40))
			default:
				fmt.Fprintf(&sb, "ok  \texample.com/project/%s\t0.%03ds\n", f.path[:strings.LastIndexByte(f.path, '/')], g.rnd.IntN(1000))
			}
		}
	default:
		for sb.Len() < n {
			f := g.files[g.rnd.IntN(len(g.files))]
			at := g.rnd.IntN(len(f.content) - 80)
			line := f.content[at : at+40+g.rnd.IntN(40)]
			fmt.Fprintf(&sb, "%s:%d:%s\n", f.path, 1+g.rnd.IntN(900), strings.ReplaceAll(line, "\n", " "))
		}
	}
	return sb.String()
}

func (g *gen) id(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rnd.IntN(len(alphabet))]
	}
	return string(b)
}

// jsonText is Python's json.dumps with its default separators, ", " and
// ": ".
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	out := make([]byte, 0, len(b)+len(b)/8)
	in, escaped := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case c == '\\' && in:
			escaped = true
		case c == '"':
			in = !in
		case (c == ',' || c == ':') && !in:
			out = append(out, ' ')
		}
	}
	return string(out)
}

var tools = []string{"terminal", "read_file", "write_file", "patch", "search_files", "web_search", "web_extract", "browser_navigate", "skill_view", "memory", "todo", "execute_code"}

func textValue(col, s string) Value         { return Value{Column: col, Kind: Text, Text: s} }
func intValue(col string, n int64) Value    { return Value{Column: col, Kind: Integer, Int: n} }
func realValue(col string, f float64) Value { return Value{Column: col, Kind: Real, Float: f} }
func nullValue(col string) Value            { return Value{Column: col, Kind: Null} }

func orNull(col, s string) Value {
	if s == "" {
		return nullValue(col)
	}
	return textValue(col, s)
}

// session returns session i with its messages.
func (g *gen) session(i int) Session {
	t := g.start.Add(time.Duration(i) * 37 * time.Minute)
	id := t.Format("20060102_150405") + "_" + strings.ToLower(g.id(8))
	ts := float64(t.UnixMicro()) / 1e6
	prompt := g.prompt + "\n\n" + g.memory[i%len(g.memory)] + "\n\nConversation started: " + t.Format("Monday, January 02, 2006 03:04 PM")
	s := Session{ID: id}
	var msgs []Row
	tcalls := 0
	add := func(role, content, callID, calls, tool, finish, reasoning string) {
		g.message++
		ts += 1 + g.rnd.Float64()*20
		if calls != "" || role == "tool" {
			tcalls++
		}
		msgs = append(msgs, Row{
			intValue("id", g.message), textValue("session_id", id), textValue("role", role), orNull("content", content),
			orNull("tool_call_id", callID), orNull("tool_calls", calls), orNull("tool_name", tool),
			realValue("timestamp", ts), nullValue("token_count"), orNull("finish_reason", finish),
			orNull("reasoning", reasoning), nullValue("reasoning_details"), nullValue("codex_reasoning_items"),
			nullValue("reasoning_content"), nullValue("codex_message_items"),
		})
	}
	for turns := 1 + g.rnd.IntN(3); turns > 0; turns-- {
		add("user", g.text(40+g.rnd.IntN(500)), "", "", "", "", "")
		for range g.rnd.IntN(6) {
			tool := tools[g.rnd.IntN(len(tools))]
			call := "call_" + g.id(24)
			args := jsonText(map[string]any{"command": "go test ./" + g.files[g.rnd.IntN(len(g.files))].path, "timeout": 120})
			calls := jsonText([]map[string]any{{"id": call, "call_id": call, "response_item_id": "fc_" + g.id(40), "type": "function",
				"function": map[string]any{"name": tool, "arguments": args}}})
			add("assistant", "", "", calls, "", "tool_calls", g.text(100+g.rnd.IntN(800)))
			out := g.output(g.outputSize())
			add("tool", jsonText(map[string]any{"output": out, "exit_code": g.rnd.IntN(10) / 9, "error": nil}), call, "", tool, "", "")
		}
		add("assistant", g.text(100+g.rnd.IntN(1500)), "", "", "", "stop", g.text(g.rnd.IntN(600)))
	}
	end := ts + 60
	s.Messages = msgs
	s.Row = Row{
		textValue("id", id), textValue("source", []string{"cli", "discord", "telegram"}[g.rnd.IntN(3)]), orNull("user_id", ""),
		textValue("model", "anthropic/claude-sonnet-4"), textValue("model_config", jsonText(map[string]any{"max_iterations": 90, "reasoning_config": map[string]any{"effort": "medium"}})),
		textValue("system_prompt", prompt), nullValue("parent_session_id"), realValue("started_at", float64(t.UnixMicro())/1e6), realValue("ended_at", end),
		textValue("end_reason", "user_exit"), intValue("message_count", int64(len(msgs))), intValue("tool_call_count", int64(tcalls)),
		intValue("input_tokens", int64(g.rnd.IntN(400000))), intValue("output_tokens", int64(g.rnd.IntN(40000))), nullValue("title"),
		intValue("cache_read_tokens", int64(g.rnd.IntN(300000))), intValue("cache_write_tokens", 0), intValue("reasoning_tokens", int64(g.rnd.IntN(9000))),
		textValue("billing_provider", "openrouter"), textValue("billing_base_url", "https://openrouter.ai/api/v1"), textValue("billing_mode", "official_docs_snapshot"),
		realValue("estimated_cost_usd", math.Round(g.rnd.Float64()*300)/100), nullValue("actual_cost_usd"), textValue("cost_status", "estimated"),
		textValue("cost_source", "official_docs_snapshot"), textValue("pricing_version", "2026-01"), intValue("api_call_count", int64(len(msgs)/2)),
	}
	return s
}

// outputSize draws a tool output size: mostly small, sometimes large.
func (g *gen) outputSize() int {
	switch r := g.rnd.Float64(); {
	case r < 0.55:
		return 50 + g.rnd.IntN(800)
	case r < 0.9:
		return 800 + g.rnd.IntN(5000)
	default:
		return 5000 + g.rnd.IntN(30000)
	}
}

func (g *gen) sessions(n int) []Session {
	out := make([]Session, n)
	for i := range out {
		out[i] = g.session(i)
	}
	return out
}

// rawSize is the size of the sessions' encoded rows.
func rawSize(sessions []Session) int64 {
	var n int64
	for _, s := range sessions {
		n += int64(s.Row.size())
		for _, m := range s.Messages {
			n += int64(m.size())
		}
	}
	return n
}
