package schema_test

// TestReadersAgree is here, beside schema, because schema is internal to
// framework: the other two readers (internal/lax, internal/pyjson) and the
// model they share (internal/model) are importable from here, schema is not
// from internal/model. The model's own rules are pinned by
// internal/model's TestModelRules.

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/internal/schema"
	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// The table of types: every field rule the model resolves.

type Inner struct {
	A string `json:"a" required:"true"`
	B int    `json:"b" default:"5"`
}

type Base struct {
	Shared   string // ties with Other.Shared at depth 2: both dropped
	BaseOnly int    `json:"base_only"`
	Deep     string // loses to Outer's tagged "Deep"? no: Outer's is untagged and shallower
}

type Other struct {
	Shared string
	X      bool `json:"x"`
}

type PtrEmb struct {
	P float64 `json:"p" description:"through an embedded pointer"`
}

type unexportedEmb struct {
	U string `json:"u"`
}

type Dominance struct {
	Base
	Other
	*PtrEmb
	unexportedEmb
	Deep    string `json:"Deep"`
	Name    string `json:"name" required:"true" description:"the name"`
	Skip    string `json:"-"`
	Dash    string `json:"-,"`
	Bad     string `json:"a\"b"` // invalid tag name: the Go name is used
	private int
}

type Tags struct {
	Kind   string         `json:"kind" enum:"red,green"`
	Level  string         `json:"level" default:"low" enum:"[\"low\",\"high\"]"`
	Count  int            `json:"count" default:"3"`
	Ratio  float64        `json:"ratio" default:"0.5"`
	On     bool           `json:"on" default:"true"`
	Opt    *int           `json:"opt"`
	Nested Inner          `json:"nested" required:"true"`
	List   []Inner        `json:"list"`
	Big    framework.Int  `json:"big"`
	BigOpt *framework.Int `json:"big_opt"`
}

type Allow struct {
	K string `json:"k"`
	pyjson.Extra
}

type Forbid struct {
	K string `json:"k" required:"true"`
	lax.Forbid
}

type Celsius float64

func (c *Celsius) UnmarshalPy(v pyjson.Value, m lax.Mode) []lax.ErrorItem {
	f, ok := v.Float()
	if !ok {
		return []lax.ErrorItem{{Type: "float_type", Msg: "Input should be a valid number", Input: v}}
	}
	*c = Celsius(f)
	return nil
}

type WithCustom struct {
	Temp Celsius `json:"temp" required:"true"`
	Any  any     `json:"any"`
	Val  pyjson.Value
}

var table = []reflect.Type{
	reflect.TypeFor[Inner](),
	reflect.TypeFor[Dominance](),
	reflect.TypeFor[Tags](),
	reflect.TypeFor[Allow](),
	reflect.TypeFor[Forbid](),
	reflect.TypeFor[WithCustom](),
}

