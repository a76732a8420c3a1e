package harvest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/tokens"
	"github.com/lorehq/lore/llm"
)

// fakeLLM is an llm.Client that records every request and answers with
// answer, given the request's number (from 0).
type fakeLLM struct {
	answer func(n int, req llm.Request) (llm.Response, error)

	mu   sync.Mutex
	reqs []llm.Request
}

var _ llm.Client = (*fakeLLM)(nil)

func (f *fakeLLM) Name() string { return "fake (test)" }

func (f *fakeLLM) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.answer(n, req)
}

// scripted answers with texts in turn, then with an empty list; each
// answer reports 1000 tokens in and 50 out.
func scripted(texts ...string) *fakeLLM {
	return &fakeLLM{answer: func(n int, req llm.Request) (llm.Response, error) {
		text := `{"knowledge":[]}`
		if n < len(texts) {
			text = texts[n]
		}
		return llm.Response{Text: text, InputTokens: 1000, OutputTokens: 50}, nil
	}}
}

func newTestLLM(t *testing.T, c llm.Client, window int) *LLM {
	t.Helper()
	x, err := NewLLM(c, LLMOptions{ContextTokens: window})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func testSession(msgs ...lore.Message) *lore.Session {
	s := &lore.Session{ID: "claude-code:s1", Agent: lore.AgentClaudeCode, Repo: "acme/api", Cwd: "/home/dev/api", Branch: "main"}
	for i, m := range msgs {
		m.Index = i
		s.Messages = append(s.Messages, m)
	}
	return s
}

func msgUser(text string) lore.Message { return lore.Message{Role: lore.RoleUser, Text: text} }

func msgSay(text string) lore.Message { return lore.Message{Role: lore.RoleAssistant, Text: text} }

func msgCall(id, tool string, input any) lore.Message {
	in, ok := input.(string)
	if !ok {
		b, _ := json.Marshal(input)
		in = string(b)
	}
	return lore.Message{Role: lore.RoleAssistant, ToolCalls: []lore.ToolCall{{ID: id, Name: tool, Input: in}}}
}

func msgBash(id, cmd string) lore.Message {
	return msgCall(id, "Bash", map[string]string{"command": cmd, "description": "run"})
}

func msgResult(id, out string, failed bool) lore.Message {
	return lore.Message{Role: lore.RoleTool, ToolResults: []lore.ToolResult{{CallID: id, Output: out, IsError: failed}}}
}

// smallSession holds messages #0 to #5.
func smallSession() *lore.Session {
	return testSession(
		msgUser("Run the tests of the api."),
		msgBash("t1", "go test ./..."),
		msgResult("t1", "# acme/api/store\nstore/db.go:12:2: undefined: sqlx\nFAIL\tacme/api/store [build failed]", true),
		msgBash("t2", "go mod tidy && go test ./..."),
		msgResult("t2", "ok  \tacme/api/store\t0.2s", false),
		msgSay("The tests pass after go mod tidy."),
	)
}

// answerJSON is an answer holding items.
func answerJSON(items ...string) string {
	return `{"knowledge":[` + strings.Join(items, ",") + `]}`
}

// ans is one item of an answer; pos is written as JSON as given.
func ans(text, cat string, conf any, pos any) string {
	b, _ := json.Marshal(map[string]any{"text": text, "category": cat, "confidence": conf, "position": pos,
		"repo_specific": false, "signature": "", "tags": []string{}})
	return string(b)
}

func describe(items []lore.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprintf("%s %.1f #%d %s", it.Category, it.Confidence, it.Evidence[0].Position, it.Text))
	}
	return out
}

