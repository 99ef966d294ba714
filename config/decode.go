package config

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// Decode decodes the server's own keys of the instance into dst, a non-nil pointer to the
// server's struct, strictly.
//
// The struct's keys are the koanf tags of its exported fields (`koanf:"default_city"`), matched
// exactly (case-sensitive); untagged fields are not configuration. Embedded structs are
// flattened (framework.Base adds no keys); nested structs, maps and lists address their entries
// as "a.b", "m.key" and "list[0]". A field tagged `koanf:",remain"` (a map) takes every key the
// struct does not declare.
//
// Absent and null differ, as a missing field and None do for NeMo's pydantic server configs. A
// field whose key is absent keeps the value it had in dst; when that is its zero value and the
// field has a default tag, it gets the tag's value, read as the value of a command-line override
// is and converted as the key's value would be:
//
//	MaxGuesses int           `koanf:"max_guesses" default:"10"`
//	Timeout    time.Duration `koanf:"timeout" default:"30s"`
//
// A default tag is the one place of a key's default: the factory, servertest.New and gymkit
// serve all decode the server value, so they all see it (a default set in the factory instead
// is lost to a test that builds the server with new(T)). A default Path resolves against the
// working directory. A key set to null (null or ~ in YAML, key=null on the command line, a ${...}
// that resolves to null) sets its field to the zero value of its type, not its default: nil for
// a pointer, slice, map or interface, 0, "" or false for a scalar, the zero value of every field
// of a nested struct. So a field
//
//	JudgeEndpointMaxConcurrency *int `koanf:"judge_endpoint_max_concurrency" default:"64"`
//
// is 64 when the key is absent and nil ("no limit") with judge_endpoint_max_concurrency:
// null. This holds at every depth: in a nested struct given as a mapping, and in the items of a
// list (an item of a map is built afresh, so a null there is the zero value anyway). A later
// layer's null replaces an earlier value before Decode sees it (see the package doc's merge
// order). The framework's own keys (domain, port, session, mcp, tool_timeout, ...) keep their
// rule: null there means the default (see [Instance]).
//
// Values are converted the way pydantic's lax mode does for NeMo's server configs: integers from
// integral floats and numeric strings ("8080"), floats from integers and numeric strings, bools
// from "true"/"false"/"yes"/"no"/"on"/"off"/"1"/"0" and 0/1, time.Duration from "30s" or a number
// of seconds, encoding.TextUnmarshaler types from strings. A string field takes only a string
// (quote 1.0 in YAML to keep it a string).
//
// A field tagged `required:"true"` (beside its koanf tag) must be present and not null: an
// absent one is a problem "is required" at its key, located at the block that lacks it. This
// holds in nested structs too, when their mapping is present.
//
// Framework keys (see [Instance]) are skipped unless the struct declares them too. A field of
// type [Path] (also in nested structs, lists and maps) that holds a relative path is made
// absolute against its server folder: the folder holding configs/ when the file that set the
// key is <folder>/configs/<name>.yaml, else the working directory (LoadOptions.WorkDir; also
// for the dict and the command line), so that one config serves gymkit serve from any folder,
// NeMo's launcher and go test in the server's package folder alike (see [Path]); a plain
// string is left as written.
//
// The error is [Problems] listing every unknown key (with the closest key of that struct, or of
// the framework at the top level, as the suggestion) and every value of the wrong type, each with
// its full key path and file. dst may be partly written when an error is returned. An error that
// is not Problems means dst is not a pointer to a struct.
func (inst Instance) Decode(dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("config: Decode needs a non-nil pointer to a struct, got %T", dst)
	}
	t := rv.Elem().Type()
	own := structFields(t)
	data := make(map[string]any, len(inst.Raw))
	for k, v := range inst.Raw {
		if _, declared := own.types[k]; declared || !isFrameworkKey(k) {
			data[k] = v
		}
	}
	prefix := ""
	if inst.Name != "" {
		prefix = inst.Path()
	}
	var ps Problems
	inst.unknownKeys(&ps, prefix, data, t, true)
	inst.requiredKeys(&ps, prefix, data, t)
	for _, dp := range decodeProblems(decodeStrict(data, dst)) {
		ps = append(ps, inst.src.problem(joinKey(prefix, dp.name), dp.msg, ""))
	}
	if len(ps) == 0 {
		applyNulls(data, rv.Elem())
		inst.applyDefaults(&ps, prefix, data, rv.Elem())
	}
	if len(ps) == 0 {
		inst.resolvePaths(prefix, rv.Elem())
	}
	sortProblems(ps)
	return ps.err()
}

