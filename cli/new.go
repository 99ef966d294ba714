package cli

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"text/template"

	"github.com/gymkit/gymkit/internal/buildinfo"
)

//go:embed templates/*.tmpl
var templates embed.FS

var newCommand = &command{name: "new", summary: "write a new environment (server, types, verify, test, config, app.py)", usage: newUsage, run: runNew}

const newUsage = `Usage: gymkit new NAME [--dispatcher] [--module PATH [--replace DIR]] [--dir DIR]

Write a complete environment named NAME (a snake_case server type: my_env): the
server with a config key, its request and response types, a tool (echo), verify,
a test, configs/NAME.yaml, a README and the app.py NeMo's launcher runs. What it
writes compiles, registers its server type, and its test passes as written.

Inside gymkit's own checkout (the default; DIR or the working directory must be its
root): servers/NAME/, registered in servers/all/all.go.

With --module PATH: a fresh module of your own in DIR (default: the last element of
PATH), with go.mod (requiring gymkit), main.go (the three-line binary: a blank
import of the environment and cli.Main) and servers/NAME/. When DIR already holds a
go.mod of module PATH, only servers/NAME/ is written and main.go gets its import.

Flags:
      --dispatcher          a dispatcher (framework.Dispatch: POST /{tool}) with a
                            Tools hook minting its MCP tools, instead of a typed route
      --module PATH         write a module of your own (example.com/myenvs)
      --replace DIR         with --module: add "replace github.com/gymkit/gymkit => DIR"
                            to go.mod (a local gymkit checkout)
      --dir DIR             where to write (default: see above)
      --version             print gymkit's version and exit
  -h, --help                show this help

Exit status: 0 when written; 2 for a usage error or when a file would be
overwritten (nothing is written then).
`

var snakeName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// newData fills the templates.
type newData struct {
	Name, Package, Type, ImportPath, Module, Binary, BinaryHint, Build string
	ConfigPath, PkgDir, RootFromServer, RootName, GoVersion            string
	GymkitVersion, Replace                                             string
	Dispatcher                                                         bool
}

