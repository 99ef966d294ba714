package pymodel

import (
	"testing"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

func TestTypeName(t *testing.T) {
	for _, c := range []struct {
		typ  *Type
		want string
	}{
		{Union(Str(), List(Int())), "union[str,list[int]]"},
		{Dict(Str()), "dict[str,str]"},
		{Nullable(Float()), "nullable[float]"},
		{Literal(`"a"`, `"b"`), "literal['a','b']"},
		{Literal(`false`), "literal[False]"},
		{Before("f", Bool()), "function-before[f(), bool]"},
		{Any(), "any"},
	} {
		if got := c.typ.Name(); got != c.want {
			t.Errorf("Name() = %q, want %q", got, c.want)
		}
	}
	if got := Lookup("openai__types__responses__tool_param__Mcp").ClassName(); got != "Mcp" {
		t.Errorf("ClassName = %q", got)
	}
}

func mustParse(t *testing.T, s string) pyjson.Value {
	t.Helper()
	v, err := pyjson.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func dumpOf(t *testing.T, model, in string) string {
	t.Helper()
	d, items := Validate(model, mustParse(t, in), lax.ModeHTTP)
	if items != nil {
		t.Fatalf("%s: %s", in, lax.RenderHTTP(items))
	}
	b, err := pyjson.AppendValue(nil, &d, pyjson.Pydantic)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Smart mode: the member with the most fields set wins (the ForTraining
// variant over the plain item when the token fields are there); lax
// coercions apply inside members; TypedDicts keep only the keys given, in
// field order.
func TestSmartUnion(t *testing.T) {
	resp := func(item string) string {
		return `{"id":"r","created_at":1,"model":"m","object":"response","output":[` + item + `],"parallel_tool_calls":"true","tool_choice":"auto","tools":[]}`
	}
	got := dumpOf(t, "NeMoGymResponse", resp(`{"type":"function_call","name":"f","arguments":"{}","call_id":"c"}`))
	if want := `"output":[{"arguments":"{}","call_id":"c","name":"f","type":"function_call","id":null,"status":null}],"parallel_tool_calls":true,`; !contains(got, want) {
		t.Errorf("plain call:\n got %s\nwant %s", got, want)
	}
	got = dumpOf(t, "NeMoGymResponse", resp(`{"type":"function_call","name":"f","arguments":"{}","call_id":"c","prompt_token_ids":["1"],"generation_token_ids":[2.0],"generation_log_probs":[3]}`))
	if want := `{"prompt_token_ids":[1],"generation_token_ids":[2],"generation_log_probs":[3.0],"routed_experts":null,"arguments":"{}"`; !contains(got, want) {
		t.Errorf("training call:\n got %s\nwant %s", got, want)
	}
	if want := `"created_at":1.0,`; !contains(got, want) {
		t.Errorf("created_at: %s", got)
	}
	got = dumpOf(t, "NeMoGymResponseCreateParamsNonStreaming", `{"input":"x","tools":[{"type":"function","strict":false,"name":"f","parameters":null}],"tool_choice":{"type":"function","name":"f"}}`)
	if want := `"tool_choice":{"name":"f","type":"function"},"tools":[{"name":"f","parameters":null,"strict":false,"type":"function"}]`; !contains(got, want) {
		t.Errorf("typed dicts:\n got %s\nwant %s", got, want)
	}
}

func TestExtraForbidden(t *testing.T) {
	_, items := Validate("NeMoGymResponseCreateParamsNonStreaming", mustParse(t, `{"input":"x","bogus":1,"stream":true}`), lax.ModeHTTP)
	want := `{"detail":[{"type":"literal_error","loc":["body","stream"],"msg":"Input should be False","input":true,"ctx":{"expected":"False"}},{"type":"extra_forbidden","loc":["body","bogus"],"msg":"Extra inputs are not permitted","input":1}]}`
	if got := string(lax.RenderHTTP(items)); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	_, items = Validate("NeMoGymResponse", mustParse(t, `[]`), lax.ModeMCP)
	if len(items) != 1 || items[0].Type != lax.TypeModelType || items[0].Msg != "Input should be a valid dictionary or instance of NeMoGymResponse" {
		t.Errorf("MCP mode: %+v", items)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
