// Package postgres is a lore.Store in PostgreSQL, for a team that shares
// one: each team's knowledge in a schema of its own, full-text search
// with tsvector and a GIN index, migrations applied under an advisory lock.
package postgres