// applyNulls sets to its zero value every field of the struct v (a pointer to one is followed)
// whose key data holds with the value null, and does the same in the nested structs and list
// items data gives as mappings. decodeStrict leaves such fields as they were.
func applyNulls(data any, v reflect.Value) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch x := data.(type) {
	case map[string]any:
		if v.Kind() != reflect.Struct || opaque(v.Type()) {
			return
		}
		fields := fieldValues(v)
		for k, val := range x {
			f, ok := fields[k]
			switch {
			case !ok || !f.CanSet():
			case val == nil:
				f.Set(reflect.Zero(f.Type()))
			default:
				applyNulls(val, f)
			}
		}
	case []any:
		if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
			return
		}
		for i, item := range x {
			if i >= v.Len() {
				return
			}
			switch f := v.Index(i); {
			case item == nil && f.CanSet():
				f.Set(reflect.Zero(f.Type()))
			case item != nil:
				applyNulls(item, f)
			}
		}
	}
}

// applyDefaults gives every field of the struct v that holds its zero value and whose key data
// does not hold (absent: a key set to null was zeroed by applyNulls, and stays so) the value of
// its default tag, read as the value of a command-line override is (default:"64",
// default:"30s", default:"[a, b]") and converted as a value of that key in the YAML would be. It
// does the same in the nested structs, given as mappings in data or absent (a nil pointer to a
// struct stays nil). A tag whose value does not convert is a problem at the key.
func (inst Instance) applyDefaults(ps *Problems, prefix string, data map[string]any, v reflect.Value) {
	fields := fieldValues(v)
	tags := fieldDefaults(v.Type())
	for name, f := range fields {
		key := joinKey(prefix, name)
		val, present := data[name]
		ft := f
		if ft.Kind() == reflect.Pointer && !ft.IsNil() {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !opaque(ft.Type()) {
			sub, isMap := val.(map[string]any)
			if !present || isMap {
				inst.applyDefaults(ps, key, sub, ft)
			}
		}
		def, ok := tags[name]
		if present || !ok || !f.IsZero() || !f.CanSet() {
			continue
		}
		dv, err := parseValue(def)
		if err == nil && dv != nil {
			err = decodeValue(dv, f.Addr().Interface())
		}
		if err != nil {
			msg := err.Error()
			for _, dp := range decodeProblems(err) {
				msg = dp.msg
			}
			*ps = append(*ps, inst.src.problem(key, fmt.Sprintf("the default tag of its field (default:%q) is not a value of the field's type: %s", def, msg), ""))
		}
	}
}

// fieldDefaults maps each key of the struct type t to the text of its field's default tag, for
// the fields that have one (embedded and squashed structs flattened, as fieldValues does).
func fieldDefaults(t reflect.Type) map[string]string {
	out := map[string]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("koanf")
			name, opts, _ := strings.Cut(tag, ",")
			optList := strings.Split(opts, ",")
			if (f.Anonymous && f.Type.Kind() == reflect.Struct) || slices.Contains(optList, "squash") {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
				}
				continue
			}
			if slices.Contains(optList, "remain") || tag == "" || !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if def, ok := f.Tag.Lookup("default"); ok {
				out[name] = def
			}
		}
	}
	walk(t)
	return out
}

