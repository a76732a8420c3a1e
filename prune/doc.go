// Package prune keeps an agent's own session database healthy: it reads
// the shape of a Hermes state.db from the database itself and reports its
// size, leaked sessions and age distribution.
package prune