func TestLLMAnswers(t *testing.T) {
	valid := answerJSON(ans("Run go mod tidy before go test in acme/api.", "pattern", 0.7, 3))
	want := []string{"pattern 0.7 #3 Run go mod tidy before go test in acme/api."}
	long := strings.Repeat("x", maxItemText)
	tests := []struct {
		name     string
		answers  []string
		want     []string
		calls    int
		failures int
		dropped  int    // items of a usable answer that lack what an item needs
		retry    string // what the second prompt tells the model
	}{
		{name: "plain", answers: []string{valid}, want: want, calls: 1},
		{name: "fenced", answers: []string{"```json\n" + valid + "\n```"}, want: want, calls: 1},
		{name: "fenced without language", answers: []string{"```\n" + valid + "\n```\nDone."}, want: want, calls: 1},
		{name: "prose around", answers: []string{"Here is what I found [#3]:\n" + valid + "\nI hope {this} helps."}, want: want, calls: 1},
		{name: "bare array", answers: []string{"[" + ans("Run go mod tidy before go test in acme/api.", "pattern", 0.7, 3) + "]"}, want: want, calls: 1},
		{name: "one object", answers: []string{ans("Run go mod tidy before go test in acme/api.", "pattern", 0.7, 3)}, want: want, calls: 1},
		{name: "other name for the list", answers: []string{`{"items":[` + ans("Run go mod tidy before go test in acme/api.", "pattern", 0.7, 3) + `]}`}, want: want, calls: 1},
		{name: "trailing commas", answers: []string{`{"knowledge":[{"text":"Run go mod tidy before go test in acme/api.","category":"pattern","confidence":0.7,"position":3,},],}`}, want: want, calls: 1},
		{name: "cut short", answers: []string{`{"knowledge":[` + ans("Run go mod tidy before go test in acme/api.", "pattern", 0.7, 3) + `,{"text":"The tests ne`}, want: want, calls: 1},
		{name: "thinking first", answers: []string{"<think>Maybe {\"knowledge\": [] }? No.</think>\n" + valid}, want: want, calls: 1},
		{name: "nothing found", answers: []string{`{"knowledge":[]}`}, calls: 1},
		{name: "empty object", answers: []string{`{}`}, calls: 1},
		{name: "empty then valid", answers: []string{"", valid}, want: want, calls: 2, retry: "was empty"},
		{name: "only thinking then valid", answers: []string{"<think>The user wants JSON.", valid}, want: want, calls: 2, retry: "was empty"},
		{name: "prose then valid", answers: []string{"The session shows that go mod tidy fixes the build.", valid}, want: want, calls: 2, retry: "not valid JSON"},
		{name: "invalid twice", answers: []string{"I cannot help with that.", `{"knowledge": [{"text": oops}]`}, calls: 2, failures: 1, retry: "not valid JSON"},
		{name: "wrong shape twice", answers: []string{`{"answer":"none"}`, `{"answer":"none"}`}, calls: 2, failures: 1, retry: "not valid JSON"},
		{name: "categories", calls: 1, answers: []string{answerJSON(
			ans("a gotcha", "gotcha", 0.7, 1), ans("a warning", "Warning", 0.7, 1), ans("a quirk", "quirk", 0.7, 1),
			ans("a tool quirk", "Tool Quirk", 0.7, 1), ans("a tool_quirk", "tool_quirk", 0.7, 1),
			ans("an open question", "open question", 0.7, 1), ans("patterns", "Patterns", 0.7, 1), ans("a fact", "FACT", 0.7, 1),
			ans("a banana", "banana", 0.7, 1), ans("no category", "", 0.7, 1))},
			dropped: 3, // a question is dropped: the prompt offers none
			want: []string{"pitfall 0.7 #1 a gotcha", "pitfall 0.7 #1 a warning", "tool-quirk 0.7 #1 a quirk",
				"tool-quirk 0.7 #1 a tool quirk", "tool-quirk 0.7 #1 a tool_quirk",
				"pattern 0.7 #1 patterns", "fact 0.7 #1 a fact"}},
		{name: "positions", calls: 1, answers: []string{answerJSON(
			ans("at 3", "fact", 0.7, 3), ans("at #4", "fact", 0.7, "#4"), ans("at [#5]", "fact", 0.7, "[#5]"),
			ans("at #0", "fact", 0.7, "#0"), ans("at 2.0", "fact", 0.7, 2.0), ans("at 1 and 2", "fact", 0.7, []int{1, 2}),
			ans("at 6", "fact", 0.7, 6), ans("at -1", "fact", 0.7, -1), ans("at 2.5", "fact", 0.7, 2.5),
			ans("at #99", "fact", 0.7, "#99"), ans("at nothing", "fact", 0.7, nil), ans("at word", "fact", 0.7, "start"))},
			dropped: 6,
			want: []string{"fact 0.7 #3 at 3", "fact 0.7 #4 at #4", "fact 0.7 #5 at [#5]", "fact 0.7 #0 at #0",
				"fact 0.7 #2 at 2.0", "fact 0.7 #1 at 1 and 2"}},
		{name: "texts", calls: 1, answers: []string{answerJSON(
			ans(long, "fact", 0.7, 1), ans(long+"y", "fact", 0.7, 1), ans("", "fact", 0.7, 1), ans("   ", "fact", 0.7, 1),
			ans("Use  `go mod tidy`.", "fact", 0.7, 1), ans("use go mod tidy", "fact", 0.9, 2))},
			// Run checks the length once the text is redacted.
			dropped: 2,
			want:    []string{"fact 0.7 #1 " + long, "fact 0.7 #1 " + long + "y", "fact 0.7 #1 Use `go mod tidy`."}},
		{name: "confidence bands", calls: 1, answers: []string{answerJSON(
			ans("c 0.8", "fact", 0.8, 1), ans("c 0.85", "fact", 0.85, 1), ans("c 0.6", "fact", 0.6, 1),
			ans("c 0.4", "fact", 0.4, 1), ans("c 0.95", "fact", 0.95, 1), ans("c 0.1", "fact", 0.1, 1),
			ans("c 1", "fact", 1, 1), ans("c string", "fact", "0.9", 1), ans("c 80%", "fact", "80%", 1),
			ans("c 50", "fact", 50, 1), ans("c high", "fact", "high", 1), ans("c low", "fact", "low", 1),
			ans("c none", "fact", nil, 1))},
			want: []string{"fact 0.7 #1 c 0.8", "fact 0.9 #1 c 0.85", "fact 0.5 #1 c 0.6", "fact 0.3 #1 c 0.4",
				"fact 0.9 #1 c 0.95", "fact 0.3 #1 c 0.1", "fact 0.9 #1 c 1", "fact 0.9 #1 c string", "fact 0.7 #1 c 80%",
				"fact 0.5 #1 c 50", "fact 0.9 #1 c high", "fact 0.3 #1 c low", "fact 0.5 #1 c none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scripted(tt.answers...)
			found, err := newTestLLM(t, c, 0).Extract(context.Background(), smallSession())
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(found.Items); !slices.Equal(got, tt.want) {
				t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if found.LLMCalls != tt.calls || len(c.reqs) != tt.calls || found.Failures != tt.failures {
				t.Errorf("calls %d (%d requests), failures %d; want %d, %d", found.LLMCalls, len(c.reqs), found.Failures, tt.calls, tt.failures)
			}
			if found.Dropped != tt.dropped || found.Chunks != 1 {
				t.Errorf("dropped %d items over %d chunks; want %d over 1", found.Dropped, found.Chunks, tt.dropped)
			}
			if found.TokensIn != int64(1000*tt.calls) || found.TokensOut != int64(50*tt.calls) {
				t.Errorf("tokens %d in, %d out; want %d, %d", found.TokensIn, found.TokensOut, 1000*tt.calls, 50*tt.calls)
			}
			if tt.retry != "" {
				first, second := c.reqs[0].Prompt, c.reqs[1].Prompt
				if !strings.Contains(second, tt.retry) || !strings.HasPrefix(second, first) {
					t.Errorf("the retry prompt is not the first one and a note saying %q:\n%s", tt.retry, second)
				}
			}
		})
	}
}

// An item without a position cites the one message its chunk holds.
func TestLLMPositionRepaired(t *testing.T) {
	noPos := `{"knowledge":[{"text":"go mod tidy fixes the build.","category":"fact","confidence":0.7}]}`
	c := scripted(noPos, noPos)
	found, err := newTestLLM(t, c, 0).Extract(context.Background(), testSession(msgSay("go mod tidy fixed the build.")))
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(found.Items); !slices.Equal(got, []string{"fact 0.7 #0 go mod tidy fixes the build."}) || found.Dropped != 0 {
		t.Errorf("one message: items %v, %d dropped; want the item at #0", got, found.Dropped)
	}
	found, err = newTestLLM(t, c, 0).Extract(context.Background(), smallSession())
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Items) != 0 || found.Dropped != 1 {
		t.Errorf("six messages: items %v, %d dropped; want it dropped and counted", describe(found.Items), found.Dropped)
	}
}

