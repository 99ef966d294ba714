// Package launchertest gives tests what NeMo Gym's launcher (gym env start) handed each server
// process in the recorded launches of ../shared/data/nemo-launcher/captures (its README
// describes them): the NEMO_GYM_CONFIG_DICT of each way of starting, with the recording's
// placeholders mapped into a temporary tree laid out as the launcher's.
//
//	for _, c := range launchertest.Captures(t) {
//		tree := launchertest.NewTree(t)
//		dict := c.Dict(t, tree)                 // <CAPTURE_ROOT> is tree.Root
//		dir := tree.ServerFolder("workplace_assistant")
//		tree.Decoys(t, dict, dir)                // config_paths and env.yaml: invalid YAML
//		// config.Load(config.LoadOptions{Dict: dict, Instance: "workplace_assistant", WorkDir: dir})
//	}
package launchertest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Shipped maps the instance name of each environment gymkit ships to its server type, as the
// recorded configs (configs/five_envs.yaml, configs/four_shipped.yaml) name them.
var Shipped = map[string]string{
	"example_mcp_weather":                         "example_mcp_weather",
	"example_session_state_mgmt_resources_server": "example_session_state_mgmt",
	"math_advanced_calculations":                  "math_advanced_calculations",
	"workplace_assistant":                         "workplace_assistant",
}

// ShippedNames returns the keys of [Shipped], sorted.
func ShippedNames() []string {
	names := make([]string, 0, len(Shipped))
	for n := range Shipped {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// RepoRoot is the absolute path of the repository root (three folders above this file's).
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("launchertest: cannot locate the repository")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// LauncherDir is the absolute path of ../shared/data/nemo-launcher beside the repository.
func LauncherDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "..", "shared", "data", "nemo-launcher")
}

// Capture is one recorded launch: a folder of LauncherDir/captures.
type Capture struct {
	// Name is the folder's name, e.g. "way1_from_root".
	Name string
	// Dir is the folder's absolute path.
	Dir string
}

// Captures returns every recorded launch that holds a NEMO_GYM_CONFIG_DICT.yaml, by name; it
// fails the test when there is none (the shared data is missing).
func Captures(t testing.TB) []Capture {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(LauncherDir(t), "captures", "*", "NEMO_GYM_CONFIG_DICT.yaml"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("launchertest: no captures under %s (err %v)", LauncherDir(t), err)
	}
	var out []Capture
	for _, d := range dirs {
		dir := filepath.Dir(d)
		out = append(out, Capture{Name: filepath.Base(dir), Dir: dir})
	}
	slices.SortFunc(out, func(a, b Capture) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Tree is a temporary folder standing for the recording's <CAPTURE_ROOT>: the launcher ran in
// Root/root (ways 1 and 4) or Root/elsewhere (ways 2 and 3), and the server folders are
// Root/root/resources_servers/<server type>.
type Tree struct {
	// Root replaces <CAPTURE_ROOT>.
	Root string
	// NeMoGym replaces <NEMO_GYM> (NeMo Gym's checkout; nothing is written there).
	NeMoGym string
}

// NewTree makes a Tree in a fresh temporary folder of the test, with the root/,
// root/resources_servers/<type>/ of every shipped environment and elsewhere/ folders.
func NewTree(t testing.TB) Tree {
	t.Helper()
	tr := Tree{Root: t.TempDir()}
	tr.NeMoGym = filepath.Join(tr.Root, "nemo_gym")
	for _, typ := range Shipped {
		mkdir(t, tr.ServerFolder(typ))
	}
	mkdir(t, filepath.Join(tr.Root, "elsewhere"))
	return tr
}

// ServerFolder is the folder NeMo's launcher runs serverType's process in:
// Root/root/resources_servers/<serverType>.
func (tr Tree) ServerFolder(serverType string) string {
	return filepath.Join(tr.Root, "root", "resources_servers", serverType)
}

// Dict returns the capture's NEMO_GYM_CONFIG_DICT, byte for byte but for <CAPTURE_ROOT> and
// <NEMO_GYM>, which become tr.Root and tr.NeMoGym.
func (c Capture) Dict(t testing.TB, tr Tree) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, "NEMO_GYM_CONFIG_DICT.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "<CAPTURE_ROOT>", tr.Root)
	return []byte(strings.ReplaceAll(s, "<NEMO_GYM>", tr.NeMoGym))
}

// Block returns the server block (<instance>.<kind>.<type>) of instance in dict, parsed with
// yaml.v3 independently of gymkit's config package, and its kind and type.
func Block(t testing.TB, dict []byte, instance string) (kind, typ string, block map[string]any) {
	t.Helper()
	var all map[string]any
	if err := yaml.Unmarshal(dict, &all); err != nil {
		t.Fatal(err)
	}
	inst, _ := all[instance].(map[string]any)
	for kind, v := range inst {
		types, _ := v.(map[string]any)
		for typ, b := range types {
			block, _ := b.(map[string]any)
			return kind, typ, block
		}
	}
	t.Fatalf("launchertest: no server block %s in the dict", instance)
	return "", "", nil
}

// Addr returns the host and port the dict assigns to instance.
func Addr(t testing.TB, dict []byte, instance string) (string, int) {
	t.Helper()
	_, _, b := Block(t, dict, instance)
	host, _ := b["host"].(string)
	port, ok := b["port"].(int)
	if host == "" || !ok {
		t.Fatalf("launchertest: %s has no host and port in the dict: %v", instance, b)
	}
	return host, port
}

// ConfigPaths returns the dict's top-level config_paths, as the launcher wrote them.
func ConfigPaths(t testing.TB, dict []byte) []string {
	t.Helper()
	var top struct {
		ConfigPaths []string `yaml:"config_paths"`
	}
	if err := yaml.Unmarshal(dict, &top); err != nil {
		t.Fatal(err)
	}
	return top.ConfigPaths
}

// Decoy is what [Tree.Decoys] writes: text that is not YAML, so that reading it is a problem.
const Decoy = "{ this decoy must never be read: [\n"

// Decoys writes [Decoy] at every path of the dict's config_paths, a relative one resolved
// against workDir (the server folder, where NeMo's launcher starts the process), and as
// workDir/env.yaml; it returns the paths written. A configuration loaded from the dict that reads
// any of them has a problem.
func (tr Tree) Decoys(t testing.TB, dict []byte, workDir string) []string {
	t.Helper()
	paths := []string{filepath.Join(workDir, "env.yaml")}
	for _, p := range ConfigPaths(t, dict) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(workDir, p)
		}
		paths = append(paths, filepath.Clean(p))
	}
	for _, p := range paths {
		mkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(Decoy), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// FreePorts returns dict with every port of a server block (and the same number in
// disallowed_ports) replaced by a port that was free on 127.0.0.1 a moment ago, so that a test
// can bind the ports the dict assigns; the text is otherwise unchanged.
func FreePorts(t testing.TB, dict []byte) []byte {
	t.Helper()
	re := regexp.MustCompile(`(?m)^      port: (\d+)$`)
	out := string(dict)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		old := m[1]
		if seen[old] {
			continue
		}
		seen[old] = true
		port := freePort(t)
		out = regexp.MustCompile(`(?m)^(      port: |- )`+old+`$`).ReplaceAllString(out, "${1}"+strconv.Itoa(port))
	}
	return []byte(out)
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(fmt.Errorf("launchertest: %w", err))
	}
}
