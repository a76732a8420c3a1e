// Package errsig finds the error line that matters in a failed tool
// result and turns it into a normalised signature: the key by which lore
// tells that the same error came back in another session.
package errsig
