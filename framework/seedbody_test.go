package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/framework/host"
)

// utf16LE is s encoded as UTF-16LE with a byte-order mark (Python's
// json.loads reads it; so does the framework).
func utf16LE(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// seedBodyCases are bodies with their tree's shape in mind: duplicates,
// escapes, strings holding brackets and quotes, non-UTF-8 encodings,
// Python's literals, non-objects.
var seedBodyCases = [][]byte{
	[]byte(`{}`),
	[]byte(` {"a": 1} `),
	[]byte(`{"a":1,"a":2}`),
	[]byte(`{"k\u0065y":"x","key":"y","k\u0065y":"z"}`),
	[]byte(`{"a":{"b":[1,"}",{"c":"]\"}"}]},"d":"\\","e":[[],{}],"f":-1.5e3,"g":true,"h":null}`),
	[]byte(`{"n": NaN, "i": -Infinity, "s": "NaN"}`),
	[]byte(`{"big": 123456789012345678901234567890, "f": 1e400}`),
	[]byte(`{"é": "ü", "\u00e9x": 1}`),
	[]byte(`{"s": "\ud800"}`),
	[]byte("{\"w\": \"\xed\xa0\x80\"}"), // an encoded surrogate (surrogatepass)
	[]byte("\xef\xbb\xbf{\"bom\": 1}"),
	utf16LE(`{"u16": [1, "x"]}`),
	[]byte(`[1, 2]`),
	[]byte(`"text"`),
	[]byte(`null`),
	[]byte(`3`),
}

// checkSeedBody compares every reading of a SeedBody of data with the tree
// framework.ParseJSON builds.
func checkSeedBody(t *testing.T, data []byte) {
	t.Helper()
	sb, err := framework.ParseSeedBody(data)
	if err != nil {
		return // not JSON (or over the default limits): nothing to compare
	}
	want, err := framework.ParseJSON(data)
	if err != nil {
		t.Fatalf("ParseSeedBody accepted %q, ParseJSON: %v", data, err)
	}
	if want.Kind != framework.KindObject {
		want = framework.Value{Kind: framework.KindObject}
	}
	// Get before the tree exists (the text path), on a fresh SeedBody.
	keys := []string{"absent", ""}
	for _, m := range want.Members {
		keys = append(keys, m.Key)
	}
	for _, k := range keys {
		wv, wok := want.Get(k)
		gv, gok := sb.Get(k)
		if gok != wok || !reflect.DeepEqual(gv, wv) {
			t.Errorf("%q: Get(%q) = %v %v, the tree's %v %v", data, k, framework.PythonRepr(gv), gok, framework.PythonRepr(wv), wok)
		}
	}
	if got := sb.Value(); !reflect.DeepEqual(got, want) {
		t.Errorf("%q: Value() = %s, want %s", data, framework.PythonRepr(got), framework.PythonRepr(want))
	}
	// After the tree: Get reads it.
	for _, k := range keys {
		wv, wok := want.Get(k)
		if gv, gok := sb.Get(k); gok != wok || !reflect.DeepEqual(gv, wv) {
			t.Errorf("%q: Get(%q) after Value = %v %v, want %v %v", data, k, framework.PythonRepr(gv), gok, framework.PythonRepr(wv), wok)
		}
	}
	// JSON is what encoding/json reads: the bytes received, or the tree's
	// encoding.
	js := sb.JSON()
	if !json.Valid(js) {
		t.Fatalf("%q: JSON() = %q, not valid for encoding/json", data, js)
	}
	if !bytes.Equal(js, data) {
		enc, err := framework.MarshalJSON(want, framework.JSONPydantic)
		if err != nil || !bytes.Equal(js, enc) {
			t.Errorf("%q: JSON() = %q, neither the bytes nor the tree's encoding %q (%v)", data, js, enc, err)
		}
	} else if back, err := framework.ParseJSON(js); err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("%q: JSON() gave the bytes, which read back as %s (%v)", data, framework.PythonRepr(back), err)
	}
}

func TestSeedBody(t *testing.T) {
	t.Parallel()
	for _, data := range seedBodyCases {
		checkSeedBody(t, data)
	}
	if _, err := framework.ParseSeedBody([]byte(`{"a":`)); err == nil {
		t.Error(`ParseSeedBody({"a":) succeeded`)
	}
	var nilBody *framework.SeedBody
	if v := nilBody.Value(); v.Kind != framework.KindObject || len(v.Members) != 0 {
		t.Errorf("nil SeedBody: Value() = %s", framework.PythonRepr(v))
	}
	if _, ok := nilBody.Get("a"); ok || string(nilBody.JSON()) != "{}" {
		t.Errorf("nil SeedBody: Get found a key, or JSON() = %q", nilBody.JSON())
	}
	for _, data := range []string{`[1]`, `"s"`, `null`} {
		sb, _ := framework.ParseSeedBody([]byte(data))
		if string(sb.JSON()) != "{}" {
			t.Errorf("%s: JSON() = %q, want {}", data, sb.JSON())
		}
	}
}

