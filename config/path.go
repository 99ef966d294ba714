package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
)

// Path is a file system path read from the configuration. [Instance.Decode] makes a relative
// Path absolute (and cleans it, filepath.Join) against its server folder, by one rule for every
// way gymkit is run:
//
//   - set in a config file <folder>/configs/<name> (a file directly inside a folder named
//     configs, as every environment's servers/<type>/configs/<type>.yaml): against <folder>,
//     the server folder;
//   - set in any other config file, in env.yaml (even in a working directory named configs:
//     env.yaml is the working directory's, not a server's), in LoadOptions.Dict (NeMo's
//     NEMO_GYM_CONFIG_DICT, under gymkit serve --nemo) or on the command line
//     (my_env.resources_servers.my_env.data_file=x): against LoadOptions.WorkDir, the working
//     directory unless a caller says otherwise. NeMo's launcher starts every server in its
//     server folder, and go test runs a package's tests in the package's folder, which for an
//     environment is servers/<type>/, its server folder.
//
// So with
//
//	# servers/my_env/configs/my_env.yaml
//	my_env:
//	  resources_servers:
//	    my_env:
//	      domain: other
//	      data_file: data/tasks.jsonl   # servers/my_env/data/tasks.jsonl
//
// and a field
//
//	DataFile config.Path `koanf:"data_file"`
//
// data/tasks.jsonl names servers/my_env/data/tasks.jsonl under gymkit serve (rollout, check,
// ...) --config servers/my_env/configs/my_env.yaml from the repository root or from any other
// folder, under gymkit serve --nemo started by NeMo's launcher in the server folder, and in the
// package's tests (server/servertest's Options.Config resolves against the working directory,
// the package folder). The file that set the key decides, also when the value comes from an
// interpolation (data_file: ${data_dir}/tasks.jsonl, ${oc.env:DATA}): the value is resolved
// against the base of the file holding the data_file line, wherever data_dir is defined. The
// environment variable OLDPWD (the folder NeMo's launcher was started in) is never used. An
// absolute path and "" are kept as they are; a plain string field is never resolved. Paths are
// resolved in nested structs, lists and map[string]Path values too.
type Path string

// String returns the path as a string.
func (p Path) String() string { return string(p) }

// MaxDataFileBytes is the default bound of [Path.Open] and [Path.ReadFile]: 256 MiB, far above
// what a server reads at start (workplace_assistant's largest file is 160 KB), and far below
// what would take a machine down.
const MaxDataFileBytes = 256 << 20

// Open opens the file p names for reading, for a server that reads its data at start: it
// refuses what is not a regular file (a folder, a device such as /dev/zero, a FIFO that would
// wait for a writer forever) and a file larger than limit bytes (0 or less: MaxDataFileBytes),
// and the reader it returns fails past limit bytes too (a file that grows while it is read).
// The errors name the path.
func (p Path) Open(limit int64) (io.ReadCloser, error) {
	if limit <= 0 {
		limit = MaxDataFileBytes
	}
	name := string(p)
	fi, err := os.Stat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what the caller asked for, as os.Open says it
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", name, fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, larger than the %d bytes a data file may hold", name, fi.Size(), limit)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &boundedReader{f: f, name: name, left: limit}, nil
}

// ReadFile reads the whole file p names as [Path.Open] opens it.
func (p Path) ReadFile(limit int64) ([]byte, error) {
	r, err := p.Open(limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// fileKind names what a file mode that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// boundedReader is a data file that fails once more than its bound is read.
type boundedReader struct {
	f    *os.File
	name string
	left int64
}

func (r *boundedReader) Read(b []byte) (int, error) {
	if r.left < 0 {
		return 0, fmt.Errorf("%s: grew past the bytes a data file may hold while it was read", r.name)
	}
	if int64(len(b)) > r.left+1 {
		b = b[:r.left+1]
	}
	n, err := r.f.Read(b)
	r.left -= int64(n)
	if r.left < 0 {
		return n, fmt.Errorf("%s: grew past the bytes a data file may hold while it was read", r.name)
	}
	return n, err
}

func (r *boundedReader) Close() error { return r.f.Close() }

var pathType = reflect.TypeFor[Path]()

// baseDir returns the directory relative Path values set at key are resolved against: the base
// of the layer that set it (the server folder of a file in a configs/ folder, else the working
// directory), or the working directory when that is unknown; "" for an Instance built by hand.
func (s *sources) baseDir(key string) string {
	if s == nil {
		return ""
	}
	if o := s.of(key); o.base != "" {
		return o.base
	}
	return s.workDir
}

// resolvePaths makes every relative Path in v (the decoded struct, at display key prefix)
// absolute against its base directory (see [Path]).
func (inst Instance) resolvePaths(key string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			inst.resolvePaths(key, v.Elem())
		}
	case reflect.String:
		if v.Type() != pathType || !v.CanSet() {
			return
		}
		p := v.String()
		if inst.seePath != nil && p != "" {
			inst.seePath(key, p)
		}
		if p == "" || filepath.IsAbs(p) {
			return
		}
		if dir := inst.src.baseDir(key); dir != "" {
			v.SetString(filepath.Join(dir, p))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("koanf")
			name, _, _ := cutComma(tag)
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				inst.resolvePaths(key, v.Field(i)) // flattened, as structFields does
			case !f.IsExported() || tag == "" || name == "-":
			default:
				if name == "" {
					name = f.Name
				}
				inst.resolvePaths(joinKey(key, name), v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			inst.resolvePaths(fmt.Sprintf("%s[%d]", key, i), v.Index(i))
		}
	case reflect.Map:
		if v.Type().Elem() != pathType || v.Type().Key().Kind() != reflect.String {
			return // map values are not addressable; only map[string]Path is resolved
		}
		for _, k := range v.MapKeys() {
			p := Path(v.MapIndex(k).String())
			if inst.seePath != nil && p != "" {
				inst.seePath(joinKey(key, k.String()), string(p))
			}
			if p == "" || filepath.IsAbs(string(p)) {
				continue
			}
			if dir := inst.src.baseDir(joinKey(key, k.String())); dir != "" {
				v.SetMapIndex(k, reflect.ValueOf(Path(filepath.Join(dir, string(p)))))
			}
		}
	}
}

// requiredKeys reports every field tagged required:"true" of t whose key is absent or null in
// data, and recurses into the nested structs that are present.
func (inst Instance) requiredKeys(ps *Problems, key string, data any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || opaque(t) {
		return
	}
	m, ok := data.(map[string]any)
	if !ok {
		return // a type error, reported by the decoder
	}
	fs := structFields(t)
	for _, k := range fs.required {
		if v, present := m[k]; !present || v == nil {
			*ps = append(*ps, inst.src.problem(joinKey(key, k),
				"is required (its field is tagged required:\"true\"): set it in the config file, or on the command line as "+joinKey(key, k)+"=<value>", ""))
		}
	}
	for _, k := range fs.names {
		if v, ok := m[k]; ok {
			inst.requiredKeys(ps, joinKey(key, k), v, fs.types[k])
		}
	}
}

func cutComma(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
