package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// goCmd runs the go command in dir with the module proxy allowed to update
// go.mod and go.sum (GOFLAGS=-mod=mod).
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// Acceptance of gymkit new (docs/cli.md, "gymkit new"): a fresh module
// outside the repository from gymkit new --module, with a replace to this
// checkout: its generated tests pass as written, its binary (no cgo, only its
// own environments) builds, serves under NeMo's launcher environment through
// the generated app.py, and its own rollout subcommand replays a row over
// both doors with reward 1.0.
func TestNewModuleAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	t.Parallel()
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "myenvs")
	for _, args := range [][]string{
		{"new", "my_env", "--module", "example.com/myenvs", "--dir", root, "--replace", checkout},
		{"new", "my_dispatch", "--dispatcher", "--module", "example.com/myenvs", "--dir", root},
	} {
		if code, stdout, stderr := gymkitRun(t, args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	// Writing again refuses, writing nothing.
	if code, _, stderr := gymkitRun(t, "new", "my_env", "--module", "example.com/myenvs", "--dir", root); code != 2 || !strings.Contains(stderr, "exists: nothing was written") {
		t.Errorf("second new: exit %d, %s", code, stderr)
	}
	goCmd(t, root, "mod", "tidy")
	out := goCmd(t, root, "test", "./...")
	for _, pkg := range []string{"example.com/myenvs/servers/my_env", "example.com/myenvs/servers/my_dispatch"} {
		if !strings.Contains(out, "ok  \t"+pkg) {
			t.Errorf("go test: %s not ok:\n%s", pkg, out)
		}
	}
	bin := filepath.Join(root, "myenvs")
	goCmd(t, root, "build", "-o", bin, ".")
	deps := goCmd(t, root, "list", "-deps", ".")
	if strings.Contains(deps, "github.com/gymkit/gymkit/servers/") {
		t.Errorf("the user's binary carries gymkit's own environments:\n%s", deps)
	}
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = root
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, so.String(), se.String()
	}
	if code, so, _ := run("types"); code != 0 || so != "my_dispatch\nmy_env\n" {
		t.Errorf("types: exit %d, %q", code, so)
	}
	if code, so, _ := run("--version"); code != 0 || !strings.HasPrefix(so, "gymkit ") || !strings.Contains(so, "=> "+checkout) || !strings.Contains(so, "in example.com/myenvs") {
		t.Errorf("--version: exit %d, %q", code, so)
	}

	// NeMo's launcher: the whole merged config (with a Python server gymkit has
	// no type for) in NEMO_GYM_CONFIG_DICT, the instance in NEMO_GYM_CONFIG_PATH,
	// python app.py in the server's folder.
	port := closedPort(t)
	dict := fmt.Sprintf(`head_server: {host: 127.0.0.1, port: 11000}
policy_model_name: demo
python_server:
  resources_servers:
    some_python_env: {entrypoint: app.py, domain: other, host: 127.0.0.1, port: 1}
my_env_agent:
  responses_api_agents:
    simple_agent: {entrypoint: app.py, resources_server: {type: resources_servers, name: my_env}}
my_env:
  resources_servers:
    my_env:
      entrypoint: app.py
      domain: other
      expose_tools_over_mcp: true
      host: 127.0.0.1
      port: %d
      prefix: ''
`, port)
	python, err := exec.LookPath("python3")
	var serve *exec.Cmd
	if err == nil {
		serve = exec.Command(python, "app.py")
		serve.Dir = filepath.Join(root, "servers", "my_env")
	} else {
		serve = exec.Command(bin, "serve", "--nemo")
		serve.Dir = root
	}
	serve.Env = append(os.Environ(), "NEMO_GYM_CONFIG_DICT="+dict, "NEMO_GYM_CONFIG_PATH=my_env", "GYMKIT_BIN="+bin)
	lines := newLineWriter()
	var serr syncBuffer
	serve.Stdout, serve.Stderr = lines, &serr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	select {
	case line := <-lines.lines:
		if line != "my_env "+url+" mcp="+url+"/mcp" {
			t.Fatalf("ready line %q, want my_env at %s", line, url)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("no ready line; stderr:\n%s", serr.String())
	}

	rows := writeFile(t, t.TempDir(), "rows.jsonl",
		`{"responses_create_params":{"input":"say hi"},"expected_text":"hi","ground_truth":[{"name":"echo","arguments":{"text":"hi"}}]}`+"\n")
	for _, door := range []string{"http", "mcp"} {
		outFile := filepath.Join(t.TempDir(), "out.jsonl")
		code, so, se := run("rollout", "--url", url, "--input", rows, "--output", outFile, "--door", door,
			"--config", filepath.Join("servers", "my_env", "configs", "my_env.yaml"))
		if code != 0 || !strings.Contains(so, "\"mean/reward\": 1.0") ||
			!strings.Contains(so, "gymkit rollout: 1 rollout through the "+door+" door of my_env: 1 succeeded, 0 failed\n") {
			t.Errorf("rollout --door %s: exit %d\nstdout:\n%s\nstderr:\n%s", door, code, so, se)
		}
	}
	// The embedded instance of the user's binary, the dispatcher over MCP.
	outFile := filepath.Join(t.TempDir(), "out.jsonl")
	code, so, se := run("rollout", "--config", filepath.Join("servers", "my_dispatch", "configs", "my_dispatch.yaml"),
		"--input", rows, "--output", outFile, "--door", "mcp")
	if code != 0 || !strings.Contains(so, "1 succeeded, 0 failed") {
		t.Errorf("embedded rollout: exit %d\nstdout:\n%s\nstderr:\n%s", code, so, se)
	}
}

// gymkit new inside gymkit's tree: servers/NAME and its registration in
// servers/all (a stand-in root with gymkit's module path).
func TestNewInTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module github.com/gymkit/gymkit\n\ngo 1.26.0\n")
	if err := os.MkdirAll(filepath.Join(root, "servers", "all"), 0o755); err != nil {
		t.Fatal(err)
	}
	all := "// Package all registers.\npackage all\n\nimport (\n\t_ \"github.com/gymkit/gymkit/servers/example_mcp_weather\"\n)\n"
	writeFile(t, filepath.Join(root, "servers", "all"), "all.go", all)
	code, stdout, stderr := gymkitRun(t, "new", "--dispatcher", "tiny_env", "--dir", root)
	if code != 0 || !strings.Contains(stdout, "wrote environment tiny_env in "+filepath.Join(root, "servers", "tiny_env")) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(root, "servers", "all", "all.go"))
	if !strings.Contains(string(b), "\t_ \"github.com/gymkit/gymkit/servers/tiny_env\"\n)\n") {
		t.Errorf("all.go:\n%s", b)
	}
	for _, f := range []string{"tiny_env.go", "tiny_env_test.go", "configs/tiny_env.yaml", "README.md", "app.py", "requirements.txt"} {
		if _, err := os.Stat(filepath.Join(root, "servers", "tiny_env", f)); err != nil {
			t.Error(err)
		}
	}
	nemoLayout(t, root, "tiny_env")
	// A resources_servers/NAME already there (say, a copy of NeMo's) is
	// not replaced, and nothing is written.
	if err := os.MkdirAll(filepath.Join(root, "resources_servers", "taken_env"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := gymkitRun(t, "new", "taken_env", "--dir", root); code != 2 || !strings.Contains(stderr, filepath.Join(root, "resources_servers", "taken_env")+" exists: nothing was written") {
		t.Errorf("new over resources_servers/taken_env: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "servers", "taken_env")); err == nil {
		t.Error("a refused new wrote servers/taken_env")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"new", "Tiny"}, `NAME "Tiny" is not a snake_case server type`},
		{[]string{"new"}, "NAME is required"},
		{[]string{"new", "x", "--dir", t.TempDir()}, "is in no Go module (no go.mod there or in a parent) and not in gymkit's checkout; to write a module of your own, give --module PATH"},
		{[]string{"new", "x", "--replace", ".."}, "--replace needs --module PATH"},
	} {
		if code, _, stderr := gymkitRun(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	_ = context.Background
}

// gymkit new inside an existing module (a go.mod at DIR or a parent of it),
// with or without --module, adds servers/NAME to that module and its import
// to main.go; it writes no nested module. A --module naming another module
// path, or a --replace (the go.mod exists), is refused with exit 2.
func TestNewInExistingModule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/mine\n\ngo 1.26.0\n")
	sub := filepath.Join(root, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gymkitRun(t, "new", "a_env", "--dir", sub)
	if code != 0 || !strings.Contains(stdout, "wrote environment a_env in "+filepath.Join(root, "servers", "a_env")) ||
		!strings.Contains(stdout, "added to module example.com/mine ("+filepath.Join(root, "go.mod")+")") || strings.Contains(stderr, "warning") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = gymkitRun(t, "new", "b_env", "--module", "example.com/mine", "--dir", root)
	if code != 0 {
		t.Fatalf("second environment: exit %d\n%s%s", code, stdout, stderr)
	}
	main, _ := os.ReadFile(filepath.Join(root, "main.go"))
	for _, imp := range []string{"example.com/mine/servers/a_env", "example.com/mine/servers/b_env"} {
		if !strings.Contains(string(main), `_ "`+imp+`"`) {
			t.Errorf("main.go lacks %s:\n%s", imp, main)
		}
	}
	for _, env := range []string{"a_env", "b_env"} {
		nemoLayout(t, root, env)
		if b, err := os.ReadFile(filepath.Join(root, "servers", env, ".gitignore")); err != nil || !strings.Contains(string(b), "\n.venv/\n") {
			t.Errorf("servers/%s/.gitignore: %q, %v; want .venv/ ignored", env, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".gitignore")); err == nil {
		t.Error("new in an existing module wrote its .gitignore")
	}
	for _, nested := range []string{filepath.Join(sub, "go.mod"), filepath.Join(sub, "mine", "go.mod"), filepath.Join(root, "mine")} {
		if _, err := os.Stat(nested); err == nil {
			t.Errorf("%s was written", nested)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"new", "c_env", "--module", "example.com/other", "--dir", sub},
			"is inside module example.com/mine (" + filepath.Join(root, "go.mod") + "), not example.com/other: run without --module to add c_env to example.com/mine"},
		{[]string{"new", "c_env", "--module", "example.com/mine", "--dir", root, "--replace", ".."},
			"--replace applies to a new go.mod, and " + filepath.Join(root, "go.mod") + " exists: add the replace to it with\n  go mod edit -replace github.com/gymkit/gymkit="},
	} {
		if code, _, stderr := gymkitRun(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "servers", "c_env")); err == nil {
		t.Error("a refused new wrote servers/c_env")
	}
}

// The reported case: gymkit new --module M run from the root of module M
// (no --dir) adds to it instead of writing a nested ./<last element>/go.mod.
func TestNewModuleFromModuleRoot(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/myenvs\n\ngo 1.26.0\n")
	t.Chdir(root)
	code, stdout, stderr := gymkitRun(t, "new", "second_env", "--module", "example.com/myenvs")
	if code != 0 || !strings.Contains(stdout, "added to module example.com/myenvs") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "servers", "second_env", "second_env.go")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "myenvs")); err == nil {
		t.Error("a nested module ./myenvs was written")
	}
}

