package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/framework/host"
	"go.yaml.in/yaml/v3"
)

// gymkit check --nemo: what NeMo Gym's launcher (gym env start) would do with
// a configuration, found out before anything starts. It follows the
// launcher's rules as NeMo's nemo_gym/__init__.py (component_search_roots,
// _resolve_under_cwd_or_install) and nemo_gym/cli/env.py (_resolve_server_dir,
// RunHelper.start) state them, and ../shared/data/nemo-launcher/ records
// them: docs/nemo.md explains them to a user.

// The kinds of finding of check --nemo, as printed.
const (
	findShadowed = "shadowed"  // a gymkit server whose folder would be another server's (NeMo's, of the same name)
	findNotFound = "not-found" // a folder no root holds with a marker file
	findLayout   = "layout"    // the folder lacks the entrypoint, has both marker files; no entrypoint key
	findSetup    = "setup"     // the setup step would run uv, which is not on PATH
	findPath     = "path"      // a path key of a gymkit server that will not resolve under its folder
	findPort     = "port"      // two servers on one port, a disallowed port, the head server's, one in use
	findConfig   = "config"    // a problem gymkit serve --nemo would refuse the instance for
	findBinary   = "binary"    // GYMKIT_BIN, which every gymkit app.py runs, does not register the server type
)

// launcherPython finds NeMo's install root: the folder above the nemo_gym
// package that python3 imports (NeMo's PARENT_DIR), without running the
// package's __init__. The working directory is taken off sys.path first
// (python3 -c puts it there; the launcher, a console script, has its own
// folder there instead), so that a nemo_gym.py where check --nemo runs is not
// taken for NeMo's; PYTHONSAFEPATH=1 (Python 3.11+) does the same at start.
const launcherPython = `import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
import importlib.util, os
s = importlib.util.find_spec("nemo_gym")
print(os.path.dirname(os.path.dirname(os.path.abspath(s.origin))) if s and s.origin else "")
`

// The bounds of the python3 look-up of NeMo's install root.
var (
	nemoProbeTimeout = 20 * time.Second // python3 answers, or is killed with its process group
	nemoProbeDelay   = time.Second      // once it exited, how long its stdout may stay open (a child holding it)
)

// nemoProbeMax is the most check --nemo reads of python3's stdout and
// stderr: a path, or an error's last line.
const nemoProbeMax = 4 << 10

// markers are the files that make a folder a server folder for the launcher.
var markers = []string{"requirements.txt", "pyproject.toml"}

// nemoRoot is one root the launcher looks under.
type nemoRoot struct {
	dir   string // as the launcher joins it (an extra root may be relative to the working directory)
	abs   string // dir made absolute against the working directory, cleaned
	label string // where it comes from: --search-dir, NEMO_GYM_EXTRA_ROOTS, ...
}

// nemoBlock is one server the launcher would start (a block with an entrypoint).
type nemoBlock struct {
	name, kind, impl string // <name>: <kind>: <impl>: {...}
	block            map[string]any
	// gymkit: a gymkit resources server. The launcher's folder for it runs
	// gymkit's app.py; or, where it would not (shadowed) or there is none,
	// its type is registered in this binary or some root holds a gymkit
	// folder of that name.
	gymkit     bool
	registered bool       // its type is registered in this binary
	app        *gymkitApp // what the folder's gymkit app.py says (nil: not gymkit's, or an app.py without it)
	folder     string     // the folder the launcher would cd into (absolute)
	root       int        // index of the root it is found under; -1: not found
	shadowed   bool       // gymkit, found, and its entrypoint exists but is not gymkit's app.py
}

// rel is the folder the launcher looks for under each root: <kind>/<impl>.
func (b nemoBlock) rel() string { return filepath.Join(b.kind, b.impl) }

// entrypoint is the file name of b's entrypoint, relative to its folder
// (app.py when the block has none).
func (b nemoBlock) entrypoint() string {
	if ep, _ := b.block["entrypoint"].(string); ep != "" {
		return ep
	}
	return "app.py"
}

// gymkitApp is what the GYMKIT_APP line of a gymkit app.py says: the
// module root it builds in (absolute, from the file it really is, links
// resolved, as app.py finds it), the binary's name (bin/<binary>) and the
// package go build builds.
type gymkitApp struct {
	root, binary, pkg string
}

// gymkitAppLine is the line of the app.py template that marks gymkit's
// app.py (cli/templates/app.py.tmpl).
var gymkitAppLine = regexp.MustCompile(`(?m)^GYMKIT_APP = \("([^"]*)", "([^"]*)", "([^"]*)"\)$`)

// readGymkitApp reports whether the file at path is a gymkit app.py, and
// what its GYMKIT_APP line says (nil for an app.py written before that
// line, which execs the binary with "serve", "--nemo").
func readGymkitApp(path string) (app *gymkitApp, ok bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	if m := gymkitAppLine.FindSubmatch(src); m != nil {
		dir := filepath.Dir(path)
		if real, err := filepath.EvalSymlinks(path); err == nil {
			dir = filepath.Dir(real)
		}
		return &gymkitApp{root: filepath.Join(dir, string(m[1])), binary: string(m[2]), pkg: string(m[3])}, true
	}
	return nil, strings.Contains(string(src), `"serve", "--nemo"`)
}

