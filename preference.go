package lore

// Tags of what a user typed to steer an agent, kept in the user's words:
// boot ranks such notes with pitfalls.
const (
	// TagPreference marks a standing preference: "always …", "never …",
	// "we use X", "make that standard".
	TagPreference = "preference"
	// TagCorrection marks a redirect ("no, use …", "don't …", "… instead")
	// that says nothing of how long it holds.
	TagCorrection = "correction"
)
