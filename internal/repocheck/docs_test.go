package repocheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublicIdentifiersHaveDocs: every exported identifier of the module's
// public packages has a doc comment that starts with its name (fields:
// a comment, or a mention in the type's doc), go-style-anchors §2.8.
func TestPublicIdentifiersHaveDocs(t *testing.T) {
	t.Parallel()
	fs, err := CheckDocs(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		t.Errorf("%s (document it: go-style-anchors §2.8)", f)
	}
}

// TestCheckFindsEachKind runs CheckDocs over testdata/bad, which holds one
// case of each rule, and compares every finding.
func TestCheckFindsEachKind(t *testing.T) {
	t.Parallel()
	fs, err := CheckDocs(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	want := []string{
		"a.go:1: package bad has no doc comment",
		"a.go:3: func Undocumented has no doc comment",
		"a.go:6: func Documented doc comment does not start with the name",
		"a.go:20: field Thing.Unnamed has no doc comment",
		"a.go:25: field Thing.Alone has no doc comment",
		"a.go:26: field Thing.Mentioned has no doc comment",
		"a.go:31: method Thing.Method has no doc comment",
		"a.go:40: const Loose has no doc comment",
		"a.go:50: const P2 has no doc comment",
		"a.go:56: type T2 has no doc comment",
		"a.go:64: method Iface.M2 has no doc comment",
		"a.go:73: method Generic.Get has no doc comment",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckBadFile: a file that does not parse is an error, not a pass.
func TestCheckBadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\nfunc {"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckDocs(dir); err == nil {
		t.Error("CheckDocs of a file that does not parse returned no error")
	}
}
