package main

import (
	"io"

	"github.com/lorehq/lore/internal/redact"
)

// secrets redacts what lore prints that it did not write itself: paths
// and errors quote what lore read, and a folder named after a token or an
// error quoting a command line is as secret as a transcript.
var secrets = redact.New()

// redactingWriter redacts each write before passing it on. Every line lore
// prints is one write (fmt.Fprintf, one JSON value), so a secret is never
// split between two.
type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, secrets.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