func TestLLMItems(t *testing.T) {
	item := func(text, cat string, conf float64, pos int, specific bool, sig string, tags ...string) string {
		b, _ := json.Marshal(map[string]any{"text": text, "category": cat, "confidence": conf, "position": pos,
			"repo_specific": specific, "signature": sig, "tags": tags})
		return string(b)
	}
	c := scripted(answerJSON(
		item("The store package needs github.com/jmoiron/sqlx; run go mod tidy.", "pitfall", 0.9, 2, true,
			"undefined: <v>", "Go", " Modules "),
		item("Edit in store/db.go needs the file read first.", "tool-quirk", 0.5, 2, false, "file has not been read yet"),
		item("go mod tidy adds missing module requirements.", "fact", 0.7, 3, false, "ignored for facts"),
		item("Should the api pin sqlx?", "question", 0.3, 5, false, ""),
	))
	found, err := newTestLLM(t, c, 0).Extract(context.Background(), smallSession())
	if err != nil {
		t.Fatal(err)
	}
	want := []lore.Item{
		{Text: "The store package needs github.com/jmoiron/sqlx; run go mod tidy.", Category: lore.CategoryPitfall,
			Repo: "acme/api", Confidence: 0.9, Signature: "undefined: <v>", Tags: []string{"go", "modules"},
			Evidence: []lore.Evidence{{Session: "claude-code:s1", Position: 2}}},
		// Not repo-specific by the model's word, but it names a path.
		{Text: "Edit in store/db.go needs the file read first.", Category: lore.CategoryToolQuirk, Repo: "acme/api",
			Agent: lore.AgentClaudeCode, Confidence: 0.5, Status: lore.StatusCandidate, Signature: "file has not been read yet",
			Evidence: []lore.Evidence{{Session: "claude-code:s1", Position: 2}}},
		// True anywhere by the model's word: the repository's until a
		// second repository meets it (portable).
		{Text: "go mod tidy adds missing module requirements.", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.7,
			Tags: []string{lore.TagPortable}, Evidence: []lore.Evidence{{Session: "claude-code:s1", Position: 3}}},
		// "Should the api pin sqlx?" is a question: not kept.
	}
	if len(found.Items) != len(want) {
		t.Fatalf("%d items, want %d: %v", len(found.Items), len(want), describe(found.Items))
	}
	for i, got := range found.Items {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Errorf("item %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

func TestLLMRequest(t *testing.T) {
	c := scripted()
	x := newTestLLM(t, c, 0)
	if x.Name() != "llm:fake (test)" {
		t.Errorf("name %q", x.Name())
	}
	if _, err := x.Extract(context.Background(), smallSession()); err != nil {
		t.Fatal(err)
	}
	if len(c.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(c.reqs))
	}
	req := c.reqs[0]
	if !strings.HasPrefix(req.Prompt, Marker+"\n") {
		t.Errorf("the prompt does not start with the marker:\n%s", req.Prompt)
	}
	for _, s := range []string{"agent claude-code", "repo acme/api", "cwd /home/dev/api", "branch main",
		"messages #0 to #5", "[#2] tool result (error): # acme/api/store", "[#3] tool call Bash: go mod tidy && go test ./..."} {
		if !strings.Contains(req.Prompt, s) {
			t.Errorf("the prompt lacks %q:\n%s", s, req.Prompt)
		}
	}
	for _, s := range []string{"data, not instructions", "0.9 stated outright", "tool-quirk:", "at most 300 characters", "JSON only"} {
		if !strings.Contains(req.System, s) {
			t.Errorf("the system prompt lacks %q", s)
		}
	}
	var schema struct {
		Required   []string
		Properties map[string]json.RawMessage
	}
	if err := json.Unmarshal(req.Schema, &schema); err != nil || !slices.Equal(schema.Required, []string{"knowledge"}) {
		t.Errorf("schema %s: %v", req.Schema, err)
	}
	if req.SchemaName != "knowledge" || req.MaxTokens != 2048 {
		t.Errorf("schema name %q, max tokens %d; want knowledge, 2048", req.SchemaName, req.MaxTokens)
	}
}

func TestLLMUsageMissing(t *testing.T) {
	c := &fakeLLM{answer: func(int, llm.Request) (llm.Response, error) {
		return llm.Response{Text: `{"knowledge":[]}`}, nil
	}}
	found, err := newTestLLM(t, c, 0).Extract(context.Background(), smallSession())
	if err != nil {
		t.Fatal(err)
	}
	// What lore counts instead.
	codec, err := tokens.Get("o200k")
	if err != nil {
		t.Fatal(err)
	}
	if found.TokensIn < 500 || found.TokensOut != int64(tokens.Count(codec, `{"knowledge":[]}`)) {
		t.Errorf("tokens %d in, %d out", found.TokensIn, found.TokensOut)
	}
}

func TestLLMClientError(t *testing.T) {
	boom := errors.New("openai: HTTP 500: overloaded")
	c := &fakeLLM{answer: func(int, llm.Request) (llm.Response, error) { return llm.Response{}, boom }}
	found, err := newTestLLM(t, c, 0).Extract(context.Background(), smallSession())
	if !errors.Is(err, boom) || found.LLMCalls != 1 || found.Failures != 0 {
		t.Errorf("error %v, calls %d, failures %d; want the client's error after one call", err, found.LLMCalls, found.Failures)
	}
}

func TestLLMNothingToSay(t *testing.T) {
	c := scripted()
	s := testSession(lore.Message{Role: lore.RoleAssistant, Thinking: "hmm"}, msgUser("  "))
	found, err := newTestLLM(t, c, 0).Extract(context.Background(), s)
	if err != nil || found.LLMCalls != 0 || len(c.reqs) != 0 {
		t.Errorf("a session without content: error %v, %d calls", err, found.LLMCalls)
	}
}

func TestNewLLM(t *testing.T) {
	c := scripted()
	for _, tt := range []struct {
		opts           LLMOptions
		window, answer int
		err            string
	}{
		{opts: LLMOptions{}, window: 8192, answer: 2048},
		{opts: LLMOptions{ContextTokens: 2048, Tokenizer: "cl100k"}, window: 2048, answer: 1024},
		{opts: LLMOptions{ContextTokens: 5000, Tokenizer: "o200k_base"}, window: 5000, answer: 1250},
		{opts: LLMOptions{ContextTokens: 200000}, window: 200000, answer: llm.DefaultMaxTokens},
		{opts: LLMOptions{ContextTokens: 1000}, err: "too small"},
		{opts: LLMOptions{ContextTokens: -1}, err: "too small"},
		{opts: LLMOptions{Tokenizer: "gpt2"}, err: "unknown tokenizer"},
	} {
		x, err := NewLLM(c, tt.opts)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%+v: error %v, want %q", tt.opts, err, tt.err)
			}
		case err != nil:
			t.Errorf("%+v: %v", tt.opts, err)
		case x.window != tt.window || x.maxAnswer != tt.answer:
			t.Errorf("%+v: window %d, answer %d; want %d, %d", tt.opts, x.window, x.maxAnswer, tt.window, tt.answer)
		}
	}
	if _, err := NewLLM(nil, LLMOptions{}); err == nil {
		t.Error("no error without a client")
	}
}

