package journal

import (
	"slices"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows on each side.
const diffContext = 3

// diff is the edit as a unified diff of its file, without line numbers
// (the transcript holds the strings replaced, not where they were): the
// lines the old and new strings do not share, with up to diffContext
// shared lines around them. A write shows the whole new content as
// added; a patch is shown as it came.
func (e edit) diff() string {
	var b strings.Builder
	b.WriteString("--- a/" + e.file + "\n+++ b/" + e.file + "\n")
	switch {
	case e.patch:
		b.WriteString(e.new)
		if e.new != "" && !strings.HasSuffix(e.new, "\n") {
			b.WriteByte('\n')
		}
		return b.String()
	case e.whole:
		b.WriteString("@@ whole file @@\n")
		writeLines(&b, '+', lines(e.new))
		return b.String()
	}
	old, new := lines(e.old), lines(e.new)
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	b.WriteString("@@\n")
	writeLines(&b, ' ', old[max(0, pre-diffContext):pre])
	writeLines(&b, '-', old[pre:len(old)-suf])
	writeLines(&b, '+', new[pre:len(new)-suf])
	writeLines(&b, ' ', old[len(old)-suf:min(len(old), len(old)-suf+diffContext)])
	return b.String()
}

// lines splits s into lines, without a last empty one.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func writeLines(b *strings.Builder, mark byte, ls []string) {
	for _, l := range ls {
		b.WriteByte(mark)
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// patchEdits are the files an apply_patch patch changes, each with its
// part of the patch:
//
//	*** Begin Patch
//	*** Update File: a.go
//	@@ func f
//	-old
//	+new
//	*** End Patch
func patchEdits(p string) []edit {
	var (
		es  []edit
		cur *edit
		b   strings.Builder
	)
	done := func() {
		if cur != nil {
			cur.new = b.String()
			es = append(es, *cur)
		}
		cur = nil
		b.Reset()
	}
	for _, l := range strings.Split(p, "\n") {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case strings.HasPrefix(l, "*** Update File: "), strings.HasPrefix(l, "*** Add File: "),
			strings.HasPrefix(l, "*** Delete File: "):
			done()
			verb, file, _ := strings.Cut(strings.TrimPrefix(l, "*** "), " File: ")
			cur = &edit{file: strings.TrimSpace(file), patch: true}
			if verb == "Delete" {
				b.WriteString("@@ deleted @@\n")
			}
		case strings.HasPrefix(l, "*** Move to: "):
			if cur != nil {
				b.WriteString("@@ moved to " + strings.TrimSpace(strings.TrimPrefix(l, "*** Move to: ")) + " @@\n")
			}
		case strings.HasPrefix(l, "*** End Patch"), strings.HasPrefix(l, "*** Begin Patch"):
			done()
		case cur != nil && l != "*** End of File":
			b.WriteString(l + "\n")
		}
	}
	done()
	return slices.DeleteFunc(es, func(e edit) bool { return e.file == "" })
}
