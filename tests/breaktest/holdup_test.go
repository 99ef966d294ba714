package breaktest

import (
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

type wireCase struct {
	path, ct string
	body     []byte
	status   int
	exact    string // exact body; "" = not checked
}

func runWire(t *testing.T, ts *servertest.Server, cases []wireCase) {
	t.Helper()
	for _, c := range cases {
		h := map[string]string{}
		if c.ct != "" {
			h["Content-Type"] = c.ct
		}
		res := ts.Rollout().Do("POST", c.path, h, c.body)
		want(t, "POST "+c.path+" ct="+c.ct+" body="+trunc(c.body), res.Status, res.Header, res.Body, c.status, c.exact)
	}
}

const (
	ctJSON     = "application/json"
	badBody400 = `{"detail":"There was an error parsing the body"}`
	// Deeper than max_json_depth (1000 by default; CPython answers 400 past
	// its RecursionError, a few thousand levels).
	tooDeep413 = `{"detail":"Request body nested too deeply: more than 1000 levels of arrays and objects (max_json_depth)"}`
	bytes500   = `"TypeError('Object of type bytes is not JSON serializable')"`
)

func jsonInvalid(pos, msg string) string {
	return `{"detail":[{"type":"json_invalid","loc":["body",` + pos + `],"msg":"JSON decode error","input":{},"ctx":{"error":"` + msg + `"}}]}`
}

// TestHoldsBadBodies: malformed bodies that gymkit answers as FastAPI/CPython
// do (python-compat 3 "Structural errors", 4.2).
func TestHoldsBadBodies(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	b := func(s string) []byte { return []byte(s) }
	runWire(t, ts, []wireCase{
		{"/empty", ctJSON, b(strings.Repeat("[", 100000) + strings.Repeat("]", 100000)), 413, tooDeep413},
		{"/empty", ctJSON, b(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)), 413, tooDeep413},
		{"/empty", ctJSON, b(strings.Repeat("[", 100000)), 413, tooDeep413},
		{"/value", ctJSON, b(`{"x":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`), 200, ""},
		{"/empty", ctJSON, b(" \t\r\n "), 422, jsonInvalid("5", "Expecting value")},
		{"/empty", ctJSON, b("\xef\xbb\xbf{}"), 200, `{}`},
		{"/empty", ctJSON, b("\xef\xbb\xbf\xef\xbb\xbf{}"), 422, jsonInvalid("0", "Expecting value")},
		{"/value", ctJSON, utf16le(`{"a":"é"}`, true), 200, `{"a":"é"}`},
		{"/value", ctJSON, utf16le(`{"a":"é"}`, false), 200, `{"a":"é"}`},
		{"/value", ctJSON, b("{\"\xff\":1}"), 400, badBody400},
		{"/value", ctJSON, b("{\"a\":\"\x01\"}"), 422, jsonInvalid("6", "Invalid control character at")},
		{"/value", ctJSON, b(`{"a":1,"a":2,"b":3,"a":4}`), 200, `{"a":4,"b":3}`},
		{"/value", ctJSON, b(`{"a":NaN,"b":Infinity,"c":-Infinity,"d":1e400,"e":-0.0,"f":-0,"g":1E5,"h":1.0e-7}`), 200, `{"a":null,"b":null,"c":null,"d":null,"e":-0.0,"f":0,"g":100000.0,"h":1e-7}`},
		{"/value", ctJSON, b(`{"a":` + strings.Repeat("9", 4301) + `}`), 400, badBody400},
		{"/value", ctJSON, b(`{"a":nan}`), 422, jsonInvalid("5", "Expecting value")},
		{"/value", ctJSON, b(`{"a":01}`), 422, jsonInvalid("6", "Expecting ',' delimiter")},
		{"/value", ctJSON, b(`{"a":"\x"}`), 422, jsonInvalid("6", `Invalid \\escape`)},
		{"/value", ctJSON, b(`{"a":"\u12"}`), 422, jsonInvalid("7", `Invalid \\uXXXX escape`)},
		{"/value", ctJSON, b(`{"é":1,}`), 422, jsonInvalid("6", "Illegal trailing comma before end of object")},
		{"/value", ctJSON, b(`{"😀":1,}`), 422, jsonInvalid("6", "Illegal trailing comma before end of object")},
		{"/value", ctJSON, b(`{"a":[1,2,]}`), 422, jsonInvalid("9", "Illegal trailing comma before end of array")},
		{"/value", ctJSON, b(`{"a":1}x`), 422, jsonInvalid("7", "Extra data")},
		{"/value", ctJSON, b(`{"a":"unterminated`), 422, jsonInvalid("5", "Unterminated string starting at")},
		{"/value", ctJSON, b("{}\u00a0"), 422, jsonInvalid("2", "Extra data")},
		{"/value", "APPLICATION/JSON", b(`{"a":1}`), 200, `{"a":1}`},
		{"/value", "application/json;charset=latin-1", b("{\"a\":\"\xe9\"}"), 400, badBody400},
		{"/value", "application/x+json", b(`{"a":1}`), 200, `{"a":1}`},
		{"/value", "application/+json", b(`{"a":1}`), 200, `{"a":1}`},
		{"/value", " application/json ", b(`{"a":1}`), 200, `{"a":1}`},
		{"/value", "text/json", b(`{"a":1}`), 500, bytes500},
		{"/value", "application/jsonx", b(`{"a":1}`), 500, bytes500},
		{"/value", "application/json, text/plain", b(`{"a":1}`), 500, bytes500},
		{"/value", "", b(`{"a":1}`), 500, bytes500},
		{"/value", "", b(``), 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"/value", ctJSON, b(`null`), 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"/value", ctJSON, b(`[]`), 422, `{"detail":[{"type":"dict_type","loc":["body"],"msg":"Input should be a valid dictionary","input":[]}]}`},
		{"/incr", ctJSON, b(`{"x":NaN}`), 500, `"ValueError('Out of range float values are not JSON compliant: nan')"`},
		{"/incr", ctJSON, b(`{"key":1,"x":NaN}`), 422, `{"detail":[{"type":"string_type","loc":["body","key"],"msg":"Input should be a valid string","input":1}]}`},
		{"/nobody", "", b("\xff\xfe garbage"), 200, `"ok"`},
	})
	res := ts.Rollout().Do("POST", "/value", map[string]string{"Content-Type": ctJSON, "Content-Encoding": "gzip"}, gz(`{"a":1}`))
	want(t, "gzip body", res.Status, res.Header, res.Body, 400, badBody400)
}

