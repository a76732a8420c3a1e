//go:build !race

package storetest

const raceDetector = false
