// Package lore holds the domain types shared by every part of lore: the
// normalised agent session that all transcript readers produce, knowledge
// items, and the Store contract that every store implements.
package lore
