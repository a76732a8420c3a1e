// Package lore holds the domain types shared by every part of lore: the
// normalised agent session that all transcript readers produce, and (later)
// knowledge items and the store contract.
package lore
