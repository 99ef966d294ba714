package redisstore

import "strings"

// SetStrategy selects how s commits an Update, for tests and benchmarks:
// "script" (the default), "watch" (WATCH/MULTI/EXEC), each with the
// in-process lock, or with "-nolocal" without it.
func SetStrategy(s *Store, strategy string) {
	s.watch = strings.HasPrefix(strategy, "watch")
	s.noLocal = strings.HasSuffix(strategy, "-nolocal")
}
