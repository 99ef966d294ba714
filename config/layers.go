package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/knadh/koanf/v2"
	"go.yaml.in/yaml/v3"
)

// commandLine is the File of problems and origins that come from LoadOptions.Overrides.
const commandLine = "command line"

// layer is one source of the merge: a file, env.yaml, the dict or the overrides.
type layer struct {
	name  string         // as shown in problems
	ko    *koanf.Koanf   // its own tree
	lines map[string]int // display key path -> line, nil for the overrides
	// base is the absolute directory that relative [Path] values set in this layer resolve
	// against: the server folder of a file in a configs/ folder, else LoadOptions.WorkDir.
	base string
}

// yamlParser is a koanf.Parser that also records the line of every key. (koanf's own YAML parser
// decodes straight to a map and loses the positions the problems need.)
type yamlParser struct {
	lines map[string]int
}

// lineError is a YAML problem at a line.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// Unmarshal parses one YAML document whose top level is a mapping (an empty document is an
// empty mapping). It refuses, each as a *lineError, a second document (a config is one
// document, as OmegaConf's loader reads it), mappings and lists nested deeper than
// [MaxConfigDepth], and a null key (null, ~ or nothing before the colon), before anything
// decodes the tree: koanf flattens every key into its full dotted path, which costs the square
// of the depth.
func (p *yamlParser) Unmarshal(b []byte) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	out := map[string]any{}
	p.lines = map[string]int{}
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return out, nil // nothing but comments
		}
		return nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &lineError{line: next.Line, msg: "a second YAML document starts here (---): a config file holds one document, as NeMo reads it; merge them, or give each its own file"}
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	switch {
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null":
		return out, nil
	case root.Kind != yaml.MappingNode:
		return nil, &lineError{line: root.Line, msg: "the top level of a config file must be a mapping of keys"}
	}
	if err := checkTree(root); err != nil {
		return nil, err
	}
	keepTimestampsAsStrings(root)
	if err := root.Decode(&out); err != nil {
		return nil, err
	}
	recordLines(root, "", p.lines)
	return out, nil
}

// checkTree refuses a tree nested deeper than MaxConfigDepth (an alias counts as deep as the
// value it names) or holding a null key. Each node is looked at once.
func checkTree(root *yaml.Node) error {
	depths := map[*yaml.Node]int{} // the depth below each node walked (aliases: of their target)
	var walk func(n *yaml.Node, level int) (int, error)
	walk = func(n *yaml.Node, level int) (int, error) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if d, ok := depths[n]; ok {
			if level+d > MaxConfigDepth {
				return 0, depthError(n, level)
			}
			return d, nil
		}
		if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
			return 0, nil
		}
		if level+1 > MaxConfigDepth {
			return 0, depthError(n, level)
		}
		below := 0
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 && c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
				return 0, &lineError{line: c.Line, msg: "a key is null (null, ~ or nothing before the colon): quote it, \"null\", if it is the text"}
			}
			d, err := walk(c, level+1)
			if err != nil {
				return 0, err
			}
			below = max(below, d)
		}
		depths[n] = below + 1
		return below + 1, nil
	}
	_, err := walk(root, 0)
	return err
}

func depthError(n *yaml.Node, level int) error {
	return &lineError{line: n.Line, msg: fmt.Sprintf("mappings and lists are nested more than %d levels deep here (level %d): a config is not that deep", MaxConfigDepth, level+1)}
}

// keepTimestampsAsStrings makes untagged dates (2024-01-01) strings, as OmegaConf's loader does,
// instead of yaml.v3's time.Time.
func keepTimestampsAsStrings(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp" && n.Style&yaml.TaggedStyle == 0 {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		keepTimestampsAsStrings(c)
	}
}

// Marshal renders a tree as YAML.
func (p *yamlParser) Marshal(m map[string]any) ([]byte, error) { return yaml.Marshal(m) }

func recordLines(n *yaml.Node, prefix string, out map[string]int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				continue
			}
			key := joinKey(prefix, k.Value)
			out[key] = k.Line
			recordLines(v, key, out)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			key := fmt.Sprintf("%s[%d]", prefix, i)
			out[key] = item.Line
			recordLines(item, key, out)
		}
	}
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// readProblems turns a read or parse failure of file into problems, one per YAML error line.
func readProblems(name string, err error) []Problem {
	if errors.Is(err, errTooLarge) {
		return []Problem{{File: name, Message: err.Error()}}
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return []Problem{{File: name, Message: "cannot read the file: " + pathErr.Err.Error()}}
	}
	var lineErr *lineError
	if errors.As(err, &lineErr) {
		return []Problem{{File: name, Line: lineErr.line, Message: lineErr.msg}}
	}
	var msgs []string
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) {
		msgs = typeErr.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var ps []Problem
	for _, m := range msgs {
		p := Problem{File: name, Message: "invalid YAML: " + strings.TrimPrefix(m, "yaml: ")}
		if sub := yamlLineRE.FindStringSubmatch(strings.TrimSpace(m)); sub != nil {
			p.Line, _ = strconv.Atoi(sub[1])
			p.Message = "invalid YAML: " + sub[2]
		}
		ps = append(ps, p)
	}
	return ps
}

