// Package serve is lore's HTTP JSON API over a shared store (lore serve):
// each request answered from the store of the team its bearer token names.
package serve
