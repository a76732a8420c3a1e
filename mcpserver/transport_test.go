package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lorehq/lore/internal/memstore"
)

// filter runs a lineFilter over input to its end and returns the lines
// it passed on and the answers it wrote.
func filter(t testing.TB, input string, max int) (passed, answers []string) {
	t.Helper()
	var out bytes.Buffer
	f := &lineFilter{
		in:  io.NopCloser(nil),
		r:   bufio.NewReaderSize(strings.NewReader(input), 16),
		out: &out,
		max: max,
		log: slog.New(slog.DiscardHandler),
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read %q: %v", input, err)
	}
	return lines(string(b)), lines(out.String())
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	if !strings.HasSuffix(s, "\n") {
		panic(fmt.Sprintf("output %q does not end a line", s))
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func TestLineFilter(t *testing.T) {
	const (
		ping  = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		parse = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON value"}}`
		long  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message too long"}}`
	)
	// A request exactly max bytes long.
	maxed := `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 64-len(`{"jsonrpc":"2.0","id":"","method":"ping"}`)) + `","method":"ping"}`
	for _, c := range []struct {
		name    string
		input   string
		passed  []string
		answers []string
	}{
		{"one request", ping + "\n", []string{ping}, nil},
		{"crlf", ping + "\r\n" + ping + "\r\n", []string{ping, ping}, nil},
		{"last line without a newline", ping + "\n" + ping, []string{ping, ping}, nil},
		{"blank lines", "\n  \n\r\n\t" + ping + "  \n\n", []string{ping}, nil},
		{"truncated, then a request", `{"jsonrpc":"2.0","id":5,"method":"tools/li` + "\n" + ping + "\n", []string{ping}, []string{parse}},
		{"cut between tokens, not joined to the next line", `{"jsonrpc":"2.0","id":5,` + "\n" + `"method":"ping"}` + "\n", nil, []string{parse, parse}},
		{"truncated at the end", ping + "\n" + `{"jsonrpc":"2.0",`, []string{ping}, []string{parse}},
		{"as long as allowed", maxed + "\n", []string{maxed}, nil},
		{"too long, then a request", `{"jsonrpc":"2.0","id":"` + strings.Repeat("y", 200) + `","method":"ping"}` + "\n" + ping + "\n", []string{ping}, []string{long}},
		{"too long at the end", ping + "\n" + strings.Repeat("[", 100), []string{ping}, []string{long}},
		{"too long, not JSON", strings.Repeat("\x00", 1000) + "\n" + ping + "\n", []string{ping}, []string{long}},
		{"wrong version echoes the id", `{"jsonrpc":"2.0 ","id":"a b","method":"ping"}` + "\n", nil,
			[]string{`{"jsonrpc":"2.0","id":"a b","error":{"code":-32600,"message":"invalid request: jsonrpc is not \"2.0\""}}`}},
		{"a response is passed on", `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n", []string{`{"jsonrpc":"2.0","id":3,"result":{}}`}, nil},
		{"a broken response is dropped", `{"jsonrpc":"2.0","id":null,"error":{"code":1}}` + "\n" + `{"jsonrpc":"1","id":3,"result":{}}` + "\n", nil, nil},
		{"null method", `{"jsonrpc":"2.0","id":2,"method":null}` + "\n", nil,
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: method is not a string"}}`}},
		{"an id the server cannot decode", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}` + "\n", nil,
			[]string{`{"jsonrpc":"2.0","id":1e999,"error":{"code":-32600,"message":"invalid request: not a message the server can decode"}}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			passed, answers := filter(t, c.input, 64)
			if fmt.Sprint(passed) != fmt.Sprint(c.passed) {
				t.Errorf("passed on\n%q\nwant\n%q", passed, c.passed)
			}
			if fmt.Sprint(answers) != fmt.Sprint(c.answers) {
				t.Errorf("answered\n%q\nwant\n%q", answers, c.answers)
			}
		})
	}
}

// FuzzLineFilter checks that whatever comes in, the SDK is handed only
// lines it decodes, and every answer is a JSON-RPC error on a line of
// its own.
func FuzzLineFilter(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"[1,2]\n{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}\r\n\x00\n",
		`{"jsonrpc":"2.0","id":5,"method":"tools/li` + "\n" + `{"jsonrpc":"2.0","id":"x","result":{}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		passed, answers := filter(t, input, 256)
		if n := strings.Count(input, "\n") + 1; len(passed)+len(answers) > n {
			t.Errorf("%d lines in, %d passed on and %d answered", n, len(passed), len(answers))
		}
		for _, l := range passed {
			if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil || l[0] != '{' {
				t.Errorf("passed on %q: %v", l, err)
			}
		}
		for _, l := range answers {
			var a struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &a); err != nil || a.JSONRPC != "2.0" || a.ID == nil || a.Error == nil ||
				(a.Error.Code != jsonrpc.CodeParseError && a.Error.Code != jsonrpc.CodeInvalidRequest) {
				t.Errorf("answer %q (%v)", l, err)
			}
		}
	})
}

// TestStdioTransportInterleaves serves a session whose requests and bad
// lines arrive all at once: the SDK's answers and the filter's come from
// different goroutines, and each must still be a line of its own.
func TestStdioTransportInterleaves(t *testing.T) {
	ctx := context.Background()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := New(memstore.New(), Options{})
	ss, err := srv.Connect(ctx, &StdioTransport{In: inR, Out: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	go func() {
		var b strings.Builder
		b.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"v0"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i := range n {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
			fmt.Fprintf(&b, `{"jsonrpc":"1.0","id":%d,"method":"ping"}`+"\n", n+i)
		}
		io.WriteString(inW, b.String())
	}()
	results, refused := map[string]bool{}, map[string]bool{}
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for len(results)+len(refused) < 2*n+1 && sc.Scan() {
			var a struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				done <- fmt.Errorf("answer %q: %v", sc.Bytes(), err)
				return
			}
			if a.Error != nil {
				refused[string(a.ID)] = a.Error.Code == jsonrpc.CodeInvalidRequest
			} else {
				results[string(a.ID)] = a.Result != nil
			}
		}
		done <- sc.Err()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%d results and %d errors after 30s", len(results), len(refused))
	}
	inW.Close()
	ss.Wait()
	for i := range n {
		if id := fmt.Sprint(i); !results[id] {
			t.Errorf("no result for request %s", id)
		}
		if id := fmt.Sprint(n + i); !refused[id] {
			t.Errorf("no -32600 for line %s", id)
		}
	}
}
