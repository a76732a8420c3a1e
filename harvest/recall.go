package harvest

import (
	"strings"
)

// FailedCommand is the command a pitfall's or a tool quirk's text opens
// with when the text says that command fails, as the rules word them
// ("`go test ./...` fails with …", "`gh api` can fail with …", "`npm
// install` fails in the sandbox of …"), or "". A chain or a pipeline is
// no one command.
func FailedCommand(text string) string {
	if !strings.HasPrefix(text, "`") {
		return ""
	}
	cmd, rest, ok := strings.Cut(text[1:], "`")
	if !ok || cmd == "" || strings.ContainsAny(cmd, "|;&") {
		return ""
	}
	for _, says := range []string{" fails with ", " can fail with ", " fails in the sandbox of "} {
		if strings.HasPrefix(rest, says) {
			return cmd
		}
	}
	return ""
}

// CommandWords are the words of the command that matters in a shell
// command line, as a pitfall shows them (generalCommand): the program,
// its subcommands, flags and short arguments as typed, "…" for free text
// and long arguments. Nil for no command.
func CommandWords(cmd string) []string { return generalWords(cmd, "", nil) }

// CommandPrefix is how the text of every pitfall whose failed command
// the command of words (CommandWords) Meets starts, after its backtick:
// the program, and its subcommand when it has one.
func CommandPrefix(words []string) string {
	if len(words) == 0 {
		return ""
	}
	if sub := subcommand(words); sub != "" && len(words) > 1 && words[1] == sub {
		return words[0] + " " + sub
	}
	return words[0]
}

// Meets reports whether the command whose words (CommandWords) are words
// is the one a pitfall's failed command (FailedCommand) describes: the
// same program and subcommand, and every other word the pitfall shows, in
// its order (a word the pitfall cut short, "long-na…", as the start of
// one; "…" stands for anything).
func Meets(failed string, words []string) bool {
	shown := strings.Fields(failed)
	if len(shown) == 0 || len(words) == 0 || shown[0] != words[0] || subcommand(shown) != subcommand(words) {
		return false
	}
	i := 1
	for _, w := range shown[1:] {
		if w == "…" {
			continue
		}
		head, cut := strings.CutSuffix(w, "…")
		for i < len(words) && words[i] != w && !(cut && strings.HasPrefix(words[i], head)) {
			i++
		}
		if i == len(words) {
			return false
		}
		i++
	}
	return true
}