// key is the dotted key of b's block: <name>.<kind>.<impl>.
func (b nemoBlock) key() string { return b.name + "." + b.kind + "." + b.impl }

// nemoFinding is one thing gym env start would not do as the configuration means.
type nemoFinding struct {
	kind, subject, message string
}

// nemoCheck is one run of check --nemo: the launcher's roots as found, and
// what it has to say.
type nemoCheck struct {
	cwd      string // the launcher's working directory: this process's
	roots    []nemoRoot
	nemo     int      // index of NeMo's install root in roots; -1 when unknown
	editable bool     // NeMo's install root holds pyproject.toml (an editable checkout)
	notes    []string // said on stderr, not findings
	findings []nemoFinding
	typesOf  map[string]typesAnswer // the server types of the gymkit binaries run, by path
}

func (c *nemoCheck) find(kind, subject, format string, args ...any) {
	c.findings = append(c.findings, nemoFinding{kind, subject, fmt.Sprintf(format, args...)})
}

// hasNemoFlag reports whether args (before "--") hold --nemo.
func hasNemoFlag(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--nemo", "-nemo", "--nemo=true", "-nemo=true":
			return true
		}
	}
	return false
}

// nemoArgs are check --nemo's arguments: gym env start's, unchanged.
type nemoArgs struct {
	commonFlags
	searchDirs []string
	overrides  []string
}

func parseNemoArgs(args []string) (nemoArgs, error) {
	a := nemoArgs{commonFlags: commonFlags{logFormat: "text", logLevel: slog.LevelError}}
	valued := map[string]bool{"c": true, "config": true, "search-dir": true, "log-format": true, "log-level": true}
	var rest []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") && !strings.Contains(arg, "=") && !strings.HasPrefix(arg, "~") {
			a.files = append(a.files, arg) // CONFIG, as gym env start --config CONFIG
			continue
		}
		rest = append(rest, arg)
		if name := strings.TrimLeft(arg, "-"); strings.HasPrefix(arg, "-") && valued[name] && i+1 < len(args) {
			i++
			rest = append(rest, args[i])
		}
	}
	s := argScanner{
		known: func(name string) bool {
			switch name {
			case "c", "config", "search-dir", "nemo", "log-format", "log-level":
				return true
			}
			return false
		},
		bools: map[string]bool{"nemo": true},
		usage: "config files are given as CONFIG or --config CONFIG, overrides have the form key=value",
		set: func(flag, name, value string) error {
			if ok, err := a.commonFlags.set(flag, name, value); ok {
				return err
			}
			switch name {
			case "search-dir":
				if value == "" {
					return fmt.Errorf("flag %s needs a folder", flag)
				}
				a.searchDirs = append(a.searchDirs, value)
			case "nemo":
				if value != "true" {
					return fmt.Errorf("flag %s takes no value", flag)
				}
			}
			return nil
		},
	}
	var err error
	a.overrides, err = s.scan(rest)
	if err == nil && len(a.files) == 0 {
		err = errors.New("a launcher config is required: CONFIG or --config CONFIG, as for gym env start")
	}
	return a, err
}

func runCheckNemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseNemoArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, checkUsage)
		return exitOK
	}
	if err != nil {
		return usageFailure(stderr, "check", checkUsage, err)
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "gymkit check --nemo: "+format+"\n", args...)
		return exitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail("working directory: %v", err)
	}
	c := &nemoCheck{cwd: cwd, nemo: -1}
	c.searchRoots(ctx, a.searchDirs, os.Getenv("NEMO_GYM_EXTRA_ROOTS"))

	// The config files, looked up under the roots as the launcher looks up --config.
	files := make([]string, len(a.files))
	for i, f := range a.files {
		p, root := c.lookup(f, exists)
		if root < 0 {
			var looked []string
			for _, r := range c.roots {
				looked = append(looked, filepath.Join(r.abs, f))
			}
			if filepath.IsAbs(f) {
				looked = []string{f}
			}
			return fail("config %s is not found; the launcher looks in:\n\t%s", f, strings.Join(looked, "\n\t"))
		}
		files[i] = p
	}
	log := newLogger(stderr, a.logFormat, a.logLevel)
	cfg, err := config.Load(config.LoadOptions{Files: files, Overrides: a.overrides, WorkDir: cwd, Logger: log})
	var loadProblems config.Problems
	if err != nil && (cfg == nil || !errors.As(err, &loadProblems)) {
		fmt.Fprintf(stderr, "gymkit check --nemo: %v\n", err)
		return exitUsage
	}
	tree, resolveErr := cfg.Resolved()
	var unresolved config.Problems
	errors.As(resolveErr, &unresolved)

	blocks := c.blocks(tree)
	// The gymkit instances: resources servers of a registered type, with
	// their block resolved or not.
	gymkit := map[string]bool{}
	for _, ci := range cfg.Instances() {
		if _, err := host.Lookup(ci.ServerType); err == nil {
			gymkit[ci.Name] = true
		}
	}
	for _, p := range unresolved {
		top, _, _ := strings.Cut(p.Key, ".")
		if p.ExceedsBound() {
			loadProblems = append(loadProblems, p) // unresolvable anywhere: a finding
			continue
		}
		if _, ok := tree[top]; !ok && !gymkit[top] && !slices.Contains(gymkitSettings, top) {
			c.notes = append(c.notes, fmt.Sprintf("%s is not checked, its values cannot be resolved here: %v", top, p))
		}
	}
	c.configFindings(gymkit, loadProblems) // (Load resolves every gymkit instance and the settings it reads)
	pathKeys := c.decodeFindings(cfg)

	fmt.Fprintf(stdout, "gym env start in %s, as gymkit check --nemo sees it\n", cwd)
	fmt.Fprintln(stdout, "roots (the launcher takes <type>/<name> from the first that holds it with requirements.txt or pyproject.toml):")
	for i, r := range c.roots {
		line := fmt.Sprintf("  %d. %s", i+1, r.abs)
		if r.dir != r.abs {
			line += " (" + r.dir + ")"
		}
		fmt.Fprintf(stdout, "%s: %s\n", line, r.label)
	}
	for i, f := range a.files {
		fmt.Fprintf(stdout, "config %s: %s\n", f, files[i])
	}
	fmt.Fprintln(stdout, "servers:")
	for _, b := range blocks {
		what := "Python"
		if b.gymkit {
			what = "gymkit"
		}
		where := fmt.Sprintf("%s (root %d)", b.folder, b.root+1)
		if b.root < 0 {
			where = "not found (the launcher would use " + b.folder + ")"
		}
		fmt.Fprintf(stdout, "  %s: %s, %s: %s\n", b.name, b.rel(), what, where)
	}

	for _, b := range blocks {
		c.folderFindings(b)
	}
	c.setupFindings(blocks, tree)
	c.binaryFindings(ctx, blocks, tree)
	for _, b := range blocks {
		if b.gymkit && b.root >= 0 && !b.shadowed {
			c.pathFindings(b, pathKeys[b.name], tree)
		}
	}
	c.portFindings(blocks, tree)
	c.dropRepeatedPorts()

	for _, n := range c.notes {
		fmt.Fprintf(stderr, "gymkit check --nemo: note: %s\n", n)
	}
	if len(c.findings) == 0 {
		fmt.Fprintln(stdout, "gymkit check --nemo: no findings")
		return exitOK
	}
	fmt.Fprintf(stderr, "gymkit check --nemo: %s; gym env start would not run this configuration as written:\n", plural(len(c.findings), "finding"))
	for _, f := range c.findings {
		fmt.Fprintf(stderr, "\t%s: %s: %s\n", f.kind, f.subject, f.message)
	}
	return exitError
}

// searchRoots sets c.roots as the launcher orders them: the --search-dir
// folders (prepended to NEMO_GYM_EXTRA_ROOTS), the entries of
// NEMO_GYM_EXTRA_ROOTS, the working directory, NeMo's install root; a root
// that resolves (links followed) to one already listed is dropped.
func (c *nemoCheck) searchRoots(ctx context.Context, searchDirs []string, extra string) {
	var cands []nemoRoot
	for _, d := range searchDirs {
		cands = append(cands, nemoRoot{dir: d, label: "--search-dir (NEMO_GYM_EXTRA_ROOTS)"})
	}
	for d := range strings.SplitSeq(extra, string(os.PathListSeparator)) {
		if d != "" {
			cands = append(cands, nemoRoot{dir: d, label: "NEMO_GYM_EXTRA_ROOTS"})
		}
	}
	cands = append(cands, nemoRoot{dir: c.cwd, label: "the working directory"})
	const installLabel = "NeMo's install root (python3's nemo_gym)"
	if install, err := nemoInstallRoot(ctx); err != nil {
		c.notes = append(c.notes, "NeMo's install root is unknown ("+err.Error()+"): NeMo's own servers are not looked up, so neither a name they shadow nor a Python server that is not found is reported; run this where gym runs (its virtualenv active)")
	} else {
		cands = append(cands, nemoRoot{dir: install, label: installLabel})
		c.editable = exists(filepath.Join(install, "pyproject.toml"))
	}
	seen := map[string]int{}
	for _, r := range cands {
		r.abs = r.dir
		if !filepath.IsAbs(r.abs) {
			r.abs = filepath.Join(c.cwd, r.abs)
		}
		r.abs = filepath.Clean(r.abs)
		id := r.abs
		if real, err := filepath.EvalSymlinks(r.abs); err == nil {
			id = real
		}
		i, dup := seen[id]
		if !dup {
			i = len(c.roots)
			seen[id] = i
			c.roots = append(c.roots, r)
		}
		if r.label == installLabel {
			c.nemo = i // (the working directory, when it is NeMo's editable checkout)
		}
	}
}

