//go:build race

package breaktest

// raceEnabled: memory figures are the race runtime's (sync.Pool drops
// items, allocations are larger), so the memory bounds are not checked.
const raceEnabled = true
