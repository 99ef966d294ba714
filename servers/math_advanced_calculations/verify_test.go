package mathadvancedcalculations_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/server/servertest"
	mac "github.com/gymkit/gymkit/servers/math_advanced_calculations"
)

// datasetPath is the shared example data, read in place.
var datasetPath = filepath.Join("..", "..", "..", "shared", "data", "nemo-gym", "math_advanced_calculations", "example.jsonl")

// replay is one line of testdata/replays.jsonl: the tool calls a correct
// rollout makes for a dataset row, in dependency order. An argument "$k" is
// the solution of call k, passed on as a model would (its JSON number).
type replay struct {
	ID    int `json:"id"`
	Calls []struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	} `json:"calls"`
}

func responseWith(output []any) map[string]any {
	return map[string]any{"id": "resp_1", "created_at": 1.0, "model": "m", "object": "response", "output": output,
		"parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}}
}

// run executes the replay over HTTP and returns the response.output items
// (function_call and function_call_output pairs, then a final message) and
// the solutions. With mutate, the first literal argument is increased by 1.
func (r replay) run(t *testing.T, ro *servertest.Rollout, mutate bool) ([]any, []json.RawMessage) {
	t.Helper()
	var output []any
	var sols []json.RawMessage
	for i, c := range r.Calls {
		// Arguments in the order a, b, radians, base for readable bodies.
		var parts []string
		for _, k := range []string{"a", "b", "radians", "base"} {
			v, ok := c.Arguments[k]
			if !ok {
				continue
			}
			if s, ref := strings.CutPrefix(string(v), `"$`); ref {
				n, _ := strconv.Atoi(strings.TrimSuffix(s, `"`))
				v = sols[n]
			} else if mutate {
				f, _ := strconv.ParseFloat(string(v), 64)
				v, mutate = json.RawMessage(strconv.FormatFloat(f+1, 'g', -1, 64)), false
			}
			parts = append(parts, strconv.Quote(k)+":"+string(v))
		}
		args := "{" + strings.Join(parts, ",") + "}"
		res := ro.Post("/"+c.Name, args)
		if res.Status != 200 {
			t.Fatalf("call %d %s %s: %d %s", i, c.Name, args, res.Status, res.Body)
		}
		var body struct {
			Solution json.RawMessage `json:"solution"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil {
			t.Fatal(err)
		}
		sols = append(sols, body.Solution)
		id := fmt.Sprintf("call_%d", i)
		output = append(output,
			map[string]any{"type": "function_call", "name": c.Name, "arguments": args, "call_id": id, "id": "fc_" + id, "status": "completed"},
			map[string]any{"type": "function_call_output", "call_id": id, "output": string(res.Body)})
	}
	output = append(output, map[string]any{"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}})
	return output, sols
}

// TestExampleRows replays the five example rows with the calls their prompts
// ask for (reward 1.0) and with one argument changed (reward 0.0). With the
// pure-Go floats, rows 0 and 1 cannot reach 1.0 (small-servers.md 3.4).
func TestExampleRows(t *testing.T) {
	t.Parallel()
	rows := readJSONL[map[string]json.RawMessage](t, datasetPath)
	replays := readJSONL[replay](t, filepath.Join("testdata", "replays.jsonl"))
	if len(rows) != 5 || len(replays) != 5 {
		t.Fatalf("%d rows, %d replays; want 5 and 5", len(rows), len(replays))
	}
	ts := newServer(t)
	for _, rp := range replays {
		for _, mutate := range []bool{false, true} {
			t.Run(fmt.Sprintf("row%d/changed=%v", rp.ID, mutate), func(t *testing.T) {
				t.Parallel()
				ro := ts.Rollout()
				row := rows[rp.ID]
				if res := ro.Post("/seed_session", row); res.Status != 200 || string(res.Body) != "{}" {
					t.Fatalf("seed: %d %s", res.Status, res.Body)
				}
				output, _ := rp.run(t, ro, mutate)
				body := map[string]any{}
				for k, v := range row {
					body[k] = v
				}
				body["response"] = responseWith(output)
				res := ro.Post("/verify", body)
				if res.Status != 200 {
					t.Fatalf("verify: %d %s", res.Status, res.Body)
				}
				var out map[string]json.RawMessage
				if err := json.Unmarshal(res.Body, &out); err != nil {
					t.Fatal(err)
				}
				if len(out) != 3 || out["responses_create_params"] == nil || out["response"] == nil {
					t.Errorf("verify answer keys: %s", res.Body)
				}
				want := "1.0"
				if mutate || (!mac.Exact && rp.ID <= 1) {
					want = "0.0"
				}
				if got := string(out["reward"]); got != want {
					t.Errorf("reward %s, want %s", got, want)
				}
			})
		}
	}
}

// TestGroundTruthFloats checks the 15 ground truths of small-servers.md 3.4
// bit for bit: every value the replays produce that the row expects. With
// the pure-Go floats, the two known 1-ulp differences are asserted instead.
func TestGroundTruthFloats(t *testing.T) {
	t.Parallel()
	rows := readJSONL[struct {
		GroundTruth string `json:"ground_truth"`
	}](t, datasetPath)
	replays := readJSONL[replay](t, filepath.Join("testdata", "replays.jsonl"))
	// The pure-Go results of the two ground truths Go's math misses.
	pureGo := map[string]string{
		"0.28366218546322625": "0.2836621854632263",
		"0.7439993082085593":  "0.7439993082085592",
	}
	ts := newServer(t)
	n := 0
	for _, rp := range replays {
		_, sols := rp.run(t, ts.Rollout(), false)
		got := map[string]bool{}
		for _, s := range sols {
			got[string(s)] = true
		}
		var truths []json.Number
		dec := json.NewDecoder(strings.NewReader(rows[rp.ID].GroundTruth))
		dec.UseNumber()
		if err := dec.Decode(&truths); err != nil {
			t.Fatal(err)
		}
		for _, gt := range truths {
			n++
			want := string(gt)
			if alt, ok := pureGo[want]; ok && !mac.Exact {
				want = alt
			}
			if !got[want] {
				t.Errorf("row %d: ground truth %s (want %s) not among the solutions %s", rp.ID, gt, want, sols)
			}
		}
	}
	if n != 15 {
		t.Errorf("%d ground truths, want 15", n)
	}
}

// TestVerify covers the reward rules and verify's errors (small-servers.md 3.3).
func TestVerify(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	fco := func(output any) map[string]any {
		return map[string]any{"type": "function_call_output", "call_id": "c", "output": output}
	}
	sol := func(x string) map[string]any { return fco(`{"solution":` + x + `}`) }
	cases := []struct {
		name        string
		groundTruth any
		output      []any
		status      int
		want        string // the reward, or the whole body for errors
	}{
		{"all found", "[4.2, 9.9]", []any{sol("9.9"), sol("4.2")}, 200, "1.0"},
		{"one missing", "[4.2, 9.9]", []any{sol("4.2")}, 200, "0.0"},
		{"extra outputs and repeats", "[4.2, 4.2]", []any{sol("1.0"), sol("4.2"), sol("2.0")}, 200, "1.0"},
		{"empty list", "[]", nil, 200, "1.0"},
		{"int equals float", "[3]", []any{sol("3.0")}, 200, "1.0"},
		{"big int exact", "[9007199254740993]", []any{sol("9007199254740992.0")}, 200, "0.0"},
		{"big int equal", "[100000000000000000000]", []any{sol("1e20")}, 200, "1.0"},
		{"zero signs", "[0.0]", []any{sol("-0.0")}, 200, "1.0"},
		{"nan never matches", "[NaN]", []any{sol(`"nan"`)}, 200, "0.0"},
		{"inf from a string", "[Infinity]", []any{sol(`"inf"`)}, 200, "1.0"},
		{"solution as a string", "[1.5]", []any{sol(`" 1.5 "`)}, 200, "1.0"},
		{"solution with underscores", "[1000]", []any{sol(`"1_000"`)}, 200, "1.0"},
		{"solution with bad underscores", "[1000]", []any{sol(`"1__000"`)}, 200, "0.0"},
		{"solution hex is not a float", "[16]", []any{sol(`"0x10"`)}, 200, "0.0"},
		{"solution in Arabic-Indic digits", "[12]", []any{sol(`"١٢"`)}, 200, "1.0"},
		{"solution as a bool", "[1]", []any{sol("true")}, 200, "1.0"},
		{"bool ground truth", "[false]", []any{sol("0.0")}, 200, "1.0"},
		{"null solution is None", "[null]", []any{sol("null")}, 200, "1.0"},
		{"error detail is None", "[null]", []any{fco(`{"detail":"float division by zero"}`)}, 200, "1.0"},
		{"null does not match a float", "[null]", []any{sol("1.0")}, 200, "0.0"},
		{"output parts are None", "[1.0]", []any{fco([]any{map[string]any{"type": "input_text", "text": `{"solution":1.0}`}})}, 200, "0.0"},
		{"output not JSON", "[1.0]", []any{fco("1.0 apples")}, 200, "0.0"},
		{"output a JSON list", "[1.0]", []any{fco("[1.0]")}, 200, "0.0"},
		{"function_call items are not outputs", "[1.0]", []any{map[string]any{"type": "function_call", "name": "add", "arguments": `{"solution":1.0}`, "call_id": "c"}}, 200, "0.0"},
		{"string ground truth items never match", `["1.0"]`, []any{sol("1.0")}, 200, "0.0"},
		{"dict iterates keys", `{}`, nil, 200, "1.0"},
		{"string iterates characters", `"1"`, []any{sol("1.0")}, 200, "0.0"},
		{"empty string", `""`, nil, 200, "1.0"},
		{"a real list", []any{4.2}, []any{sol("4.2")}, 500, `"TypeError('the JSON object must be str, bytes or bytearray, not list')"`},
		{"a real list of strings", []any{"4.2", true}, nil, 500, `"TypeError('the JSON object must be str, bytes or bytearray, not list')"`},
		{"not iterable int", "5", nil, 500, `"TypeError(\"'int' object is not iterable\")"`},
		{"not iterable float", "5.5", nil, 500, `"TypeError(\"'float' object is not iterable\")"`},
		{"not iterable null", "null", nil, 500, `"TypeError(\"'NoneType' object is not iterable\")"`},
		{"not JSON", "[1, 2", nil, 500, `"JSONDecodeError(\"Expecting ',' delimiter: line 1 column 6 (char 5)\")"`},
		{"empty string is not JSON", "", nil, 500, `"JSONDecodeError('Expecting value: line 1 column 1 (char 0)')"`},
		{"BOM", "\ufeff[]", nil, 500, `"JSONDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)')"`},
		{"NUL", "[\x00]", nil, 500, `"JSONDecodeError('Expecting value: line 1 column 2 (char 1)')"`},
		{"int ground truth", 5, nil, 422, `{"detail":[{"type":"list_type","loc":["body","ground_truth","list[float]"],"msg":"Input should be a valid list","input":5},{"type":"string_type","loc":["body","ground_truth","str"],"msg":"Input should be a valid string","input":5}]}`},
		{"list with a bad item", []any{"a", 1, nil}, nil, 422, `{"detail":[{"type":"float_parsing","loc":["body","ground_truth","list[float]",0],"msg":"Input should be a valid number, unable to parse string as a number","input":"a"},{"type":"float_type","loc":["body","ground_truth","list[float]",2],"msg":"Input should be a valid number","input":null},{"type":"string_type","loc":["body","ground_truth","str"],"msg":"Input should be a valid string","input":["a",1,null]}]}`},
		{"null ground truth", nil, nil, 422, `{"detail":[{"type":"list_type","loc":["body","ground_truth","list[float]"],"msg":"Input should be a valid list","input":null},{"type":"string_type","loc":["body","ground_truth","str"],"msg":"Input should be a valid string","input":null}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			body := map[string]any{
				"responses_create_params": map[string]any{"input": "x"},
				"response":                responseWith(append([]any{}, c.output...)),
				"ground_truth":            c.groundTruth, "id": 0, "depth": 1, "breadth": 1,
			}
			res := ts.Rollout().Post("/verify", body)
			if res.Status != c.status {
				t.Fatalf("status %d %s, want %d %s", res.Status, res.Body, c.status, c.want)
			}
			if c.status != 200 {
				if string(res.Body) != c.want {
					t.Errorf("got  %s\nwant %s", res.Body, c.want)
				}
				return
			}
			var out map[string]json.RawMessage
			if err := json.Unmarshal(res.Body, &out); err != nil {
				t.Fatal(err)
			}
			if got := string(out["reward"]); got != c.want {
				t.Errorf("reward %s, want %s", got, c.want)
			}
		})
	}
}

// TestVerifyRequestFields: ground_truth, id, depth and breadth are required
// and not echoed; the answer echoes responses_create_params and response as
// pydantic's model_dump() writes them (defaults filled, model field order,
// created_at a float, the response's extra keys kept: nemo-gym-peer
// math_advanced_calculations.jsonl, "verify correct").
func TestVerifyRequestFields(t *testing.T) {
	t.Parallel()
	ts := newServer(t)
	resp := `{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[],"extra_key":{"b":1,"a":2}}`
	rcp := `{"input":[{"role":"user","content":"<&>"}],"temperature":1.0}`
	res := ts.Rollout().Post("/verify", `{"responses_create_params":`+rcp+`,"response":`+resp+`,"ground_truth":"[]","id":"7","depth":1.0,"breadth":1,"extra":true}`)
	const rcpDump = `{"background":null,"include":null,"input":[{"content":"<&>","role":"user","type":"message"}],"instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":null,"model":null,"parallel_tool_calls":true,"previous_response_id":null,"prompt":null,"reasoning":null,"service_tier":null,"store":null,"temperature":1.0,"text":null,"tool_choice":"auto","tools":[],"top_logprobs":null,"top_p":null,"truncation":null,"user":null,"stream":null}`
	const respDump = `{"id":"r","created_at":0.0,"error":null,"incomplete_details":null,"instructions":null,"metadata":null,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"background":null,"conversation":null,"max_output_tokens":null,"max_tool_calls":null,"previous_response_id":null,"prompt":null,"prompt_cache_key":null,"reasoning":null,"safety_identifier":null,"service_tier":null,"status":null,"text":null,"top_logprobs":null,"truncation":null,"usage":null,"user":null,"extra_key":{"b":1,"a":2}}`
	if want := `{"responses_create_params":` + rcpDump + `,"response":` + respDump + `,"reward":1.0}`; res.Status != 200 || string(res.Body) != want {
		t.Errorf("got %d %s\nwant 200 %s", res.Status, res.Body, want)
	}
	res = ts.Rollout().Post("/verify", `{"responses_create_params":`+rcp+`,"response":`+resp+`}`)
	want := `{"detail":[` +
		`{"type":"missing","loc":["body","ground_truth"],"msg":"Field required","input":{"responses_create_params":` + rcp + `,"response":` + resp + `}},` +
		`{"type":"missing","loc":["body","id"],"msg":"Field required","input":{"responses_create_params":` + rcp + `,"response":` + resp + `}},` +
		`{"type":"missing","loc":["body","depth"],"msg":"Field required","input":{"responses_create_params":` + rcp + `,"response":` + resp + `}},` +
		`{"type":"missing","loc":["body","breadth"],"msg":"Field required","input":{"responses_create_params":` + rcp + `,"response":` + resp + `}}]}`
	if res.Status != 422 || string(res.Body) != want {
		t.Errorf("got %d %s\nwant 422 %s", res.Status, res.Body, want)
	}
}
