// Package remote is a lore.Store over lore serve's HTTP API: lore on a
// team's machines works on the server's store as on a file of its own.
package remote
