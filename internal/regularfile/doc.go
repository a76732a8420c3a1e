// Package regularfile opens files that lore reads as data, and only those
// that are regular files: opening a named pipe blocks until someone writes
// to it, and reading a device may never end.
package regularfile