// nemoInstallRoot is NeMo's install root as python3 on PATH finds it. The
// look-up is bounded: python3 runs in a process group of its own, killed
// whole after nemoProbeTimeout or once it wrote more than nemoProbeMax bytes
// on stdout; its stdout left open by a child after it exited is closed
// nemoProbeDelay later.
func nemoInstallRoot(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, nemoProbeTimeout, errProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", launcherPython)
	cmd.Env = append(os.Environ(), "PYTHONSAFEPATH=1")
	cmd.WaitDelay = nemoProbeDelay
	ownProcessGroup(cmd)
	stdout := &cappedBuffer{max: nemoProbeMax, full: func() { cancel() }}
	stderr := &cappedBuffer{max: nemoProbeMax}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	killProcessGroup(cmd) // what python3 left running
	switch {
	case stdout.over:
		return "", fmt.Errorf("python3 wrote more than %d bytes where a path was expected", nemoProbeMax)
	case errors.Is(context.Cause(ctx), errProbeTimeout):
		return "", fmt.Errorf("python3 did not answer within %v", nemoProbeTimeout)
	case err != nil && !(errors.Is(err, exec.ErrWaitDelay) && stdout.Len() > 0):
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New("python3 cannot look up nemo_gym: " + msg)
	}
	root := strings.TrimSpace(stdout.String())
	if root == "" {
		return "", errors.New("python3 has no nemo_gym package")
	}
	return root, nil
}

// errProbeTimeout is the cause of the probe's context at its timeout.
var errProbeTimeout = errors.New("python3 timed out")

// cappedBuffer keeps the first max bytes written to it; a write beyond
// them sets over, calls full (once) and fails, which ends the copy from the
// process.
type cappedBuffer struct {
	strings.Builder
	max  int
	over bool
	full func()
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.over {
		return 0, errors.New("more than the bytes wanted")
	}
	if b.Len()+len(p) > b.max {
		b.WriteString(string(p[:b.max-b.Len()]))
		b.over = true
		if b.full != nil {
			b.full()
		}
		return 0, errors.New("more than the bytes wanted")
	}
	return b.Builder.Write(p)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isServerFolder(p string) bool {
	return slices.ContainsFunc(markers, func(m string) bool { return exists(filepath.Join(p, m)) })
}

// lookup is the launcher's rule for a relative path: the first root under
// which valid holds, else the path under the first root (root -1). An
// absolute path is itself (root 0 when valid, -1 when not).
func (c *nemoCheck) lookup(rel string, valid func(string) bool) (string, int) {
	if filepath.IsAbs(rel) {
		if valid(rel) {
			return filepath.Clean(rel), 0
		}
		return filepath.Clean(rel), -1
	}
	for i, r := range c.roots {
		if p := filepath.Join(r.abs, rel); valid(p) {
			return p, i
		}
	}
	return filepath.Join(c.roots[0].abs, rel), -1
}

// blocks lists the servers the launcher would start, by top-level name: a
// top-level mapping with one server kind holding one server whose block
// has an entrypoint (a gymkit server without one is listed too, to be
// reported). A resources server is gymkit's when the folder the launcher
// would take runs gymkit's app.py, whatever this binary registers.
func (c *nemoCheck) blocks(tree map[string]any) []nemoBlock {
	var out []nemoBlock
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		top, ok := tree[name].(map[string]any)
		if !ok || len(top) != 1 {
			continue
		}
		for kind, v := range top {
			servers, ok := v.(map[string]any)
			if !ok || len(servers) != 1 {
				continue
			}
			for impl, v := range servers {
				block, ok := v.(map[string]any)
				if !ok {
					continue
				}
				b := nemoBlock{name: name, kind: kind, impl: impl, block: block}
				if kind == "resources_servers" {
					_, err := host.Lookup(impl)
					b.registered = err == nil
				}
				if _, ok := block["entrypoint"]; !ok && !b.registered {
					continue
				}
				b.folder, b.root = c.lookup(b.rel(), isServerFolder)
				if kind == "resources_servers" {
					ep := filepath.Join(b.folder, b.entrypoint())
					app, isGymkit := readGymkitApp(ep)
					switch {
					case b.root >= 0 && isGymkit:
						b.gymkit, b.app = true, app
					default:
						_, elsewhere := c.gymkitFolder(b)
						_, servers := c.gymkitServersFolder(b)
						b.gymkit = b.registered || elsewhere >= 0 || servers >= 0
						b.shadowed = b.gymkit && b.root >= 0 && exists(ep)
					}
				}
				out = append(out, b)
			}
		}
	}
	return out
}

// gymkitFolder is the first root's <kind>/<impl> whose entrypoint is
// gymkit's app.py, marker file or not, and the root's index (-1: none).
func (c *nemoCheck) gymkitFolder(b nemoBlock) (string, int) {
	for i, r := range c.roots {
		p := filepath.Join(r.abs, b.rel())
		if _, ok := readGymkitApp(filepath.Join(p, b.entrypoint())); ok {
			return p, i
		}
	}
	return "", -1
}

// gymkitServersFolder is the first root's servers/<impl> (where gymkit new
// writes an environment) whose app.py is gymkit's, and the root's index
// (-1: none).
func (c *nemoCheck) gymkitServersFolder(b nemoBlock) (string, int) {
	for i, r := range c.roots {
		p := filepath.Join(r.abs, "servers", b.impl)
		if _, ok := readGymkitApp(filepath.Join(p, "app.py")); ok {
			return p, i
		}
	}
	return "", -1
}