// fieldValues maps each key of the struct value v to its field, as structFields names them
// (embedded and squashed structs flattened; a nil embedded pointer is skipped).
func fieldValues(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("koanf")
			name, opts, _ := strings.Cut(tag, ",")
			optList := strings.Split(opts, ",")
			if (f.Anonymous && f.Type.Kind() == reflect.Struct) || slices.Contains(optList, "squash") {
				fv := v.Field(i)
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue
					}
					fv = fv.Elem()
				}
				if fv.Kind() == reflect.Struct {
					walk(fv)
				}
				continue
			}
			if slices.Contains(optList, "remain") || tag == "" || !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			out[name] = v.Field(i)
		}
	}
	walk(v)
	return out
}

// unknownKeys reports every key of data that the type t does not declare.
func (inst Instance) unknownKeys(ps *Problems, key string, data any, t reflect.Type, top bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if opaque(t) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := data.(map[string]any)
		if !ok {
			return // a type error, reported by the decoder
		}
		fs := structFields(t)
		for _, k := range sortedKeys(m) {
			if ft, ok := fs.types[k]; ok {
				inst.unknownKeys(ps, joinKey(key, k), m[k], ft, false)
				continue
			}
			if fs.remain {
				continue
			}
			candidates := fs.names
			if top {
				candidates = append(slices.Clone(candidates), frameworkKeys...)
			}
			if f := untaggedField(t, k); f != "" {
				*ps = append(*ps, inst.src.problem(joinKey(key, k),
					fmt.Sprintf("unknown key: field %s has no koanf tag: add `koanf:%q`", f, k), ""))
				continue
			}
			msg, sug := "unknown key", suggest(k, candidates)
			if sug == "" {
				msg += inst.knownKeysHint(fs.names, top)
			}
			*ps = append(*ps, inst.src.problem(joinKey(key, k), msg, sug))
		}
	case reflect.Map:
		if m, ok := data.(map[string]any); ok {
			for _, k := range sortedKeys(m) {
				inst.unknownKeys(ps, joinKey(key, k), m[k], t.Elem(), false)
			}
		}
	case reflect.Slice, reflect.Array:
		if list, ok := data.([]any); ok {
			for i, item := range list {
				inst.unknownKeys(ps, fmt.Sprintf("%s[%d]", key, i), item, t.Elem(), false)
			}
		}
	}
}

func (inst Instance) knownKeysHint(names []string, top bool) string {
	switch {
	case top && len(names) == 0:
		return fmt.Sprintf(" (server type %s has no keys of its own; the framework keys are %s)", inst.ServerType, strings.Join(frameworkKeys, ", "))
	case top:
		return fmt.Sprintf(" (server type %s has %s, besides the framework keys)", inst.ServerType, strings.Join(names, ", "))
	case len(names) == 0:
		return " (no keys are expected here)"
	}
	return " (the keys here are " + strings.Join(names, ", ") + ")"
}

// fieldSet is what a struct type declares, as mapstructure sees it with decodeStrict's settings.
type fieldSet struct {
	types    map[string]reflect.Type
	names    []string // sorted
	required []string // keys of fields tagged required:"true", in declaration order
	remain   bool
}

func structFields(t reflect.Type) fieldSet {
	fs := fieldSet{types: map[string]reflect.Type{}}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("koanf")
			name, opts, _ := strings.Cut(tag, ",")
			optList := strings.Split(opts, ",")
			squash := (f.Anonymous && f.Type.Kind() == reflect.Struct) || slices.Contains(optList, "squash")
			if squash {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
				}
				continue
			}
			if slices.Contains(optList, "remain") {
				fs.remain = true
				continue
			}
			if tag == "" || !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fs.types[name] = f.Type
			if f.Tag.Get("required") == "true" {
				fs.required = append(fs.required, name)
			}
		}
	}
	walk(t)
	fs.names = sortedKeys(fs.types)
	return fs
}

