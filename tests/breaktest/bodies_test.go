package breaktest

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gymkit/gymkit/server/servertest"
)

// TestRawBodyEcho: a json.RawMessage request (dict body) and a Dispatch
// handler's args are the request bytes as received. Bodies that Python's
// json.loads accepts but that are not UTF-8 JSON text (UTF-16, a UTF-8 BOM,
// NaN/Infinity literals) reach the handler as is, and a handler that returns
// them (or embeds them in its result, as a dispatcher echoing its args does)
// writes a 200 application/json body that is not JSON. FastAPI would have
// re-serialized the parsed dict (pydantic dump_json: UTF-8, compact, NaN as
// null).
func TestRawBodyEcho(t *testing.T) {
	ts := servertest.New(t, &breakEnv{dispatch: true}, servertest.Options{})
	for _, c := range []struct {
		name, path string
		body       []byte
		want       string
	}{
		{"NaN raw", "/raw", []byte(`{"a": NaN, "b": 1e-5}`), `{"a":null,"b":0.00001}`},
		{"UTF-16 raw", "/raw", utf16le(`{"a":1}`, true), `{"a":1}`},
		{"BOM raw", "/raw", []byte("\xef\xbb\xbf{\"a\":1}"), `{"a":1}`},
		{"NaN dispatch", "/anytool", []byte(`{"a": NaN}`), `{"args":{"a":null},"tool":"anytool"}`},
		{"UTF-16 dispatch", "/anytool", utf16le(`{"a":1}`, true), `{"args":{"a":1},"tool":"anytool"}`},
		{"BOM dispatch", "/anytool", []byte("\xef\xbb\xbf{\"a\":1}"), `{"args":{"a":1},"tool":"anytool"}`},
	} {
		res := ts.Rollout().Post(c.path, c.body)
		valid := json.Valid(res.Body) && utf8.Valid(res.Body)
		if res.Status != 200 || !valid {
			t.Errorf("%s: POST %s %q -> %d, body %q (valid JSON: %v); FastAPI would answer %s", c.name, c.path, c.body, res.Status, res.Body, valid, c.want)
		}
	}
}

// TestMapAnyBody: a map[string]any request (a dict body per DESIGN) is
// re-decoded with encoding/json from the raw bytes, so inputs Python's
// json.loads accepts fail with a 500 whose body is a Go error message, and
// big ints lose precision.
func TestMapAnyBody(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"NaN", []byte(`{"a":NaN}`), `{"a":null}`},
		{"1e400", []byte(`{"a":1e400}`), `{"a":null}`},
		{"UTF-16", utf16le(`{"a":"x"}`, true), `{"a":"x"}`},
		{"BOM", []byte("\xef\xbb\xbf{\"a\":\"x\"}"), `{"a":"x"}`},
		{"big int", []byte(`{"a":123456789012345678901234567890}`), `{"a":123456789012345678901234567890}`},
		{"int", []byte(`{"a":1}`), `{"a":1}`},
	} {
		res := ts.Rollout().Post("/mapany", c.body)
		if res.Status != 200 || string(res.Body) != c.want {
			t.Errorf("%s: POST /mapany %q -> %d %s; FastAPI (Dict[str, Any] body) answers 200 %s", c.name, c.body, res.Status, res.Body, c.want)
		}
	}
}

// TestErrorDetailNotJSON: framework.NewError with a detail JSON cannot hold.
// FastAPI's http_exception_handler renders {"detail": ...} with JSONResponse
// (allow_nan=False), which raises on NaN: NeMo answers 500
// "ValueError('Out of range float values are not JSON compliant: nan')", as
// gymkit itself does for a 422 whose input holds NaN. gymkit keeps the 400 and
// writes Go's fmt rendering of the value ("map[v:NaN]"; a channel becomes its
// pointer address).
func TestErrorDetailNotJSON(t *testing.T) {
	ts := servertest.New(t, &breakEnv{}, servertest.Options{})
	res := ts.Rollout().Post("/newerror_nan", `{}`)
	want(t, "NewError(400, {v: NaN})", res.Status, res.Header, res.Body, 500, `"ValueError('Out of range float values are not JSON compliant: nan')"`)
	res = ts.Rollout().Post("/newerror_chan", `{}`)
	if strings.Contains(string(res.Body), "0xc") {
		t.Errorf("NewError(400, chan) leaks a pointer address: %d %s", res.Status, res.Body)
	}
}

// TestVerifyExtraEcho: DESIGN: "the response is the typed request re-encoded
// (its declared fields ...) with the typed response's fields laid over it",
// which is NeMo's Resp(**body.model_dump(), ...) with extra="allow": declared
// request fields come coerced ("3" -> 3), in declaration order, absent
// optional ones as null, then the unknown keys in input order. gymkit echoes
// the raw body members in input order instead.
func TestVerifyExtraEcho(t *testing.T) {
	ts := servertest.New(t, &extraEnv{}, servertest.Options{})
	res := ts.Rollout().Post("/verify", verifyBody(`"count":"3","zz":1,"ground_truth":"g","aa":2`))
	wantTail := `"reward":1.0,"score":0.5,"ground_truth":"g","count":3,"opt":null,"zz":1,"aa":2}`
	if res.Status != 200 || !strings.HasSuffix(string(res.Body), wantTail) {
		t.Errorf("verify echo:\n got %s\nwant ...%s", res.Body, wantTail)
	}
}

// TestVerifyExtraEchoIgnoredKeys: the request model ignores unknown keys
// (pydantic extra="ignore": model_dump has none), the response model allows
// extras. NeMo's Resp(**body.model_dump(), ...) then echoes only the request's
// declared fields; gymkit echoes every body key, including ones the request
// model dropped.
func TestVerifyExtraEchoIgnoredKeys(t *testing.T) {
	ts := servertest.New(t, &respOnlyExtraEnv{}, servertest.Options{})
	res := ts.Rollout().Post("/verify", verifyBody(`"count":"3","junk":1`))
	wantTail := `"reward":1.0,"score":0.5,"count":3}`
	if res.Status != 200 || !strings.HasSuffix(string(res.Body), wantTail) {
		t.Errorf("verify echo:\n got %s\nwant ...%s", res.Body, wantTail)
	}
}