// TestReadersAgree proves that the decoder (lax), the encoder (pyjson) and
// the schema generator (schema) read every type of the table alike: the same
// JSON names in the same order, the same required fields, defaults, enums,
// descriptions and unknown-key policy. Each reader is asked through its own
// public behaviour, not through the model.
func TestReadersAgree(t *testing.T) {
	t.Parallel()
	for _, typ := range table {
		t.Run(typ.Name(), func(t *testing.T) {
			t.Parallel()
			plan, err := lax.Compile(typ)
			if err != nil {
				t.Fatal(err)
			}
			sch := mustParse(t, must(schema.For(typ)))
			props, _ := sch.Get("properties")

			m := model.Of(typ)
			var modelNames []string
			for _, f := range m.Fields {
				modelNames = append(modelNames, f.Name)
			}
			if !slices.Equal(modelNames, keys(props)) {
				t.Fatalf("model fields %v, schema properties %v", modelNames, keys(props))
			}

			// Required: the decoder's "missing" items for {} are the
			// schema's required list.
			items := decode(plan, typ, pyjson.Value{Kind: pyjson.Object})
			var missing []string
			for _, it := range items {
				if it.Type == "missing" && len(it.Loc) == 1 {
					missing = append(missing, it.Loc[0].(string))
				}
			}
			var required []string
			if r, ok := sch.Get("required"); ok {
				for _, x := range r.Items {
					required = append(required, x.Str)
				}
			}
			if !slices.Equal(missing, required) {
				t.Fatalf("decoder missing %v, schema required %v", missing, required)
			}

			// Every property, sent with a value built from its schema, is
			// decoded into the field the encoder writes under that name.
			body := sample(t, sch)
			dst := reflect.New(typ).Elem()
			if items := plan.Decode(body, dst, lax.ModeHTTP); len(items) > 0 {
				t.Fatalf("sample %s: %s", pyjson.Repr(body), lax.RenderMCP(items))
			}
			back := mustParse(t, must(pyjson.Marshal(dst.Interface(), pyjson.Pydantic)))
			// Names and order: the encoder writes the schema's properties.
			if got, want := keys(back), keys(props); !slices.Equal(got, want) {
				t.Fatalf("encoder keys %v, schema properties %v", got, want)
			}
			for _, mem := range body.Members {
				if mem.Key == "zz_extra" {
					continue
				}
				got, _ := back.Get(mem.Key)
				if a, b := canon(t, got), canon(t, mem.Value); a != b {
					t.Errorf("field %q: sent %s, encoder wrote %s", mem.Key, b, a)
				}
			}

			// Defaults: an absent field decodes to the schema's default.
			reqOnly := pyjson.Value{Kind: pyjson.Object}
			for _, mem := range body.Members {
				if slices.Contains(required, mem.Key) {
					reqOnly.Members = append(reqOnly.Members, mem)
				}
			}
			dst = reflect.New(typ).Elem()
			if items := plan.Decode(reqOnly, dst, lax.ModeHTTP); len(items) > 0 {
				t.Fatalf("required only: %s", lax.RenderMCP(items))
			}
			back = mustParse(t, must(pyjson.Marshal(dst.Interface(), pyjson.Pydantic)))
			for _, p := range props.Members {
				ps := p.Value
				if d, ok := ps.Get("default"); ok {
					got, _ := back.Get(p.Key)
					if canon(t, got) != canon(t, d) {
						t.Errorf("field %q: schema default %s, decoder gave %s", p.Key, canon(t, d), canon(t, got))
					}
				}
				// Enums: the decoder refuses a value outside the schema's enum.
				if enum, ok := inner(ps).Get("enum"); ok {
					bad := withMember(reqOnly, p.Key, pyjson.StringValue("not-"+enum.Items[0].Str))
					if items := decode(plan, typ, bad); !hasItem(items, "literal_error", p.Key) {
						t.Errorf("field %q: schema enum %s, decoder accepted a value outside it", p.Key, canon(t, enum))
					}
				}
				// Descriptions: the tag the model reads is the schema's.
				f := m.Fields[m.Lookup(p.Key)]
				if d, _ := ps.Get("description"); d.Str != f.Description {
					t.Errorf("field %q: schema description %q, model %q", p.Key, d.Str, f.Description)
				}
			}

			// Unknown keys: forbid, allow (echoed by the encoder) or ignore.
			withExtra := withMember(body, "zz_extra", pyjson.StringValue("e"))
			dst = reflect.New(typ).Elem()
			items = plan.Decode(withExtra, dst, lax.ModeHTTP)
			ap, hasAP := sch.Get("additionalProperties")
			back = mustParse(t, must(pyjson.Marshal(dst.Interface(), pyjson.Pydantic)))
			_, echoed := back.Get("zz_extra")
			switch {
			case hasAP && !ap.Bool:
				if !hasItem(items, "extra_forbidden", "zz_extra") || m.Extra != model.ExtraForbid {
					t.Errorf("schema forbids extra keys, decoder gave %v", items)
				}
			case hasAP && ap.Bool:
				if len(items) > 0 || !echoed || m.Extra != model.ExtraAllow {
					t.Errorf("schema allows extra keys: decoder items %v, encoder echoed %v", items, echoed)
				}
			default:
				if len(items) > 0 || echoed || m.Extra != model.ExtraIgnore {
					t.Errorf("schema ignores extra keys: decoder items %v, encoder echoed %v", items, echoed)
				}
			}
		})
	}
}

func decode(plan *lax.Plan, typ reflect.Type, v pyjson.Value) []lax.ErrorItem {
	return plan.Decode(v, reflect.New(typ).Elem(), lax.ModeHTTP)
}

func hasItem(items []lax.ErrorItem, typ, key string) bool {
	for _, it := range items {
		if it.Type == typ && len(it.Loc) == 1 && it.Loc[0] == key {
			return true
		}
	}
	return false
}

func withMember(v pyjson.Value, key string, x pyjson.Value) pyjson.Value {
	ms := slices.Clone(v.Members)
	for i := range ms {
		if ms[i].Key == key {
			ms[i].Value = x
			return pyjson.ObjectValue(ms...)
		}
	}
	return pyjson.ObjectValue(append(ms, pyjson.Member{Key: key, Value: x})...)
}

// inner is the non-null branch of an Optional's anyOf, else s.
func inner(s pyjson.Value) pyjson.Value {
	if any, ok := s.Get("anyOf"); ok {
		return any.Items[0]
	}
	return s
}

// sample builds a value that the schema s accepts, with non-zero values so
// that a field decoded into the wrong place shows.
func sample(t *testing.T, s pyjson.Value) pyjson.Value {
	s = inner(s)
	if enum, ok := s.Get("enum"); ok {
		return enum.Items[len(enum.Items)-1]
	}
	typ, _ := s.Get("type")
	switch typ.Str {
	case "string":
		return pyjson.StringValue("s")
	case "integer":
		return pyjson.NumberValue("7")
	case "number":
		return pyjson.NumberValue("2.5")
	case "boolean":
		return pyjson.BoolValue(true)
	case "array":
		items, _ := s.Get("items")
		return pyjson.ArrayValue(sample(t, items))
	case "object":
		props, _ := s.Get("properties")
		out := pyjson.Value{Kind: pyjson.Object}
		for _, p := range props.Members {
			out.Members = append(out.Members, pyjson.Member{Key: p.Key, Value: sample(t, p.Value)})
		}
		return out
	case "":
		return pyjson.NumberValue("1.25") // Any, or a custom type without a type
	}
	t.Fatalf("no sample for schema %s", pyjson.Repr(s))
	return pyjson.Value{}
}

func keys(v pyjson.Value) []string {
	var out []string
	for _, m := range v.Members {
		out = append(out, m.Key)
	}
	return out
}

func canon(t *testing.T, v pyjson.Value) string {
	return string(must(pyjson.AppendValue(nil, &v, pyjson.Pydantic)))
}

func mustParse(t *testing.T, b []byte) pyjson.Value {
	t.Helper()
	v, err := pyjson.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func must[T any](x T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return x
}
