package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineLength is the longest message StdioTransport reads when
// its MaxLineLength is 0: the SDK's own default.
const DefaultMaxLineLength = mcp.DefaultMaxLineLength

// StdioTransport serves MCP over newline-delimited JSON on In and Out, as
// mcp.IOTransport does, but survives what a broken or hostile client
// sends. The SDK ends the whole session on the first line it cannot
// decode (a non-JSON line, a batch after 2025-06-18, a wrong "jsonrpc", an
// id that is an object), and its stream decoder joins a truncated line to
// the next one. Here every line is one message, checked before the SDK
// sees it: a line that is not a JSON-RPC 2.0 message is answered with the
// error JSON-RPC prescribes (-32700 parse error, -32600 invalid request)
// and the session goes on.
type StdioTransport struct {
	In io.ReadCloser
	// Out is not closed: standard output belongs to the process.
	Out io.Writer
	// MaxLineLength bounds one message in bytes; a longer line is
	// refused and skipped. 0 means DefaultMaxLineLength.
	MaxLineLength int
	// Log takes one warning per refused line; nil discards them.
	Log *slog.Logger
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxLineLength
	if limit <= 0 {
		limit = DefaultMaxLineLength
	}
	log := t.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The SDK writes each message with one Write, from several
	// goroutines; the lock keeps the filter's answers from landing in
	// the middle of one.
	out := &lockedWriter{w: t.Out}
	in := &lineFilter{
		in:  t.In,
		r:   bufio.NewReaderSize(t.In, 64*1024),
		out: out,
		max: limit,
		log: log,
	}
	// The filter already bounds a line, and what it passes on is whole
	// lines, so the SDK's own cap would only count the same bytes again.
	return (&mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter serialises writes to w and never closes it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// lineFilter reads In a line at a time and yields only the lines that are
// JSON-RPC 2.0 messages the SDK can decode, each with its newline. It
// answers the others itself on out. Only the SDK's reading goroutine
// calls Read.
type lineFilter struct {
	in      io.Closer
	r       *bufio.Reader
	out     io.Writer
	max     int
	log     *slog.Logger
	line    []byte // the line being read
	pending []byte // what is left of the last line passed on
	err     error  // the input's error, returned once pending is empty
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		if err != nil {
			// A last line without a newline is still a message.
			f.err = err
		}
		if tooLong {
			if err := f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: message too long"); err != nil {
				return 0, err
			}
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := f.check(line); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *lineFilter) Close() error { return f.in.Close() }

// readLine reads up to the next newline or the input's end, keeping at
// most max bytes: the rest of a longer line is read and dropped, so it
// can never be taken for a message of its own.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			if len(f.line)+len(chunk) > f.max+len("\r\n") {
				tooLong = true
				f.line = f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return f.line, tooLong, err
		}
	}
}

// check passes line on or answers it. It returns an error only when the
// answer cannot be written.
func (f *lineFilter) check(line []byte) error {
	if !json.Valid(line) {
		return f.refuse(nil, jsonrpc.CodeParseError, "parse error: not a JSON value")
	}
	switch line[0] {
	case '{':
	case '[':
		// MCP dropped batches in 2025-06-18, and the SDK ends the
		// session on one once that version is agreed.
		return f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported")
	default:
		return f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: not an object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return f.refuse(nil, jsonrpc.CodeParseError, "parse error: not a JSON value")
	}
	id, hasID := m["id"]
	idOK := !hasID || validID(id)
	_, isRequest := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	// An answer to a response could start a loop of errors between two
	// peers, each refusing the other's: a broken response is dropped.
	isResponse := !isRequest && (hasResult || hasError)
	answer := func(reason string) error {
		if isResponse {
			f.log.Warn("mcp: dropped a response", "reason", reason)
			return nil
		}
		if !idOK {
			id = nil
		}
		return f.refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+reason)
	}
	switch {
	case !idOK:
		return answer("id is not a string or a number")
	case !isString(m["jsonrpc"], "2.0"):
		return answer(`jsonrpc is not "2.0"`)
	case isRequest && !isString(m["method"], ""):
		return answer("method is not a string")
	case !isRequest && !isResponse:
		return answer("neither a request nor a response")
	}
	// The SDK's own decoder has the last word: what it cannot decode
	// would end the session.
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return answer("not a message the server can decode")
	}
	f.pending = append(append(f.pending[:0], line...), '\n')
	return nil
}

// validID reports whether raw is an id JSON-RPC allows: a string, a
// number or null.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == 'n':
		return true
	case c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// isString reports whether raw is a JSON string, and the string want
// when want is not empty.
func isString(raw json.RawMessage, want string) bool {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return false
	}
	return want == "" || s == want
}

// refuse writes an error response for a refused line, with id when the
// line had one that can be echoed (nil writes null), and logs why.
func (f *lineFilter) refuse(id json.RawMessage, code int, message string) error {
	f.log.Warn("mcp: refused a message", "code", code, "reason", message)
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(errorResponse{
		JSONRPC: "2.0",
		ID:      id,
		Error:   responseError{Code: code, Message: message},
	})
	if err != nil {
		return err
	}
	_, err = f.out.Write(append(b, '\n'))
	return err
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   responseError   `json:"error"`
}

type responseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
