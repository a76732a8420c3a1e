// Package journal reconstructs attempts to change code (lore.Attempt)
// from agents' sessions, and turns an attempt's lesson into knowledge.
package journal