// MaxConfigBytes is the largest config file gymkit reads (a --config file, one of config_paths,
// env.yaml) and the largest LoadOptions.Dict: 16 MiB. NeMo's own configs are a few KiB; a
// larger source is a problem naming it, read no further (/dev/zero is refused at once).
const MaxConfigBytes = 16 << 20

// MaxConfigDepth is the deepest nesting of mappings and lists in a config file, the dict or an
// override's value: 200 levels (the shipped configs nest 5, NeMo's about 8). Deeper is a
// problem at the line where it goes past, found before the tree is decoded.
const MaxConfigDepth = 200

// errTooLarge is a source larger than MaxConfigBytes.
var errTooLarge = fmt.Errorf("is larger than %d MiB (the largest config gymkit reads)", MaxConfigBytes>>20)

// boundedFile is a koanf.Provider of one file's bytes, read up to MaxConfigBytes.
type boundedFile string

func (f boundedFile) ReadBytes() ([]byte, error) {
	fh, err := os.Open(string(f))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxConfigBytes+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: string(f), Err: err}
	}
	if len(b) > MaxConfigBytes {
		return nil, errTooLarge
	}
	return b, nil
}

func (f boundedFile) Read() (map[string]any, error) {
	return nil, errors.New("boundedFile: Read is not supported; use ReadBytes with a parser")
}

// loadYAMLFile reads and parses one YAML file into its own layer.
func loadYAMLFile(name, path string) (*layer, []Problem) {
	ko := koanf.New(".")
	p := &yamlParser{}
	if err := ko.Load(boundedFile(path), p); err != nil {
		return nil, readProblems(name, err)
	}
	return &layer{name: name, ko: ko, lines: p.lines}, nil
}

// bytesProvider is a koanf.Provider of YAML bytes held in memory (LoadOptions.Dict).
type bytesProvider []byte

func (b bytesProvider) ReadBytes() ([]byte, error) {
	if len(b) > MaxConfigBytes {
		return nil, errTooLarge
	}
	return b, nil
}

func (b bytesProvider) Read() (map[string]any, error) {
	return nil, errors.New("bytesProvider: Read is not supported; use ReadBytes with a parser")
}

// loadYAMLBytes parses YAML bytes (LoadOptions.Dict) into their own layer, named name in problems.
func loadYAMLBytes(name string, b []byte) (*layer, []Problem) {
	ko := koanf.New(".")
	p := &yamlParser{}
	if err := ko.Load(bytesProvider(b), p); err != nil {
		return nil, readProblems(name, err)
	}
	return &layer{name: name, ko: ko, lines: p.lines}, nil
}

// configPaths reads a layer's config_paths list (nil when absent).
func configPaths(l *layer) ([]string, []Problem) {
	v := l.ko.Get(keyConfigPaths)
	if v == nil {
		return nil, nil
	}
	bad := []Problem{{
		File: l.name, Line: l.lines[keyConfigPaths], Key: keyConfigPaths,
		Message: "must be a list of config file paths",
	}}
	list, ok := v.([]any)
	if !ok {
		return nil, bad
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok || s == "" {
			return nil, bad
		}
		out = append(out, s)
	}
	return out, nil
}

// parseOverride reads one override: "a.b.c=value", "+a.b.c=value" or "++a.b.c=value".
func parseOverride(arg string) (string, any, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(arg, "+"), "+")
	if strings.HasPrefix(s, "~") {
		return "", nil, errors.New("deleting a key (~key) is not supported")
	}
	key, raw, ok := strings.Cut(s, "=")
	if !ok {
		return "", nil, errors.New("an override must look like key.path=value")
	}
	if key == "" || strings.IndexFunc(key, unicode.IsSpace) >= 0 || strings.ContainsAny(key, "[]${}") {
		return "", nil, fmt.Errorf("malformed key %q (use dotted map keys like a.b.c)", key)
	}
	segs := 0
	for seg := range strings.SplitSeq(key, ".") {
		if seg == "" {
			return "", nil, fmt.Errorf("malformed key %q: empty segment", key)
		}
		segs++
	}
	if segs > MaxConfigDepth {
		return "", nil, fmt.Errorf("the key has %d segments: a config is nested at most %d levels deep", segs, MaxConfigDepth)
	}
	val, err := parseValue(raw)
	if err != nil {
		return "", nil, err
	}
	return key, val, nil
}

