package repocheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedImports are the imports against the layers that are known and
// kept, "from -> to" (paths relative to the module), each with its reason;
// ARCHITECTURE.md lists them too. An entry that no longer happens fails
// TestLayers: remove it with the move that fixes it.
var allowedImports = map[string]string{}

// A layer is one row of ARCHITECTURE.md's table of layers.
type layer struct {
	rank     int
	side     bool     // imported only by its own layer and the top rank
	name     string   // the row's layer cell, for messages
	patterns []string // "x" (the package x) or "x/..." (x and below)
}

// match returns the length of the longest of l's patterns that matches
// the package path p (relative to the module), or -1.
func (l *layer) match(p string) int {
	best := -1
	for _, pat := range l.patterns {
		if dir, ok := strings.CutSuffix(pat, "/..."); ok {
			if (p == dir || strings.HasPrefix(p, dir+"/")) && len(dir) > best {
				best = len(dir)
			}
		} else if p == pat && len(pat) > best {
			best = len(pat)
		}
	}
	return best
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readLayers parses the first table of the section "## Layers" of
// ARCHITECTURE.md: its rank column ("4" or "4, side"), its layer column and
// the backticked patterns of its packages column.
func readLayers(t *testing.T, path string) []*layer {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*layer
	section, table := false, false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			if section && table {
				return out
			}
			section = line == "## Layers"
			continue
		case !section:
			continue
		case strings.HasPrefix(line, "| rank |"):
			table = true
			continue
		case !table:
			continue
		case !strings.HasPrefix(line, "|"):
			return out
		case strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			t.Fatalf("%s: a row of the layers table has %d cells: %s", path, len(cells), line)
		}
		rankCell := strings.TrimSpace(cells[0])
		num, side := strings.CutSuffix(rankCell, ", side")
		rank, err := strconv.Atoi(num)
		if err != nil {
			t.Fatalf("%s: rank %q of the layers table: want a number, or a number and \", side\"", path, rankCell)
		}
		l := &layer{rank: rank, side: side, name: strings.TrimSpace(cells[1])}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			l.patterns = append(l.patterns, m[1])
		}
		if len(l.patterns) == 0 {
			t.Fatalf("%s: layer %q names no package", path, l.name)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no table of layers under \"## Layers\"", path)
	}
	return out
}

// layerOf returns the layer whose longest pattern matches p, or nil.
func layerOf(layers []*layer, p string) *layer {
	var best *layer
	bestLen := -1
	for _, l := range layers {
		if n := l.match(p); n > bestLen {
			best, bestLen = l, n
		}
	}
	return best
}

// mayImport reports whether a package of layer from may import one of
// layer to: a lower or equal rank, and a side layer only from itself or
// the top rank.
func mayImport(from, to *layer, top int) bool {
	if to.rank > from.rank {
		return false
	}
	return !to.side || to == from || from.rank == top
}

// modulePath reads the module line of root's go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

// TestLayers: no non-test file of the module imports a package against
// ARCHITECTURE.md's layers, every package has a layer, and every entry of
// allowedImports still happens.
func TestLayers(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	layers := readLayers(t, filepath.Join(root, "ARCHITECTURE.md"))
	top := 0
	for _, l := range layers {
		top = max(top, l.rank)
	}
	mod := modulePath(t, root)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	rel := func(p string) (string, bool) { return strings.CutPrefix(p, mod+"/") }
	seen := map[string]bool{}
	packages := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		p, ok := rel(fields[0])
		if !ok {
			t.Errorf("go list: %s is not below the module %s", fields[0], mod)
			continue
		}
		packages++
		from := layerOf(layers, p)
		if from == nil {
			t.Errorf("%s has no layer: give it a row, or a pattern of a row, in ARCHITECTURE.md's table of layers", p)
			continue
		}
		for _, imp := range fields[1:] {
			q, ok := rel(imp)
			if !ok {
				continue // the standard library, a dependency
			}
			to := layerOf(layers, q)
			if to == nil {
				continue // reported as a package of its own
			}
			if mayImport(from, to, top) {
				continue
			}
			edge := p + " -> " + q
			if _, ok := allowedImports[edge]; ok {
				seen[edge] = true
				continue
			}
			what := fmt.Sprintf("rank %d, above", to.rank)
			if to.rank <= from.rank {
				what = fmt.Sprintf("rank %d, a side layer", to.rank)
			}
			t.Errorf("%s: a package of %s (rank %d) imports one of %s (%s): against ARCHITECTURE.md's layers",
				edge, from.name, from.rank, to.name, what)
		}
	}
	if packages < 10 {
		t.Fatalf("go list listed %d packages of %s: not the module?", packages, mod)
	}
	var stale []string
	for edge := range allowedImports {
		if !seen[edge] {
			stale = append(stale, edge)
		}
	}
	slices.Sort(stale)
	for _, edge := range stale {
		t.Errorf("allowedImports: %s no longer happens: remove it (and its line in ARCHITECTURE.md)", edge)
	}
}

// TestLayerRules pins layerOf and mayImport on a small table.
func TestLayerRules(t *testing.T) {
	t.Parallel()
	leaves := &layer{rank: 0, name: "leaves", patterns: []string{"internal/...", "a/internal/..."}}
	a := &layer{rank: 1, name: "a", patterns: []string{"a"}}
	env := &layer{rank: 2, side: true, name: "env", patterns: []string{"envs/..."}}
	b := &layer{rank: 3, name: "b", patterns: []string{"b", "b/internal/..."}}
	prog := &layer{rank: 4, name: "prog", patterns: []string{"cmd/..."}}
	layers := []*layer{leaves, a, env, b, prog}
	for p, want := range map[string]*layer{
		"internal/x": leaves, "a/internal/y/z": leaves, "a": a, "envs": env, "envs/all": env,
		"b": b, "b/internal/auth": b, "cmd/tool": prog, "b/other": nil, "ab": nil, "internalx": nil,
	} {
		if got := layerOf(layers, p); got != want {
			t.Errorf("layerOf(%q) = %v, want %v", p, got, want)
		}
	}
	for _, c := range []struct {
		from, to *layer
		want     bool
	}{
		{a, leaves, true}, {leaves, a, false}, {a, a, true}, {b, a, true},
		{env, a, true}, {env, b, false}, {env, env, true},
		{b, env, false}, {prog, env, true}, {prog, b, true},
	} {
		if got := mayImport(c.from, c.to, 4); got != c.want {
			t.Errorf("mayImport(%s, %s) = %v, want %v", c.from.name, c.to.name, got, c.want)
		}
	}
}
