package boot

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// maxInstructions is how much of an instructions file boot reads.
const maxInstructions = 256 << 10

// instructions is what the checkout's instructions files for agents say,
// read once per boot; "" without a checkout or such files.
func instructions(opts Options) string {
	if opts.Dir == "" {
		return ""
	}
	var b strings.Builder
	for _, name := range lore.InstructionFiles {
		f, err := os.Open(filepath.Join(opts.Dir, name))
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			io.Copy(&b, io.LimitReader(f, maxInstructions))
			b.WriteByte('\n')
		}
		f.Close()
	}
	return b.String()
}

// command is a head note's command and the folder it runs in: "`npm run
// build` in `web` builds the project." is npm run build in web.
func command(text string) (cmd, dir string) {
	spans := strings.Split(text, "`")
	if len(spans) < 3 {
		return "", ""
	}
	cmd = spans[1]
	if len(spans) >= 5 && strings.TrimSpace(spans[2]) == "in" {
		dir = spans[3]
	}
	return cmd, dir
}

// documented reports whether the instructions text gives a head note's
// command: the agent reads it there.
func documented(it lore.Item, text string) bool {
	cmd, _ := command(it.Text)
	return cmd != "" && text != "" && strings.Contains(text, cmd)
}

// noScript reports whether a head note's command runs a package script
// or a make target its checkout no longer has: the package.json of its
// folder holds no such script, or its Makefile no such target. Without a
// checkout, a file to read, or a file boot can tell for certain (a
// Makefile that includes others), the note stands.
func noScript(it lore.Item, opts Options) bool {
	if opts.Dir == "" || !lore.SameRepo(it.Repo, opts.Repo) {
		return false
	}
	cmd, dir := command(it.Text)
	words := strings.Fields(cmd)
	if len(words) < 2 || filepath.IsAbs(dir) || strings.HasPrefix(filepath.ToSlash(filepath.Clean(dir)), "../") {
		return false
	}
	folder := filepath.Join(opts.Dir, dir)
	switch prog := words[0]; {
	case (prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "bun") && words[1] == "run" && len(words) > 2:
		return lacksScript(folder, words[2])
	case (prog == "npm" || prog == "pnpm" || prog == "yarn") && words[1] == "test":
		return lacksScript(folder, "test")
	case prog == "make" && !strings.HasPrefix(words[1], "-") && !strings.Contains(words[1], "="):
		return lacksTarget(folder, words[1])
	}
	return false
}

func lacksScript(folder, script string) bool {
	b, err := readCapped(filepath.Join(folder, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return false
	}
	_, ok := pkg.Scripts[script]
	return !ok
}

func lacksTarget(folder, target string) bool {
	var b []byte
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if got, err := readCapped(filepath.Join(folder, name)); err == nil {
			b = got
			break
		}
	}
	if b == nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "include ") || strings.HasPrefix(line, "-include ") || strings.HasPrefix(line, "sinclude ") {
			return false // the target may be in the included file
		}
		if line == "" || line[0] == '\t' || line[0] == '#' {
			continue
		}
		names, _, ok := strings.Cut(line, ":")
		if ok && !strings.ContainsAny(names, "=$") && slices.Contains(strings.Fields(names), target) {
			return false
		}
	}
	return true
}

func readCapped(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrNotExist
	}
	return io.ReadAll(io.LimitReader(f, maxCheckedFile))
}