// folderFindings: shadowed, not-found and layout.
func (c *nemoCheck) folderFindings(b nemoBlock) {
	switch {
	case b.shadowed:
		whose := "a server that is not gymkit's (its entrypoint is not gymkit's app.py)"
		if b.root == c.nemo {
			whose = "NeMo's own Python server"
		}
		c.find(findShadowed, b.name, "gym env start would run %s %s, not gymkit's %s: %s", whose, b.folder, b.impl, c.unshadow(b))
		return
	case b.root < 0 && (b.gymkit || c.nemo >= 0):
		what := "which does not exist: the launch fails"
		if exists(b.folder) {
			what = "whose setup step refuses a folder without requirements.txt or pyproject.toml, unless skip_venv_if_present: true finds its .venv; add a requirements.txt"
		}
		c.find(findNotFound, b.name, "no root holds %s with requirements.txt or pyproject.toml (looked in %s); gym env start would fall back to %s, %s",
			b.rel(), c.rootList(), b.folder, what)
		return
	case b.root < 0:
		return
	}
	ep, hasEP := b.block["entrypoint"].(string)
	switch {
	case !hasEP:
		c.find(findLayout, b.key(), "has no entrypoint: gym env start does not start it (entrypoint: app.py)")
	case filepath.IsAbs(ep):
		c.find(findLayout, b.key()+".entrypoint", "%s is absolute: the launcher refuses it (entrypoint: app.py, relative to the server folder)", ep)
	case !exists(filepath.Join(b.folder, ep)):
		c.find(findLayout, b.key()+".entrypoint", "%s does not exist: `python %s` in %s would fail", filepath.Join(b.folder, ep), ep, b.folder)
	}
	if exists(filepath.Join(b.folder, "requirements.txt")) && exists(filepath.Join(b.folder, "pyproject.toml")) {
		c.find(findLayout, b.name, "%s holds both requirements.txt and pyproject.toml: the launcher refuses such a folder when it sets up its .venv; keep one (a gymkit server: requirements.txt)", b.folder)
	}
}

// unshadow says how to make the launcher take gymkit's folder for b, a
// shadowed server: from the gymkit folder some root holds, else from
// gymkit new's servers/<impl> some root holds, else in general.
func (c *nemoCheck) unshadow(b nemoBlock) string {
	if dir, i := c.gymkitFolder(b); i >= 0 {
		if !isServerFolder(dir) {
			return fmt.Sprintf("%s is gymkit's but holds neither requirements.txt nor pyproject.toml, so the launcher passes it by; add requirements.txt to it (gymkit new writes one, a comment only)", dir)
		}
		return fmt.Sprintf("%s is gymkit's, but its root (%d. %s) comes after %d. %s; name it first: gym env start --search-dir %s (or NEMO_GYM_EXTRA_ROOTS=%s)",
			dir, i+1, c.roots[i].abs, b.root+1, c.roots[b.root].abs, c.roots[i].abs, c.roots[i].abs)
	}
	if dir, i := c.gymkitServersFolder(b); i >= 0 {
		link := filepath.Join(c.roots[i].abs, b.rel())
		return fmt.Sprintf("%s is gymkit's, but no %s leads to it; make %s a link to ../servers/%s holding requirements.txt, as gymkit new writes it", dir, b.rel(), link, b.impl)
	}
	msg := fmt.Sprintf("no root holds gymkit's %s (looked in %s); run gym env start in the folder that holds your resources_servers/%s "+
		"(the root of the module gymkit new wrote it in, or gymkit's checkout for its shipped environments), or name that folder first with "+
		"--search-dir DIR or NEMO_GYM_EXTRA_ROOTS=DIR", b.rel(), c.rootList(), b.impl)
	if b.root == c.nemo {
		msg += ", or give your environment a name NeMo's servers do not use"
	}
	return msg
}

func (c *nemoCheck) rootList() string {
	var l []string
	for _, r := range c.roots {
		l = append(l, r.abs)
	}
	return strings.Join(l, ", ")
}

// setupFindings: the setup step of every server that will run uv, when uv
// is not on PATH.
func (c *nemoCheck) setupFindings(blocks []nemoBlock, tree map[string]any) {
	if _, err := exec.LookPath("uv"); err == nil {
		return
	}
	skip, _ := tree["skip_venv_if_present"].(bool)
	for _, b := range blocks {
		if _, started := b.block["entrypoint"]; !started || b.root < 0 || b.shadowed {
			continue
		}
		venv := c.venv(b, tree)
		if skip && exists(filepath.Join(venv, "bin", "python")) && exists(filepath.Join(venv, "bin", "activate")) {
			continue
		}
		// gymkit's app.py needs Python's standard library only; NeMo's
		// Python servers need nemo-gym and their requirements.
		switch {
		case skip && b.gymkit:
			c.find(findSetup, b.name, "%s has no bin/python and bin/activate, so the setup step would run uv, which is not on PATH: create it (python3 -m venv --without-pip %s: gymkit's app.py needs Python's standard library only) or install uv", venv, venv)
		case skip:
			c.find(findSetup, b.name, "%s has no bin/python and bin/activate, so the setup step would run uv, which is not on PATH: install uv (the setup step installs the server's requirements with it), or create that .venv with them installed (a NeMo Python server needs nemo-gym and what %s lists)",
				venv, requirements(b.folder))
		case b.gymkit:
			c.find(findSetup, b.name, "the setup step would run uv (skip_venv_if_present is not true), which is not on PATH: install uv, or create %s (python3 -m venv --without-pip %s: gymkit's app.py needs Python's standard library only) and set skip_venv_if_present: true", venv, venv)
		default:
			c.find(findSetup, b.name, "the setup step would run uv (skip_venv_if_present is not true), which is not on PATH: install uv (the setup step installs the server's requirements with it), or create %s with them installed (a NeMo Python server needs nemo-gym and what %s lists) and set skip_venv_if_present: true",
				venv, requirements(b.folder))
		}
	}
}

