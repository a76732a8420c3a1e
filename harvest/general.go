package harvest

import (
	"path"
	"slices"
	"strings"
)

// generalCommand is a pitfall's command as its item tells it: the
// program, its subcommands, its flags and short arguments as typed, each
// free-text or long argument (a title, a message, a generated name, a
// long path: a word holding a blank, or longer than maxArgument and not
// a URL) shown as
// "…", so that the item says what any session may meet, not what one
// session typed. When that is still longer than maxCommand, only the flags
// that matter are kept: those the error names, and those the other command
// (the fix, or the failure) does not have; every other argument is "…".
// other is the other command's general words (nil: none, keep all).
func generalCommand(cmd, errLine string, other []string) string {
	return strings.Join(generalWords(cmd, errLine, other), " ")
}

// maxArgument is the longest argument a pitfall shows as typed: longer
// ones are names made for one task (research-on-run-complete-placement)
// or deep paths.
const maxArgument = 24

func generalWords(cmd, errLine string, other []string) []string {
	words := mainWords(cmd)
	if len(words) == 0 {
		return nil
	}
	out := []string{path.Base(words[0])}
	rest := words[1:]
	switch out[0] {
	case "python", "python3", "node", "bash", "sh", "ruby", "deno":
		// The script a runtime runs is what the command is.
		for len(rest) > 0 {
			w := rest[0]
			out, rest = append(out, w), rest[1:]
			if w == "-m" && len(rest) > 0 {
				out, rest = append(out, rest[0]), rest[1:]
				break
			}
			if !strings.HasPrefix(w, "-") {
				break
			}
		}
	}
	prefix := len(out)
	for _, w := range rest {
		if name, value, ok := strings.Cut(w, "="); ok && strings.HasPrefix(name, "-") && free(value) {
			w = name + "=…"
		} else if free(w) {
			w = "…"
		}
		if w == "…" && out[len(out)-1] == "…" {
			continue
		}
		out = append(out, w)
	}
	if other == nil || len(strings.Join(out, " ")) <= maxCommand {
		return out
	}
	// Still too long: the flags that matter only.
	narrow := append([]string{}, out[:prefix]...)
	sub := true // the plain words right after the program: its subcommands
	for _, w := range out[prefix:] {
		flag := strings.HasPrefix(w, "-") && len(w) > 1
		sub = sub && !flag && plainWord().MatchString(w)
		name, _, _ := strings.Cut(w, "=")
		if !sub && (!flag || !strings.Contains(errLine, name) && slices.Contains(other, w)) {
			w = "…"
		}
		if w == "…" && narrow[len(narrow)-1] == "…" {
			continue
		}
		narrow = append(narrow, w)
	}
	return narrow
}

// free reports whether an argument is free text or too long to tell. A
// URL is kept: it names the service the command reached.
func free(w string) bool {
	return strings.ContainsAny(w, " \t\n") || len([]rune(w)) > maxArgument && !strings.Contains(w, "://")
}

// generalPitfall is the failed and the working command of a pitfall as
// its item tells them (generalCommand), or ok false when they read the
// same that way: what changed was free text, and the item keeps the
// commands as they were typed.
func generalPitfall(failed, worked, errLine string) (f, w string, ok bool) {
	fw, ww := generalWords(failed, errLine, nil), generalWords(worked, errLine, nil)
	f = strings.Join(generalWords(failed, errLine, ww), " ")
	w = strings.Join(generalWords(worked, errLine, fw), " ")
	return f, w, f != "" && f != w
}
