package config

import (
	"fmt"
	"path/filepath"
	"reflect"
)

// Path is a file system path read from a config file: a relative path is resolved against the
// directory of the config file that set it ([Instance.Decode]), so that
//
//	# servers/my_env/configs/my_env.yaml
//	my_env:
//	  resources_servers:
//	    my_env:
//	      domain: other
//	      data_file: ../data/tasks.jsonl   # servers/my_env/data/tasks.jsonl
//
// with a field
//
//	DataFile config.Path `koanf:"data_file"`
//
// names the same file whether the config is loaded by `gymkit serve` from the repository root
// or by a test from its package directory. A value given on the command line
// (my_env.resources_servers.my_env.data_file=x) is resolved against LoadOptions.WorkDir; an
// absolute path, "" and a value that came from ${oc.env:...} in a file are handled alike (the
// file's directory). The result is cleaned (filepath.Join). A plain string field is never
// resolved.
type Path string

// String returns the path as a string.
func (p Path) String() string { return string(p) }

var pathType = reflect.TypeFor[Path]()

// baseDir returns the directory relative paths set at key are resolved against: the directory
// of the file that set it (made absolute against the working directory), or the working
// directory for an override.
func (s *sources) baseDir(key string) string {
	var wd string
	var file string
	if s != nil {
		wd, file = s.workDir, s.of(key).file
	}
	if file == "" || file == commandLine {
		return wd
	}
	dir := filepath.Dir(file)
	if !filepath.IsAbs(dir) && wd != "" {
		dir = filepath.Join(wd, dir)
	}
	return dir
}

// resolvePaths makes every relative Path in v (the decoded struct, at display key prefix)
// absolute against its file's directory.
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