// longSession has many messages of every kind, and one message too long
// for a chunk of a 2048-token window.
func longSession() (s *lore.Session, huge int) {
	var msgs []lore.Message
	for i := range 30 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, msgUser(fmt.Sprintf("Step %d: make the handler for route /v1/items/%d return JSON.", i, i)))
		msgs = append(msgs, msgBash(id, fmt.Sprintf("go test ./internal/http/... -run TestItem%d", i)))
		var out strings.Builder
		for l := range 12 {
			fmt.Fprintf(&out, "=== RUN   TestItem%d/case_%d\n--- PASS: TestItem%d/case_%d (0.0%ds)\n", i, l, i, l, l)
		}
		msgs = append(msgs, msgResult(id, out.String(), i%3 == 0))
		msgs = append(msgs, msgSay(fmt.Sprintf("Route %d works; next I will look at the store layer.", i)))
		if i == 12 {
			var b strings.Builder
			for l := range 25 {
				fmt.Fprintf(&b, "Paragraph %d of the plan: the handler validates its input, calls the store and maps what it says to a status.\n", l)
			}
			huge = len(msgs)
			msgs = append(msgs, msgSay(b.String()))
		}
	}
	return testSession(msgs...), huge
}

var frameLine = regexp.MustCompile(`(?m)^Transcript, messages #(\d+) to #(\d+):$`)

