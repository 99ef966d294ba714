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
a test, configs/NAME.yaml, a README, the app.py NeMo's launcher runs and the
requirements.txt it needs to take the folder, and the link resources_servers/NAME
to ../servers/NAME where the launcher looks (docs/nemo.md). What it writes
compiles, registers its server type, and its test passes as written.

Where it writes: the Go module you are in, found from DIR (default: the working
directory) up to the nearest go.mod.
  - In gymkit's own checkout: servers/NAME/, registered in servers/all/all.go.
  - In a module of your own (with or without --module; a --module naming another
    module path is refused): servers/NAME/ at the module's root, and main.go gets
    its import (main.go, the three-line binary, is written when there is none).
  - In no module: --module PATH writes a fresh module in DIR (default: the last
    element of PATH) with go.mod (requiring gymkit), main.go (a blank import of
    the environment and cli.Main) and servers/NAME/. gymkit is not on the module
    proxy yet: give --replace DIR (a local gymkit checkout), else it warns.

Flags:
      --dispatcher          a dispatcher (framework.Dispatch: POST /{tool}) with a
                            Tools hook minting its MCP tools, instead of a typed route
      --module PATH         the module path: of a new module (example.com/myenvs), or
                            the path of the module you are in (checked)
      --replace DIR         with a new --module: add "replace github.com/gymkit/gymkit => DIR"
                            to go.mod; DIR must hold gymkit's go.mod (a local checkout)
      --dir DIR             where to write (default: see above)
      --version             print gymkit's version and exit
  -h, --help                show this help

