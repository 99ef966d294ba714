//go:build !race

package pyjson

const raceEnabled = false