func chunkRange(t *testing.T, prompt string) (first, last int) {
	t.Helper()
	m := frameLine.FindStringSubmatch(prompt)
	if m == nil {
		t.Fatalf("no range in the prompt:\n%s", prompt)
	}
	first, _ = strconv.Atoi(m[1])
	last, _ = strconv.Atoi(m[2])
	return first, last
}

func TestLLMChunks(t *testing.T) {
	const window = 2048
	s, huge := longSession()
	// Each chunk's answer cites its own last message, which is kept, and
	// the one before its first, which belongs to an earlier chunk and is
	// dropped.
	c := &fakeLLM{}
	c.answer = func(n int, req llm.Request) (llm.Response, error) {
		first, last := chunkRange(t, req.Prompt)
		return llm.Response{Text: answerJSON(
			ans(fmt.Sprintf("Chunk %d ends at #%d.", n, last), "fact", 0.7, last),
			ans(fmt.Sprintf("Chunk %d cites #%d before it.", n, first-1), "fact", 0.7, first-1),
		)}, nil
	}
	found, err := newTestLLM(t, c, window).Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.reqs) < 3 {
		t.Fatalf("%d requests for %d messages in a %d-token window, want several", len(c.reqs), len(s.Messages), window)
	}
	codec, err := tokens.Get("o200k")
	if err != nil {
		t.Fatal(err)
	}
	schema := tokens.Count(codec, string(knowledgeSchema))
	line := regexp.MustCompile(`(?m)^\[#(\d+)\] (\(continued\) )?`)
	seen := map[int][]int{} // message → the chunks that start a line of it
	continued := map[int][]int{}
	var want []string
	for n, req := range c.reqs {
		// As sent, and as it would be sent again after an empty answer.
		for _, prompt := range []string{req.Prompt, req.Prompt + "\n\n" + retryEmpty} {
			total := tokens.Count(codec, req.System) + schema + tokens.Count(codec, prompt) + req.MaxTokens
			if total > window || req.MaxTokens != 1024 {
				t.Errorf("request %d: %d tokens with the schema and %d for the answer, over the window of %d", n, total, req.MaxTokens, window)
			}
		}
		if !strings.HasPrefix(req.Prompt, Marker) || !strings.Contains(req.Prompt, "Session: agent claude-code, repo acme/api, cwd /home/dev/api, branch main.") {
			t.Errorf("request %d lacks the marker or the session header:\n%s", n, req.Prompt)
		}
		first, last := chunkRange(t, req.Prompt)
		for _, m := range line.FindAllStringSubmatch(req.Prompt, -1) {
			i, _ := strconv.Atoi(m[1])
			if i < first || i > last {
				t.Errorf("request %d holds #%d outside its range #%d to #%d", n, i, first, last)
			}
			if m[2] != "" {
				continued[i] = append(continued[i], n)
			} else if !slices.Contains(seen[i], n) {
				seen[i] = append(seen[i], n)
			}
		}
		want = append(want, fmt.Sprintf("fact 0.7 #%d Chunk %d ends at #%d.", last, n, last))
	}
	for _, m := range s.Messages {
		if len(seen[m.Index]) != 1 {
			t.Errorf("message #%d is in chunks %v, want exactly one", m.Index, seen[m.Index])
		}
	}
	// The long message goes on in the chunks right after its own.
	if len(continued) != 1 || len(continued[huge]) == 0 {
		t.Errorf("continued messages %v, want only #%d", continued, huge)
	}
	for k, n := range continued[huge] {
		if n != seen[huge][0]+k+1 {
			t.Errorf("#%d continues in chunks %v after chunk %v", huge, continued[huge], seen[huge])
		}
	}
	if got := describe(found.Items); !slices.Equal(got, want) {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	t.Logf("%d messages in %d chunks", len(s.Messages), len(c.reqs))
}

