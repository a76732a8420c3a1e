package harvest

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/lorehq/lore"
)

// screen reports whether an item is to be refused (lore.Instruction), and
// whether, if not, it is still to be kept as a candidate: a dangerous
// setting (lore.Unsafe), however it is worded; lore.Hold; or an order
// that comes from tool output (a web page, a file, a command's output)
// rather than from the user's or the agent's own words. fromTool is
// asked only of an order. The text is read once for all of them
// (lore.Screen).
func screen(text string, fromTool func() bool) (refuse, held bool) {
	instruction, hold, order := lore.Screen(text)
	return instruction, hold || order && fromTool()
}

// screenUser is screen for an item that quotes the user's own message
// (userQuote): lore.UserInstruction, which lets a standing preference
// through, then lore.Hold.
func screenUser(text string) (refuse, held bool) {
	if lore.UserInstruction(text) {
		return true, false
	}
	return false, lore.Hold(text)
}

// userQuote reports whether an item quotes, as the user's ("The user
// said: \"…\""), words that stand in the message its evidence cites, and
// that message is one the user typed after the task, as corrections reads
// them: not a tool's output, a file or a web page; not a refusal's
// reason, whose text a command's output can imitate; not the first
// message, which may be an issue written by anyone (SWE-agent's, a
// pasted ticket). A model that puts a stranger's words in the user's
// mouth cites a message that does not hold them.
func userQuote(s *lore.Session, it lore.Item) bool {
	quote, ok := strings.CutPrefix(it.Text, userSaid)
	quote, ok2 := strings.CutSuffix(quote, `"`)
	if !ok || !ok2 || strings.TrimSpace(quote) == "" || len(it.Evidence) == 0 {
		return false
	}
	m, ok := messageAt(s, it.Evidence[0].Position)
	if !ok || m.Role != lore.RoleUser || len(m.ToolResults) > 0 || m.Sidechain {
		return false
	}
	first := slices.IndexFunc(s.Messages, func(m lore.Message) bool { return m.Role == lore.RoleUser && !m.Sidechain })
	if s.Messages[first].Index == m.Index {
		return false
	}
	text, _ := typedText(m.Text)
	return strings.Contains(collapse(text), quote)
}

// userSaid opens the text of an item in the user's words.
const userSaid = `The user said: "`

// lazyRegexp compiles an expression when it is first used.
func lazyRegexp(re string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) })
}
