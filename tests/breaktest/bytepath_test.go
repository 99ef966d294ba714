package breaktest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

// BPInner is a nested model with extra="forbid".
type BPInner struct {
	framework.ForbidExtra
	A int    `json:"a"`
	S string `json:"s"`
}

// BPReq covers the field kinds the byte decoder has its own fast paths for.
type BPReq struct {
	I   int               `json:"i"`
	I8  int8              `json:"i8"`
	I64 int64             `json:"i64"`
	U   uint32            `json:"u"`
	F   float64           `json:"f"`
	F32 float32           `json:"f32"`
	Big framework.Int     `json:"big"`
	S   string            `json:"s"`
	B   bool              `json:"b"`
	P   *int              `json:"p"`
	R   *string           `json:"r" required:"true"`
	L   []int             `json:"l"`
	LS  []string          `json:"ls"`
	M   map[string]int    `json:"m"`
	Any any               `json:"any"`
	V   framework.Value   `json:"v"`
	In  BPInner           `json:"in"`
	IP  *BPInner          `json:"ip"`
	Raw json.RawMessage   `json:"raw"`
	MS  map[string]string `json:"ms"`
}

// bpEnv serves the same model twice: /typed decodes it from the bytes (the
// streaming path, falling back to the tree on error), /tree receives the
// parsed tree and decodes it with framework.DecodeValue (the tree path only).
// Both echo what they got, so any disagreement shows as different answers.
type bpEnv struct{ framework.Base }