// --replace DIR must be a gymkit checkout (exit 2, nothing written); a new
// module without --replace is written with a warning naming the fix.
func TestNewReplace(t *testing.T) {
	t.Parallel()
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	writeFile(t, other, "go.mod", "module example.com/notgymkit\n")
	for _, tc := range []struct {
		replace, want string
	}{
		{filepath.Join(other, "missing"), "is not a directory (give the root of a local gymkit checkout"},
		{t.TempDir(), "has no go.mod, not gymkit's (module github.com/gymkit/gymkit)"},
		{other, "has a go.mod of module example.com/notgymkit, not gymkit's (module github.com/gymkit/gymkit)"},
		{filepath.Join(checkout, "cli"), "has no go.mod, not gymkit's"},
	} {
		root := filepath.Join(t.TempDir(), "myenvs")
		code, _, stderr := gymkitRun(t, "new", "my_env", "--module", "example.com/myenvs", "--dir", root, "--replace", tc.replace)
		if code != 2 || !strings.Contains(stderr, "gymkit new: --replace "+tc.replace+": ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("--replace %s: exit %d, %q; want %q", tc.replace, code, stderr, tc.want)
		}
		if _, err := os.Stat(root); err == nil {
			t.Errorf("--replace %s: %s was written", tc.replace, root)
		}
	}
	root := filepath.Join(t.TempDir(), "myenvs")
	code, stdout, stderr := gymkitRun(t, "new", "my_env", "--module", "example.com/myenvs", "--dir", root, "--replace", checkout)
	gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	if code != 0 || stderr != "" || !strings.Contains(string(gomod), "replace github.com/gymkit/gymkit => "+checkout+"\n") {
		t.Errorf("--replace %s: exit %d, %q\n%s", checkout, code, stderr, gomod)
	}
	// A relative DIR is resolved from the current folder and written
	// relative to the new module (the two can move together).
	relRoot := filepath.Join(t.TempDir(), "rel", "myenvs")
	code, _, stderr = gymkitRun(t, "new", "my_env", "--module", "example.com/myenvs", "--dir", relRoot, "--replace", "..")
	relGomod, _ := os.ReadFile(filepath.Join(relRoot, "go.mod"))
	wantRel, _ := filepath.Rel(relRoot, checkout)
	if code != 0 || stderr != "" || !strings.Contains(string(relGomod), "replace github.com/gymkit/gymkit => "+filepath.ToSlash(wantRel)+"\n") {
		t.Errorf("--replace ..: exit %d, %q; want => %s in\n%s", code, stderr, wantRel, relGomod)
	}
	// A new module ignores its build outputs (go build's and app.py's) and the
	// server folder's .venv; NeMo's launcher finds the server from its root.
	if b, err := os.ReadFile(filepath.Join(root, ".gitignore")); err != nil || !strings.Contains(string(b), "\n/myenvs\n/bin/\n") {
		t.Errorf(".gitignore: %q, %v; want /myenvs and /bin/", b, err)
	}
	nemoLayout(t, root, "my_env")
	// The generated README and config run the binary as the next-step hint does.
	serve := "./myenvs serve --config servers/my_env/configs/my_env.yaml\n"
	readme, _ := os.ReadFile(filepath.Join(root, "servers", "my_env", "README.md"))
	cfg, _ := os.ReadFile(filepath.Join(root, "servers", "my_env", "configs", "my_env.yaml"))
	if !strings.Contains(stdout, "\n  "+serve) || !strings.Contains(string(readme), "\n"+serve) || !strings.Contains(string(cfg), "#   "+serve) {
		t.Errorf("want %q in the hint, README and config:\n%s\n%s\n%s", serve, stdout, readme, cfg)
	}
	root = filepath.Join(t.TempDir(), "myenvs")
	code, _, stderr = gymkitRun(t, "new", "my_env", "--module", "example.com/myenvs", "--dir", root)
	if code != 0 || !strings.Contains(stderr, "gymkit new: warning: go.mod requires github.com/gymkit/gymkit ") ||
		!strings.Contains(stderr, "go mod edit -replace github.com/gymkit/gymkit=/path/to/gymkit (in "+root+")") ||
		!strings.Contains(stderr, "--replace /path/to/gymkit") {
		t.Errorf("without --replace: exit %d, %q", code, stderr)
	}
}

