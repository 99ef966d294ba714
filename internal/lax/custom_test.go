package lax

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/model"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// decimalDecoder is a self-validating interface of another shape than
// Unmarshaler, plugged in with RegisterCustom as the framework's public one
// will be.
type decimalDecoder interface {
	DecodeDecimal(v pyjson.Value) (msg string)
}

// Decimal keeps a decimal number as text: "1.50" or 1.5 are accepted.
type Decimal struct{ Text string }

func (d *Decimal) DecodeDecimal(v pyjson.Value) string {
	if v.Kind != pyjson.String && v.Kind != pyjson.Number {
		return "Decimal input should be an integer, float, string or Decimal object"
	}
	d.Text = v.Str
	return ""
}

func init() {
	RegisterCustom(reflect.TypeFor[decimalDecoder](), func(ptr any, v pyjson.Value, _ Mode) []ErrorItem {
		if msg := ptr.(decimalDecoder).DecodeDecimal(v); msg != "" {
			return []ErrorItem{{Type: "decimal_type", Msg: msg, Input: v}}
		}
		return nil
	})
}

type Price struct {
	Base   Decimal   `json:"Decimal"`
	Amount Decimal   `json:"amount" required:"true"`
	More   []Decimal `json:"more"`
}

// Wrapped embeds a custom type: Go promotes DecodeDecimal, so Wrapped is a
// custom type itself (for the model, lax and the schema alike).
type Wrapped struct {
	Decimal
	Note string `json:"note"`
}

func TestRegisterCustom(t *testing.T) {
	t.Parallel()
	m := model.Of(reflect.TypeFor[Price]())
	if len(m.Fields) != 3 || m.Fields[0].Name != "Decimal" || !model.IsCustom(reflect.TypeFor[Decimal]()) ||
		!model.IsCustom(reflect.TypeFor[Wrapped]()) || model.IsCustom(reflect.TypeFor[Price]()) {
		t.Fatalf("model %+v", m.Fields)
	}
	if w := decodeOK[Wrapped](t, `"9.5"`, ModeHTTP); w.Text != "9.5" {
		t.Fatalf("Wrapped %+v", w)
	}
	body := `{"amount": "1.50", "more": [2.25, "3"], "Decimal": 7}`
	got := decodeOK[Price](t, body, ModeHTTP)
	if got.Amount.Text != "1.50" || len(got.More) != 2 || got.More[0].Text != "2.25" || got.Base.Text != "7" {
		t.Fatalf("got %+v", got)
	}
	if !checkStream(t, reflect.TypeFor[Price](), []byte(body), ModeMCP) {
		t.Fatal("the streaming decoder gave up on valid custom fields")
	}
	items := decodeErr[Price](t, `{"amount": [1], "more": [null]}`, ModeHTTP)
	if !strings.Contains(items, `"loc": ["amount"]`) || !strings.Contains(items, `"loc": ["more", 0]`) ||
		strings.Count(items, `"type": "decimal_type"`) != 2 {
		t.Fatalf("items %s", items)
	}
}
