package transcript

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepJSON is a value nested n levels: "[[[…]]]" or {"a":{"a":…}}, closed
// when closed is set.
func deepJSON(open, end string, n int, closed bool) []byte {
	var b bytes.Buffer
	b.Grow(n * (len(open) + len(end)))
	for i := 0; i < n; i++ {
		b.WriteString(open)
	}
	if closed {
		b.WriteString("1")
		for i := 0; i < n; i++ {
			b.WriteString(end)
		}
	}
	return b.Bytes()
}

// hostileLines is a Claude Code transcript of two turns with bad between
// them.
func hostileLines(bad []byte) []byte {
	user := claudeLine("s1", "user", "2.0.1", `"message":{"role":"user","content":"hi"},"uuid":"a"`)
	answer := claudeLine("s1", "assistant", "2.1.3", `"message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"r1","uuid":"b"`)
	var b bytes.Buffer
	b.WriteString(user + "\n")
	b.Write(bad)
	b.WriteString("\n" + answer + "\n")
	return b.Bytes()
}

const hostileDepth = 4 << 20

// Hostile input costs the file it is in, or the line when the format reads
// line by line, never the run: nesting millions of levels deep overflowed
// the stack in fastjson's validator, a NUL in the first bytes rejected a
// whole session, and a first line longer than the line readers read
// rejected the whole file.
func TestReadHostile(t *testing.T) {
	longFirst := append(append([]byte(`{"type":"user","x":"`), bytes.Repeat([]byte("x"), maxLine)...), `"}`+"\n"...)
	longFirst = append(longFirst, hostileLines(nil)...)
	tests := []struct {
		name string
		file string
		data []byte
		// errPart is in the error when the file is skipped; "" when it
		// is read, with warn warnings.
		errPart string
		warn    int
	}{
		{"deep array first line", "a.jsonl", append(deepJSON("[", "]", hostileDepth, false), "\n[1]\n"...), "nested deeper than", 0},
		{"deep array, one line", "a.jsonl", deepJSON("[", "]", hostileDepth, false), "nested deeper than", 0},
		{"deep object first line", "a.jsonl", append(deepJSON(`{"a":`, "}", hostileDepth, false), "\n{}\n"...), "nested deeper than", 0},
		{"deep closed object first line", "a.jsonl", append(deepJSON(`{"a":`, "}", hostileDepth, true), "\n{}\n"...), "nested deeper than", 0},
		{"deep document", "a.json", append([]byte("{\n\"a\":\n"), deepJSON("[", "]", hostileDepth, false)...), "nested deeper than", 0},
		{"deep line", "a.jsonl", hostileLines(deepJSON("[", "]", hostileDepth, false)), "", 1},
		{"deep object line", "a.jsonl", hostileLines(deepJSON(`{"a":`, "}", hostileDepth, true)), "", 1},
		{"just too deep line", "a.jsonl", hostileLines(deepJSON("[", "]", maxDepth+1, true)), "", 1},
		{"deep line within bound", "a.jsonl", hostileLines(deepJSON("[", "]", maxDepth, true)), "", 0},
		{"NUL line", "a.jsonl", hostileLines(bytes.Repeat([]byte{0}, 100)), "", 1},
		{"NUL in a line", "a.jsonl", hostileLines([]byte("{\"type\":\"user\",\x00}")), "", 1},
		{"long first line", "a.jsonl", longFirst, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			ss, err := Read(context.Background(), path, Options{Messages: true, NoGit: true})
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err %v, want one line with %q", err, tt.errPart)
				}
				return
			}
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(ss) != 1 {
				t.Fatalf("got %d sessions, want 1", len(ss))
			}
			s := ss[0]
			if s.UserMessages != 1 || s.AssistantMessages != 1 {
				t.Errorf("read %d user and %d assistant turns, want 1 and 1: the lines around the bad one are lost", s.UserMessages, s.AssistantMessages)
			}
			if s.Warnings != tt.warn {
				t.Errorf("%d warnings (%q), want %d", s.Warnings, s.WarningSamples, tt.warn)
			}
		})
	}
}

// A scan lists the good files beside a hostile one, and names the hostile
// one in a problem.
func TestScanHostile(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"good.jsonl": hostileLines(nil),
		"deep.jsonl": append(deepJSON("[", "]", hostileDepth, false), "\n[1]\n"...),
		"nul.jsonl":  bytes.Replace(hostileLines(bytes.Repeat([]byte{0}, 10)), []byte(`"s1"`), []byte(`"s2"`), -1),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Scan(context.Background(), []string{dir}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 2 {
		t.Errorf("got %d sessions, want 2 (good and nul)", len(res.Sessions))
	}
	if len(res.Problems) != 1 || filepath.Base(res.Problems[0].Path) != "deep.jsonl" {
		t.Fatalf("problems %v, want one for deep.jsonl", res.Problems)
	}
}

func TestTooDeep(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{`{"a":[1,{"b":2}]}`, false},
		{string(deepJSON("[", "]", maxDepth, true)), false},
		{string(deepJSON("[", "]", maxDepth+1, false)), true},
		{string(deepJSON(`{"a":`, "}", maxDepth+1, true)), true},
		// Brackets in strings are text, escaped quotes do not end them.
		{`"` + strings.Repeat("[", 2*maxDepth) + `"`, false},
		{`["\"` + strings.Repeat("[", 2*maxDepth) + `"]`, false},
		{`["\\"` + strings.Repeat("[", 2*maxDepth), true},
		// Closing brackets first do not bank depth.
		{strings.Repeat("]", maxDepth) + strings.Repeat("[", maxDepth+1), true},
	}
	for i, tt := range tests {
		if got := tooDeep([]byte(tt.data)); got != tt.want {
			t.Errorf("%d: tooDeep = %v, want %v", i, got, tt.want)
		}
	}
}