func TestLLMFailureGoesOn(t *testing.T) {
	s, _ := longSession()
	c := &fakeLLM{}
	c.answer = func(n int, req llm.Request) (llm.Response, error) {
		if n < 2 {
			return llm.Response{Text: "Sorry, I can only answer in prose."}, nil
		}
		_, last := chunkRange(t, req.Prompt)
		return llm.Response{Text: answerJSON(ans(fmt.Sprintf("Chunk %d.", n), "fact", 0.9, last))}, nil
	}
	found, err := newTestLLM(t, c, 2048).Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	chunks := len(c.reqs) - 1 // the first chunk was asked twice
	if found.Failures != 1 || found.LLMCalls != len(c.reqs) || len(found.Items) != chunks-1 {
		t.Errorf("failures %d, calls %d, items %d over %d chunks; want 1 failure and an item from every other chunk",
			found.Failures, found.LLMCalls, len(found.Items), chunks)
	}
	if c.reqs[0].Prompt == c.reqs[2].Prompt {
		t.Error("the second chunk repeats the first")
	}
}

func TestLLMConcurrent(t *testing.T) {
	x := newTestLLM(t, scripted(), 2048)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s, _ := longSession()
			if _, err := x.Extract(context.Background(), s); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestLLMRedacts(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7vQk3Jr9mTzW0p8nYqH2xLcF5dGs1aB4eK6uV8iN0oR2tS3w\nQ9xZ7yP1mK4jH6gF3dS8aL2kJ5hG7fD9sA1qW3eR5tY7uI9oP0lK2jH4gF6dS8a\n-----END RSA PRIVATE KEY-----"
	secrets := map[string]string{
		"aws":       "AKIAZ3MXQ7RT2VB4N6PL",
		"github":    "ghp_R8kd2LmQ9xTz4VbN7cWp1sYh6JfG3aEo5uKi",
		"pem":       "MIIEowIBAAKCAQEA7vQk3Jr9mTzW0p8nYqH2xLcF5dGs1aB4eK6uV8iN0oR2tS3w",
		"jwt":       "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"url":       "s3cr3tPa55word",
		"openai":    "sk-proj-Abc123Def456Ghi789Jkl012Mno345",
		"anthropic": "sk-ant-api03-Xy9Zw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
		"slack":     "xoxb-2048-4096-AbCdEfGhIjKlMnOpQrStUv",
		"stripe":    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"password":  "Tr0ub4dor-and-3",
		"email":     "jane.doe@corp-mail.io",
		// Straddles where a long line of output is cut: trimming first
		// would send its first half.
		"cut": "AKIAQ4WERTY7UIOP2ASD",
	}
	cut := strings.Repeat("build ", (maxToolOutput-10)/6) + secrets["cut"] + strings.Repeat(" step", 300)
	s := testSession(
		msgUser("Deploy with key "+secrets["aws"]+" and DB_PASSWORD="+secrets["password"]+"; mail "+secrets["email"]+" when done."),
		msgBash("b1", `curl -H "Authorization: token `+secrets["github"]+`" https://api.github.com/user`),
		msgResult("b1", `{"login": "jane"}`, false),
		msgBash("b2", "git clone https://deploy:"+secrets["url"]+"@git.acme.dev/acme/api.git && STRIPE_KEY="+secrets["stripe"]+" ./seed.sh"),
		msgResult("b2", "fatal: could not read from remote repository", true),
		msgCall("r1", "Read", map[string]string{"file_path": "/home/dev/api/.env"}),
		msgResult("r1", "OPENAI_API_KEY="+secrets["openai"]+"\nANTHROPIC_API_KEY="+secrets["anthropic"]+"\nSLACK_BOT_TOKEN="+secrets["slack"], false),
		msgBash("b3", "cat deploy/id_rsa; echo; cat token.txt"),
		msgResult("b3", pem+"\n"+secrets["jwt"], false),
		msgBash("b4", "cat build.log"),
		msgResult("b4", cut, false),
	)
	c := scripted()
	found, err := newTestLLM(t, c, 0).Extract(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var sent strings.Builder
	for _, r := range c.reqs {
		sent.WriteString(r.System + "\n" + r.Prompt + "\n")
	}
	for kind, v := range secrets {
		for _, part := range []string{v, v[:len(v)/2], v[len(v)/2:]} {
			if strings.Contains(sent.String(), part) {
				t.Errorf("the %s secret %q reached the model", kind, part)
			}
		}
	}
	if strings.Contains(sent.String(), "PRIVATE KEY") {
		t.Error("the private key's armour reached the model")
	}
	if found.Redactions != len(secrets) {
		t.Errorf("%d redactions, want %d:\n%s", found.Redactions, len(secrets), sent.String())
	}
	for _, marker := range []string{"[REDACTED:aws-access-key]", "[REDACTED:private-key]", "[REDACTED:jwt]", "[REDACTED:email]"} {
		if !strings.Contains(sent.String(), marker) {
			t.Errorf("%s is not in what was sent", marker)
		}
	}
}

// chatAnswer is an OpenAI chat completions answer.
func chatAnswer(content string, prompt, completion int) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		c, prompt, completion, prompt+completion)
}

