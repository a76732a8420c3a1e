package harvest

import (
	"regexp"
	"sync"

	"github.com/lorehq/lore"
)

// hold reports whether an item that is not refused is still to be kept
// as a candidate: a dangerous setting (lore.Unsafe), however it is
// worded; lore.Hold; or an order that comes from tool output (a web page,
// a file, a command's output) rather than from the user's or the agent's
// own words.
func hold(text string, fromTool bool) bool {
	return lore.Hold(text) || fromTool && lore.Order(text)
}

// screen is lore.Instruction, then hold.
func screen(text string, fromTool bool) (refuse, held bool) {
	if lore.Instruction(text) {
		return true, false
	}
	return false, hold(text, fromTool)
}

// lazyRegexp compiles an expression when it is first used.
func lazyRegexp(re string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) })
}
