package knowledge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// importer is the store Import writes to.
type importer interface {
	Import(ctx context.Context, items []lore.Item) ([]lore.AddResult, error)
}

// Import reads path as Read does, screens its items (File.Screen) and
// writes those left with s.Import in one call, so that a file with a bad
// item writes nothing. To import a file as it is written, Read it and
// call File.Import.
func Import(ctx context.Context, s importer, path string) ([]lore.AddResult, error) {
	f, err := Read(path)
	if err != nil {
		return nil, err
	}
	f.Screen()
	return f.Import(ctx, s)
}

// File is what Read parses: the items, and where each is in the file.
type File struct {
	Name  string
	Items []lore.Item
	// at[i] says where Items[i] is, as errors of Read do: "items.jsonl:3"
	// or "index.json: facts[2] (line 14)".
	at []string
}

// Screened is what File.Screen did.
type Screened struct {
	// Refused says where each item taken out was, as errors of Read do.
	Refused []string
	// Held counts the items made held candidates.
	Held int
}

// Screen puts the file's items through the screen every text from
// outside lore goes through, as harvest and MCP record_knowledge do: a
// file may come from anyone, and its items are handed to agents. An
// item that reads as an instruction aimed at an agent (lore.Instruction)
// is taken out; one lore.Hold holds becomes a candidate tagged
// lore.TagHeld, whatever status the file gives it.
func (f *File) Screen() Screened {
	var sc Screened
	placed := len(f.at) == len(f.Items) // a File not made by Read knows no places
	items, at := f.Items[:0], f.at[:0]
	for i, it := range f.Items {
		where := fmt.Sprintf("%s: item %d", f.Name, i+1)
		if placed {
			where = f.at[i]
		}
		switch {
		case lore.Instruction(it.Text):
			sc.Refused = append(sc.Refused, where)
			continue
		case lore.Hold(it.Text):
			it.MarkHeld()
			sc.Held++
		}
		items = append(items, it)
		if placed {
			at = append(at, where)
		}
	}
	f.Items, f.at = items, at
	return sc
}

// Import writes the file's items with s.Import in one call. An error the
// store gives about one item says where that item is in the file.
func (f *File) Import(ctx context.Context, s importer) ([]lore.AddResult, error) {
	res, err := s.Import(ctx, f.Items)
	var ie *lore.ItemError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &ie) && ie.Index < len(f.at):
		return nil, fmt.Errorf("%s: %w", f.at[ie.Index], ie.Err)
	case len(f.at) == 1 && lore.ErrorCode(err) != "":
		return nil, fmt.Errorf("%s: %w", f.at[0], err)
	}
	return nil, fmt.Errorf("import %s: %w", f.Name, err)
}

// Read parses path: a folder holding index.json, an index.json file, or a
// file of JSON lines, one item each, as `lore search --json` prints them;
// "-" reads standard input. It tells an index from JSON lines by content:
// an index opens with an object that has a "facts" key. Every item it
// returns is one a store takes; the first that is not is an error giving
// the file and line.
func Read(path string) (*File, error) {
	if path == "-" {
		return ReadFrom(os.Stdin, "stdin")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "index.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(b, path)
}

// ReadFrom parses what r holds as Read parses a file; errors name it name.
func ReadFrom(r io.Reader, name string) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return parse(b, name)
}

func parse(b []byte, name string) (*File, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: the file is empty", name)
	}
	if isIndex(b) {
		return readIndex(b, name)
	}
	return readLines(b, name)
}

// isIndex reports whether b opens with an object that has a "facts" key.
// It reads no further than that key, so that a truncated index is still
// taken for one and its error points where it ends.
func isIndex(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return false
		}
		if key == "facts" {
			return true
		}
		if err := d.Decode(new(json.RawMessage)); err != nil {
			return false
		}
	}
	return false
}

