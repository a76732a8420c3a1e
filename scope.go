package lore

// TagPortable marks a pitfall or tool quirk that harvest scoped to its
// session's repository although its text names nothing of it (no path,
// file, host or the repository's name): a lesson about a tool that may
// hold anywhere, or only with this repository's setup (its version of
// the tool, its config). One repository's sessions cannot tell which, so
// the item stays that repository's until the same item is met in a
// second repository; harvest then makes it global (no repository), with
// the sessions of both, and the repositories' copies superseded by it.
const TagPortable = "portable"