// TestHoldsDecoderKinds: lax coercions and error items of every Go kind.
func TestHoldsDecoderKinds(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	ok := func(in, key, want string) {
		t.Helper()
		res := ts.Rollout().Post("/kinds", in)
		if res.Status != 200 {
			t.Errorf("%s: %d %s", in, res.Status, trunc(res.Body))
			return
		}
		v, _ := framework.ParseJSON(res.Body)
		f, _ := v.Get(key)
		got, _ := framework.MarshalJSON(f, framework.JSONPydantic)
		if string(got) != want {
			t.Errorf("%s: %s = %s, want %s", in, key, got, want)
		}
	}
	bad := func(in, wantBody string) {
		t.Helper()
		res := ts.Rollout().Post("/kinds", in)
		if res.Status != 422 || string(res.Body) != wantBody {
			t.Errorf("%s:\n got %d %s\nwant 422 %s", in, res.Status, res.Body, wantBody)
		}
	}
	ok(`{"u64":18446744073709551615}`, "u64", "18446744073709551615")
	ok(`{"u":"18446744073709551615"}`, "u", "18446744073709551615")
	ok(`{"i8":true}`, "i8", "1")
	ok(`{"i64":9.223372036854775e18}`, "i64", "9223372036854774784")
	ok(`{"i64":"  12_3  "}`, "i64", "123")
	ok(`{"u64":-0.0}`, "u64", "0")
	ok(`{"f32":16777217}`, "f32", "16777216.0")
	ok(`{"f64":"1_0.5"}`, "f64", "10.5")
	ok(`{"f64":"-inf"}`, "f64", "null")
	ok(`{"f64":1e400}`, "f64", "null")
	ok(`{"f64":true}`, "f64", "1.0")
	ok(`{"b":"oN"}`, "b", "true")
	ok(`{"b":1.0}`, "b", "true")
	ok(`{"pp":5}`, "pp", "5")
	ok(`{"raw":{"z":1,"a":1e-5}}`, "raw", `{"z":1,"a":0.00001}`)
	ok(`{"raw":NaN}`, "raw", `null`)
	ok(`{"val":[1,{"b":2,"a":1}]}`, "val", `[1,{"b":2,"a":1}]`)
	ok(`{"obj":{"z":1,"a":2}}`, "obj", `{"z":1,"a":2}`)
	ok(`{"any":NaN}`, "any", `null`)
	ok(`{"def":"8"}`, "def", `8`)
	ok(`{}`, "def", `7`)
	ok(`{"e1":"5"}`, "e1", `5`)
	bad(`{"i8":128}`, `{"detail":[{"type":"less_than_equal","loc":["body","i8"],"msg":"Input should be less than or equal to 127","input":128,"ctx":{"le":127}}]}`)
	bad(`{"i8":1e3}`, `{"detail":[{"type":"less_than_equal","loc":["body","i8"],"msg":"Input should be less than or equal to 127","input":1000.0,"ctx":{"le":127}}]}`)
	bad(`{"u8":-1}`, `{"detail":[{"type":"greater_than_equal","loc":["body","u8"],"msg":"Input should be greater than or equal to 0","input":-1,"ctx":{"ge":0}}]}`)
	bad(`{"i64":9223372036854775807.0}`, `{"detail":[{"type":"int_parsing_size","loc":["body","i64"],"msg":"Unable to parse input string as an integer, exceeded maximum size","input":9.223372036854776e+18}]}`)
	bad(`{"b":99999999999999999999}`, `{"detail":[{"type":"bool_type","loc":["body","b"],"msg":"Input should be a valid boolean","input":99999999999999999999}]}`)
	bad(`{"f64":"0x10"}`, `{"detail":[{"type":"float_parsing","loc":["body","f64"],"msg":"Input should be a valid number, unable to parse string as a number","input":"0x10"}]}`)
	bad(`{"ss":[{"a":1},{},3,null]}`, `{"detail":[{"type":"missing","loc":["body","ss",1,"a"],"msg":"Field required","input":{}},{"type":"model_attributes_type","loc":["body","ss",2],"msg":"Input should be a valid dictionary or object to extract fields from","input":3},{"type":"model_attributes_type","loc":["body","ss",3],"msg":"Input should be a valid dictionary or object to extract fields from","input":null}]}`)
	bad(`{"ms":{"k":[1,"2",3.0,"x"]}}`, `{"detail":[{"type":"int_parsing","loc":["body","ms","k",3],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`)
	bad(`{"mm":{"a":{"b":"yes","c":"maybe"}}}`, `{"detail":[{"type":"bool_parsing","loc":["body","mm","a","c"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`)
	bad(`{"obj":null}`, `{"detail":[{"type":"dict_type","loc":["body","obj"],"msg":"Input should be a valid dictionary","input":null}]}`)
	bad(`{"enum":"z"}`, `{"detail":[{"type":"literal_error","loc":["body","enum"],"msg":"Input should be 'x' or 'y'","input":"z","ctx":{"expected":"'x' or 'y'"}}]}`)
	bad(`{"def":null}`, `{"detail":[{"type":"int_type","loc":["body","def"],"msg":"Input should be a valid integer","input":null}]}`)
}

