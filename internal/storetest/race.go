//go:build race

package storetest

// raceDetector says the tests run under the race detector, which makes
// reading whole git histories minutes long.
const raceDetector = true