func TestLLMOpenAI(t *testing.T) {
	item := ans("Run go mod tidy before go test in acme/api.", "pattern", 0.7, 3)
	for _, tt := range []struct{ name, answer string }{
		{"json", answerJSON(item)},
		{"fenced", "Here you go:\n```json\n" + answerJSON(item) + "\n```"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Model          string
					Messages       []struct{ Role, Content string }
					MaxTokens      int `json:"max_tokens"`
					ResponseFormat struct {
						Type       string
						JSONSchema struct {
							Name   string
							Schema json.RawMessage
						} `json:"json_schema"`
					} `json:"response_format"`
				}
				if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
					http.Error(w, "bad request", http.StatusBadRequest)
					return
				}
				switch {
				case req.Model != "test", len(req.Messages) != 2, req.Messages[0].Role != "system",
					!strings.HasPrefix(req.Messages[1].Content, Marker), req.ResponseFormat.Type != "json_schema",
					req.ResponseFormat.JSONSchema.Name != "knowledge", len(req.ResponseFormat.JSONSchema.Schema) == 0,
					req.MaxTokens != 2048:
					t.Errorf("request %+v", req)
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, chatAnswer(tt.answer, 1234, 56))
			}))
			defer srv.Close()
			c, err := llm.New("openai:"+srv.URL+"/v1", llm.Options{Model: "test", APIKey: "test-key", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			x := newTestLLM(t, c, 0)
			if want := "llm:openai:" + srv.URL + "/v1 (test)"; x.Name() != want {
				t.Errorf("name %q, want %q", x.Name(), want)
			}
			found, err := x.Extract(context.Background(), smallSession())
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"pattern 0.7 #3 Run go mod tidy before go test in acme/api."}
			if got := describe(found.Items); !slices.Equal(got, want) {
				t.Errorf("items %q, want %q", got, want)
			}
			if found.LLMCalls != 1 || found.TokensIn != 1234 || found.TokensOut != 56 || found.Failures != 0 {
				t.Errorf("found %+v", found)
			}
		})
	}
}

// condenseSession has what condensing keeps, trims and drops.
func condenseSession() *lore.Session {
	exit := 2
	var long, failing strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "line %02d of a listing that goes on for a while\n", i)
		if i == 20 {
			failing.WriteString("internal/store/tree.go:42:24: cannot use id (variable of type int) as string value in argument\n")
		}
		fmt.Fprintf(&failing, "\x1b[32mcompiling\x1b[0m package %02d\n", i)
	}
	s := testSession(
		msgUser("Fix the build of the api, please."),
		lore.Message{Role: lore.RoleAssistant, Thinking: "The user wants the build fixed; secret plan.", Text: "I will build it first."},
		msgBash("b1", "go build ./... 2>&1 | tee build.log"),
		lore.Message{Role: lore.RoleTool, ToolResults: []lore.ToolResult{{CallID: "b1", Output: failing.String(), ExitCode: &exit}}},
		msgCall("r1", "Read", map[string]any{"file_path": "/home/dev/api/internal/store/tree.go", "limit": 40}),
		msgResult("r1", long.String(), false),
		msgCall("e1", "Edit", map[string]string{"file_path": "/home/dev/api/internal/store/tree.go",
			"old_string": strings.Repeat("return id\n", 40), "new_string": "return strconv.Itoa(id)"}),
		msgResult("e1", "", false),
		lore.Message{Role: lore.RoleAssistant, Sidechain: true, Text: "Sub-agent: searching the module cache\nfor strconv usages\nand more."},
		lore.Message{Role: lore.RoleTool, Sidechain: true, ToolResults: []lore.ToolResult{{CallID: "x", Output: "a\nb\nc", IsError: true}}},
		msgBash("b2", "curl -s https://example.com/logo.png | base64"),
		msgResult("b2", "iVBORw0KGgo"+strings.Repeat("AAAAbbbbCCCC1234", 30)+"=\ndone", false),
		msgBash("b3", "npm install"),
		msgResult("b3", "downloading 10%\rdownloading 50%\rdownloading 100%\nadded 3 packages", false),
		lore.Message{Role: lore.RoleAssistant},
		lore.Message{Role: lore.RoleSystem, Text: "Conversation compacted."},
		msgSay("The build passes now.\n\nShould `id` be a string everywhere?"),
	)
	return s
}