// TestHoldsHandlers: what handlers return or raise, on the wire.
func TestHoldsHandlers(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	for _, c := range []struct {
		path   string
		status int
		exact  string
	}{
		{"/panic_nil", 500, `"panic: panic called with nil argument"`},
		{"/panic_int", 500, `"panic: 42"`},
		{"/nil_map", 200, `{}`},
		{"/nil_slice", 200, `[]`},
		{"/nil_any", 200, `null`},
		{"/nan", 200, `{"f":null,"fs":[null,null,1.0],"f32":null,"inf":null}`},
		{"/chan", 500, `"encoding the response: pyjson: unsupported type: chan int"`},
		{"/cycle", 500, `"encoding the response: pyjson: value nested too deeply to encode (pointer cycle?)"`},
		{"/any_cycle", 500, `"encoding the response: pyjson: value nested too deeply to encode (pointer cycle?)"`},
		{"/wrapped_errorf", 404, `{"detail":"Function not found"}`},
		{"/joined", 403, `{"detail":"forbidden"}`},
		{"/newerror_map", 400, `{"detail":{"a":["x",1.5],"b":1}}`},
		{"/errorf_0", 500, `{"detail":"zero"}`},
		{"/errorf_304", 304, ``},
		{"/typed_nil_err", 500, `"typed nil"`},
		{"/upd_nan", 500, `"session: encoding state \"nan\" (float64): json: unsupported value: NaN"`},
	} {
		res := ts.Rollout().Post(c.path, `{}`)
		want(t, c.path, res.Status, res.Header, res.Body, c.status, c.exact)
	}
}

