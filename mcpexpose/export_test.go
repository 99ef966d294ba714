package mcpexpose

// LeanAnswers returns how many requests d's lean path answered (tests
// assert which requests take it).
func LeanAnswers(d *Door) uint64 { return d.leanAnswers.Load() }
