package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/valyala/fastjson"
)

// maxLine bounds one line of a line-oriented transcript. Claude Code and
// Cline embed base64 images in single lines, so the bound is generous; a
// longer line is skipped with a warning rather than read into memory.
const maxLine = 64 << 20

// lineReader yields the lines of a stream without allocating for lines
// that fit its buffer. A line is valid until the next call to next.
type lineReader struct {
	r    *bufio.Reader
	long []byte // accumulates lines longer than the buffer
	n    int    // number of the line last returned, from 1
	// skipped is set when the last line was longer than maxLine and was
	// dropped; next returns an empty line for it.
	skipped bool
}

// readerPool recycles the 1 MiB read buffers: a scan reads thousands of
// files, and zeroing a fresh buffer for each costs more than parsing a
// small one.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<20) }}

func newLineReader(r io.Reader) *lineReader {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{r: br}
}

// release returns the read buffer for reuse; lr must not be used after.
func (lr *lineReader) release() {
	if lr.r != nil {
		lr.r.Reset(nil)
		readerPool.Put(lr.r)
		lr.r = nil
	}
}

// next returns the next line without its line ending, or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	if cap(lr.long) > 4<<20 {
		lr.long = nil // do not hold a huge line's buffer for the rest of the file
	}
	lr.long = lr.long[:0]
	lr.skipped = false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		eof := errors.Is(err, io.EOF)
		if err != nil && !full && !eof {
			return nil, err
		}
		if eof && len(chunk) == 0 && len(lr.long) == 0 && !lr.skipped {
			return nil, io.EOF
		}
		if !lr.skipped {
			switch {
			case len(lr.long)+len(chunk) > maxLine:
				lr.skipped = true
				lr.long = lr.long[:0]
			case full || len(lr.long) > 0:
				// chunk is only valid until the next read: keep a copy.
				lr.long = append(lr.long, chunk...)
			}
		}
		if full {
			continue
		}
		lr.n++
		switch {
		case lr.skipped:
			return nil, nil
		case len(lr.long) > 0:
			return trimEOL(lr.long), nil
		}
		return trimEOL(chunk), nil
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// errLineTooLong is the warning for a line dropped by lineReader.
var errLineTooLong = fmt.Errorf("line longer than %d MiB skipped", maxLine>>20)

// eachJSONLine calls fn for each JSON object of a JSON-lines stream. Blank
// lines are ignored. A line that holds two objects back to back (Claude Code
// writes some) yields both. A line that is not JSON is reported to warn with
// its line number, and reading goes on. fn's value is valid only during
// the call. Reading stops with ctx's error once ctx is done, so readers
// need not poll it themselves.
func eachJSONLine(ctx context.Context, r io.Reader, p *fastjson.Parser, warn func(line int, err error), fn func(line int, v *fastjson.Value) error) error {
	return eachJSONLineSized(ctx, r, p, warn, func(line, _ int, v *fastjson.Value) error { return fn(line, v) })
}

// pollWeight is how much reading happens between two looks at ctx: a
// line weighs its length plus lineWeight, so a file of short lines is
// polled every 4096 lines and one of long lines (an evaluation output, a
// trajectory per line) every 4 MiB, for one addition per line.
const (
	pollWeight = 4 << 20
	lineWeight = 1 << 10
)

// eachJSONLineSized is eachJSONLine that also passes the length of the
// line each value came from.
func eachJSONLineSized(ctx context.Context, r io.Reader, p *fastjson.Parser, warn func(line int, err error), fn func(line, size int, v *fastjson.Value) error) error {
	lr := newLineReader(r)
	defer lr.release()
	weight := 0
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if weight += len(line) + lineWeight; weight >= pollWeight {
			if err := ctx.Err(); err != nil {
				return err
			}
			weight = 0
		}
		if lr.skipped {
			// The skipped line was read all the same, more than
			// pollWeight of it.
			if err := ctx.Err(); err != nil {
				return err
			}
			warn(lr.n, errLineTooLong)
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		size := len(line)
		v, perr := p.ParseBytes(line)
		if perr == nil {
			if err := fn(lr.n, size, v); err != nil {
				return err
			}
			continue
		}
		if tooDeep(line) {
			warn(lr.n, errTooDeep)
			continue
		}
		err = eachConcatenated(line, p, func(n int, v *fastjson.Value) error { return fn(n, size, v) }, lr.n)
		var d lineDamage
		switch {
		case err == nil:
		case errors.As(err, &d):
			warn(lr.n, d.err)
		default:
			return err
		}
	}
}

// lineDamage is a line that could not be read, as opposed to an error of
// the caller's function.
type lineDamage struct{ err error }

func (d lineDamage) Error() string { return d.err.Error() }

// eachConcatenated splits a line holding several JSON values written back to
// back and calls fn for each. Values before a damaged one are kept; the
// damage is returned as a lineDamage.
func eachConcatenated(line []byte, p *fastjson.Parser, fn func(int, *fastjson.Value) error, n int) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	count := 0
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF && count > 0 {
				return nil
			}
			return lineDamage{damage(err)}
		}
		v, err := p.ParseBytes(raw)
		if err != nil {
			return lineDamage{damage(err)}
		}
		if err := fn(n, v); err != nil {
			return err
		}
		count++
	}
}

// jsonDamage says where data stops being valid JSON, without quoting it:
// transcripts hold secrets, and fastjson's own errors quote the input.
func jsonDamage(data []byte) error {
	if tooDeep(data) {
		return errTooDeep
	}
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return damage(err)
	}
	return errors.New("invalid JSON")
}

// damage turns a JSON syntax error into a short warning text.
func damage(err error) error {
	// The syntax error's own text quotes a character of the input; say
	// only where.
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d", se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated JSON")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}