func (s *bpEnv) Routes(r *framework.Router) {
	framework.Post(r, "/typed", func(_ context.Context, d BPReq) (BPReq, error) { return d, nil })
	framework.Post(r, "/tree", func(_ context.Context, v framework.Value) (BPReq, error) {
		return framework.DecodeValue[BPReq](v)
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func bpInputs() []string {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	deepObj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	in := []string{
		`{"r":null}`,
		`{"r":"x","i":1,"i":2}`,
		`{"r":"x","r":null}`,
		`{"r":"x","in":{"a":1,"a":"2"}}`,
		`{"r":"x","m":{"k":1,"k":2}}`,
		`{"r":"x","any":{"k":1,"k":2}}`,
		`{"r":"x","v":{"k":1,"k":2}}`,
		`{"r":"x","raw":{"k":1,"k":2}}`,
		`{"r":"x","i":9223372036854775807}`,
		`{"r":"x","i":9223372036854775808}`,
		`{"r":"x","i":-9223372036854775808}`,
		`{"r":"x","i":-9223372036854775809}`,
		`{"r":"x","i64":999999999999999999}`,
		`{"r":"x","i64":1000000000000000000}`,
		`{"r":"x","i64":-0}`,
		`{"r":"x","i":1.0}`,
		`{"r":"x","i":1.5}`,
		`{"r":"x","i":1e3}`,
		`{"r":"x","i":1E3}`,
		`{"r":"x","i":1e400}`,
		`{"r":"x","i":"1e3"}`,
		`{"r":"x","i":" 12 "}`,
		`{"r":"x","i":"1_000"}`,
		`{"r":"x","i":true}`,
		`{"r":"x","i8":127}`,
		`{"r":"x","i8":128}`,
		`{"r":"x","i8":-129}`,
		`{"r":"x","u":-1}`,
		`{"r":"x","u":4294967296}`,
		`{"r":"x","f":1e400}`,
		`{"r":"x","f":-1e400}`,
		`{"r":"x","f":-0}`,
		`{"r":"x","f":-0.0}`,
		`{"r":"x","f":4.9e-324}`,
		`{"r":"x","f":1e-400}`,
		`{"r":"x","f":1.7976931348623157e308}`,
		`{"r":"x","f":1.7976931348623159e308}`,
		`{"r":"x","f":123456789012345678901234567890}`,
		`{"r":"x","f":"inf"}`,
		`{"r":"x","f":"NaN"}`,
		`{"r":"x","f":NaN}`,
		`{"r":"x","f":Infinity}`,
		`{"r":"x","f":-Infinity}`,
		`{"r":"x","f32":3.5e38}`,
		`{"r":"x","f32":1e-50}`,
		`{"r":"x","big":123456789012345678901234567890123456789}`,
		`{"r":"x","big":-123456789012345678901234567890123456789}`,
		`{"r":"x","big":"123456789012345678901234567890"}`,
		`{"r":"x","big":1e30}`,
		`{"r":"x","big":1.0}`,
		`{"r":"x","big":-0}`,
		`{"r":"x","big":` + strings.Repeat("9", 4300) + `}`,
		`{"r":"x","big":` + strings.Repeat("9", 4301) + `}`,
		`{"r":"x","i":` + strings.Repeat("9", 4301) + `}`,
		`{"r":"x","s":"\u00e9\ud83d\ude00"}`,
		`{"r":"x","s":"\ud83d"}`,
		`{"r":"x","s":"\ude00"}`,
		`{"r":"x","s":"\ud83d\u0041"}`,
		`{"r":"x","s":"\u0000"}`,
		`{"r":"x","s":"\uD83D\uDE00"}`,
		"{\"r\":\"x\",\"s\":\"\xff\"}",
		"{\"r\":\"x\",\"s\":\"\xed\xa0\x80\"}",
		"{\"r\":\"x\",\"s\":\"\xc0\xaf\"}",
		"{\"r\":\"x\",\"s\":\"a\tb\"}",
		"{\"r\":\"x\",\"s\":\"a\x7fb\"}",
		"\xef\xbb\xbf{\"r\":\"x\"}",
		"{\"r\":\"x\"}\xef\xbb\xbf",
		"\t\r\n {\"r\":\"x\"}\t\r\n ",
		"\v{\"r\":\"x\"}",
		"\f{\"r\":\"x\"}",
		"\u00a0{\"r\":\"x\"}",
		`{"r":"x"} x`,
		`{"r":"x"}{}`,
		`{"r":"x"},`,
		`{"r":"x"}]`,
		`{"r":"x",}`,
		`{"r":"x"} ` + "\x00",
		`{"r":"x","p":null}`,
		`{"r":"x","in":null}`,
		`{"r":"x","ip":null}`,
		`{"r":"x","l":null}`,
		`{"r":"x","s":null}`,
		`{"r":"x","in":{"a":1,"z":2}}`,
		`{"r":"x","ip":{"a":1,"z":2}}`,
		`{"r":"x","in":{"a":1,"a":1,"z":2}}`,
		`{"r":"x","l":[1,"2",3.0,true]}`,
		`{"r":"x","l":[1,,2]}`,
		`{"r":"x","l":[1 2]}`,
		`{"r":"x","l":{"0":1}}`,
		`{"r":"x","l":"[1]"}`,
		`{"r":"x","ls":[1]}`,
		`{"r":"x","ls":["a",null]}`,
		`{"r":"x","m":{"a":"1"}}`,
		`{"r":"x","m":{"\u0000":1}}`,
		`{"r":"x","ms":{"a":1}}`,
		`{"r":"x","b":"yes"}`,
		`{"r":"x","b":"on"}`,
		`{"r":"x","b":1}`,
		`{"r":"x","b":2}`,
		`{"r":"x","b":1.0}`,
		`{"r":"x","b":"True"}`,
		`{"r":1}`,
		`{"r":"x","s":1}`,
		`{"r":"x","s":[]}`,
		`{"r":"x","\u0072":"y"}`,
		`{"\u0072":"y"}`,
		`{"r":"x","any":1e400}`,
		`{"r":"x","any":-0}`,
		`{"r":"x","any":-0.0}`,
		`{"r":"x","any":1.0}`,
		`{"r":"x","any":1E+2}`,
		`{"r":"x","any":"\ud83d"}`,
		`{"r":"x","v":1e400}`,
		`{"r":"x","v":-0.0}`,
		`{"r":"x","v":12345678901234567890123}`,
		`{"r":"x","raw":1e400}`,
		`{"r":"x","raw":"\ud83d"}`,
		`{"r":"x","raw":  [1, 2] }`,
		`{"r":"x","any":` + deep(60) + `}`,
		`{"r":"x","v":` + deep(60) + `}`,
		`{"r":"x","raw":` + deep(60) + `}`,
		`{"r":"x","any":` + deep(999) + `}`,
		`{"r":"x","any":` + deep(1000) + `}`,
		`{"r":"x","any":` + deep(1001) + `}`,
		`{"r":"x","any":` + deepObj(1000) + `}`,
		`{"r":"x","raw":` + deep(2000) + `}`,
		`[]`, `null`, `1`, `"x"`, ``, ` `, `{`, `{"r":"x"`, `{"r":"x",`,
		`{"r":"x","i":01}`, `{"r":"x","i":+1}`, `{"r":"x","i":.5}`, `{"r":"x","i":1.}`, `{"r":"x","i":0x10}`,
		`{"r":"x","f":1.5e}`, `{"r":"x","f":1e+}`,
		`{'r':'x'}`, `{r:"x"}`,
		`{"r":"x", "s" : "a" , "i" : 1 }`,
	}
	return in
}

// TestBytePathAgreesWithTreePath: a typed body decoded straight from the
// bytes gives exactly what the tree decoder gives (same status, same body),
// for every edge input. /tree's input comes through a framework.Value body,
// which the body parser accepts or refuses (400/422) on its own; where that
// parse succeeds the two answers must be the same bytes.
func TestBytePathAgreesWithTreePath(t *testing.T) {
	ts := servertest.New(t, &bpEnv{}, servertest.Options{})
	for _, in := range bpInputs() {
		a := ts.Rollout().Do("POST", "/typed", jsonCT, in)
		b := ts.Rollout().Do("POST", "/tree", jsonCT, in)
		label := in
		if len(label) > 80 {
			label = label[:80] + fmt.Sprintf("...(%d)", len(in))
		}
		if a.Status == 500 && !strings.HasPrefix(string(a.Body), `"ValueError('Out of range float`) {
			t.Errorf("%q: /typed 500: %s", label, trunc(a.Body))
		}
		if b.Status == 422 && strings.Contains(string(b.Body), `"type":"dict_type","loc":["body"]`) {
			// Not an object: the Value body's own refusal; a model
			// body refuses it with model_attributes_type.
			if a.Status != 422 || !strings.Contains(string(a.Body), `"type":"model_attributes_type","loc":["body"]`) {
				t.Errorf("%q: /typed %d %s", label, a.Status, trunc(a.Body))
			}
			continue
		}
		if b.Status != 200 && b.Status != 422 {
			// The tree body itself was refused (400, or a 422 missing
			// body); /typed must refuse it the same way.
			if a.Status != b.Status || string(a.Body) != string(b.Body) {
				t.Errorf("%q: /typed %d %s, value body %d %s", label, a.Status, trunc(a.Body), b.Status, trunc(b.Body))
			}
			continue
		}
		if a.Status != b.Status || string(a.Body) != string(b.Body) {
			t.Errorf("%q:\n typed %d %s\n  tree %d %s", label, a.Status, trunc(a.Body), b.Status, trunc(b.Body))
		}
	}
}

// forceTree makes the byte decoder give up on an object body (it does on a
// duplicate key) without changing what the body means: a key the model
// ignores, twice, before the body's own members. The tree path then
// decodes it, in the same door's mode.
func forceTree(in string) string {
	i := strings.IndexByte(in, '{')
	if i < 0 {
		return in
	}
	rest := strings.TrimLeft(in[i+1:], " \t\r\n")
	sep := ","
	if strings.HasPrefix(rest, "}") {
		sep = ""
	}
	return in[:i+1] + `"zz_ignored":0,"zz_ignored":0` + sep + in[i+1:]
}

// TestBytePathAgreesWithForcedTreeHTTP: the HTTP door's answer to a body is
// the same bytes as its answer to the same body with the byte decoder made
// to give up (forceTree), i.e. the tree path's answer in the same mode.
func TestBytePathAgreesWithForcedTreeHTTP(t *testing.T) {
	ts := servertest.New(t, &bpEnv{}, servertest.Options{})
	for _, in := range bpInputs() {
		if !strings.Contains(in, "{") {
			continue
		}
		a := ts.Rollout().Do("POST", "/typed", jsonCT, in)
		b := ts.Rollout().Do("POST", "/typed", jsonCT, forceTree(in))
		if a.Status == 400 || strings.Contains(string(a.Body), `"type":"json_invalid"`) {
			continue // a syntax error: its offset moves with the added members
		}
		label := in
		if len(label) > 80 {
			label = label[:80] + fmt.Sprintf("...(%d)", len(in))
		}
		if a.Status != b.Status || string(a.Body) != string(b.Body) {
			t.Errorf("%q:\n  bytes %d %s\n forced %d %s", label, a.Status, trunc(a.Body), b.Status, trunc(b.Body))
		}
	}
}

// TestBytePathAgreesWithTreePathMCP: the same over MCP tools/call (the
// arguments of a tools/call go through the byte decoder in MCP mode): the
// answer to the arguments equals the answer to them with the byte decoder
// made to give up (forceTree), isError and text included.
func TestBytePathAgreesWithTreePathMCP(t *testing.T) {
	ts := servertest.New(t, &bpEnv{}, servertest.Options{MCP: true})
	ro := ts.Rollout()
	if res := ro.Post("/seed_session", `{}`); res.Status != 200 {
		t.Fatalf("seed: %d %s", res.Status, res.Body)
	}
	c := ro.MCP()
	for _, in := range bpInputs() {
		if !json.Valid([]byte(in)) || !strings.HasPrefix(strings.TrimSpace(in), "{") {
			continue
		}
		label := in
		if len(label) > 80 {
			label = label[:80] + fmt.Sprintf("...(%d)", len(in))
		}
		a, errA := c.Call("typed", in)
		b, errB := c.Call("typed", forceTree(in))
		if (errA == nil) != (errB == nil) {
			t.Errorf("%q: typed err %v, tree err %v", label, errA, errB)
			continue
		}
		if errA != nil {
			continue
		}
		if a.IsError != b.IsError || a.Text != b.Text {
			if a.IsError && strings.HasPrefix(a.Text, "HTTP 400") {
				continue // a duplicate key cannot fix a syntax error
			}
			ta, tb := a.Text, b.Text
			if len(ta) > 400 {
				ta = ta[:400]
			}
			if len(tb) > 400 {
				tb = tb[:400]
			}
			t.Errorf("%q:\n typed isError=%v %s\n  tree isError=%v %s", label, a.IsError, ta, b.IsError, tb)
		}
	}
}
