package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// issueNumber matches a citation of an issue by its number: the word issue
// or issues, any case (or Issue inside an identifier), then the number, with or without a '#', also when a
// comment's line break falls between them. A link to an issue of another
// project (https://github.com/NVIDIA-NeMo/Gym/issues/<n>) does not match:
// a reader can open it.
var issueNumber = regexp.MustCompile(`(?:(?i:\bissues?)|Issues?)(?:[ \t]*\r?\n[ \t]*(?://|#|\*)?)?[ \t]*#?\d+`)

// issueName matches a file or directory name that holds an issue number
// (the word issue, then the number, with or without '-' or '_').
var issueName = regexp.MustCompile(`(?i)issues?[-_]?\d`)

// checkedFile reports whether TestNoIssueNumbers reads the file name: Go,
// Markdown, templates, shell, YAML, JavaScript and Python sources and
// Makefiles.
func checkedFile(name string) bool {
	if name == "Makefile" {
		return true
	}
	switch filepath.Ext(name) {
	case ".go", ".md", ".tmpl", ".sh", ".yaml", ".yml", ".mjs", ".py":
		return true
	}
	return false
}

// TestNoIssueNumbers: no comment, test, doc or Makefile below the module
// root, and no file name, cites an issue number, which a reader of the repository cannot
// open. Cite what they can open instead: a doc section (docs/security.md,
// "Exhaust memory"), a test (TestBodyMemoryBounded), a file; or drop the
// citation where it is history. Hidden directories, node_modules and
// vendor are not read, and the links of resources_servers/ are not
// followed (they point into servers/).
func TestNoIssueNumbers(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if issueName.MatchString(name) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: the name cites an issue number: name it after what it holds", filepath.ToSlash(rel))
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !checkedFile(name) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, m := range issueNumber.FindAllIndex(b, -1) {
			line := 1 + strings.Count(string(b[:m[0]]), "\n")
			t.Errorf("%s:%d: %q cites an issue number: cite a doc section, a test or a file instead, or drop it",
				filepath.ToSlash(rel), line, b[m[0]:m[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files below %s: not the repository?", files, root)
	}
}

// TestIssueNumberPattern pins what TestNoIssueNumbers counts as a
// citation. The texts are built by concatenation so that this file does
// not cite one itself.
func TestIssueNumberPattern(t *testing.T) {
	t.Parallel()
	const w = "issue"
	for _, s := range []string{
		w + " 14", "Is" + "sue 11, finding 3", w + "s 10 and 11", w + " #9", w + "#9",
		"(" + w + "\n// 12)", w + "\n# 12", w + "\r\n\t// 12", "the " + w + " 14's targets",
		"TestIs" + "sue12Keys",
	} {
		if !issueNumber.MatchString(s) {
			t.Errorf("%q: not matched, want a citation", s)
		}
	}
	for _, s := range []string{
		"https://github.com/NVIDIA-NeMo/Gym/" + w + "s/3023", w + "d 12 tokens", "Is" + "suer string",
		w + "'s clients", "Is" + "sue string // 12", "t" + w + " 12", "d.11 #1", w + "\n\n// 12",
	} {
		if issueNumber.MatchString(s) {
			t.Errorf("%q: matched, want no citation", s)
		}
	}
	for _, s := range []string{w + "12_test.go", w + "-12", "Is" + "sues_7"} {
		if !issueName.MatchString(s) {
			t.Errorf("name %q: not matched, want a citation", s)
		}
	}
	for _, s := range []string{w + "s.go", "keys_test.go"} {
		if issueName.MatchString(s) {
			t.Errorf("name %q: matched, want no citation", s)
		}
	}
}
