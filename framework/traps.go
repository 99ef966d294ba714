package framework

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Build-time refusals of request and response types that would compile but
// silently answer differently from the Python server they stand for. Each
// error names the type, the field and the fix.

// checkEnums refuses, anywhere in request type t, a string field with an
// `enum` tag that is neither `required:"true"` nor has a `default` tag and
// is not a pointer: an absent key leaves "", which is none of the values,
// and the tool would receive it unchecked. pydantic's Literal["a","b"]
// without a default is required, so the Python server answers 422 there.
func checkEnums(t reflect.Type) error {
	return walkStructs(t, map[reflect.Type]bool{}, func(s *model.Struct) error {
		for _, f := range s.Fields {
			if f.Enum == nil || f.Required || f.HasDefault || f.Type.Kind() == reflect.Pointer {
				continue
			}
			return fmt.Errorf("request type %v: field %s (%q) has an enum tag but is neither required:\"true\" nor has a default tag: "+
				"an absent key would reach the tool as \"\", which is none of %q (pydantic's Literal without a default is required); "+
				"add required:\"true\", a default:\"<one of them>\" tag, or make it a *%v (absent is nil)",
				s.Type, f.GoName, f.Name, f.Enum, f.Type)
		}
		return nil
	})
}

// walkStructs calls fn on the model of every struct type reachable from t
// through pointers, slices, maps and fields (custom field types are
// opaque), once each.
func walkStructs(t reflect.Type, seen map[reflect.Type]bool, fn func(*model.Struct) error) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || model.IsCustom(t) {
		return nil
	}
	seen[t] = true
	s := model.Of(t)
	if err := fn(s); err != nil {
		return err
	}
	for _, f := range s.Fields {
		if err := walkStructs(f.Type, seen, fn); err != nil {
			return err
		}
	}
	return nil
}

var verifyResponseType = reflect.TypeFor[VerifyResponse]()

// checkVerifyFirst refuses a verify response type t that embeds
// VerifyResponse after a field of its own: NeMo's answer is the subclass
// of BaseVerifyResponse, whose keys come first (responses_create_params,
// response, reward, then the subclass's), and the encoder writes fields in
// declaration order.
func checkVerifyFirst(t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == verifyResponseType {
		return nil
	}
	path := t.String()
	for cur := t; cur != verifyResponseType; {
		idx := -1
		for i := range cur.NumField() {
			sf := cur.Field(i)
			if sf.Anonymous && embedsVerifyResponse(sf.Type) {
				idx = i
				break
			}
		}
		if idx < 0 {
			return nil // the method comes from elsewhere (a pointer embedding); nothing to reorder here
		}
		emb := cur.Field(idx)
		path += "." + emb.Name
		for i := range idx {
			if sf := cur.Field(i); encoded(sf) {
				return fmt.Errorf("verify response type %v: %s (embedding framework.VerifyResponse) comes after the field %s: "+
					"the answer's keys would not start with responses_create_params, response, reward (NeMo's order, the subclass's fields after them); "+
					"embed it as the first field", t, path, sf.Name)
			}
		}
		sf := emb
		cur = sf.Type
		for cur.Kind() == reflect.Pointer {
			cur = cur.Elem()
		}
	}
	return nil
}

// embedsVerifyResponse reports whether t is VerifyResponse or a struct
// embedding it at some depth.
func embedsVerifyResponse(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == verifyResponseType {
		return true
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if sf := t.Field(i); sf.Anonymous && embedsVerifyResponse(sf.Type) {
			return true
		}
	}
	return false
}

// encoded reports whether struct field sf is written by the encoder (an
// exported or embedded field not tagged json:"-").
func encoded(sf reflect.StructField) bool {
	if sf.Tag.Get("json") == "-" {
		return false
	}
	return sf.IsExported() || sf.Anonymous
}

// titled replaces the top-level "title" of schema in with title. It is
// used for anonymous request structs, which have no class name: their
// schema would otherwise be titled with the Go type's text ("struct {}").
func titled(in []byte, title string) ([]byte, error) {
	v, err := pyjson.Parse(in)
	if err != nil || v.Kind != pyjson.Object {
		return in, err
	}
	ms := make([]pyjson.Member, len(v.Members))
	copy(ms, v.Members)
	for i := range ms {
		if ms[i].Key == "title" {
			ms[i].Value = pyjson.StringValue(title)
		}
	}
	return pyjson.Marshal(pyjson.ObjectValue(ms...), pyjson.Pydantic)
}

// requestTitle is the schema title of an anonymous request struct of the
// tool name: its words capitalised, then "Request" (get_weather ->
// GetWeatherRequest), the name a Python server's model would have.
func requestTitle(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		if r == '_' || r == '-' || r == '.' || r == '/' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteString("Request")
	return b.String()
}
