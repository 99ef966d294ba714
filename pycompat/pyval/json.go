package pyval

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/pycompat"
)

// normalize returns v as one of the canonical object types: a
// framework.Value becomes new Lists and Dicts, a Go integer an int (or a
// *big.Int beyond int's range), a float32 a float64; canonical and opaque
// objects are returned as they are.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, int, float64, string, *List, *Dict:
		return v
	case framework.Value:
		return FromValue(x)
	case *framework.Value:
		if x == nil {
			return nil
		}
		return FromValue(*x)
	case float32:
		return float64(x)
	case *big.Int:
		if x == nil {
			return v
		}
		return bigObject(new(big.Int).Set(x))
	}
	if n, ok := toNumber(v); ok {
		return n.object()
	}
	return v
}

// FromValue returns the object json.loads builds for v, as new mutable
// objects: null is nil, a bool a bool, a Number an int (or *big.Int) when
// its literal is an integer and a float64 otherwise (NaN and Infinity
// included), a string a string, an array a *List, an object a *Dict (a
// duplicated key keeps its first place and its last value, as json.loads).
func FromValue(v framework.Value) any {
	switch v.Kind {
	case framework.KindNull:
		return nil
	case framework.KindBool:
		return v.Bool
	case framework.KindString:
		return v.Str
	case framework.KindNumber:
		n, ok := valueNumber(&v)
		if !ok {
			return nil
		}
		return n.object()
	case framework.KindArray:
		l := &List{items: make([]any, len(v.Items))}
		for i := range v.Items {
			l.items[i] = FromValue(v.Items[i])
		}
		return l
	case framework.KindObject:
		d := &Dict{}
		for i := range v.Members {
			d.Set(v.Members[i].Key, FromValue(v.Members[i].Value))
		}
		return d
	}
	return nil
}

// ToValue returns v as a framework.Value, the tree gymkit's encoders write
// (a response field of type framework.Value is written in each door's own
// JSON forms). An opaque object is Python's TypeError("Object of type
// time.Time is not JSON serializable"), a list or dict that holds itself
// ValueError("Circular reference detected").
func ToValue(v any) (framework.Value, error) { return toValue(v, nil) }

func toValue(v any, path []any) (framework.Value, error) {
	switch x := v.(type) {
	case framework.Value:
		return x, nil
	case *framework.Value:
		if x == nil {
			return framework.NullValue(), nil
		}
		return *x, nil
	case nil:
		return framework.NullValue(), nil
	case bool:
		return framework.BoolValue(x), nil
	case string:
		return framework.StringValue(x), nil
	case *List, *Dict:
		if slices.Contains(path, v) {
			return framework.Value{}, pycompat.ValueError("Circular reference detected")
		}
		path = append(path, v)
		if l, ok := x.(*List); ok {
			items := make([]framework.Value, l.Len())
			for i := range items {
				var err error
				if items[i], err = toValue(l.items[i], path); err != nil {
					return framework.Value{}, err
				}
			}
			return framework.ArrayValue(items...), nil
		}
		d := x.(*Dict)
		members := make([]framework.Member, 0, d.Len())
		for k, val := range d.All() {
			mv, err := toValue(val, path)
			if err != nil {
				return framework.Value{}, err
			}
			members = append(members, framework.Member{Key: k, Value: mv})
		}
		return framework.ObjectValue(members...), nil
	}
	if n, ok := toNumber(v); ok {
		switch {
		case n.kind == 'f':
			return FloatValue(n.f), nil
		case n.kind == 'b':
			return framework.BoolValue(n.i != 0), nil
		case n.big != nil:
			return framework.NumberValue(n.big.String()), nil
		}
		return framework.NumberValue(strconv.FormatInt(n.i, 10)), nil
	}
	return framework.Value{}, pycompat.TypeError("Object of type " + TypeName(v) + " is not JSON serializable")
}

// floatText is Python's repr of a float as json.dumps writes it (1.0,
// 1e-05, NaN, Infinity), from framework's one float formatter.
func floatText(f float64) string {
	b, _ := framework.MarshalJSON(f, framework.JSONPythonDumps)
	return string(b)
}

// FloatValue returns f as a framework.Value that json.loads reads as that
// float: a Number whose literal is a float literal that parses back to f
// exactly (Go's shortest %g form with ".0" added where it has neither '.'
// nor exponent: 3.0, 0.5, 1e+16, 1.23456789e+08), or NaN, Infinity,
// -Infinity. gymkit's encoders, Repr and Dumps write it in Python's forms
// (123456789.0), so only a reader of the literal itself sees the %g form.
// It costs one allocation.
func FloatValue(f float64) framework.Value {
	switch {
	case math.IsNaN(f):
		return framework.NumberValue("NaN")
	case math.IsInf(f, 1):
		return framework.NumberValue("Infinity")
	case math.IsInf(f, -1):
		return framework.NumberValue("-Infinity")
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'g', -1, 64)
	if !bytes.ContainsAny(b, ".e") {
		b = append(b, '.', '0')
	}
	return framework.NumberValue(string(b))
}

// Loads returns json.loads(data): the object the JSON text stands for, as
// FromValue builds it. The errors are framework.ParseJSON's (a syntax
// error with CPython's message and position, invalid
// UTF-8, nesting deeper than 1000, an integer of more than 4300 digits).
func Loads[T ~string | ~[]byte](data T) (any, error) {
	v, err := framework.ParseJSON([]byte(data))
	if err != nil {
		return nil, err
	}
	return FromValue(v), nil
}

