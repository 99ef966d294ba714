//go:build race

package cli

// raceEnabled: memory figures are the race runtime's (allocations are larger,
// the shadow memory counts), so the memory bounds are not checked under -race.
const raceEnabled = true
