// Package hermesdb writes Hermes state.db files of a chosen schema version
// (2, 6 or 11, FORMATS.md section 10b) filled with made-up but realistic
// sessions, for the tests and benchmarks of prune and its subpackages.
package hermesdb
