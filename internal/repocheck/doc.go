// Package repocheck holds checks of the repository itself, run by go test
// ./... (so by make test): TestNoIssueNumbers (comments, docs and the
// Makefile cite what a reader can open, never an issue number) and
// TestLayers (no package imports against the layers of ARCHITECTURE.md).
package repocheck