// readIndex reads index.json. It checks the whole file's syntax first, so
// that syntax errors carry the file's own offsets, then walks the top
// object keeping track of where each fact starts.
func readIndex(b []byte, name string) (*File, error) {
	if err := json.Unmarshal(b, new(json.RawMessage)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(b, se.Offset-1)
			return nil, fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	now := time.Now()
	f := &File{Name: name}
	version := false
	d := json.NewDecoder(bytes.NewReader(b))
	if _, err := d.Token(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		at := valueStart(b, d.InputOffset())
		line, col := position(b, at)
		switch key {
		case "version":
			var v float64
			if err := d.Decode(&v); err != nil {
				return nil, fmt.Errorf("%s:%d:%d: version is not a number", name, line, col)
			}
			if v != 1 {
				return nil, fmt.Errorf("%s:%d:%d: version %v is not supported (want 1)", name, line, col, v)
			}
			version = true
		case "facts":
			if int(at) >= len(b) || b[at] != '[' {
				return nil, fmt.Errorf("%s:%d:%d: facts is not a list", name, line, col)
			}
			if _, err := d.Token(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for i := 0; d.More(); i++ {
				at := valueStart(b, d.InputOffset())
				var raw json.RawMessage
				if err := d.Decode(&raw); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				it, off, err := readItem(raw, now)
				line, _ := position(b, at+off)
				where := fmt.Sprintf("%s: facts[%d] (line %d)", name, i, line)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", where, err)
				}
				f.Items, f.at = append(f.Items, it), append(f.at, where)
			}
			if _, err := d.Token(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		default:
			if err := d.Decode(new(json.RawMessage)); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	if !version {
		return nil, fmt.Errorf("%s: no version (want 1)", name)
	}
	return f, nil
}

// readLines reads JSON lines, one item each; blank lines are skipped.
func readLines(b []byte, name string) (*File, error) {
	now := time.Now()
	f := &File{Name: name}
	n := 0
	for line := range bytes.Lines(b) {
		n++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		where := fmt.Sprintf("%s:%d", name, n)
		it, _, err := readItem(line, now)
		var se *json.SyntaxError
		if err != nil && len(f.Items) == 0 && line[0] != '{' && line[0] != '[' && errors.As(err, &se) {
			// Not JSON from the start: not a file lore reads at all.
			return nil, fmt.Errorf("%s: not JSON; lore import reads a folder written by lore export, "+
				"its index.json, or a file of items as JSON lines", where)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		f.Items, f.at = append(f.Items, it), append(f.at, where)
	}
	return f, nil
}

// readItem decodes one item and checks that a store would take it. When
// a field has the wrong type, off is where in raw. An item without a
// confidence (written by hand) has the one lore add gives.
func readItem(raw []byte, now time.Time) (it lore.Item, off int64, err error) {
	if len(raw) == 0 || raw[0] != '{' && json.Valid(raw) {
		return it, 0, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return it, te.Offset, fmt.Errorf("%s: got %s, want %s", cmp.Or(te.Field, "item"), te.Value, jsonKind(te.Type))
		}
		return it, 0, err
	}
	var given struct {
		Confidence *float64 `json:"confidence"`
	}
	if err := json.Unmarshal(raw, &given); err == nil && given.Confidence == nil {
		it.Confidence = lore.DefaultConfidence
	}
	if _, err := lore.Prepare(it, now); err != nil {
		return it, 0, err
	}
	return it, 0, nil
}

// jsonKind names what JSON value a Go type reads.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	}
	return "a number"
}

// valueStart skips the white space and the colon or comma before the
// value at off.
func valueStart(b []byte, off int64) int64 {
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n:,", b[off]) >= 0 {
		off++
	}
	return off
}

// position is the line and column, from 1, of byte off of b.
func position(b []byte, off int64) (line, col int) {
	i := int(max(0, min(off, int64(len(b)))))
	start := bytes.LastIndexByte(b[:i], '\n') + 1
	return 1 + bytes.Count(b[:i], []byte{'\n'}), i - start + 1
}