// nemoLayout checks the folder NeMo's launcher looks for, from the module
// root: resources_servers/NAME, a link to ../servers/NAME, holding app.py
// and requirements.txt (comment lines only) and no pyproject.toml.
func nemoLayout(t *testing.T, root, name string) {
	t.Helper()
	link := filepath.Join(root, "resources_servers", name)
	if target, err := os.Readlink(link); err != nil || target != filepath.Join("..", "servers", name) {
		t.Errorf("%s: link to %q (%v), want ../servers/%s", link, target, err, name)
	}
	for _, f := range []string{"app.py", "requirements.txt"} {
		if st, err := os.Stat(filepath.Join(link, f)); err != nil || st.Mode()&0o111 == 0 && f == "app.py" {
			t.Errorf("%s/%s: %v, %v", link, f, st, err)
		}
	}
	req, _ := os.ReadFile(filepath.Join(link, "requirements.txt"))
	for line := range strings.SplitSeq(strings.TrimSpace(string(req)), "\n") {
		if !strings.HasPrefix(line, "# ") {
			t.Errorf("%s/requirements.txt lists %q: it should hold comments only", link, line)
		}
	}
	if _, err := os.Stat(filepath.Join(link, "pyproject.toml")); err == nil {
		t.Errorf("%s has a pyproject.toml beside requirements.txt", link)
	}
}
