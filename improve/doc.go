// Package improve runs lore improve: a loop that has an agent improve a
// repository area by area, keeps a change only when a benchmark it cannot
// touch scores it higher with no area lower, and stops every process it
// started when told to.
package improve
