package lore

import (
	"testing"
	"time"
)

func TestToolResultFailed(t *testing.T) {
	code := func(c int) *int { return &c }
	for _, c := range []struct {
		name string
		r    ToolResult
		want bool
	}{
		{"ok", ToolResult{}, false},
		{"exit 0", ToolResult{ExitCode: code(0)}, false},
		{"exit 1", ToolResult{ExitCode: code(1)}, true},
		{"marked", ToolResult{IsError: true}, true},
		{"marked, exit 0", ToolResult{IsError: true, ExitCode: code(0)}, true},
	} {
		if got := c.r.Failed(); got != c.want {
			t.Errorf("%s: Failed() = %v", c.name, got)
		}
	}
}

func TestSessionTimes(t *testing.T) {
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	end := start.Add(2 * time.Hour)
	for _, c := range []struct {
		name        string
		s           Session
		first, last time.Time
	}{
		{"both", Session{StartedAt: start, EndedAt: end}, start, end},
		{"start only", Session{StartedAt: start}, start, start},
		{"end only", Session{EndedAt: end}, end, end},
		{"neither", Session{}, time.Time{}, time.Time{}},
	} {
		if got := c.s.FirstActive(); !got.Equal(c.first) {
			t.Errorf("%s: FirstActive() = %v, want %v", c.name, got, c.first)
		}
		if got := c.s.LastActive(); !got.Equal(c.last) {
			t.Errorf("%s: LastActive() = %v, want %v", c.name, got, c.last)
		}
	}
}