// DumpOptions are json.dumps' keyword arguments; the zero DumpOptions is
// json.dumps' defaults.
type DumpOptions struct {
	// Indent is the text of one indentation level ("  " for indent=2):
	// members and items on their own lines. "" is indent=None, one line
	// (Python's indent=0, new lines without indentation, cannot be
	// spelled).
	Indent string
	// Separators are the item and key separators; the zero value is
	// Python's default, ", " and ": " on one line, "," and ": " with
	// Indent. [2]string{",", ":"} is the compact form.
	Separators [2]string
	// SortKeys sorts every dict's keys (sort_keys=True).
	SortKeys bool
	// NoASCII writes non-ASCII characters as they are (ensure_ascii=False)
	// instead of \uXXXX escapes.
	NoASCII bool
}

// Dumps returns json.dumps(v, ...) with the options: floats in Python's
// repr (1.0, 1e-05), NaN and infinities as NaN, Infinity, -Infinity (as
// allow_nan=True), ints of any size, dict keys in order. Its errors are
// ToValue's.
func Dumps(v any, o DumpOptions) (string, error) {
	tree, err := ToValue(v)
	if err != nil {
		return "", err
	}
	if o == (DumpOptions{}) {
		b, err := framework.MarshalJSON(tree, framework.JSONPythonDumps)
		return string(b), err
	}
	item, key := o.Separators[0], o.Separators[1]
	if o.Separators == ([2]string{}) {
		item, key = ", ", ": "
		if o.Indent != "" {
			item = ","
		}
	}
	var b strings.Builder
	w := dumper{b: &b, o: o, item: item, key: key}
	if err := w.value(&tree, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

type dumper struct {
	b         *strings.Builder
	o         DumpOptions
	item, key string
}

func (w *dumper) newline(depth int) {
	if w.o.Indent == "" {
		return
	}
	w.b.WriteByte('\n')
	for range depth {
		w.b.WriteString(w.o.Indent)
	}
}

func (w *dumper) scalar(v any) error {
	style := framework.JSONPythonDumps
	if w.o.NoASCII {
		if s, ok := v.(string); ok {
			b, err := framework.MarshalJSON(s, framework.JSONPython)
			w.b.Write(b)
			return err
		}
	}
	b, err := framework.MarshalJSON(v, style)
	w.b.Write(b)
	return err
}

func (w *dumper) value(v *framework.Value, depth int) error {
	switch v.Kind {
	case framework.KindString:
		return w.scalar(v.Str)
	case framework.KindArray:
		if len(v.Items) == 0 {
			w.b.WriteString("[]")
			return nil
		}
		w.b.WriteByte('[')
		for i := range v.Items {
			if i > 0 {
				w.b.WriteString(w.item)
			}
			w.newline(depth + 1)
			if err := w.value(&v.Items[i], depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.b.WriteByte(']')
		return nil
	case framework.KindObject:
		if len(v.Members) == 0 {
			w.b.WriteString("{}")
			return nil
		}
		members := v.Members
		if w.o.SortKeys {
			members = slices.Clone(members)
			slices.SortStableFunc(members, func(a, b framework.Member) int { return strings.Compare(a.Key, b.Key) })
		}
		w.b.WriteByte('{')
		for i := range members {
			if i > 0 {
				w.b.WriteString(w.item)
			}
			w.newline(depth + 1)
			if err := w.scalar(members[i].Key); err != nil {
				return err
			}
			w.b.WriteString(w.key)
			if err := w.value(&members[i].Value, depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.b.WriteByte('}')
		return nil
	}
	return w.scalar(*v)
}

// DeepCopy returns copy.deepcopy(v): new Lists and Dicts all the way down
// (a list or dict that holds itself is copied with the same shape), other
// objects as they are.
func DeepCopy(v any) any {
	return deepCopy(v, map[any]any{})
}

func deepCopy(v any, seen map[any]any) any {
	switch x := v.(type) {
	case *List:
		if c, ok := seen[x]; ok {
			return c
		}
		c := &List{items: make([]any, x.Len())}
		seen[x] = c
		for i := range c.items {
			c.items[i] = deepCopy(x.items[i], seen)
		}
		return c
	case *Dict:
		if c, ok := seen[x]; ok {
			return c
		}
		c := &Dict{}
		seen[x] = c
		for k, val := range x.All() {
			c.Set(k, deepCopy(val, seen))
		}
		return c
	case framework.Value:
		return FromValue(x)
	}
	return normalize(v)
}

// marshal is MarshalJSON of a List or Dict.
func marshal(v any) ([]byte, error) {
	tree, err := ToValue(v)
	if err != nil {
		return nil, err
	}
	return framework.MarshalJSON(tree, framework.JSONPython)
}

// parseKind parses data as JSON of kind k, for UnmarshalJSON.
func parseKind(data []byte, typ string, k framework.Kind) (framework.Value, error) {
	v, err := framework.ParseJSON(data)
	if err != nil {
		return framework.Value{}, err
	}
	if v.Kind != k {
		return framework.Value{}, errors.New("pyval: a " + typ + " is read from a JSON " + map[framework.Kind]string{framework.KindArray: "array", framework.KindObject: "object"}[k] + ", not a " + TypeName(v))
	}
	return v, nil
}
