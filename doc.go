// Package lore is lore's domain: the normalised agent session that every
// transcript reader produces, the knowledge item and the rules that govern
// it (Prepare and Redact before an item is stored; Create, Merge, Promote
// and Supersedes when it meets what a store holds; Instruction to refuse
// text aimed at an agent and Hold to keep an order back as a candidate),
// a repository's identity (SameRepo, RepoMatches), the lore:ID citation,
// and the Store contract that every store implements by calling those
// same rules.
package lore
