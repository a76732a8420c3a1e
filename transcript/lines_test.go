package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
)

// eachJSONLine stops a read whose context is done once it has read
// pollWeight's worth, counting short lines as lineWeight each; a live
// context, or a read smaller than that, goes to the end.
func TestEachJSONLineCancel(t *testing.T) {
	short := `{"a":1}` + "\n"
	long := `{"a":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	tests := []struct {
		name     string
		data     string
		canceled bool
		want     error
		maxCalls int // every line on a full read; at most this many when stopped
	}{
		{"short lines, live", strings.Repeat(short, 5000), false, nil, 5000},
		{"short lines, cancelled", strings.Repeat(short, 5000), true, context.Canceled, pollWeight / (len(short) - 1 + lineWeight)},
		{"few short lines, cancelled", strings.Repeat(short, 100), true, nil, 100},
		{"blank lines count", strings.Repeat("\n", 5000) + short, true, context.Canceled, 0},
		{"long lines, live", strings.Repeat(long, 8), false, nil, 8},
		{"long lines, cancelled", strings.Repeat(long, 8), true, context.Canceled, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.canceled {
				cancel()
			}
			calls := 0
			err := eachJSONLine(ctx, strings.NewReader(tt.data), new(fastjson.Parser),
				func(line int, err error) { t.Errorf("line %d: %v", line, err) },
				func(int, *fastjson.Value) error { calls++; return nil })
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			switch {
			case tt.want == nil && calls != tt.maxCalls:
				t.Errorf("fn called %d times, want every line (%d)", calls, tt.maxCalls)
			case tt.want != nil && calls > tt.maxCalls:
				t.Errorf("fn called %d times after cancellation, want at most %d", calls, tt.maxCalls)
			}
		})
	}
}

// Every reader of JSON lines stops when its context is done: a transcript
// from testdata, grown past pollWeight by repeating its last line, is read
// whole with a live context and stopped with a cancelled one.
func TestLineReadersCancel(t *testing.T) {
	tests := []struct {
		path  string
		agent string
	}{
		{"claude/v20/-home-u-proj/7f3e2a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b.jsonl", lore.AgentClaudeCode},
		{"codex/rollout-2025-08-10T09-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl", lore.AgentCodex},
		{"gemini/session-2026-04-20T10-00-a1b2c3d4.jsonl", lore.AgentGeminiCLI},
		{"goose/20250513_151042.jsonl", lore.AgentGoose},
		{"hermes/sessions/20260515_201841_a64c801a.jsonl", lore.AgentHermes},
		{"hermes/trajectory_samples.jsonl", lore.AgentHermes},
		{"openai/chat.jsonl", lore.AgentOpenAI},
		{"openhands/eval/output.jsonl", lore.AgentOpenHands},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.path))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			last := lines[len(lines)-1] + "\n"
			grown := string(data) + strings.Repeat(last, pollWeight/lineWeight+1)
			path := writeFile(t, filepath.Base(tt.path), grown)
			for _, canceled := range []bool{false, true} {
				ctx, cancel := context.WithCancel(context.Background())
				if canceled {
					cancel()
				}
				var agents []string
				in := &input{path: path, size: int64(len(grown))}
				err := readFile(ctx, in, func(s *lore.Session) { agents = append(agents, s.Agent) })
				cancel()
				switch {
				case canceled && !errors.Is(err, context.Canceled):
					t.Errorf("cancelled: err %v, want %v", err, context.Canceled)
				case !canceled && err != nil:
					t.Errorf("live: %v", err)
				case !canceled && (len(agents) == 0 || agents[0] != tt.agent):
					t.Errorf("live: sessions of %v, want %s", agents, tt.agent)
				}
			}
		})
	}
}
