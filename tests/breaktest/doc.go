// Package breaktest holds the regression tests of a break-it pass on the
// framework core and rollout sessions: malformed bodies, odd paths and
// methods, decoder type coverage, handler misbehaviour (panics, Goexit,
// unencodable results), verify and aggregate_metrics edge cases, and session
// concurrency, all driven over real HTTP. Each test names the contract rule
// it pins.
package breaktest