// requirements is the marker file of a server folder that lists what its
// setup step installs: requirements.txt, else pyproject.toml.
func requirements(folder string) string {
	if p := filepath.Join(folder, "pyproject.toml"); exists(p) && !exists(filepath.Join(folder, "requirements.txt")) {
		return p
	}
	return filepath.Join(folder, "requirements.txt")
}

// venv is the .venv the launcher's setup step uses for b: <folder>/.venv,
// or <uv_venv_dir>/<kind>/<impl>/.venv when uv_venv_dir (default: NeMo's
// install root for an editable install, else the working directory) is not
// NeMo's install root.
func (c *nemoCheck) venv(b nemoBlock, tree map[string]any) string {
	dir, _ := tree["uv_venv_dir"].(string)
	nemo := ""
	if c.nemo >= 0 {
		nemo = c.roots[c.nemo].abs
	}
	switch {
	case dir != "":
	case c.editable:
		dir = nemo
	default:
		dir = c.cwd
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.cwd, dir)
	}
	if sameDir(dir, nemo) {
		return filepath.Join(b.folder, ".venv")
	}
	return filepath.Join(dir, b.kind, b.impl, ".venv")
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// binaryFindings checks each gymkit server the launcher would start
// through gymkit's app.py against the binary that app.py would run:
// GYMKIT_BIN when set (every app.py runs it then), which must register the
// server's type (a binary finding otherwise); else, for a type this binary
// does not register (an environment of another module), the bin/<binary>
// of the module its GYMKIT_APP line names, when built. The keys of a type
// registered here are checked in process (configFindings, decodeFindings,
// pathFindings); those of another type by that binary's own check, run on
// the block as the launcher resolves it in the server folder (config
// findings); a server no binary can check gets a note.
func (c *nemoCheck) binaryFindings(ctx context.Context, blocks []nemoBlock, tree map[string]any) {
	env := os.Getenv("GYMKIT_BIN")
	envBroken := false
	for _, b := range blocks {
		if _, started := b.block["entrypoint"]; !started || !b.gymkit || b.root < 0 || b.shadowed {
			continue
		}
		runner := ""
		if env != "" {
			runner = env
			if !filepath.IsAbs(runner) {
				runner = filepath.Join(b.folder, runner) // app.py runs in the server folder
			}
			types, err := c.types(ctx, runner)
			switch {
			case err != nil && !envBroken:
				envBroken = true
				c.find(findBinary, "GYMKIT_BIN", "GYMKIT_BIN=%s, which every gymkit app.py runs when it is set, %v: no gymkit server of this config would start", env, err)
				continue
			case err != nil:
				continue
			case !slices.Contains(types, b.impl):
				c.find(findBinary, b.name, "GYMKIT_BIN=%s does not register server type %s (%s): every gymkit app.py runs that binary when GYMKIT_BIN is set, so this server would exit 2 at its start; "+
					"unset GYMKIT_BIN (each app.py then runs its own module's binary), or set it to a binary whose main package blank-imports every gymkit environment of the config (docs/nemo.md)",
					env, b.impl, registeredList(types))
				continue
			}
		}
		if b.registered {
			continue // checked in process
		}
		build := ""
		if b.app != nil {
			build = fmt.Sprintf("cd %s && go build -o bin/%s %s", b.app.root, b.app.binary, b.app.pkg)
			if p := filepath.Join(b.app.root, "bin", b.app.binary); runner == "" && executable(p) {
				runner = p
			}
		}
		switch {
		case runner == "" && b.app == nil:
			c.notes = append(c.notes, fmt.Sprintf("%s's keys are not checked: its folder runs a gymkit app.py without a GYMKIT_APP line (from an older gymkit new), and server type %s is not registered in this binary; run the check --nemo of the binary that app.py runs", b.name, b.impl))
			continue
		case runner == "":
			c.notes = append(c.notes, fmt.Sprintf("%s's keys are not checked: server type %s is not registered in this binary, and %s, the binary its app.py runs, is not built; build it (%s) and run gymkit check --nemo again",
				b.name, b.impl, filepath.Join(b.app.root, "bin", b.app.binary), build))
			continue
		}
		if env == "" {
			types, err := c.types(ctx, runner)
			if err != nil || !slices.Contains(types, b.impl) {
				why := "does not register server type " + b.impl + " (a build older than its source? app.py builds it again before it starts)"
				if err != nil {
					why = err.Error()
				}
				c.notes = append(c.notes, fmt.Sprintf("%s's keys are not checked: server type %s is not registered in this binary, and %s, the binary its app.py runs, %s; build it (%s) and run gymkit check --nemo again",
					b.name, b.impl, runner, why, build))
				continue
			}
		}
		c.checkWith(ctx, runner, b, tree)
	}
}

// registeredList names the server types a binary registers, for a message.
func registeredList(types []string) string {
	if len(types) == 0 {
		return "it registers none"
	}
	return "it registers " + strings.Join(types, ", ")
}

