package lore

// PrepareBoot brings a boot record into the form every store keeps: its
// task is a person's or an agent's words, which can hold a secret as well
// as a transcript can, so it is redacted as an item's text is.
func PrepareBoot(b Boot) Boot {
	b.Task = redactor.String(b.Task)
	return b
}
