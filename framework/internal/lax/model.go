package lax

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gymkit/gymkit/framework/internal/pyjson"
)

// rawField is a candidate field during resolution (encoding/json's typeFields).
type rawField struct {
	name   string
	tagged bool
	index  []int
	sf     reflect.StructField
}

// resolveModel lists the JSON fields of struct type t with encoding/json's
// rules (exported fields, json tag names, "-" skipped, embedded structs
// flattened, the shallowest / tagged field wins a name, ambiguous names
// dropped) and reads the tags that matter to validation.
func resolveModel(t reflect.Type, path string) (*Model, error) {
	model := &Model{Name: TypeName(t)}
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var (
		fields    []rawField
		current   []queued
		next      = []queued{{typ: t}}
		count     map[reflect.Type]int
		nextCount = map[reflect.Type]int{}
		visited   = map[reflect.Type]bool{}
	)
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				index := append(slices.Clip(q.index), i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if ft == extraType || ft == forbidType {
						mode, idx := ExtraForbid, []int(nil)
						if ft == extraType {
							mode, idx = ExtraAllow, index
						}
						if model.Extra != ExtraIgnore && (model.Extra != mode || mode == ExtraAllow) {
							return nil, fmt.Errorf("lax: %s: more than one of pyjson.Extra / lax.Forbid embedded", path)
						}
						model.Extra, model.ExtraIndex = mode, idx
						continue
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !isValidTag(name) {
					name = ""
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct || special(ft) != specialNone {
					if hasOpt(opts, "string") {
						return nil, fmt.Errorf("lax: %s.%s: the json \",string\" option is not supported", path, sf.Name)
					}
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					fields = append(fields, rawField{name: name, tagged: tagged, index: index, sf: sf})
					if count[q.typ] > 1 {
						// Two copies at the same depth annihilate each other.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				if sf.Type.Kind() == reflect.Pointer && !sf.IsExported() {
					return nil, fmt.Errorf("lax: %s: embedded pointer to unexported struct %v cannot be set", path, ft)
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index})
				}
			}
		}
	}

	// Dominance: sort by name, then depth, then tagged first, then index.
	slices.SortFunc(fields, func(a, b rawField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		if len(group) == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b rawField) int { return slices.Compare(a.index, b.index) })

	model.Fields = make([]Field, 0, len(out))
	for _, rf := range out {
		f := Field{Name: rf.name, GoName: rf.sf.Name, Index: rf.index, Type: rf.sf.Type, Tag: rf.sf.Tag}
		if req, ok := rf.sf.Tag.Lookup("required"); ok {
			b, err := strconv.ParseBool(req)
			if err != nil {
				return nil, fmt.Errorf("lax: %s.%s: invalid required tag %q", path, rf.name, req)
			}
			f.Required = b
		}
		if et, ok := rf.sf.Tag.Lookup("enum"); ok && et != "" {
			vals, err := parseEnumTag(et)
			if err != nil {
				return nil, fmt.Errorf("lax: %s.%s: %v", path, rf.name, err)
			}
			f.Enum = vals
		}
		if dt, ok := rf.sf.Tag.Lookup("default"); ok {
			if f.Required {
				return nil, fmt.Errorf("lax: %s.%s: a required field cannot have a default", path, rf.name)
			}
			dv, err := parseDefaultTag(dt, rf.sf.Type)
			if err != nil {
				return nil, fmt.Errorf("lax: %s.%s: invalid default tag %q: %v", path, rf.name, dt, err)
			}
			f.Default, f.HasDefault = dv, true
		}
		model.Fields = append(model.Fields, f)
	}
	return model, nil
}

// parseEnumTag reads an enum tag as swaggest does: a JSON array, else a
// comma-separated list (items not trimmed). Only strings are accepted.
func parseEnumTag(tag string) ([]string, error) {
	var arr []any
	if err := json.Unmarshal([]byte(tag), &arr); err == nil {
		vals := make([]string, len(arr))
		for i, x := range arr {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("enum tag value %v is not a string (only string enums are supported)", x)
			}
			vals[i] = s
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("empty enum tag")
		}
		return vals, nil
	}
	return strings.Split(tag, ","), nil
}

// parseDefaultTag reads a default tag as swaggest's checkInlineValue does:
// the raw text for string kinds, a Go-syntax number for numeric kinds, a
// strconv.ParseBool bool for bools, JSON for anything else.
func parseDefaultTag(tag string, t reflect.Type) (pyjson.Value, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if special(t) == specialNone {
		switch t.Kind() {
		case reflect.String:
			return pyjson.StringValue(tag), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, err := strconv.ParseInt(tag, 10, 64)
			if err != nil {
				return pyjson.Value{}, err
			}
			return pyjson.NumberValue(strconv.FormatInt(n, 10)), nil
		case reflect.Float32, reflect.Float64:
			f, err := strconv.ParseFloat(tag, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return pyjson.Value{}, fmt.Errorf("not a finite number")
			}
			return pyjson.NumberValue(strconv.FormatFloat(f, 'g', -1, 64)), nil
		case reflect.Bool:
			b, err := strconv.ParseBool(tag)
			if err != nil {
				return pyjson.Value{}, err
			}
			return pyjson.BoolValue(b), nil
		}
	}
	return pyjson.Parse([]byte(tag))
}

func hasOpt(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// isValidTag is encoding/json's check of a tag name.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