// executable reports whether path is a regular file with an execute bit.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// types lists the server types the gymkit binary bin registers: this
// binary's own, or what `bin types` prints. The answers are kept by path.
func (c *nemoCheck) types(ctx context.Context, bin string) ([]string, error) {
	if c.typesOf == nil {
		c.typesOf = map[string]typesAnswer{}
	}
	if a, ok := c.typesOf[bin]; ok {
		return a.types, a.err
	}
	var a typesAnswer
	defer func() { c.typesOf[bin] = a }()
	if !executable(bin) {
		a.err = errors.New("is not an executable file")
		return nil, a.err
	}
	if self, err := os.Executable(); err == nil && sameBinary(self, bin) {
		a.types = host.Names()
		return a.types, nil
	}
	code, stdout, stderr, err := runBinary(ctx, bin, "", "types")
	if err == nil && code != 0 {
		err = fmt.Errorf("exit status %d: %s", code, lastLine(stderr))
	}
	if err != nil {
		a.err = fmt.Errorf("cannot list its server types (%s types: %v)", bin, err)
		return nil, a.err
	}
	for line := range strings.SplitSeq(stdout, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(line, " ") {
			a.types = append(a.types, line)
		}
	}
	return a.types, nil
}

// typesAnswer is what types found for one binary.
type typesAnswer struct {
	types []string
	err   error
}

// sameBinary reports whether the paths a and b name one existing file.
func sameBinary(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// checkWith runs `runner check --config FILE` in b's folder (the working
// directory the launcher gives the server, against which a relative path
// resolves), FILE holding b's block as the launcher config resolves it and
// the top-level settings gymkit reads, and reports each problem it prints
// as a config finding of b.
func (c *nemoCheck) checkWith(ctx context.Context, runner string, b nemoBlock, tree map[string]any) {
	block, ok := tree[b.name]
	if !ok {
		return // not resolved: noted already
	}
	doc := map[string]any{b.name: block}
	for _, k := range gymkitSettings {
		if v, ok := tree[k]; ok {
			doc[k] = v
		}
	}
	note := func(format string, args ...any) {
		c.notes = append(c.notes, fmt.Sprintf("%s's keys are not checked: "+format, append([]any{b.name}, args...)...))
	}
	src, err := yaml.Marshal(doc)
	if err != nil {
		note("%v", err)
		return
	}
	f, err := os.CreateTemp("", "gymkit-check-nemo-*.yaml")
	if err != nil {
		note("%v", err)
		return
	}
	defer os.Remove(f.Name())
	_, err = f.Write(src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		note("%v", err)
		return
	}
	code, _, stderr, err := runBinary(ctx, runner, b.folder, "check", "--config", f.Name())
	switch {
	case err != nil:
		note("%s check: %v", runner, err)
		return
	case code == 0:
		return
	}
	where := regexp.MustCompile(regexp.QuoteMeta(f.Name()) + `(:\d+)?: `)
	found := false
	for line := range strings.SplitSeq(stderr, "\n") {
		if !strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "\t\t") {
			continue
		}
		msg := where.ReplaceAllString(line[1:], "")
		c.find(findConfig, b.name, "%s (checked by %s check, in %s)", strings.ReplaceAll(msg, f.Name(), "the block"), runner, b.folder)
		found = true
	}
	if !found {
		note("%s check: exit status %d: %s", runner, code, lastLine(stderr))
	}
}

// runBinary runs bin with args in dir ("" for this process's), bounded as
// the python3 look-up is: 60 s, 64 KiB of stdout and of stderr, a process
// group of its own killed whole. It returns the exit status, or an error
// when bin could not run or was killed.
func runBinary(ctx context.Context, bin, dir string, args ...string) (code int, stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	ownProcessGroup(cmd)
	so := &cappedBuffer{max: 64 << 10, full: cancel}
	se := &cappedBuffer{max: 64 << 10, full: cancel}
	cmd.Stdout, cmd.Stderr = so, se
	err = cmd.Run()
	killProcessGroup(cmd)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return ee.ExitCode(), so.String(), se.String(), nil
	}
	if err != nil {
		return -1, so.String(), se.String(), err
	}
	return 0, so.String(), se.String(), nil
}

// gymkitSettings are the top-level keys serve --nemo reads besides its
// instance's block.
var gymkitSettings = []string{"default_host", "use_absolute_ip", "port_range_low", "port_range_high", "disallowed_ports", "head_server"}

// configFindings: the problems serve --nemo would refuse a gymkit instance
// for (in its block, or in a top-level setting gymkit reads); problems of
// other blocks are NeMo's business.
func (c *nemoCheck) configFindings(gymkit map[string]bool, problems config.Problems) {
	seen := map[string]bool{}
	for _, p := range problems {
		top, _, _ := strings.Cut(p.Key, ".")
		if !gymkit[top] && !slices.Contains(gymkitSettings, top) && !p.ExceedsBound() || seen[p.Error()] {
			continue
		}
		seen[p.Error()] = true
		c.find(findConfig, top, "%v", p)
	}
}

// decodeFindings decodes every gymkit instance with its server type's
// struct, as serve --nemo does, and returns each one's path keys; a
// problem is a config finding.
func (c *nemoCheck) decodeFindings(cfg *config.Config) map[string][]config.PathKey {
	out := map[string][]config.PathKey{}
	for _, ci := range cfg.Instances() {
		factory, err := host.Lookup(ci.ServerType)
		if err != nil {
			continue // not gymkit's
		}
		keys, err := ci.PathKeys(factory())
		var ps config.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				c.find(findConfig, ci.Name, "%v", p)
			}
		}
		out[ci.Name] = keys
	}
	return out
}

