// Package fixguard mines regression guards from a repository's fix commits
// (Scan) and finds the fixes a tree has undone (Check), reading the
// history with the git command and writing nothing to the repository.
package fixguard
