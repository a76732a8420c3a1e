// Package transcript reads the session files of coding agents into
// lore.Session values: one reader per format (format.go lists them in the
// order they are tried), recognised from content, streaming where the
// format allows, tolerant of damage; and it finds the files where each
// agent writes them.
package transcript
