// Package soak is gymkit's bounded soak (make soak): it starts two shipped
// environments, example_mcp_weather and workplace_assistant, from their
// configs through the real host (package server) on loopback, drives good
// and bad traffic at both doors (HTTP tool routes and the MCP door),
// cookieless and cookie-bearing, and samples the live heap, goroutines and
// open file descriptors of the process over time.
//
// It fails on growth that does not level off, on any lost update among
// concurrent calls of one rollout, and on any answer whose status or shape
// is wrong. It is a test behind the "soak" build tag, so that neither make
// test nor go vet ./... runs it:
//
//	make soak                                   # the default run, ~3 minutes
//	make soak SOAK_FLAGS='-soak.duration=1m -soak.concurrency=4'
//	make soak SOAK_FLAGS='-soak.cookieless=1000000' # the figure docs/security.md quotes
//
// See soak_test.go for the phases, their checks and the flags.
package soak
