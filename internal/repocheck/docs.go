package repocheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// DocFinding is one exported identifier without a proper doc comment.
type DocFinding struct {
	File  string // slash-separated path from the module root, e.g. "server/host.go"
	Line  int    // 1-based line of the declaration
	Ident string // "func Name", "method T.Name", "type T", "const C", "var V", "field T.F", "package p"
	Issue string // "has no doc comment" or "doc comment does not start with the name"
}

// String formats f as "file:line: ident issue".
func (f DocFinding) String() string {
	return fmt.Sprintf("%s:%d: %s %s", f.File, f.Line, f.Ident, f.Issue)
}

const (
	noDoc     = "has no doc comment"
	wrongName = "doc comment does not start with the name"
)

// CheckDocs finds the exported identifiers of gymkit's public packages
// that have no doc comment, or one that does not start with the
// identifier's name (go-style-anchors §2.8: "Start with the name").
//
//	findings, err := repocheck.CheckDocs(root)
//	for _, f := range findings {
//		fmt.Println(f) // "server/body.go:12: func MaxBody has no doc comment"
//	}
//
// What is checked, in every non-test .go file of a package whose import
// path has no "internal" element (testdata, node_modules, vendor,
// directories starting with "." or "_", and docs/, whose packages are the
// guides' code as the guides show it, are skipped):
//   - the package has a package comment (in any of its files);
//   - every exported top-level func, type, const and var, and every
//     exported method of an exported type, has a doc comment; for a const
//     or var the comment of its parenthesized group, or a trailing line
//     comment, counts;
//   - a func's, method's or type's doc comment starts with its name
//     (after an optional "A", "An" or "The"), or says "Deprecated:".
//
// Exported fields of exported structs and methods of exported interfaces
// are checked too: each needs a comment of its own (doc, trailing line
// comment, or one above the run of fields it is in, as go doc shows it) or
// a mention in its type's doc comment by its Go name, JSON name or config
// key; a one-method interface's doc is its method's.
//
// It parses the public packages below root (a module root) and returns
// their findings, sorted by file and line. It fails only when a directory
// cannot be read or a file does not parse.
func CheckDocs(root string) ([]DocFinding, error) {
	var out []DocFinding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "internal" || name == "testdata" || name == "node_modules" || name == "vendor" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path == filepath.Join(root, "docs") {
			return filepath.SkipDir // the guides' code, as the guides show it
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		fs, err := checkDir(root, path)
		out = append(out, fs...)
		return err
	})
	slices.SortFunc(out, func(a, b DocFinding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out, err
}

// checkDir checks the package in dir (its non-test .go files).
func checkDir(root, dir string) ([]DocFinding, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if ast.IsGenerated(f) {
			continue
		}
		files = append(files, f)
		rel, _ := filepath.Rel(root, filepath.Join(dir, n))
		names = append(names, filepath.ToSlash(rel))
	}
	if len(files) == 0 {
		return nil, nil
	}
	var out []DocFinding
	add := func(i int, pos token.Pos, ident, issue string) {
		out = append(out, DocFinding{File: names[i], Line: fset.Position(pos).Line, Ident: ident, Issue: issue})
	}
	if !slices.ContainsFunc(files, func(f *ast.File) bool { return f.Doc != nil }) {
		add(0, files[0].Package, "package "+files[0].Name.Name, noDoc)
	}
	for i, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				checkFunc(d, func(pos token.Pos, ident, issue string) { add(i, pos, ident, issue) })
			case *ast.GenDecl:
				checkGen(fset, d, func(pos token.Pos, ident, issue string) { add(i, pos, ident, issue) })
			}
		}
	}
	return out, nil
}

type report func(pos token.Pos, ident, issue string)

