// Package sub has a package comment.
package sub

// Fine is fine.
func Fine() {}
