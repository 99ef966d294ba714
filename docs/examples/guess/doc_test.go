package guessthenumber_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestGuideIsThisCode fails when docs/environments.md's first Go block
// drifts from guess.go (and so from what these tests exercise).
func TestGuideIsThisCode(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../environments.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("no Go block in docs/environments.md")
	}
	src, err := os.ReadFile("guess.go")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.SplitN(string(src), "package ", 2)[1]
	got := strings.SplitN(blocks[0][1], "package ", 2)[1]
	if got != want {
		t.Errorf("docs/environments.md's example differs from docs/examples/guess/guess.go")
	}
}