func checkFunc(d *ast.FuncDecl, add report) {
	if !d.Name.IsExported() {
		return
	}
	ident := "func " + d.Name.Name
	if d.Recv != nil {
		recv := recvName(d.Recv.List[0].Type)
		if !ast.IsExported(recv) {
			return
		}
		ident = "method " + recv + "." + d.Name.Name
	}
	checkDoc(d.Doc, d.Name.Name, d.Pos(), ident, add)
}

// recvName is the type name of a receiver: T in T, *T, T[K], *T[K, V].
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func checkGen(fset *token.FileSet, d *ast.GenDecl, add report) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			doc := s.Doc
			if doc == nil && !d.Lparen.IsValid() {
				doc = d.Doc
			}
			checkDoc(doc, s.Name.Name, s.Pos(), "type "+s.Name.Name, add)
			checkMembers(fset, s, doc, add)
		case *ast.ValueSpec:
			kind := d.Tok.String()
			for _, n := range s.Names {
				if !n.IsExported() {
					continue
				}
				if s.Doc == nil && s.Comment == nil && d.Doc == nil {
					add(n.Pos(), kind+" "+n.Name, noDoc)
				}
			}
		}
	}
}

// checkMembers checks the exported fields of an exported struct and the
// methods of an exported interface: each needs a comment of its own (doc or
// trailing line comment, or one above the run of fields it is in) or a
// mention in the type's doc comment, by its Go name, its JSON name (json
// tag) or its config key (koanf tag). A one-method interface's doc is its
// method's.
func checkMembers(fset *token.FileSet, s *ast.TypeSpec, typeDoc *ast.CommentGroup, add report) {
	var list *ast.FieldList
	kind := "field "
	switch t := s.Type.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
		kind = "method "
		if typeDoc != nil && len(list.List) == 1 {
			return // the doc of a one-method interface is its method's
		}
	default:
		return
	}
	prevEnd, inRun := token.NoPos, false
	for _, f := range list.List {
		// A comment above a run of fields (no blank line between them)
		// covers the run, as go doc shows it; a line comment covers its
		// own line only.
		inRun = f.Doc != nil || inRun && fset.Position(f.Pos()).Line == fset.Position(prevEnd).Line+1
		prevEnd = f.End()
		if inRun || f.Comment != nil {
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() && !mentions(typeDoc, n.Name) &&
				!mentions(typeDoc, tagName(f.Tag, "json")) && !mentions(typeDoc, tagName(f.Tag, "koanf")) {
				add(n.Pos(), kind+s.Name.Name+"."+n.Name, noDoc)
			}
		}
	}
}

// mentions reports whether doc holds word as a whole word (not inside a
// longer identifier), ignoring case ("the content" mentions Content).
func mentions(doc *ast.CommentGroup, word string) bool {
	if doc == nil || word == "" {
		return false
	}
	text, word := strings.ToLower(doc.Text()), strings.ToLower(word)
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isIdentByte(text[start-1])) && (end == len(text) || !isIdentByte(text[end])) {
			return true
		}
		i = end
	}
}

// tagName is the name the struct tag key (json: the JSON field, koanf: the
// config key) gives a field, "" for none.
func tagName(tag *ast.BasicLit, key string) string {
	if tag == nil {
		return ""
	}
	v, err := strconv.Unquote(tag.Value)
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(reflect.StructTag(v).Get(key), ",")
	if name == "-" {
		return ""
	}
	return name
}

// checkDoc reports a missing doc comment, or one that does not start with
// name (after "A ", "An " or "The "), unless it says "Deprecated:".
func checkDoc(doc *ast.CommentGroup, name string, pos token.Pos, ident string, add report) {
	if doc == nil {
		add(pos, ident, noDoc)
		return
	}
	text := doc.Text()
	if strings.Contains(text, "Deprecated:") {
		return
	}
	for _, article := range []string{"A ", "An ", "The "} {
		text = strings.TrimPrefix(text, article)
	}
	rest, ok := strings.CutPrefix(text, name)
	if !ok || (rest != "" && isIdentByte(rest[0])) {
		add(pos, ident, wrongName)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