// FuzzSeedBody: whatever the bytes, a SeedBody's Get (on the text, then on
// the tree), Value and JSON agree with the tree ParseJSON builds, and JSON
// is valid for encoding/json.
func FuzzSeedBody(f *testing.F) {
	for _, c := range append(seedBodyCases, seedBodyEdgeCases()...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSeedBody(t, data) })
}

type seedHookServer struct{ framework.Base }

type seedHookRequest struct {
	Task string `json:"task"`
}

func (s *seedHookServer) Routes(r *framework.Router) {
	framework.SeedSession(r, func(_ context.Context, req seedHookRequest) (map[string]string, error) {
		return map[string]string{"task": req.Task}, nil
	})
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

type noBodySeedServer struct{ framework.Base }

func (s *noBodySeedServer) Routes(r *framework.Router) {
	framework.SeedSession(r, func(context.Context, framework.NoBody) (struct{}, error) { return struct{}{}, nil })
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

// TestAfterSeedBody: Options.AfterSeed gets the seed body as sent, through
// real HTTP: its keys by Get, its tree by Value, its bytes (unchanged,
// whitespace and all) by JSON; {} for a body the seed ignores that is not
// an object; not called at all when the seed fails.
func TestAfterSeedBody(t *testing.T) {
	t.Parallel()
	after := func(_ context.Context, body *framework.SeedBody, result []byte) ([]byte, error) {
		meta, _ := body.Get("meta")
		return fmt.Appendf(nil, `{"result":%s,"meta":%q,"members":%d,"json":%q}`,
			result, framework.PythonRepr(meta), len(body.Value().Members), body.JSON()), nil
	}
	for _, tc := range []struct {
		name string
		srv  framework.Server
		body string
		code int
		want string
	}{
		{"typed seed", &seedHookServer{}, `{"task": "t1", "meta": {"k": [1, 2]}}`, 200,
			`{"result":{"task":"t1"},"meta":"{'k': [1, 2]}","members":2,"json":"{\"task\": \"t1\", \"meta\": {\"k\": [1, 2]}}"}`},
		{"typed seed, no meta", &seedHookServer{}, `{"task":"t2"}`, 200,
			`{"result":{"task":"t2"},"meta":"None","members":1,"json":"{\"task\":\"t2\"}"}`},
		{"typed seed, not an object: 422, no hook", &seedHookServer{}, `[1]`, 422, ``},
		{"no-body seed, object", &noBodySeedServer{}, `{"meta": 1}`, 200,
			`{"result":{},"meta":"1","members":1,"json":"{\"meta\": 1}"}`},
		{"no-body seed, not an object: {}", &noBodySeedServer{}, `[1]`, 200,
			`{"result":{},"meta":"None","members":0,"json":"{}"}`},
		{"no-body seed, not JSON: {}", &noBodySeedServer{}, `{"meta":`, 200,
			`{"result":{},"meta":"None","members":0,"json":"{}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			app, err := host.Build(context.Background(), tc.srv, host.Options{Name: "seedhook", AfterSeed: after})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(app.Handler())
			defer ts.Close()
			res, err := http.Post(ts.URL+"/seed_session", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.code || (tc.want != "" && string(got) != tc.want) {
				t.Errorf("POST /seed_session %s\n got %d %s\nwant %d %s", tc.body, res.StatusCode, got, tc.code, tc.want)
			}
		})
	}
}

func ExampleSeedBody() {
	row := []byte(`{"responses_create_params": {"input": "..."}, "verifier_metadata": {"allowed_tools": ["search"]}}`)
	seed, err := framework.ParseSeedBody(row)
	if err != nil {
		panic(err)
	}
	meta, ok := seed.Get("verifier_metadata") // parses this member only
	tools, _ := meta.Get("allowed_tools")
	fmt.Println(ok, framework.PythonRepr(tools))
	fmt.Println(len(seed.Value().Members)) // the whole tree, built once
	fmt.Println(string(seed.JSON()) == string(row))
	// Output:
	// true ['search']
	// 2
	// true
}
