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
	// jsonEscapeHTML writes <, > and & as \u003c, \u003e and \u0026, as
	// add, dashboard, export, forget, import, search, show and version
	// always have: their output stays byte for byte what it was.
	jsonEscapeHTML
)

// writeJSON writes v as JSON and a newline: every command's --json output.
// By default it is one line, leaving <, > and & as they are.
func writeJSON(w io.Writer, v any, opts ...jsonOption) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range opts {
		switch o {
		case jsonIndent:
			enc.SetIndent("", "  ")
		case jsonEscapeHTML:
			enc.SetEscapeHTML(true)
		}
	}
	return enc.Encode(v)
}