// pathFindings: every path key of a gymkit server whose value will not
// name an existing file or folder under the launcher, where a relative
// path is resolved against the server folder.
func (c *nemoCheck) pathFindings(b nemoBlock, keys []config.PathKey, tree map[string]any) {
	for _, k := range keys {
		if filepath.IsAbs(k.Value) {
			if !exists(k.Value) {
				c.find(findPath, k.Key, "%s does not exist", k.Value)
			}
			continue
		}
		under := filepath.Join(b.folder, k.Value)
		if exists(under) {
			continue
		}
		msg := fmt.Sprintf("%q is relative, so under the launcher it names %s (a relative path resolves against the server folder, the working directory NeMo gives each server), which does not exist", k.Value, under)
		var from string
		for _, name := range slices.Sorted(maps.Keys(tree)) {
			if s, ok := tree[name].(string); ok && s != "" && !filepath.IsAbs(s) && (k.Value == s || strings.HasPrefix(k.Value, strings.TrimSuffix(s, "/")+"/")) {
				from = name
				msg += fmt.Sprintf("; it comes from the top-level %s: %s, which the launcher does not make absolute", name, s)
				break
			}
		}
		switch here := filepath.Join(c.cwd, k.Value); {
		case exists(here) && from != "":
			msg += fmt.Sprintf("; %s exists: make %s absolute (++%s=%s)", here, from, from, filepath.Join(c.cwd, tree[from].(string)))
		case exists(here):
			msg += "; " + here + " exists: give that absolute path"
		default:
			msg += "; give an absolute path, or one relative to the server folder"
		}
		c.find(findPath, k.Key, "%s", msg)
	}
}

// portFindings: explicit ports shared by two servers, in disallowed_ports,
// equal to the head server's, or in use on this host now.
func (c *nemoCheck) portFindings(blocks []nemoBlock, tree map[string]any) {
	defaultHost, _ := tree["default_host"].(string)
	if defaultHost == "" {
		defaultHost = config.DefaultHost
	}
	headHost, headPort := defaultHost, config.DefaultHeadServerPort
	if hs, ok := tree["head_server"].(map[string]any); ok {
		if h, ok := hs["host"].(string); ok && h != "" {
			headHost = h
		}
		if p, ok := portOf(hs["port"]); ok {
			headPort = p
		}
	}
	disallowed := map[int]bool{}
	if l, ok := tree["disallowed_ports"].([]any); ok {
		for _, v := range l {
			if p, ok := portOf(v); ok {
				disallowed[p] = true
			}
		}
	}
	if inUse("tcp", headHost, headPort) {
		c.find(findPort, "head_server", "%s is in use on this host now: the launcher's head server cannot start (a launcher left from an earlier run? docs/nemo.md, Stopping)", net.JoinHostPort(headHost, strconv.Itoa(headPort)))
	}
	owner := map[int]string{}
	for _, b := range blocks {
		p, ok := portOf(b.block["port"])
		if !ok {
			continue
		}
		key := b.key() + ".port"
		host, _ := b.block["host"].(string)
		if host == "" {
			host = defaultHost
		}
		switch {
		case owner[p] != "":
			c.find(findPort, key, "%d is also the port of %s", p, owner[p])
			continue
		case p == headPort:
			c.find(findPort, key, "%d is the head server's port (head_server.port, default %d)", p, config.DefaultHeadServerPort)
		case disallowed[p]:
			c.find(findPort, key, "%d is in disallowed_ports", p)
		}
		owner[p] = b.name
		if p != headPort && inUse("tcp", host, p) {
			c.find(findPort, key, "%s is in use on this host now (a server left from an earlier launch? docs/nemo.md, Stopping)", net.JoinHostPort(host, strconv.Itoa(p)))
		}
	}
}

// dropRepeatedPorts leaves out the config findings about a key a port
// finding reports (the loader's "is also the address of instance" of two
// gymkit servers): each is printed once.
func (c *nemoCheck) dropRepeatedPorts() {
	var ports []string
	for _, f := range c.findings {
		if f.kind == findPort {
			ports = append(ports, f.subject+": ")
		}
	}
	c.findings = slices.DeleteFunc(c.findings, func(f nemoFinding) bool {
		return f.kind == findConfig && slices.ContainsFunc(ports, func(k string) bool { return strings.Contains(f.message, k) })
	})
}

// portOf reads a configured port: an integer (or integral string) in 1..65535.
func portOf(v any) (int, bool) {
	var p int
	switch x := v.(type) {
	case int:
		p = x
	case string:
		n, err := strconv.Atoi(x)
		if err != nil {
			return 0, false
		}
		p = n
	default:
		return 0, false
	}
	return p, p > 0 && p <= 65535
}

// inUse reports whether listening on host:port fails because the address is
// taken (the listener is closed again at once).
func inUse(network, host string, port int) bool {
	ln, err := net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
	if err == nil {
		_ = ln.Close()
		return false
	}
	return errors.Is(err, syscall.EADDRINUSE)
}
