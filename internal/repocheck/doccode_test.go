package repocheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docPackages are the packages a guide's Go block may use without
// importing them (a block shows the code, not its import lines): the name
// it is used under and its import path.
var docPackages = map[string]string{
	"framework":  "github.com/gymkit/gymkit/framework",
	"host":       "github.com/gymkit/gymkit/framework/host",
	"session":    "github.com/gymkit/gymkit/session",
	"config":     "github.com/gymkit/gymkit/config",
	"server":     "github.com/gymkit/gymkit/server",
	"servertest": "github.com/gymkit/gymkit/server/servertest",
	"mcpexpose":  "github.com/gymkit/gymkit/mcpexpose",
	"cli":        "github.com/gymkit/gymkit/cli",
	"pyval":      "github.com/gymkit/gymkit/pycompat/pyval",
	"mcp":        "github.com/modelcontextprotocol/go-sdk/mcp",
	"context":    "context",
	"errors":     "errors",
	"fmt":        "fmt",
	"io":         "io",
	"json":       "encoding/json",
	"http":       "net/http",
	"httptest":   "net/http/httptest",
	"os":         "os",
	"slog":       "log/slog",
	"strconv":    "strconv",
	"strings":    "strings",
	"testing":    "testing",
	"time":       "time",
}

// docVars are the variables a block that is a run of statements may use
// without declaring them, and their types: what the code around such a
// snippet has in the guides (a handler's ctx, a test's t, Routes' r).
var docVars = []struct{ name, pkg, typ string }{
	{"ctx", "context", "context.Context"},
	{"t", "testing", "*testing.T"},
	{"r", "framework", "*framework.Router"},
}

// A docBlock is one ```go block of a Markdown file.
type docBlock struct {
	file string // slash-separated, from the module root
	line int    // the line of the block's first code line
	code string
}

// String names the block as "file:line".
func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docBlocks returns the ```go blocks of README.md and docs/*.md.
func docBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(root, f)
		files = append(files, filepath.ToSlash(rel))
	}
	var out []docBlock
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		var cur *docBlock
		var code strings.Builder
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			fence := strings.TrimSpace(line)
			switch {
			case cur == nil && fence == "```go":
				cur = &docBlock{file: f, line: n + 1}
				code.Reset()
			case cur != nil && fence == "```":
				cur.code = code.String()
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				code.WriteString(line + "\n")
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

var (
	lineComment = regexp.MustCompile(`//[^\n]*`)
	stringLit   = regexp.MustCompile("\"(?:[^\"\\\\\\n]|\\\\.)*\"|`[^`]*`")
	ellipsis    = regexp.MustCompile(`(?m)^(\s*)\.\.\.\s*$`)
)

// docSource is the Go file a block is checked as. A block that is a whole
// file (it has a package clause) is used as it is. Otherwise it gets a
// package clause and the imports of docPackages it uses; a block of
// declarations stays at the top level, a block of statements becomes the
// body of a function whose parameters are the docVars it uses and does not
// declare. A line holding only "..." (code left out) is a comment.
func docSource(b docBlock) string {
	code := ellipsis.ReplaceAllString(b.code, "$1// ...")
	if regexp.MustCompile(`(?m)^package \w+`).MatchString(code) {
		return code
	}
	bare := stringLit.ReplaceAllString(lineComment.ReplaceAllString(code, ""), `""`)
	uses := func(name string) bool { return regexp.MustCompile(`(^|[^\w.])` + name + `\.`).MatchString(bare) }
	var imports []string
	imported := map[string]bool{}
	addImport := func(name string) {
		if !imported[name] {
			imported[name] = true
			imports = append(imports, strconv.Quote(docPackages[name]))
		}
	}
	for name := range docPackages {
		if uses(name) {
			addImport(name)
		}
	}
	head := func() string {
		slices.Sort(imports)
		return "package doc\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n\n"
	}
	if len(imports) == 0 {
		head = func() string { return "package doc\n\n" }
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "", head()+code, 0); err == nil {
		return head() + code
	}
	var params []string
	for _, v := range docVars {
		used := regexp.MustCompile(`(^|[^\w.])` + v.name + `\b`).MatchString(bare)
		declared := regexp.MustCompile(`(^|[^\w.])` + v.name + `\b[\w\s,]*:=`).MatchString(bare)
		if used && !declared {
			params = append(params, v.name+" "+v.typ)
			addImport(v.pkg)
		}
	}
	return head() + "func _(" + strings.Join(params, ", ") + ") {\n" + code + "}\n"
}

// exportData lists the export data files of paths and their dependencies
// (go list -export), by import path.
func exportData(t *testing.T, root string, paths []string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	files := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			files[path] = file
		}
	}
	return files
}

// ignoredDocError reports whether a type error of a block comes from the
// code the block leaves out rather than from gymkit's API: an undeclared
// name of the guide's own (unqualified), a field or method of a type the
// block declares, an unused variable, a function whose body is elided, an
// import of the reader's own module (example.com/...).
func ignoredDocError(msg string, declared map[string]bool) bool {
	switch {
	case strings.HasPrefix(msg, "undefined: ") && !strings.Contains(msg, "."),
		strings.HasPrefix(msg, "declared and not used"),
		msg == "missing return",
		strings.Contains(msg, `could not import example.com/`):
		return true
	}
	if m := regexp.MustCompile(`\(type \*?(\w+) has no field or method`).FindStringSubmatch(msg); m != nil {
		return declared[m[1]]
	}
	return false
}

// TestDocCodeCompiles type-checks every Go block of README.md and
// docs/*.md against the module's current API: a block that is a whole
// file as it is, a block of declarations or statements with the imports
// and variables the guides leave implicit (see docSource). Only errors
// that the code the block leaves out cannot explain fail it (see
// ignoredDocError): a renamed or removed identifier, a wrong argument or
// field, a changed signature. docs/examples holds the guides' complete
// environments, built and tested as packages; cli's TestNewModuleAcceptance
// builds and tests the scaffold.
func TestDocCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the export data of the module's packages with the go command")
	}
	t.Parallel()
	root := moduleRoot(t)
	blocks := docBlocks(t, root)
	if len(blocks) < 20 {
		t.Fatalf("found %d Go blocks in README.md and docs/*.md: fewer than expected", len(blocks))
	}
	fset := token.NewFileSet()
	type parsed struct {
		b    docBlock
		src  string
		file *ast.File
	}
	var files []parsed
	need := map[string]bool{}
	for _, b := range blocks {
		src := docSource(b)
		f, err := parser.ParseFile(fset, b.String(), src, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: the block does not parse as Go: %v\n%s", b, err, src)
			continue
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); !strings.HasPrefix(p, "example.com/") {
				need[p] = true
			}
		}
		files = append(files, parsed{b, src, f})
	}
	paths := make([]string, 0, len(need))
	for p := range need {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	exports := exportData(t, root, paths)
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	for _, p := range files {
		declared := map[string]bool{}
		for _, d := range p.file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					declared[s.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
		ast.Inspect(p.file, func(n ast.Node) bool { // types declared in a function body
			if s, ok := n.(*ast.TypeSpec); ok {
				declared[s.Name.Name] = true
			}
			return true
		})
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok && ignoredDocError(te.Msg, declared) {
				return
			}
			errs = append(errs, err.Error())
		}}
		_, _ = conf.Check("doc", fset, []*ast.File{p.file}, nil)
		if len(errs) > 0 {
			t.Errorf("%s: the block does not compile against the current API:\n\t%s\nchecked as:\n%s",
				p.b, strings.Join(errs, "\n\t"), p.src)
		}
	}
}
