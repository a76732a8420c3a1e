// Package recall hands an agent what lore knows at the point of action:
// before a shell command runs, the pitfalls earlier sessions met with the
// same command, and after a tool call failed, the pitfalls and quirks of
// the same error, each with what worked.
package recall
