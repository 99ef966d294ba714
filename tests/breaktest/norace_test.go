//go:build !race

package breaktest

const raceEnabled = false
