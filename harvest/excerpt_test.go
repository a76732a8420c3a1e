package harvest

import (
	"testing"

	"github.com/lorehq/lore"
)

func TestMessageText(t *testing.T) {
	for _, tt := range []struct {
		m    lore.Message
		want string
	}{
		{lore.Message{Text: "Running the tests:", ToolCalls: []lore.ToolCall{{Name: "Bash", Input: `{"command":"make test"}`}}},
			`Running the tests: · Bash {"command":"make test"}`},
		{lore.Message{ToolCalls: []lore.ToolCall{{Name: "Bash", Input: "make"}}, ToolResults: []lore.ToolResult{{Output: "ok"}}}, "Bash make"},
		{lore.Message{ToolResults: []lore.ToolResult{{Output: "FAIL"}, {Output: "ok"}}}, "FAIL · ok"},
		{lore.Message{Text: "  "}, ""},
	} {
		if got := MessageText(tt.m); got != tt.want {
			t.Errorf("MessageText(%+v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}