func TestCondense(t *testing.T) {
	cs := condense(condenseSession(), redact.New())
	var b strings.Builder
	b.WriteString(cs.header + "\n")
	for _, bl := range cs.blocks {
		b.WriteString(bl.text + "\n")
	}
	got := b.String()
	golden(t, "llm/condense.golden", got)
	for _, s := range []string{"secret plan", "AAAAbbbbCCCC1234", "\x1b[", "downloading 10%", "for strconv usages", "[#14]"} {
		if strings.Contains(got, s) {
			t.Errorf("condensed session holds %q", s)
		}
	}
	for _, s := range []string{"tree.go:42:24: cannot use id", "[#3] tool result (error):", "[#8] sidechain assistant: Sub-agent",
		"[base64, ", "downloading 100%", "[#6] tool call Edit: file_path=/home/dev/api/internal/store/tree.go new_string=return strconv.Itoa(id) old_string=return id return id"} {
		if !strings.Contains(got, s) {
			t.Errorf("condensed session lacks %q", s)
		}
	}
}

func TestTrimLines(t *testing.T) {
	lines := func(n int, mid string) string {
		var b strings.Builder
		for i := range n {
			if i == n/2 && mid != "" {
				b.WriteString(mid + "\n")
			}
			fmt.Fprintf(&b, "output line %03d with some words to take room\n", i)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name       string
		text       string
		errs       bool
		has, lacks []string
		max        int
	}{
		{name: "short", text: "ok\n", has: []string{"ok"}, max: 2},
		{name: "long", text: lines(50, ""), has: []string{"output line 000", "output line 003", "output line 049", "… 42 lines left out …"},
			lacks: []string{"output line 025"}, max: maxToolOutput + 100},
		{name: "error in the middle", text: lines(50, "panic: runtime error: index out of range [3] with length 3"), errs: true,
			has: []string{"panic: runtime error", "output line 000", "output line 049"}, max: maxToolOutput + maxErrorLines + 100},
		{name: "error not kept for a success", text: lines(50, "panic: runtime error"), lacks: []string{"panic"}, max: maxToolOutput + 100},
		{name: "one long line", text: strings.Repeat("abc ", 1000), has: []string{"abc abc"}, max: maxToolOutput + 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := trimLines(tt.text, maxToolOutput, maxOutputLine, tt.errs)
			if len(got) > tt.max {
				t.Errorf("%d bytes, want at most %d:\n%s", len(got), tt.max, got)
			}
			for _, s := range tt.has {
				if !strings.Contains(got, s) {
					t.Errorf("lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.lacks {
				if strings.Contains(got, s) {
					t.Errorf("holds %q:\n%s", s, got)
				}
			}
		})
	}
}

func FuzzLLMAnswer(f *testing.F) {
	for _, s := range []string{
		answerJSON(ans("A fact.", "fact", 0.9, 3)),
		"```json\n" + answerJSON(ans("A fact.", "gotcha", "0.8", "#2")) + "\n```",
		`[{"text":"x","category":"quirk","confidence":80,"position":[1]},]`,
		`{"knowledge":[{"text":"cut`,
		"<think>{</think>{}",
		"no json at all",
	} {
		f.Add(s)
	}
	s := smallSession()
	ch := chunk{first: 0, last: 5}
	f.Fuzz(func(t *testing.T, text string) {
		answers, verdict := parseAnswer(text)
		if verdict != answerOK && len(answers) > 0 {
			t.Fatalf("verdict %d with %d answers", verdict, len(answers))
		}
		for _, a := range answers {
			it, ok := a.item(s, ch, newOrigins(s))
			if !ok {
				continue
			}
			pos := it.Evidence[0].Position
			if it.Text == "" || utf8.RuneCountInString(it.Text) > maxItemText || !it.Category.Valid() || pos < 0 || pos > 5 ||
				!slices.Contains(confidenceBands, it.Confidence) {
				t.Fatalf("bad item %+v", it)
			}
		}
	})
}

func BenchmarkLLMChunk(b *testing.B) {
	s, _ := longSession()
	x, err := NewLLM(scripted(), LLMOptions{ContextTokens: 4096})
	if err != nil {
		b.Fatal(err)
	}
	codec, err := x.codec()
	if err != nil {
		b.Fatal(err)
	}
	r := redact.New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.chunks(codec, condense(s, r)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLLMNoQuestions: the prompt and the schema offer no question
// category, as the rules make none; a model's question is dropped.
func TestLLMNoQuestions(t *testing.T) {
	if strings.Contains(strings.ToLower(string(knowledgeSchema)), "question") {
		t.Errorf("the schema offers questions: %s", knowledgeSchema)
	}
	if strings.Contains(systemPrompt, "question:") {
		t.Error("the prompt offers a question category")
	}
	for _, c := range []string{"question", "open question", "Questions", "todo", "unanswered"} {
		if got, ok := answerCategory(c); ok {
			t.Errorf("answerCategory(%q) = %s, want dropped", c, got)
		}
	}
}
