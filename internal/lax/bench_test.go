package lax

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gymkit/gymkit/internal/pyjson"
)

type benchReq struct {
	City    string   `json:"city" required:"true"`
	Days    int      `json:"days"`
	Metric  bool     `json:"metric"`
	Lat     float64  `json:"lat"`
	Tags    []string `json:"tags"`
	Comment *string  `json:"comment"`
}

var benchBody = []byte(`{"city":"Paris","days":3,"metric":true,"lat":48.8566,"tags":["a","b"],"comment":null}`)

// BenchmarkDecode compares the lax decoder (on an already parsed Value, and
// including pyjson.Parse) with encoding/json.Unmarshal of the same body.
func BenchmarkDecode(b *testing.B) {
	v, err := pyjson.Parse(benchBody)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := Compile(reflect.TypeFor[benchReq]())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("lax.Decode", func(b *testing.B) {
		b.ReportAllocs()
		var dst benchReq
		rv := reflect.ValueOf(&dst).Elem()
		for b.Loop() {
			dst = benchReq{}
			if items := plan.Decode(v, rv, ModeHTTP); items != nil {
				b.Fatal(items)
			}
		}
	})
	b.Run("lax.DecodeInto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, items := DecodeInto[benchReq](v, ModeHTTP); items != nil {
				b.Fatal(items)
			}
		}
	})
	b.Run("pyjson.Parse+lax.DecodeInto", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchBody)))
		for b.Loop() {
			pv, err := pyjson.Parse(benchBody)
			if err != nil {
				b.Fatal(err)
			}
			if _, items := DecodeInto[benchReq](pv, ModeHTTP); items != nil {
				b.Fatal(items)
			}
		}
	})
	b.Run("encoding/json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchBody)))
		for b.Loop() {
			var dst benchReq
			if err := json.Unmarshal(benchBody, &dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lax.DecodeInto-4-errors", func(b *testing.B) {
		bad, _ := pyjson.Parse([]byte(`{"days":"x","metric":2,"tags":[1]}`))
		b.ReportAllocs()
		for b.Loop() {
			if _, items := DecodeInto[benchReq](bad, ModeHTTP); len(items) != 4 {
				b.Fatal(items)
			}
		}
	})
}
