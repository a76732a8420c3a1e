package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// writeTable writes a table: a header and rows, columns two spaces apart.
// With width > 0 (a terminal's), the column flex (the one holding free
// text) is cut, with "…", so that every line fits in width; the other
// columns are short and kept whole. With width 0 (a pipe, a file), every
// cell is written whole, as gh does.
func writeTable(w io.Writer, width int, header []string, rows [][]string, flex int) error {
	const gap = 2
	cols := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			cols[i] = max(cols[i], utf8.RuneCountInString(c))
		}
	}
	if width > 0 {
		fixed := 0
		for i, c := range cols {
			if i != flex {
				fixed += c + gap
			}
		}
		// The text keeps at least a few words, even past the width.
		cols[flex] = min(cols[flex], max(width-fixed, minFlex))
	}
	var b strings.Builder
	for _, r := range append([][]string{header}, rows...) {
		b.Reset()
		for i, c := range r {
			if i == flex {
				c = truncate(c, cols[flex])
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", cols[i]-utf8.RuneCountInString(c)+gap))
			}
		}
		b.WriteString("\n")
		if _, err := io.WriteString(w, strings.TrimRight(b.String(), " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// minFlex is the fewest columns a table's text is cut to.
const minFlex = 16
