// Package claudehook is Claude Code's hook protocol as lore speaks it: the
// JSON a hook reads on standard input and the answer a SessionStart hook
// prints; the settings.json editor that adds and removes lore's hooks while
// writing every other setting back byte for byte; and the checks that the
// lore a hook calls will still be there. Claude Code owns the protocol and
// may change it, so all of lore's knowledge of it is here, in one place.
package claudehook
