package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// helper is this test binary run as a command by the exec tests; it
// returns the exit code.
func helper(mode string) int {
	switch mode {
	case "upper": // answers with stdin in capitals
		in, _ := io.ReadAll(os.Stdin)
		fmt.Printf("%s\n", strings.ToUpper(string(in)))
	case "args": // answers with its arguments and LORE_HARVEST
		fmt.Println(strings.Join(os.Args[1:], "|"), "LORE_HARVEST="+os.Getenv("LORE_HARVEST"))
	case "fail":
		fmt.Println("partial answer")
		fmt.Fprintln(os.Stderr, strings.Repeat("noise ", 1000))
		fmt.Fprintln(os.Stderr, "error: no credits left")
		return 3
	case "flood": // does not stop talking
		line := strings.Repeat("x", 1<<16)
		for {
			if _, err := fmt.Println(line); err != nil {
				return 1
			}
		}
	case "sleep":
		time.Sleep(time.Minute)
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		return 2
	}
	return 0
}

func TestExecAnswer(t *testing.T) {
	c := newTestClient(t, helperSpec(t, ""), Options{Env: []string{"LLM_TEST_HELPER=upper"}})
	resp, err := c.Complete(context.Background(), Request{System: "Be brief.", Prompt: "hello", MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	// stdin is the system prompt, a blank line and the prompt; spaces around stdout go.
	in := "Be brief.\n\nhello"
	if want := (Response{Text: strings.ToUpper(in), InputTokens: 4, OutputTokens: 4}); resp != want {
		t.Errorf("Complete = %+v, want %+v", resp, want)
	}

	resp, err = c.Complete(context.Background(), Request{Prompt: "just this", Schema: json.RawMessage(knowledgeSchema)})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ToUpper(schemaPrompt + knowledgeSchema + "\n\njust this"); resp.Text != want {
		t.Errorf("Text = %q, want %q", resp.Text, want)
	}
}

func TestExecArgumentsAndEnvironment(t *testing.T) {
	t.Setenv("LLM_TEST_HELPER", "args") // inherited from this process
	tests := []struct {
		args  string
		model string
		want  string
	}{
		{"-p", "qwen3", "-p LORE_HARVEST=1"}, // the model is not passed on
		{"--model {model} 'two words'", "qwen3:8b", "--model|qwen3:8b|two words LORE_HARVEST=1"},
		{"--model={model}", "my model", "--model=my model LORE_HARVEST=1"},
	}
	for _, tt := range tests {
		c := newTestClient(t, helperSpec(t, tt.args), Options{Model: tt.model, Env: []string{"LORE_HARVEST=1"}})
		resp, err := c.Complete(context.Background(), Request{Prompt: "p"})
		if err != nil || resp.Text != tt.want {
			t.Errorf("%s: Complete = %q, %v; want %q", tt.args, resp.Text, err, tt.want)
		}
	}
}

func TestExecFails(t *testing.T) {
	c := newTestClient(t, helperSpec(t, "-p"), Options{Env: []string{"LLM_TEST_HELPER=fail"}})
	_, err := c.Complete(context.Background(), Request{Prompt: "p"})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, c.Name()+": exit status 3: ") || !strings.HasSuffix(msg, "noise noise \nerror: no credits left") {
		t.Errorf("err = %q", msg)
	}
	if len(msg) > len(c.Name())+stderrTail+100 {
		t.Errorf("error keeps %d bytes of stderr, want the last %d", len(msg), stderrTail)
	}
}

func TestExecAnswerTooLong(t *testing.T) {
	c := newTestClient(t, helperSpec(t, ""), Options{Env: []string{"LLM_TEST_HELPER=flood"}, Timeout: time.Minute})
	_, err := c.Complete(context.Background(), Request{Prompt: "p"})
	if want := c.Name() + ": answer longer than 16 MiB"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestExecTimeout(t *testing.T) {
	c := newTestClient(t, helperSpec(t, ""), Options{Env: []string{"LLM_TEST_HELPER=sleep"}, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.Complete(context.Background(), Request{Prompt: "p"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasSuffix(err.Error(), ": no answer within 200ms: context deadline exceeded") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %v", d)
	}
}

func TestExecKillsWhatTheCommandStarted(t *testing.T) {
	// sh waits for sleep, which holds stdout open: unless the whole group is
	// killed, Complete returns only after WaitDelay.
	c, err := New(`exec:sh -c 'sleep 30; echo late'`, Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Skip(err)
	}
	start := time.Now()
	if _, err := c.Complete(context.Background(), Request{Prompt: "p"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("returned after %v", d)
	}
}

func TestExecCancelled(t *testing.T) {
	c := newTestClient(t, helperSpec(t, ""), Options{Env: []string{"LLM_TEST_HELPER=sleep"}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Complete(ctx, Request{Prompt: "p"}); !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "no answer within") {
		t.Errorf("err = %v, want the caller's deadline", err)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 5}
	for _, s := range []string{"ab", "cdef", "", "ghijklmn", "o"} {
		b.Write([]byte(s))
	}
	if got := string(b.buf); got != "klmno" {
		t.Errorf("tail = %q, want klmno", got)
	}
}
