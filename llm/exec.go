package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

const stderrTail = 2 << 10 // bytes of a failed command's stderr kept for its error

// command runs an agent CLI with the prompt on stdin and takes its stdout
// as the answer.
type command struct {
	argv    []string
	name    string
	env     []string
	timeout time.Duration
}

var _ Client = (*command)(nil)

func newExec(line string, opts Options) (*command, error) {
	argv, err := splitCommand(line)
	if err != nil {
		return nil, fmt.Errorf("--llm exec:%s: %w", line, err)
	}
	if len(argv) == 0 {
		return nil, errors.New("--llm exec: needs a command, e.g. exec:claude -p")
	}
	if strings.Contains(line, "{model}") {
		if opts.Model == "" {
			return nil, fmt.Errorf("--model is required: the command %q has {model}", line)
		}
		line = strings.ReplaceAll(line, "{model}", opts.Model)
		for i := range argv {
			argv[i] = strings.ReplaceAll(argv[i], "{model}", opts.Model)
		}
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("exec: %s not found in PATH", argv[0])
		}
		return nil, err
	}
	return &command{argv: argv, name: "exec:" + strings.TrimSpace(line), env: opts.Env, timeout: opts.Timeout}, nil
}

func (c *command) Name() string { return c.name }

// Complete runs the command once, its stdin the system prompt (asking for
// JSON following the schema, when there is one), a blank line and the
// prompt. The answer is stdout with the spaces around it trimmed; tokens
// are estimated. MaxTokens is not passed on. Running out of time or ctx
// being done kills the command, and on Unix what it started.
func (c *command) Complete(ctx context.Context, req Request) (Response, error) {
	system, err := req.instructions()
	if err != nil {
		return Response{}, err
	}
	input := req.Prompt
	if system != "" {
		input = system + "\n\n" + req.Prompt
	}
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stdin = strings.NewReader(input)
	stdout, stderr := &headBuffer{max: maxAnswer}, &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second // for pipes held open by what the command started
	killGroup(cmd)
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return Response{}, fmt.Errorf("%s: %w", c.name, context.Cause(ctx))
	case stdout.full:
		return Response{}, fmt.Errorf("%s: answer longer than %d MiB", c.name, maxAnswer>>20)
	case err != nil:
		if tail := strings.TrimSpace(string(stderr.buf)); tail != "" {
			return Response{}, fmt.Errorf("%s: %w: %s", c.name, err, tail)
		}
		return Response{}, fmt.Errorf("%s: %w", c.name, err)
	}
	text := strings.TrimSpace(stdout.buf.String())
	return Response{Text: text, InputTokens: estimateTokens(input), OutputTokens: estimateTokens(text)}, nil
}

// estimateTokens guesses a token for every 4 bytes, about right for English.
func estimateTokens(s string) int64 { return int64(len(s)+3) / 4 }

// headBuffer keeps up to max bytes and then refuses more, which stops a
// command that does not stop talking.
// (Not embedding bytes.Buffer, whose ReadFrom would let io.Copy past Write.)
type headBuffer struct {
	buf  bytes.Buffer
	max  int
	full bool
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.full = true
		return 0, errors.New("answer too long")
	}
	return b.buf.Write(p)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

// splitCommand splits line into words as a shell splits simple words:
// blanks separate them; single quotes keep everything up to the next one;
// double quotes keep everything up to the next one except that \" and \\
// stand for " and \; outside quotes a backslash keeps the next character.
// Nothing else is special: no variables, globs, pipes or redirections.
func splitCommand(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
			continue
		case '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case '"':
			for i++; ; i++ {
				if i == len(line) {
					return nil, errors.New("unterminated double quote")
				}
				if line[i] == '"' {
					break
				}
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				word.WriteByte(line[i])
			}
		case '\\':
			if i+1 < len(line) {
				i++
			}
			word.WriteByte(line[i])
		default:
			word.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
