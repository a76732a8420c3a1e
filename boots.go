package lore

import "github.com/lorehq/lore/internal/redact"

// MaxTask is the most bytes of a boot's task that are searched and kept:
// a task says what a session is about to do, and words past the first
// paragraphs change little of what is relevant.
const MaxTask = 2000

// PrepareBoot brings a boot record into the form every store keeps: its
// task is a person's or an agent's words, which can hold a secret as well
// as a transcript can, so it is redacted as an item's text is, then cut
// to MaxTask bytes where no part of a secret is kept.
func PrepareBoot(b Boot) Boot {
	b.Task = CutTask(b.Task)
	return b
}

// CutTask is a task redacted and cut to MaxTask bytes, never inside a
// secret's marker or a token.
func CutTask(task string) string {
	t := redactor.Head(task, MaxTask)
	return t[:redact.Cut(t, MaxTask)]
}
