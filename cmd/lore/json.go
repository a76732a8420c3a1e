package main

import (
	"encoding/json"
	"io"
)

// jsonOption changes how writeJSON writes a value.
type jsonOption int

const (
	// jsonIndent indents by two spaces a level: for commands that print
	// one large object for people to read as well (measure, sample, show).
	jsonIndent jsonOption = iota + 1
)

// writeJSON writes v as JSON and a newline: every command's --json output.
// It is one line unless indented, and leaves <, > and & as they are: the
// output is read by programs and people, not put into a web page.
func writeJSON(w io.Writer, v any, opts ...jsonOption) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range opts {
		if o == jsonIndent {
			enc.SetIndent("", "  ")
		}
	}
	return enc.Encode(v)
}