Exit status: 0 when written; 2 for a usage error, a wrong --module or --replace,
or when a file (or resources_servers/NAME) would be overwritten (nothing is
written then).
`

var snakeName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// newData fills the templates.
type newData struct {
	Name, Package, Type, ImportPath, Module, Binary, BinaryHint, Build string
	Run                                                                string // the binary as the README and the next-step hint run it from the root
	BinName, BuildPkg                                                  string // app.py: the binary's file name, and the package go build builds from the root
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

	d := baseData(name)
	d.Dispatcher = dispatcher
	files := map[string]string{} // path relative to root -> template
	var edits []string           // files that get the blank import (relative to root)
	// The module the user is in: the nearest go.mod at DIR (default: the
	// working directory) or a parent of it.
	start := dir
	if start == "" {
		start = "."
	}
	modRoot, modPath := enclosingModule(start)
	if replace != "" {
		if st, err := os.Stat(replace); err != nil || !st.IsDir() {
			return fail("--replace %s: %s is not a directory (give the root of a local gymkit checkout, the folder of its go.mod)", replace, abs(replace))
		}
		if got := modulePath(filepath.Join(replace, "go.mod")); got != buildinfo.Module {
			what := "has no go.mod"
			if got != "" {
				what = "has a go.mod of module " + got
			}
			return fail("--replace %s: %s %s, not gymkit's (module %s); give the root of a local gymkit checkout", replace, abs(replace), what, buildinfo.Module)
		}
	}
	root := dir
	inModule := false // adding to the existing module the user is in
	switch {
	case modPath == buildinfo.Module && (module == "" || module == buildinfo.Module):
		module = ""
		root = modRoot
	case modRoot != "":
		if module != "" && module != modPath {
			return fail("%s is inside module %s (%s), not %s: run without --module to add %s to %s, or give --dir outside that module to write a new module", abs(start), modPath, filepath.Join(modRoot, "go.mod"), module, name, modPath)
		}
		if modPath == "" {
			return fail("%s has no module line", filepath.Join(modRoot, "go.mod"))
		}
		if replace != "" {
			return fail("--replace applies to a new go.mod, and %s exists: add the replace to it with\n  go mod edit -replace %s=%s", filepath.Join(modRoot, "go.mod"), buildinfo.Module, abs(replace))
		}
		module, root, inModule = modPath, modRoot, true
	case module == "":
		return fail("%s is in no Go module (no go.mod there or in a parent) and not in gymkit's checkout; to write a module of your own, give --module PATH", abs(start))
	}
	if module == "" {
		d = checkoutData(d)
		edits = append(edits, filepath.Join("servers", "all", "all.go"))
	} else {
		if root == "" {
			root = path.Base(module)
		}
		d.Module, d.ImportPath = module, module+"/servers/"+name
		d.Binary = path.Base(module)
		d.BinName, d.BuildPkg = d.Binary, "."
		d.Run = "./" + d.Binary
		d.BinaryHint = "go build -o bin/" + d.Binary + " . in the module root"
		d.Build = "go build   # writes ./" + d.Binary
		d.RootName = "the module's root"
		if !inModule {
			files["go.mod"] = "go.mod.tmpl"
			files["main.go"] = "main.go.tmpl"
			files[".gitignore"] = "gitignore.tmpl"
		} else if _, err := os.Stat(filepath.Join(root, "main.go")); err == nil {
			edits = append(edits, "main.go")
		} else {
			files["main.go"] = "main.go.tmpl"
		}
		d.GoVersion = goVersion()
		d.GymkitVersion = buildinfo.Version()
		if !strings.HasPrefix(d.GymkitVersion, "v") || strings.Contains(d.GymkitVersion, "+") {
			d.GymkitVersion = "v0.0.0-00010101000000-000000000000" // a development build: the replace (or go get) chooses
		}
		if replace != "" {
			d.Replace = replacePath(replace, root)
		}
	}
	dirOf := filepath.Join("servers", name)
	files[filepath.Join(dirOf, name+".go")] = "server.go.tmpl"
	files[filepath.Join(dirOf, name+"_test.go")] = "server_test.go.tmpl"
	files[filepath.Join(dirOf, "configs", name+".yaml")] = "config.yaml.tmpl"
	files[filepath.Join(dirOf, "README.md")] = "README.md.tmpl"
	files[filepath.Join(dirOf, "app.py")] = "app.py.tmpl"
	files[filepath.Join(dirOf, "requirements.txt")] = "requirements.txt.tmpl"
	if module != "" {
		files[filepath.Join(dirOf, ".gitignore")] = "server.gitignore.tmpl"
	}
	// NeMo's launcher looks for resources_servers/NAME under its roots: a
	// link there to servers/NAME makes the module's root one of them.
	link := filepath.Join("resources_servers", name)
	linkTarget := filepath.Join("..", "servers", name)
	if _, err := os.Lstat(filepath.Join(root, link)); err == nil {
		return fail("%s exists: nothing was written", filepath.Join(root, link))
	}

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
	if err := os.MkdirAll(filepath.Join(root, "resources_servers"), 0o755); err != nil {
		return fail("%v", err)
	}
	if err := os.Symlink(linkTarget, filepath.Join(root, link)); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stdout, "gymkit new: wrote environment %s in %s (NeMo's launcher finds it as %s)\n", name, filepath.Join(abs(root), dirOf), link)
	if inModule {
		fmt.Fprintf(stdout, "gymkit new: added to module %s (%s)\n", module, filepath.Join(abs(root), "go.mod"))
	}
	if module != "" && !inModule && replace == "" {
		fmt.Fprintf(stderr, "gymkit new: warning: go.mod requires %s %s, which the module proxy does not serve yet, so go mod tidy and go build will fail;\n"+
			"  point it at a local gymkit checkout: go mod edit -replace %s=/path/to/gymkit (in %s),\n"+
			"  or write the module with --replace /path/to/gymkit\n", buildinfo.Module, d.GymkitVersion, buildinfo.Module, abs(root))
	}
	if module != "" {
		fmt.Fprintf(stdout, "next:\n  cd %s\n  go mod tidy\n  go test ./...\n  go build\n  %s serve --config %s\n", abs(root), d.Run, d.ConfigPath)
	} else {
		fmt.Fprintf(stdout, "next:\n  go test ./servers/%s/\n  make build\n  %s serve --config %s\n", name, d.Run, d.ConfigPath)
	}
	return exitOK
}

// baseData is what the templates of environment name share wherever it is
// written: its names and its paths from the module root.
func baseData(name string) newData {
	return newData{Name: name, Package: strings.ReplaceAll(name, "_", ""), Type: camel(name),
		PkgDir: "servers/" + name, ConfigPath: "servers/" + name + "/configs/" + name + ".yaml", RootFromServer: "../.."}
}

// checkoutData completes d for an environment of gymkit's own checkout: the
// gymkit binary (bin/gymkit, built from ./cmd/gymkit by make build) and the
// servers/all registration. The shipped environments' app.py and
// requirements.txt are these templates rendered with it (see
// TestShippedServersNemoLayout).
func checkoutData(d newData) newData {
	d.ImportPath = buildinfo.Module + "/servers/" + d.Name
	d.BinaryHint, d.Build, d.RootName = "make build, or go build -o bin/gymkit ./cmd/gymkit", "make build   # bin/gymkit; or: go build -o bin/gymkit ./cmd/gymkit", "the root of gymkit's checkout"
	d.Binary, d.BinName, d.BuildPkg = "./bin/gymkit", "gymkit", "./cmd/gymkit"
	d.Run = d.Binary
	return d
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

// enclosingModule is the root and module path of the nearest go.mod at dir
// or a parent of it ("" and "" when there is none). dir need not exist.
func enclosingModule(dir string) (root, module string) {
	p := abs(dir)
	for {
		if st, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && !st.IsDir() {
			return p, modulePath(filepath.Join(p, "go.mod"))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", ""
		}
		p = parent
	}
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

// replacePath is the go.mod form of --replace DIR for a module written in
// root: DIR is resolved from the current folder, as any path argument; an
// absolute DIR is written as given, a relative one relative to root
// ("../gymkit", "./gymkit"), so the module and the checkout can move
// together.
func replacePath(dir, root string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	rel, err := filepath.Rel(abs(root), abs(dir))
	if err != nil {
		return abs(dir)
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") && rel != ".." {
		rel = "./" + rel
	}
	return rel
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