// TestHoldsVerify: verify validation and errors.
func TestHoldsVerify(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	resp := okResponseJSON()
	for _, c := range []struct {
		body   string
		status int
		exact  string
	}{
		{verifyBody(`"mode":"panic"`), 500, `"panic: verify panic"`},
		{verifyBody(`"mode":"error"`), 503, `{"detail":"judge down"}`},
		{verifyBody(`"mode":"plain"`), 500, `"boom"`},
		{verifyBody(`"z":NaN`), 500, `"ValueError('Out of range float values are not JSON compliant: nan')"`},
		{`{"responses_create_params":{"input":"hi"},"response":` + strings.Replace(resp, `"output":[]`, `"output":[{"text":"x"},{"type":"mcp_call","id":"1","name":"x","arguments":"{}","server_label":"s"},{"type":5}]`, 1) + `}`, 422,
			""}, // Python refuses it too; its items (one per member of the output item union) are the verify model's to match
		{`{"responses_create_params":null,"response":null}`, 422, `{"detail":[{"type":"model_attributes_type","loc":["body","responses_create_params"],"msg":"Input should be a valid dictionary or object to extract fields from","input":null},{"type":"model_attributes_type","loc":["body","response"],"msg":"Input should be a valid dictionary or object to extract fields from","input":null}]}`},
	} {
		res := ts.Rollout().Post("/verify", c.body)
		want(t, "verify "+trunc([]byte(c.body)), res.Status, res.Header, res.Body, c.status, c.exact)
	}
	// The echo follows the models' field order, not the body's key order.
	inOrder := ts.Rollout().Post("/verify", `{"responses_create_params":{"input":"hi"},"response":`+resp+`}`)
	reordered := ts.Rollout().Post("/verify", `{"response":`+resp+`,"responses_create_params":{"input":"hi"}}`)
	want(t, "verify reordered", reordered.Status, reordered.Header, reordered.Body, 200, string(inOrder.Body))
	if !strings.HasPrefix(string(inOrder.Body), `{"responses_create_params":{"background":null,`) || !strings.HasSuffix(string(inOrder.Body), `,"reward":1.0,"note":"n"}`) {
		t.Errorf("verify echo %s: want the model_dump() of both models, then reward and note", trunc(inOrder.Body))
	}
}

// TestHoldsAggregate: aggregate_metrics validation and Python's exceptions.
func TestHoldsAggregate(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	for _, c := range []struct {
		body   string
		status int
		exact  string
	}{
		{`{}`, 422, `{"detail":[{"type":"missing","loc":["body","verify_responses"],"msg":"Field required","input":{}}]}`},
		{`{"verify_responses":null}`, 422, `{"detail":[{"type":"list_type","loc":["body","verify_responses"],"msg":"Input should be a valid list","input":null}]}`},
		{`{"verify_responses":[1,"x",null]}`, 422, `{"detail":[{"type":"dict_type","loc":["body","verify_responses",0],"msg":"Input should be a valid dictionary","input":1},{"type":"dict_type","loc":["body","verify_responses",1],"msg":"Input should be a valid dictionary","input":"x"},{"type":"dict_type","loc":["body","verify_responses",2],"msg":"Input should be a valid dictionary","input":null}]}`},
		{`{"verify_responses":[]}`, 200, `{"group_level_metrics":[],"agent_metrics":{},"key_metrics":{}}`},
		{`{"verify_responses":[{"_ng_task_index":0}]}`, 500, `"KeyError('_ng_rollout_index')"`},
		{`{"verify_responses":[{"_ng_task_index":0,"_ng_rollout_index":0},{"_ng_task_index":0,"_ng_rollout_index":0}]}`, 500, `"ValueError('Duplicate materialized input row for rollout key (0, 0)')"`},
		{`{"verify_responses":[{"_ng_task_index":0,"_ng_rollout_index":0,"response":null}]}`, 500, `"AttributeError(\"'NoneType' object has no attribute 'get'\")"`},
		{`{"verify_responses":[{"_ng_task_index":"a","_ng_rollout_index":0},{"_ng_task_index":1,"_ng_rollout_index":0}]}`, 500, `"TypeError(\"'<' not supported between instances of 'int' and 'str'\")"`},
		{`{"verify_responses":[{"_ng_task_index":[1],"_ng_rollout_index":0}]}`, 500, `"TypeError(\"unhashable type: 'list'\")"`},
		{`{"verify_responses":[{"_ng_task_index":0,"_ng_rollout_index":0,"reward":NaN},{"_ng_task_index":0,"_ng_rollout_index":1,"reward":1.0}]}`, 200, ""},
	} {
		res := ts.Rollout().Post("/aggregate_metrics", c.body)
		want(t, "aggregate "+c.body, res.Status, res.Header, res.Body, c.status, c.exact)
	}
}
