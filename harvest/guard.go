package harvest

import (
	"regexp"
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

// lazyRegexp compiles an expression when it is first used.
func lazyRegexp(re string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) })
}
