// Package knowledge reads and writes the knowledge file layout: index.json
// with every item, and markdown files per scope for people to read.
package knowledge
