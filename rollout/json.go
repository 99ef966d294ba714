package rollout

import (
	"bytes"
	"strconv"

	"github.com/gymkit/gymkit/framework"
)

// Writers of the collector's files and prints. Every JSON byte gymkit
// rollout writes goes through framework.MarshalJSON, so key order and number
// forms are kept as parsed.
//
//   - compact: orjson.dumps (result lines, materialized inputs): compact, raw
//     UTF-8, NaN as null; floats as pydantic-core writes them, the closest
//     of the framework's writers to orjson's (python-compat 2.2 leaves
//     orjson's forms of unusual magnitudes UNCONFIRMED).
//   - indented(v, 2, JSONPydantic): orjson OPT_INDENT_2 (the aggregate
//     metrics file).
//   - indented(v, 4, JSONPythonDumps): json.dumps(indent=4) (the printed
//     key metrics): ensure_ascii, Python float repr.

// compact writes v as orjson.dumps does.
func compact(v framework.Value) ([]byte, error) {
	return framework.MarshalJSON(v, framework.JSONPydantic)
}

// indented writes v with each array item and object member on its own line,
// indent spaces per level, "," between items and ": " after keys; empty
// containers stay [] and {}. Scalars and keys are written in style. This is
// both json.dumps(indent=N) and orjson's OPT_INDENT_2 layout.
func indented(v framework.Value, indent int, style framework.JSONStyle) ([]byte, error) {
	var b bytes.Buffer
	if err := writeIndented(&b, v, indent, 0, style); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeIndented(b *bytes.Buffer, v framework.Value, indent, level int, style framework.JSONStyle) error {
	newline := func(level int) {
		b.WriteByte('\n')
		b.Write(bytes.Repeat([]byte{' '}, level*indent))
	}
	switch {
	case v.Kind == framework.KindArray && len(v.Items) > 0:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			if err := writeIndented(b, it, indent, level+1, style); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte(']')
		return nil
	case v.Kind == framework.KindObject && len(v.Members) > 0:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			k, err := framework.MarshalJSON(framework.StringValue(m.Key), style)
			if err != nil {
				return err
			}
			b.Write(k)
			b.WriteString(": ")
			if err := writeIndented(b, m.Value, indent, level+1, style); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte('}')
		return nil
	}
	out, err := framework.MarshalJSON(v, style)
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

// set sets key in the object v: in place when it exists (Python's dict
// assignment keeps the position), else appended.
func set(v *framework.Value, key string, val framework.Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, framework.Member{Key: key, Value: val})
}

// without returns a copy of the object v without the given keys.
func without(v framework.Value, keys ...string) framework.Value {
	out := framework.Value{Kind: framework.KindObject, Members: make([]framework.Member, 0, len(v.Members))}
	for _, m := range v.Members {
		drop := false
		for _, k := range keys {
			if m.Key == k {
				drop = true
				break
			}
		}
		if !drop {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

// clone returns a deep copy of v (Python's deepcopy of a parsed row).
func clone(v framework.Value) framework.Value {
	switch v.Kind {
	case framework.KindArray:
		items := make([]framework.Value, len(v.Items))
		for i, it := range v.Items {
			items[i] = clone(it)
		}
		v.Items = items
	case framework.KindObject:
		ms := make([]framework.Member, len(v.Members))
		for i, m := range v.Members {
			ms[i] = framework.Member{Key: m.Key, Value: clone(m.Value)}
		}
		v.Members = ms
	}
	return v
}

// truthy is Python's bool() of a json.loads value.
func truthy(v framework.Value) bool {
	switch v.Kind {
	case framework.KindBool:
		return v.Bool
	case framework.KindNumber:
		f, ok := v.Float()
		return !ok || f != 0 // NaN is truthy
	case framework.KindString:
		return v.Str != ""
	case framework.KindArray:
		return len(v.Items) > 0
	case framework.KindObject:
		return len(v.Members) > 0
	}
	return false
}

// intValue is a JSON integer.
func intValue(n int) framework.Value { return framework.NumberValue(strconv.Itoa(n)) }

// floatValue is a JSON float written the Python way (1.0, 0.5).
func floatValue(f float64) framework.Value {
	b, err := framework.MarshalJSON(f, framework.JSONPythonDumps)
	if err != nil {
		return framework.NullValue()
	}
	return framework.NumberValue(string(b))
}

// text is the JSON text of v (compact), for messages and keys.
func text(v framework.Value) string {
	b, err := compact(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
