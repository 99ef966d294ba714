package model_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// Dominance and the types it embeds are the fixture of TestModelRules
// (framework/internal/schema's TestReadersAgree reads the same type through
// the three readers).

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

// TestModelRules pins the resolution itself on the Dominance type:
// encoding/json's names, embedding and dominance, and what Err reports.
func TestModelRules(t *testing.T) {
	t.Parallel()
	m := model.Of(reflect.TypeFor[Dominance]())
	var names []string
	for _, f := range m.Fields {
		names = append(names, f.Name)
	}
	want := "base_only,x,p,u,Deep,name,-,Bad"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("fields %s, want %s", got, want)
	}
	if f := m.Fields[m.Lookup("p")]; !f.ViaPointer || f.Description != "through an embedded pointer" {
		t.Fatalf("p: %+v", f)
	}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct {
			A int `json:"a" required:"maybe"`
		}](), `a: invalid required tag "maybe"`},
		{reflect.TypeFor[struct {
			A int `json:"a,string"`
		}](), `A: the json ",string" option is not supported`},
		{reflect.TypeFor[struct {
			A int `json:"a" required:"true" default:"1"`
		}](), `a: a required field cannot have a default`},
		{reflect.TypeFor[struct {
			pyjson.Extra
			lax.Forbid
		}](), `more than one of pyjson.Extra / lax.Forbid embedded`},
	} {
		if err := model.Of(tc.typ).Err; err == nil || err.Error() != tc.want {
			t.Errorf("%v: Err %v, want %q", tc.typ, err, tc.want)
		}
	}
}
