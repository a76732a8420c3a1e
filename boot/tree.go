package boot

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorehq/lore"
)

// maxCheckedFile is how much of a file boot reads to find a definition a
// location fact names: a definition further down a bigger file is not
// looked for, and the fact is handed out unchecked.
const maxCheckedFile = 1 << 20

// gone reports whether a location fact of this session's repository says
// what its working tree no longer shows: the file it names is not there,
// or no longer defines the symbol (lore.DefinitionPattern). Only the named
// file is read, and at most maxCheckedFile of it; no tree is walked. With
// no checkout (Options.Dir empty), another repository's item, a path
// leaving the checkout, or a file too big to read whole, the fact stands.
func gone(it lore.Item, opts Options) bool {
	if opts.Dir == "" || it.Repo == "" || !lore.SameRepo(it.Repo, opts.Repo) {
		return false
	}
	p, ok := lore.PlaceOf(it)
	if !ok || filepath.IsAbs(p.File) || strings.HasPrefix(filepath.ToSlash(filepath.Clean(p.File)), "../") {
		return false
	}
	// The session's folder may have been the checkout's root or the
	// folder boot runs in; the file is gone when it is in neither.
	var f *os.File
	for _, dir := range []string{opts.Dir, opts.Cwd} {
		if dir == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, p.File)); err == nil && fi.Mode().IsRegular() {
			f, _ = os.Open(filepath.Join(dir, p.File))
			break
		}
	}
	if f == nil {
		return true
	}
	defer f.Close()
	if p.Symbol == "" {
		return false // a file's place: it is there
	}
	def := lore.DefinitionPattern(p.Symbol)
	r := bufio.NewReader(io.LimitReader(f, maxCheckedFile))
	read := 0
	for {
		line, err := r.ReadString('\n')
		read += len(line)
		if strings.Contains(line, p.Symbol) && def.MatchString(line) {
			return false
		}
		if err != nil {
			// Read whole: the definition is gone. Cut at the cap: unknown.
			return read < maxCheckedFile
		}
	}
}