// parseValue reads an override value (or an oc.decode argument) as a YAML scalar or flow value:
// 9000 is an int, true a bool, null nil, [a, b] a list, {k: v} a mapping, "9000" a string.
// An empty value is the empty string (as in Hydra). Text that YAML would read as a block mapping
// or sequence ("a: b", "- a") stays a string.
func parseValue(raw string) (any, error) {
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		return "", nil
	}
	var doc yaml.Node
	var v any
	err := yaml.Unmarshal([]byte(raw), &doc)
	if err == nil && len(doc.Content) > 0 {
		err = checkTree(doc.Content[0])
	}
	if err == nil {
		keepTimestampsAsStrings(&doc)
		err = doc.Decode(&v)
	}
	if err != nil {
		return nil, fmt.Errorf("value %q is not a YAML scalar or flow value: %s", raw, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch v.(type) {
	case map[string]any, map[any]any:
		if !strings.HasPrefix(trimmed, "{") {
			return raw, nil
		}
	case []any:
		if !strings.HasPrefix(trimmed, "[") {
			return raw, nil
		}
	}
	return v, nil
}

// loader builds the merged tree from the files, config_paths, env.yaml and the overrides.
type loader struct {
	workDir    string // absolute
	noIncludes bool   // config_paths is not followed (LoadOptions.Dict)
	problems   []Problem
}

func (l *loader) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(l.workDir, path)
}

// serverFolder is the base of the relative [Path] values set in the file at abs (an absolute
// path): the folder holding configs/ when the file is <folder>/configs/<name>, else the
// working directory.
func (l *loader) serverFolder(abs string) string {
	if dir := filepath.Dir(abs); filepath.Base(dir) == "configs" {
		return filepath.Dir(dir)
	}
	return l.workDir
}

// loadEnvYAML loads env.yaml from the working directory; nil when there is none.
func (l *loader) loadEnvYAML(display string) (*layer, []Problem) {
	path := l.abs(envYAMLName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	lay, ps := loadYAMLFile(display, path)
	if lay != nil {
		// env.yaml belongs to the working directory, even one named configs: it is not
		// a server's <folder>/configs/<name>.yaml.
		lay.base = l.workDir
	}
	return lay, ps
}

// loadOverrides builds the overrides layer, applying them in order.
func loadOverrides(overrides []string) (*layer, []Problem) {
	ko := koanf.New(".")
	var ps []Problem
	for _, arg := range overrides {
		key, val, err := parseOverride(arg)
		if err == nil {
			err = ko.Set(key, val)
		}
		if err != nil {
			ps = append(ps, Problem{File: commandLine, Message: fmt.Sprintf("override %q: %v", arg, err)})
		}
	}
	return &layer{name: commandLine, ko: ko}, ps
}

// loadFiles loads roots and every file their config_paths pull in, and returns the layers in
// merge order: the include tree flattened so that a file comes after everything it pulled in,
// with each subtree kept together and siblings in listed order (NeMo's order). A path seen
// before (compared as a cleaned absolute path) is not loaded again.
func (l *loader) loadFiles(roots []string) []*layer {
	type entry struct {
		name     string
		layer    *layer
		children []int
	}
	var entries []entry
	seen := map[string]bool{}
	add := func(name string) (int, bool) {
		abs := l.abs(name)
		if seen[abs] {
			return 0, false
		}
		seen[abs] = true
		entries = append(entries, entry{name: name})
		return len(entries) - 1, true
	}
	var rootIdx []int
	for _, r := range roots {
		if i, ok := add(r); ok {
			rootIdx = append(rootIdx, i)
		}
	}
	for i := 0; i < len(entries); i++ {
		lay, ps := loadYAMLFile(entries[i].name, l.abs(entries[i].name))
		l.problems = append(l.problems, ps...)
		if lay == nil {
			continue
		}
		lay.base = l.serverFolder(l.abs(entries[i].name))
		entries[i].layer = lay
		if l.noIncludes {
			continue
		}
		includes, ps := configPaths(lay)
		l.problems = append(l.problems, ps...)
		for _, inc := range includes {
			if j, ok := add(inc); ok {
				entries[i].children = append(entries[i].children, j)
			}
		}
	}
	var order []*layer
	var visit func(i int)
	visit = func(i int) {
		for _, c := range entries[i].children {
			visit(c)
		}
		if entries[i].layer != nil {
			order = append(order, entries[i].layer)
		}
	}
	for _, i := range rootIdx {
		visit(i)
	}
	return order
}
