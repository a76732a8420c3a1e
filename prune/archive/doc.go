// Package archive keeps the sessions prune moves out of an agent's session
// database, every row lossless and zstd-compressed with one trained
// dictionary in an SQLite file, so that restore puts them back exactly.
package archive