// decodeStrict decodes data into dst (a pointer to a struct) with gymkit's settings: koanf tags
// matched exactly, untagged fields ignored, embedded structs flattened, lax scalar conversion.
// Unknown keys are not its business (see unknownKeys).
func decodeStrict(data map[string]any, dst any) error {
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		DecodeHook:           mapstructure.DecodeHookFuncValue(laxHook),
		Result:               dst,
		TagName:              "koanf",
		Squash:               true,
		IgnoreUntaggedFields: true,
		MatchName:            func(mapKey, fieldName string) bool { return mapKey == fieldName },
	})
	if err != nil {
		return err
	}
	return dec.Decode(data)
}

// decodeValue decodes one value into dst, a pointer, with decodeStrict's conversions.
func decodeValue(v any, dst any) error {
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		DecodeHook:           mapstructure.DecodeHookFuncValue(laxHook),
		Result:               dst,
		TagName:              "koanf",
		Squash:               true,
		IgnoreUntaggedFields: true,
		MatchName:            func(mapKey, fieldName string) bool { return mapKey == fieldName },
	})
	if err != nil {
		return err
	}
	return dec.Decode(v)
}

// decodeProblem is one decoding failure: the key path inside the decoded map, and the message.
type decodeProblem struct {
	name, msg string
}

var mapIndexRE = regexp.MustCompile(`\[([^\]]*[^\]0-9][^\]]*)\]`)

// decodeProblems flattens a mapstructure error into one problem per failing key, sorted by key.
func decodeProblems(err error) []decodeProblem {
	var out []decodeProblem
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case *mapstructure.DecodeError:
			msg := x.Error()
			if inner := x.Unwrap(); inner != nil {
				msg = inner.Error()
			}
			// mapstructure writes map entries as m[key]; gymkit's paths use m.key.
			out = append(out, decodeProblem{name: mapIndexRE.ReplaceAllString(x.Name(), ".$1"), msg: msg})
		case interface{ Unwrap() []error }: // errors.Join
			for _, inner := range x.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }: // "decoding failed due to the following error(s): %w"
			walk(x.Unwrap())
		default:
			out = append(out, decodeProblem{msg: e.Error()})
		}
	}
	if err != nil {
		walk(err)
	}
	slices.SortStableFunc(out, func(a, b decodeProblem) int { return strings.Compare(a.name, b.name) })
	return out
}

var (
	durationType        = reflect.TypeFor[time.Duration]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	unmarshalerType     = reflect.TypeFor[mapstructure.Unmarshaler]()
)

// opaque types take a scalar (or decode themselves) and have no keys of their own.
func opaque(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t == durationType || pt.Implements(textUnmarshalerType) || pt.Implements(unmarshalerType)
}

// laxHook converts a YAML value to the type of the field it goes to, or says why it cannot.
func laxHook(from, to reflect.Value) (any, error) {
	data := from.Interface()
	t := to.Type()
	switch {
	case t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface:
		return data, nil
	case t == durationType:
		return toDuration(data)
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		s, ok := data.(string)
		if !ok {
			return nil, typeError("a string", data)
		}
		v := reflect.New(t)
		if err := v.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return nil, fmt.Errorf("invalid value %q: %v", s, err)
		}
		return v.Elem().Interface(), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return toBool(data)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := toInt(data)
		if err != nil && bigInteger(data) {
			err = rangeError(t, data)
		}
		if err == nil && reflect.Zero(t).OverflowInt(n) {
			err = rangeError(t, data)
		}
		return n, err
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u, ok := data.(uint64); ok && !reflect.Zero(t).OverflowUint(u) {
			return u, nil
		}
		n, err := toInt(data)
		switch {
		case err != nil && bigInteger(data):
			return nil, rangeError(t, data)
		case err != nil:
			return nil, err
		case n < 0 || reflect.Zero(t).OverflowUint(uint64(n)):
			return nil, rangeError(t, data)
		}
		return uint64(n), nil
	case reflect.Float32, reflect.Float64:
		f, err := toFloat(data)
		if err == nil && reflect.Zero(t).OverflowFloat(f) {
			err = fmt.Errorf("%v does not fit in %s", f, t)
		}
		return f, err
	case reflect.String:
		if _, ok := data.(string); !ok {
			err := typeError("a string", data)
			switch data.(type) {
			case map[string]any, []any:
			default:
				err = fmt.Errorf("%w (quote it to make it a string)", err)
			}
			return nil, err
		}
	case reflect.Struct, reflect.Map:
		if _, ok := data.(map[string]any); !ok {
			return nil, typeError("a mapping", data)
		}
	case reflect.Slice, reflect.Array:
		if _, ok := data.([]any); !ok {
			return nil, typeError("a list", data)
		}
	}
	return data, nil
}

