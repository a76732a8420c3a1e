// Package episode answers a failed tool call from the raw history: the
// earlier sessions that met the same error, and what got them past it.
package episode
