package pymodel

import (
	"testing"

	"github.com/gymkit/gymkit/internal/lax"
	"github.com/gymkit/gymkit/internal/pyjson"
)

// FuzzValidate feeds arbitrary JSON to both root models: Validate must not
// panic, must return either a dump or items (never both, never neither), the
// dump must be writable as JSON and the items renderable as FastAPI's 422.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{"input":"hi"}`,
		`{"input":[{"role":"user","content":"hi"}],"tools":[{"type":"function","name":"f","parameters":{}}],"tool_choice":{"type":"function","name":"f"}}`,
		`{"id":"r","created_at":0,"model":"m","object":"response","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]}`,
		`{"id":"r","created_at":"1.5","model":"m","object":"response","output":[{"type":"function_call_output","call_id":"c","output":"o","id":null,"status":null},{"type":"bogus"},{"text":"x"}],"parallel_tool_calls":"yes","tool_choice":"none","tools":[]}`,
		`{"id":"r","created_at":0,"model":"m","object":"response","output":[{"type":"function_call","name":"f","arguments":"{}","call_id":"c","prompt_token_ids":[1,"2"],"generation_token_ids":[3.0],"generation_log_probs":[NaN,1e400]}],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":null}`,
		`[]`, `null`, `{"input":null,"stream":false,"extra":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := pyjson.Parse(data)
		if err != nil {
			return
		}
		for _, model := range []string{"NeMoGymResponseCreateParamsNonStreaming", "NeMoGymResponse"} {
			for _, mode := range []lax.Mode{lax.ModeHTTP, lax.ModeMCP} {
				dump, items := Validate(model, v, mode)
				if (items == nil) == (dump.Kind == pyjson.Null) {
					t.Fatalf("%s: dump %v and items %v", model, dump.Kind, items)
				}
				if items != nil {
					_ = lax.RenderHTTP(items)
					continue
				}
				if dump.Kind != pyjson.Object {
					t.Fatalf("%s: dump of kind %v", model, dump.Kind)
				}
				if _, err := pyjson.AppendValue(nil, &dump, pyjson.Pydantic); err != nil {
					t.Fatalf("%s: dump not writable: %v", model, err)
				}
			}
		}
	})
}
