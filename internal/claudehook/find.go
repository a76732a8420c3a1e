package claudehook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Found is one of lore's hooks as a settings file holds it.
type Found struct {
	Event string
	// Commands are the commands of the hooks that run lore for this event,
	// as written; none when lore's hook for it is not there.
	Commands []string
}

// Find reads which of hs the settings file holds, changing nothing: one
// Found per hook of hs, in order. A file that is not there holds none.
func (hs Hooks) Find(file string) ([]Found, error) {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	doc, err := parseSettings(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	hooks, err := doc.hooksObject()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var found []Found
	for _, h := range hs {
		f := Found{Event: h.Event}
		if hooks != nil {
			ev, err := doc.event(hooks, h.Event)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			for _, r := range ev.find(h.Args) {
				f.Commands = append(f.Commands, r.command)
			}
		}
		found = append(found, f)
	}
	return found, nil
}

// Program is the program a hook command of lore runs (a path, or lore
// for PATH to find), unquoted; "" when command is not lore's.
func Program(command string) string {
	for _, h := range append(append(Hooks{}, Claude...), Gemini...) {
		if prog, ok := loreProgram(command, h.Args); ok {
			return prog
		}
	}
	return ""
}

// loreProgram is the program of command when it runs a program named
// lore with args.
func loreProgram(command, args string) (string, bool) {
	c := strings.Join(strings.Fields(command), " ")
	prog, ok := strings.CutSuffix(c, " "+args)
	if !ok {
		return "", false
	}
	prog = strings.TrimSpace(prog)
	if n := len(prog); n >= 2 && (prog[0] == '\'' && prog[n-1] == '\'' || prog[0] == '"' && prog[n-1] == '"') {
		prog = strings.ReplaceAll(prog[1:n-1], `'\''`, "'")
	}
	if strings.ContainsAny(prog, " \t") && !strings.ContainsAny(prog, `/\`) {
		return "", false // "env X=1 lore" and the like are someone else's
	}
	base := path.Base(strings.ReplaceAll(prog, `\`, "/"))
	return prog, base == "lore" || strings.EqualFold(base, "lore.exe")
}

// LookLore is the lore the search path pathList (the value of $PATH)
// finds on goos, or "".
func LookLore(pathList, goos string) string { return lookLore(pathList, goos) }