func runNew(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var name, module, replace, dir string
	dispatcher := false
	var positional []string
	s := argScanner{
		known: func(n string) bool {
			return n == "dispatcher" || n == "module" || n == "replace" || n == "dir"
		},
		bools: map[string]bool{"dispatcher": true},
		usage: "gymkit new NAME [--dispatcher] [--module PATH] [--dir DIR]",
		set: func(flag, n, value string) error {
			switch n {
			case "dispatcher":
				dispatcher = value == "true"
			case "module":
				module = value
			case "replace":
				replace = value
			case "dir":
				dir = value
			}
			return nil
		},
	}
	// NAME is the one positional argument.
	var rest []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && len(positional) == 0 && (len(rest) == 0 || !needsValue(rest[len(rest)-1])) {
			positional = append(positional, a)
			continue
		}
		rest = append(rest, a)
	}
	over, err := s.scan(rest)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, newUsage)
		return exitOK
	}
	if err == nil && len(over) > 0 {
		err = fmt.Errorf("unexpected argument %q", over[0])
	}
	if err == nil && len(positional) == 0 {
		err = errors.New("NAME is required (a snake_case server type, such as my_env)")
	}
	if err == nil {
		name = positional[0]
		if !snakeName.MatchString(name) {
			err = fmt.Errorf("NAME %q is not a snake_case server type: lower-case letters, digits and single underscores, starting with a letter (my_env)", name)
		}
	}
	if err == nil && replace != "" && module == "" {
		err = errors.New("--replace needs --module PATH")
	}
	if err != nil {
		return usageFailure(stderr, "new", newUsage, err)
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "gymkit new: "+format+"\n", args...)
		return exitUsage
	}

	d := newData{Name: name, Package: strings.ReplaceAll(name, "_", ""), Type: camel(name), Dispatcher: dispatcher,
		PkgDir: "servers/" + name, ConfigPath: "servers/" + name + "/configs/" + name + ".yaml", RootFromServer: "../.."}
	files := map[string]string{} // path relative to root -> template
	var edits []string           // files that get the blank import (relative to root)
	root := dir
	if module == "" {
		if root == "" {
			root = "."
		}
		if modulePath(filepath.Join(root, "go.mod")) != buildinfo.Module {
			return fail("%s is not the root of gymkit's checkout (its go.mod is not module %s); to write a module of your own, give --module PATH", abs(root), buildinfo.Module)
		}
		d.ImportPath = buildinfo.Module + "/servers/" + name
		d.Binary, d.BinaryHint, d.Build, d.RootName = "gymkit", "make build, or go build -o bin/gymkit ./cmd/gymkit", "make build   # bin/gymkit; or: go build -o bin/gymkit ./cmd/gymkit", "the root of gymkit's checkout"
		d.Binary = "./bin/gymkit"
		edits = append(edits, filepath.Join("servers", "all", "all.go"))
	} else {
		if root == "" {
			root = path.Base(module)
		}
		d.Module, d.ImportPath = module, module+"/servers/"+name
		d.Binary = path.Base(module)
		d.BinaryHint = "go build in " + abs(root)
		d.Build = "go build   # writes ./" + d.Binary
		d.RootName = "the module's root"
		switch modulePath(filepath.Join(root, "go.mod")) {
		case "":
			files["go.mod"] = "go.mod.tmpl"
			files["main.go"] = "main.go.tmpl"
		case module:
			if _, err := os.Stat(filepath.Join(root, "main.go")); err == nil {
				edits = append(edits, "main.go")
			} else {
				files["main.go"] = "main.go.tmpl"
			}
		default:
			return fail("%s has a go.mod of another module (%s)", abs(root), modulePath(filepath.Join(root, "go.mod")))
		}
		d.GoVersion = goVersion()
		d.GymkitVersion = buildinfo.Version()
		if !strings.HasPrefix(d.GymkitVersion, "v") || strings.Contains(d.GymkitVersion, "+") {
			d.GymkitVersion = "v0.0.0-00010101000000-000000000000" // a development build: the replace (or go get) chooses
		}
		if replace != "" {
			d.Replace = abs(replace)
		}
	}
	dirOf := filepath.Join("servers", name)
	files[filepath.Join(dirOf, name+".go")] = "server.go.tmpl"
	files[filepath.Join(dirOf, name+"_test.go")] = "server_test.go.tmpl"
	files[filepath.Join(dirOf, "configs", name+".yaml")] = "config.yaml.tmpl"
	files[filepath.Join(dirOf, "README.md")] = "README.md.tmpl"
	files[filepath.Join(dirOf, "app.py")] = "app.py.tmpl"

	// Render everything first; write nothing when a file exists.
	out := map[string][]byte{}
	for rel, tmpl := range files {
		if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
			return fail("%s exists: nothing was written", filepath.Join(root, rel))
		}
		b, err := render(tmpl, d)
		if err != nil {
			return fail("%s: %v", rel, err)
		}
		out[rel] = b
	}
	for _, rel := range edits {
		p := filepath.Join(root, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			return fail("%v", err)
		}
		comment := "registers the " + name + " server type"
		if module == "" {
			comment = "" // servers/all lists bare imports
		}
		nb, err := addImport(b, d.ImportPath, comment)
		if err != nil {
			return fail("%s: %v", p, err)
		}
		out[rel] = nb
	}
	for rel, b := range out {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fail("%v", err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".py") {
			mode = 0o755
		}
		if err := os.WriteFile(p, b, mode); err != nil {
			return fail("%v", err)
		}
	}
	fmt.Fprintf(stdout, "gymkit new: wrote environment %s in %s\n", name, filepath.Join(abs(root), dirOf))
	if module != "" {
		fmt.Fprintf(stdout, "next:\n  cd %s\n  go mod tidy\n  go test ./...\n  go build\n  ./%s serve --config %s\n", abs(root), d.Binary, d.ConfigPath)
	} else {
		fmt.Fprintf(stdout, "next:\n  go test ./servers/%s/\n  make build\n  ./bin/gymkit serve --config %s\n", name, d.ConfigPath)
	}
	return exitOK
}

func needsValue(flag string) bool {
	n := strings.TrimLeft(flag, "-")
	return !strings.Contains(n, "=") && (n == "module" || n == "replace" || n == "dir")
}

func render(name string, d newData) ([]byte, error) {
	t, err := template.ParseFS(templates, "templates/"+name)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return nil, err
	}
	if strings.HasSuffix(name, ".go.tmpl") {
		return format.Source(buf.Bytes())
	}
	return buf.Bytes(), nil
}

// addImport adds a blank import of imp, with a comment, to the last import
// block of a Go file and gofmts it.
func addImport(src []byte, imp, comment string) ([]byte, error) {
	if bytes.Contains(src, []byte(`"`+imp+`"`)) {
		return src, nil
	}
	s := string(src)
	i := strings.Index(s, "import (")
	if i < 0 {
		return nil, errors.New("no import block")
	}
	j := strings.Index(s[i:], "\n)")
	if j < 0 {
		return nil, errors.New("unterminated import block")
	}
	j += i
	line := "\n\t_ \"" + imp + "\""
	if comment != "" {
		line += " // " + comment
	}
	s = s[:j] + line + s[j:]
	return format.Source([]byte(s))
}

func modulePath(gomod string) string {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}

func camel(name string) string {
	var b strings.Builder
	for _, p := range strings.Split(name, "_") {
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// goVersion is the go directive of a new module: this toolchain's version
// (go1.26.8 -> 1.26.8), at least gymkit's own 1.26.0.
func goVersion() string {
	v := strings.TrimPrefix(runtime.Version(), "go")
	if !regexp.MustCompile(`^1\.\d+(\.\d+)?$`).MatchString(v) {
		return "1.26.0"
	}
	return v
}
