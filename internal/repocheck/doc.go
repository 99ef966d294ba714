// Package repocheck holds the checks of the repository itself, run by go
// test ./... (so by make test):
//   - TestPublicIdentifiersHaveDocs: every exported identifier of a public
//     package has a doc comment that starts with its name ([CheckDocs]);
//   - TestNoIssueNumbers: comments, docs, file names and the Makefile cite
//     what a reader can open, never an issue number;
//   - TestLayers: no package imports against the layers of ARCHITECTURE.md.
package repocheck