// rangeError says which integers a field of type t takes: "must be an integer from -128 to
// 127 (int8), got integer 300".
func rangeError(t reflect.Type, got any) error {
	var lo, hi string
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		lo, hi = "0", strconv.FormatUint(uint64(1)<<(t.Bits()-1)<<1-1, 10)
	default:
		lo = strconv.FormatInt(-1<<(t.Bits()-1), 10)
		hi = strconv.FormatInt(1<<(t.Bits()-1)-1, 10)
	}
	return fmt.Errorf("must be an integer from %s to %s (%s), got %s", lo, hi, t, describe(got))
}

// bigInteger reports whether v is an integer beyond int64 (a YAML integer parsed as uint64, an
// integral float, a string of digits).
func bigInteger(v any) bool {
	switch x := v.(type) {
	case uint64:
		return x > math.MaxInt64
	case uint:
		return uint64(x) > math.MaxInt64
	case float64:
		return x == math.Trunc(x) && !math.IsInf(x, 0)
	case string:
		s := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(x), "-"), "+")
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	return false
}

func typeError(want string, got any) error {
	return fmt.Errorf("expected %s, got %s", want, describe(got))
}

// describe names a YAML value for messages: string "x", integer 5, number 1.5, boolean true,
// null, a mapping, a list.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprintf("integer %d", x)
	case float32, float64:
		return fmt.Sprintf("number %v", x)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T %v", v, v)
}

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), nil
		}
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), nil
		}
	case float32:
		return toInt(float64(x))
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), nil
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, typeError("an integer", v)
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, nil
		}
	case bool:
	default:
		if n, err := toInt(v); err == nil {
			return float64(n), nil
		}
	}
	return 0, typeError("a number", v)
}

func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "t", "yes", "y", "on", "1":
			return true, nil
		case "false", "f", "no", "n", "off", "0":
			return false, nil
		}
	case int, int64, float64:
		if n, err := toInt(x); err == nil && (n == 0 || n == 1) {
			return n == 1, nil
		}
	}
	return false, typeError("true or false", v)
}

func toDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case time.Duration:
		return x, nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("expected a duration like \"30s\" or \"1m30s\", got string %q", x)
		}
		return d, nil
	case bool:
	default:
		if f, err := toFloat(v); err == nil {
			return time.Duration(f * float64(time.Second)), nil
		}
	}
	return 0, fmt.Errorf("expected a duration like \"30s\" or a number of seconds, got %s", describe(v))
}

// untaggedField returns the name of an exported field of the struct t
// without a koanf tag whose name is key's spelling (MaxGuesses for
// max_guesses or maxguesses, ignoring case), or "": the usual cause of an
// unknown key that the author meant as a config key.
func untaggedField(t reflect.Type, key string) string {
	want := strings.ReplaceAll(strings.ToLower(key), "_", "")
	for f := range t.Fields() {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if _, tagged := f.Tag.Lookup("koanf"); tagged {
			continue
		}
		if strings.ToLower(f.Name) == want {
			return f.Name
		}
	}
	return ""
}
