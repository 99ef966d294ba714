package breaktest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server"
	"github.com/gymkit/gymkit/server/servertest"
)

// Break-it pass over framework.Extra's lazy members (commit 2e1ebde): an
// extra key's container is kept as its JSON text and parsed when read.

// lazyIn reports whether v is, or holds, a container without its Items or
// Members although its text is not empty: pyjson's lazy form (IsLazy),
// which must never reach an environment.
func lazyIn(v framework.Value) bool {
	switch v.Kind {
	case framework.KindArray, framework.KindObject:
		if v.Items == nil && v.Members == nil && (v.Bool || v.Str != "") {
			return true
		}
	}
	for _, it := range v.Items {
		if lazyIn(it) {
			return true
		}
	}
	for _, m := range v.Members {
		if lazyIn(m.Value) {
			return true
		}
	}
	return false
}

// ebReq is a tool request that keeps its unknown keys.
type ebReq struct {
	A int `json:"a"`
	framework.Extra
}

// ebResp reports what the handler read of the request's Extra: each key's
// value by Get, by All and by Members (the three must agree), whether any
// of them was lazy, and the request's Extra itself (written from its text).
type ebResp struct {
	A    int               `json:"a"`
	Keys []string          `json:"keys"`
	Get  []framework.Value `json:"get"`
	All  []framework.Value `json:"all"`
	Mem  []framework.Value `json:"mem"`
	Lazy []string          `json:"lazy"`
	framework.Extra
}

func readExtra(req ebReq) (ebResp, error) {
	r := ebResp{A: req.A, Keys: req.Keys(), Lazy: []string{}, Get: []framework.Value{}, All: []framework.Value{}, Mem: []framework.Value{}}
	for _, k := range req.Keys() {
		v, ok := req.Get(k)
		if !ok {
			return r, fmt.Errorf("Get(%q): not a member, though Keys lists it", k)
		}
		if !req.Has(k) {
			return r, fmt.Errorf("Has(%q) false", k)
		}
		if lazyIn(v) {
			r.Lazy = append(r.Lazy, "get:"+k)
		}
		r.Get = append(r.Get, v)
	}
	for k, v := range req.All() {
		if lazyIn(v) {
			r.Lazy = append(r.Lazy, "all:"+k)
		}
		r.All = append(r.All, v)
	}
	for _, m := range req.Members() {
		if lazyIn(m.Value) {
			r.Lazy = append(r.Lazy, "members:"+m.Key)
		}
		r.Mem = append(r.Mem, m.Value)
	}
	r.Extra = req.Extra
	return r, nil
}

type ebEnv struct{ framework.Base }

func (s *ebEnv) Routes(r *framework.Router) {
	framework.Post(r, "/ex", func(_ context.Context, req ebReq) (ebResp, error) { return readExtra(req) })
	framework.Verify(r, func(_ context.Context, req XReq) (XResp, error) {
		return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
	})
}

// ebValues are extra values at the edges of what the lazy span must keep
// as the parsed tree would: float forms, escapes, lone surrogates, empty
// containers, whitespace inside spans, duplicate keys inside a span.
var ebValues = []string{
	`1`, `1e5`, `1E5`, `-0`, `-0.0`, `1.0e+5`, `123456789012345678901234567890`, `NaN`, `-Infinity`,
	`"s"`, `"\u00e9\n\t\"\\\/"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud83d\ude00"`, `"<>&\u2028"`,
	`null`, `true`, `[]`, `{}`, `[ ]`, `{ }`, "[\n\t1 ,\r\n 2 ]", `{ "a" : [ 1 , { } ] , "b" : "x" }`,
	`[1e5,1E-7,0.1,-0.0,1e400]`, `{"k":1,"k":2}`, `{"k":{"a":1,"b":2,"a":3},"j":[{"x":1,"x":[]}]}`,
	`[[[[[[[[[[]]]]]]]]]]`, `{"\ud800":1}`, `{"\ud800":1,"\ud800":2}`, `["\ud800","\udfff"]`,
	`[1.5,2.25,1e-5,1e16,1e15,12345678901234567890.0]`, `{"":{"":[""]}}`,
}

// ebOracle is what Python answers for body's extra key "x": the tree of the
// whole body parsed as json.loads does, written as pydantic's dump_json.
func ebOracle(t *testing.T, body string) string {
	t.Helper()
	v, err := framework.ParseJSON([]byte(body))
	if err != nil {
		t.Fatalf("oracle parse %s: %v", body, err)
	}
	x, _ := v.Get("x")
	b, err := framework.MarshalJSON(x, framework.JSONPydantic)
	if err != nil {
		return "ERR " + err.Error()
	}
	return string(b)
}

// TestExtraReadsAgreeAcrossPaths: an extra key's value read by Get, All and
// Members, and the Extra written back out, are the value Python's dict
// holds, never lazy, on the text path and on the tree path (a duplicate
// key), over HTTP.
func TestExtraReadsAgreeAcrossPaths(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &ebEnv{}, servertest.Options{})
	for _, val := range ebValues {
		for _, body := range []string{
			`{"a":1,"x":` + val + `}`,                  // text path
			`{"a":0,"x":` + val + `,"a":1}`,            // tree path: duplicate declared key
			`{"a":1,"x":0,"x":` + val + `}`,            // tree path: duplicate extra key
			" {\n\"a\" : 1 ,\"x\" :\t" + val + " \n} ", // whitespace around the span
		} {
			want := ebOracle(t, body)
			res := ts.Rollout().Post("/ex", body)
			if res.Status != 200 {
				t.Errorf("%s: %d %s", body, res.Status, trunc(res.Body))
				continue
			}
			got, err := framework.ParseJSON(res.Body)
			if err != nil {
				t.Fatalf("%s: answer %s: %v", body, res.Body, err)
			}
			if l, _ := got.Get("lazy"); len(l.Items) > 0 {
				t.Errorf("%s: lazy values reached the handler: %s", body, res.Body)
			}
			for _, f := range []string{"get", "all", "mem"} {
				arr, _ := got.Get(f)
				if len(arr.Items) != 1 {
					t.Errorf("%s: %s has %d values: %s", body, f, len(arr.Items), res.Body)
					continue
				}
				b, _ := framework.MarshalJSON(arr.Items[0], framework.JSONPydantic)
				if string(b) != want {
					t.Errorf("%s: %s = %s, want %s", body, f, b, want)
				}
			}
			x, _ := got.Get("x")
			b, _ := framework.MarshalJSON(x, framework.JSONPydantic)
			if string(b) != want {
				t.Errorf("%s: echoed Extra x = %s, want %s", body, b, want)
			}
			if !strings.HasSuffix(string(res.Body), `,"x":`+want+`}`) {
				t.Errorf("%s: answer does not end with the echoed x %s: %s", body, want, trunc(res.Body))
			}
		}
	}
}

var _ = json.Valid

// mcpCall posts one tools/call to /mcp as raw JSON-RPC; sdk adds a _meta
// to the params, which the lean path leaves to the go-sdk. It returns the
// result's isError and text.
func mcpCall(t *testing.T, ts *servertest.Server, token, tool, args string, sdk bool) (isErr bool, text string, raw []byte) {
	t.Helper()
	meta := ""
	if sdk {
		meta = `"_meta":{"k":1},`
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `"name":"` + tool + `","arguments":` + args + `}}`
	res := ts.Rollout().Do("POST", "/mcp", map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"X-NeMo-Gym-Session-Token": token,
	}, body)
	b := res.Body
	if i := strings.Index(string(b), "data: "); i >= 0 { // an SSE answer
		b = []byte(strings.TrimSpace(string(b[i+6:])))
	}
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Result == nil {
		return true, fmt.Sprintf("status %d: %s", res.Status, trunc(res.Body)), res.Body
	}
	var parts []string
	for _, c := range m.Result.Content {
		parts = append(parts, c.Text)
	}
	return m.Result.IsError, strings.Join(parts, "\n"), res.Body
}

func seedToken(t *testing.T, ts *servertest.Server) string {
	t.Helper()
	ro := ts.Rollout()
	if r := ro.Post("/seed_session", `{}`); r.Status != 200 || ro.Token() == "" {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	return ro.Token()
}

// TestExtraReadsAgreeAcrossDoors: the same arguments over MCP (the lean
// path and the go-sdk path, text path and tree path each) give the values
// the HTTP door gives.
func TestExtraReadsAgreeAcrossDoors(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &ebEnv{}, servertest.Options{MCP: true})
	tok := seedToken(t, ts)
	for _, val := range ebValues {
		if strings.Contains(val, "NaN") || strings.Contains(val, "Infinity") || strings.Contains(val, "1e400") {
			continue // not JSON: a JSON-RPC parse error, or Python's out-of-range float error (tested elsewhere)
		}
		for _, args := range []string{
			`{"a":1,"x":` + val + `}`,
			`{"a":0,"x":` + val + `,"a":1}`,
			"{\"a\" : 1 ,\"x\" :\t" + val + " \n}",
		} {
			want := ebOracle(t, args)
			for _, sdk := range []bool{false, true} {
				isErr, text, raw := mcpCall(t, ts, tok, "ex", args, sdk)
				if isErr {
					t.Errorf("%s (sdk %v): isError: %s", args, sdk, trunc(raw))
					continue
				}
				got, err := framework.ParseJSON([]byte(text))
				if err != nil {
					t.Errorf("%s (sdk %v): text %q: %v", args, sdk, text, err)
					continue
				}
				if l, _ := got.Get("lazy"); len(l.Items) > 0 {
					t.Errorf("%s (sdk %v): lazy values reached the handler: %s", args, sdk, text)
				}
				for _, f := range []string{"get", "all", "mem"} {
					arr, _ := got.Get(f)
					if len(arr.Items) != 1 {
						t.Errorf("%s (sdk %v): %s has %d values: %s", args, sdk, f, len(arr.Items), text)
						continue
					}
					b, _ := framework.MarshalJSON(arr.Items[0], framework.JSONPydantic)
					if string(b) != want {
						t.Errorf("%s (sdk %v): %s = %s, want %s", args, sdk, f, b, want)
					}
				}
				x, _ := got.Get("x")
				b, _ := framework.MarshalJSON(x, framework.JSONPydantic)
				if string(b) != want {
					t.Errorf("%s (sdk %v): echoed x = %s, want %s", args, sdk, b, want)
				}
			}
		}
	}
}

// Verify models that reach their Extra through an embedded pointer.
type EBPInner struct {
	Note string `json:"note"`
	framework.Extra
}

type ebPtrReq struct {
	framework.VerifyRequest
	*EBPInner
}

type ebPtrResp struct {
	framework.VerifyResponse
	*EBPInner
}

type ebExtraPtrReq struct {
	framework.VerifyRequest
	*framework.Extra
}

type ebExtraPtrResp struct {
	framework.VerifyResponse
	*framework.Extra
}

// ebLower is unexported: reached through an unexported embedded field.
type ebLower struct {
	Tag string `json:"tag"`
	framework.Extra
}

type ebLowerReq struct {
	framework.VerifyRequest
	ebLower
}

type ebLowerResp struct {
	framework.VerifyResponse
	ebLower
}

type ebVerifyEnv struct {
	framework.Base
	mode string
}

func (s *ebVerifyEnv) Routes(r *framework.Router) {
	switch s.mode {
	case "ptrreq":
		framework.Verify(r, func(_ context.Context, req ebPtrReq) (XResp, error) {
			return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
		})
	case "ptrresp":
		framework.Verify(r, func(_ context.Context, req XReq) (ebPtrResp, error) {
			return ebPtrResp{VerifyResponse: framework.VerifyResponse{Reward: 1}}, nil
		})
	case "extraptrreq":
		framework.Verify(r, func(_ context.Context, req ebExtraPtrReq) (XResp, error) {
			return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
		})
	case "lowerreq":
		framework.Verify(r, func(_ context.Context, req ebLowerReq) (XResp, error) {
			return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
		})
	case "lowerresp":
		framework.Verify(r, func(_ context.Context, req XReq) (ebLowerResp, error) {
			return ebLowerResp{VerifyResponse: framework.VerifyResponse{Reward: 1}}, nil
		})
	case "extraptrresp":
		framework.Verify(r, func(_ context.Context, req XReq) (ebExtraPtrResp, error) {
			return ebExtraPtrResp{VerifyResponse: framework.VerifyResponse{Reward: 1}}, nil
		})
	}
}

// TestVerifyExtraViaPointer: a verify request or response whose Extra is
// reached through an embedded pointer answers as the same models with the
// Extra embedded directly do (the echo of the request's unknown keys), with
// or without extra keys in the body, never a 500.
func TestVerifyExtraViaPointer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode, extra, wantTail string
	}{
		// A nil embedded pointer's fields are not written (the
		// encoder's rule, encoding/json's too): no "note" without it.
		{"ptrreq", ``, `"reward":1.0,"score":0.5}`},
		{"ptrreq", `"zz":[1,{"a":2}]`, `"reward":1.0,"score":0.5,"note":"","zz":[1,{"a":2}]}`},
		// The echo needs the response's *EBPInner: its "note" is written.
		{"ptrresp", ``, `"reward":1.0,"note":"","ground_truth":"","count":0,"opt":null}`},
		{"ptrresp", `"zz":[1,{"a":2}]`, `"reward":1.0,"note":"","ground_truth":"","count":0,"opt":null,"zz":[1,{"a":2}]}`},
		{"extraptrreq", ``, `"reward":1.0,"score":0.5}`},
		{"extraptrreq", `"zz":[1,{"a":2}]`, `"reward":1.0,"score":0.5,"zz":[1,{"a":2}]}`},
		{"lowerreq", ``, `"reward":1.0,"score":0.5,"tag":""}`},
		{"lowerreq", `"zz":[1,{"a":2}]`, `"reward":1.0,"score":0.5,"tag":"","zz":[1,{"a":2}]}`},
		{"lowerresp", ``, `"reward":1.0,"tag":"","ground_truth":"","count":0,"opt":null}`},
		{"lowerresp", `"zz":[1,{"a":2}]`, `"reward":1.0,"tag":"","ground_truth":"","count":0,"opt":null,"zz":[1,{"a":2}]}`},
		{"extraptrresp", ``, `"reward":1.0,"ground_truth":"","count":0,"opt":null}`},
		{"extraptrresp", `"zz":[1,{"a":2}]`, `"reward":1.0,"ground_truth":"","count":0,"opt":null,"zz":[1,{"a":2}]}`},
	} {
		ts := servertest.New(t, &ebVerifyEnv{mode: c.mode}, servertest.Options{})
		for _, body := range []string{verifyBody(c.extra), treeVerify(verifyBody(c.extra))} {
			res := ts.Rollout().Post("/verify", body)
			if res.Status != 200 || !strings.HasSuffix(string(res.Body), c.wantTail) {
				t.Errorf("%s %s:\n got %d %s\nwant ...%s", c.mode, c.extra, res.Status, tail(res.Body, 160), c.wantTail)
			}
		}
	}
}

// tail returns the last n bytes of b (all of it when shorter).
func tail(b []byte, n int) string {
	if len(b) > n {
		return "..." + string(b[len(b)-n:])
	}
	return string(b)
}

// treeVerify makes the text decoder of a verify body give up (a duplicate
// declared key, whose last value wins) without changing what it means, so
// the tree path decodes it.
func treeVerify(body string) string {
	return `{"responses_create_params":{"input":"first"},` + body[1:]
}

// ebKeepEnv's verify handler keeps its request after it returns: a
// goroutine reads the request's Extra (reached through an embedded
// pointer, so shared with the framework's copy) until stop is closed.
type ebKeepEnv struct {
	framework.Base
	stop  chan struct{}
	done  chan struct{}
	empty atomic.Int64 // reads that saw no member
	reads atomic.Int64
}

func (s *ebKeepEnv) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req ebPtrReq) (XResp, error) {
		go func() {
			defer close(s.done)
			for {
				if req.Len() != 1 || len(req.Keys()) != 1 {
					s.empty.Add(1)
				}
				s.reads.Add(1)
				select {
				case <-s.stop:
					return
				default:
				}
			}
		}()
		return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
	})
}

// TestVerifyKeptRequestExtraUnchanged: the framework writes the /verify
// echo after the handler returned; a request the handler kept (here read
// by a goroutine) must not change under it, also when its Extra is reached
// through an embedded pointer the handler's copy shares. Run with -race.
func TestVerifyKeptRequestExtraUnchanged(t *testing.T) {
	t.Parallel()
	env := &ebKeepEnv{stop: make(chan struct{}), done: make(chan struct{})}
	ts := servertest.New(t, env, servertest.Options{})
	res := ts.Rollout().Post("/verify", verifyBody(`"zz":[1,{"a":2}]`))
	close(env.stop)
	<-env.done
	if want := `"reward":1.0,"score":0.5,"note":"","zz":[1,{"a":2}]}`; res.Status != 200 || !strings.HasSuffix(string(res.Body), want) {
		t.Errorf("got %d %s, want ...%s", res.Status, tail(res.Body, 160), want)
	}
	if n := env.empty.Load(); n > 0 {
		t.Errorf("%d of %d reads of the kept request saw its Extra changed", n, env.reads.Load())
	}
}

// ebSharedEnv's verify handler answers with a response that reaches its
// Extra through a pointer to one struct it shares across requests.
type ebSharedEnv struct {
	framework.Base
	shared *EBPInner
}

func (s *ebSharedEnv) Routes(r *framework.Router) {
	framework.Verify(r, func(_ context.Context, req XReq) (ebPtrResp, error) {
		return ebPtrResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, EBPInner: s.shared}, nil
	})
}

// TestVerifyEchoDoesNotWriteHandlerMemory: the echo of the request's keys
// goes into the answer, not into a struct the handler's response points
// to: one rollout's keys never show up in another's answer.
func TestVerifyEchoDoesNotWriteHandlerMemory(t *testing.T) {
	t.Parallel()
	env := &ebSharedEnv{shared: &EBPInner{Note: "n"}}
	ts := servertest.New(t, env, servertest.Options{})
	for _, k := range []string{"first", "second"} {
		res := ts.Rollout().Post("/verify", verifyBody(`"`+k+`":1`))
		want := `"reward":1.0,"note":"n","ground_truth":"","count":0,"opt":null,"` + k + `":1}`
		if res.Status != 200 || !strings.HasSuffix(string(res.Body), want) {
			t.Errorf("%s: got %d %s, want ...%s", k, res.Status, tail(res.Body, 160), want)
		}
	}
	if env.shared.Len() != 0 {
		t.Errorf("the handler's shared struct got the echo: %v", env.shared.Keys())
	}
}

// TestExtraWithinJSONLimits: extra keys count toward max_json_depth and
// max_json_elements like any other value, on the text path and the tree
// path, over HTTP and MCP; a body at the limits is served, its extra
// values whole.
func TestExtraWithinJSONLimits(t *testing.T) {
	t.Parallel()
	inst, err := server.NewInstance(context.Background(), &ebEnv{}, configtest.Over(config.Instance{Name: "eb", ServerType: "eb", Host: "127.0.0.1", ExposeToolsOverMCP: true, MaxJSONDepth: 5, MaxJSONElements: 50,
		SessionSecrets: config.Secrets{"servertest-secret-0123456789abcdef0123"}}), server.InstanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(inst.Handler())
	t.Cleanup(hs.Close)
	const (
		deep    = `{"detail":"Request body nested too deeply: more than 5 levels of arrays and objects (max_json_depth)"}`
		complex = `{"detail":"Request body too complex: more than 50 JSON values (max_json_elements)"}`
	)
	arr := func(n int) string { return "[" + strings.Repeat("1,", n-1) + "1]" }
	// {"a":1,"x":X,"y":Y}: 3 values and depth 1 besides X and Y.
	for _, c := range []struct {
		name, x, y, want string
	}{
		{"depth at the limit", `[[[[]]]]`, `{"k":[[[1]]]}`, ""},
		{"depth over in the second extra", `[[[[]]]]`, `{"k":[[[[1]]]]}`, deep},
		{"elements at the limit", arr(20), arr(26), ""},
		{"elements over across two extras", arr(20), arr(27), complex},
	} {
		for _, body := range []string{
			`{"a":1,"x":` + c.x + `,"y":` + c.y + `}`,
			`{"x":` + c.x + `,"a":1,"y":` + c.y + `,"x":` + c.x + `}`, // tree path: a duplicate (same count: 3 + X + Y... + X)
		} {
			if strings.Count(body, `"x"`) == 2 && c.want == "" && strings.HasPrefix(c.name, "elements") {
				continue // the duplicate adds X's values again: not at the limit
			}
			st, got := httpPost(t, hs.URL+"/ex", body)
			switch {
			case c.want != "":
				if st != 413 || got != c.want {
					t.Errorf("%s %s: %d %s, want 413 %s", c.name, body, st, got, c.want)
				}
			case st != 200 || !strings.HasSuffix(got, `,"x":`+c.x+`,"y":`+c.y+`}`):
				t.Errorf("%s %s: %d %s", c.name, body, st, got)
			}
		}
	}
}

// httpPost posts a JSON body to url and returns the status and answer.
func httpPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// ebMemEnv: /get reads every extra key with Get, /keep only counts them,
// /verify echoes them (XReq, XResp).
type ebMemEnv struct{ framework.Base }

type ebCount struct {
	N int `json:"n"`
}

func (s *ebMemEnv) Routes(r *framework.Router) {
	framework.Post(r, "/get", func(_ context.Context, req ebReq) (ebCount, error) {
		n := 0
		for _, k := range req.Keys() {
			v, _ := req.Get(k)
			n += len(v.Items) + len(v.Members) + len(v.Str)
		}
		return ebCount{n}, nil
	})
	framework.Post(r, "/keep", func(_ context.Context, req ebReq) (ebCount, error) { return ebCount{req.Len()}, nil })
	framework.Verify(r, func(_ context.Context, req XReq) (XResp, error) {
		return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}, nil
	})
}

// smallKeys returns n members "kNNNNNNN":1 joined by commas.
func smallKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%07d":1`, i)
	}
	return b.String()
}

// TestExtraMemory: what an Extra costs the server, as peak live heap and
// bytes allocated per body byte (TestBodyMemoryBounded's measure), for the
// shapes of the break-it pass. Measured (peak, allocated; 2e1ebde -> now):
//
//	verify, one 14 MiB extra           3.1-3.7x, 5.5x
//	verify, the same, tree path        3.1x, 5.5x
//	tool, 14 MiB extra kept, tree path 2.6x, 3.1x
//	verify, two 7 MiB extras           3.5-3.7x, 6.0x
//	verify, 500,000 small extras       30.8x -> 22.9x, 138.8x -> 33.6x
//	tool, 500,000 small extras kept    21.3x -> 17.7x, 52.8x -> 20.4x
//	tool, 14 MiB extra kept            2.0-2.6x, 3.1x
//	tool, 14 MiB extra read with Get   11.0x, 12.2x (the tree: 72 bytes a value)
//
// The small keys were the appends' 1.25x growth (the extras' slice, the
// verify dump and its filtered copy: each allocated about 5x its final
// size) and the duplicate check's map[string]bool; what is left is one
// pyjson.Member (88 bytes) per key of about 13 bytes of text, which
// cannot reach the ~4x of docs/security.md, "Exhaust memory", without a
// more compact Extra. The bounds are the measured figures with a margin,
// so that the growth does not come back.
func TestExtraMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("memory figures under -race are the race runtime's")
	}
	ts := servertest.New(t, &ebMemEnv{}, servertest.Options{})
	half := intArray(7 << 20)
	const slack = 8 << 20
	for _, c := range []struct {
		name, path, body string
		want             []byte
		peak, alloc      float64 // bounds, x the body
	}{
		{"verify one 14 MiB extra", "/verify", verifyBody(`"pad":` + intArray(14<<20)), []byte(`1234567,1234567]}`), 4, 8},
		{"verify one 14 MiB extra, tree path", "/verify", treeVerify(verifyBody(`"pad":` + intArray(14<<20))), []byte(`1234567,1234567]}`), 4, 8},
		{"tool 14 MiB extra kept, tree path", "/keep", `{"a":0,"a":1,"pad":` + intArray(14<<20) + `}`, []byte(`{"n":1}`), 4, 8},
		{"verify two 7 MiB extras", "/verify", verifyBody(`"p1":` + half + `,"p2":` + half), []byte(`1234567,1234567]}`), 4, 8},
		{"verify 500k small extras", "/verify", verifyBody(smallKeys(500_000)), []byte(`"k0499999":1}`), 27, 45},
		{"tool 500k small extras kept", "/keep", `{"a":1,` + smallKeys(500_000) + `}`, []byte(`{"n":500000}`), 22, 28},
		{"tool 14 MiB extra kept", "/keep", `{"a":1,"pad":` + intArray(14<<20) + `}`, []byte(`{"n":1}`), 3, 4.5},
		{"tool 14 MiB extra read with Get", "/get", `{"a":1,"pad":` + intArray(14<<20) + `}`, []byte(`{"n":1835007}`), 13, 14},
	} {
		var st int
		var n int64
		var found bool
		peak, alloc := peakDuring(func() { st, n, found = post(t, ts, c.path, c.body, nil, c.want) })
		if st != 200 || !found {
			t.Fatalf("%s: status %d, %d bytes, answer found %v; want 200 with %s", c.name, st, n, found, c.want)
		}
		size := float64(len(c.body))
		t.Logf("%s: body %.1f MiB, answer %d bytes, peak %.1f MiB (%.2fx), allocated %.1f MiB (%.1fx)",
			c.name, size/(1<<20), n, float64(peak)/(1<<20), float64(peak)/size, float64(alloc)/(1<<20), float64(alloc)/size)
		if float64(peak) > c.peak*size+slack {
			t.Errorf("%s: peaked at %.2fx the body, want at most %.0fx + %d MiB", c.name, float64(peak)/size, c.peak, slack>>20)
		}
		if float64(alloc) > c.alloc*size+slack {
			t.Errorf("%s: allocated %.1fx the body, want at most %.1fx + %d MiB", c.name, float64(alloc)/size, c.alloc, slack>>20)
		}
	}
}

// TestExtraDuplicateKeyAmongMany: a duplicate extra key is found however
// many extra keys come before it (the text decoder scans the first few,
// then looks them up in a table it rebuilds as it grows), and answered as
// Python's dict holds it: the first position, the last value.
func TestExtraDuplicateKeyAmongMany(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &ebEnv{}, servertest.Options{})
	for _, n := range []int{2, 7, 8, 9, 10, 16, 17, 33, 64, 65, 129, 1000} {
		for _, dup := range []int{0, n / 2, n - 1} {
			var b strings.Builder
			b.WriteString(`{"a":1`)
			for i := range n {
				fmt.Fprintf(&b, `,"k%d":[%d]`, i, i)
			}
			fmt.Fprintf(&b, `,"k%d":"last"}`, dup)
			body := b.String()
			res := ts.Rollout().Post("/ex", body)
			v, err := framework.ParseJSON(res.Body)
			if res.Status != 200 || err != nil {
				t.Fatalf("%d keys, k%d twice: %d %s", n, dup, res.Status, trunc(res.Body))
			}
			keys, _ := v.Get("keys")
			if len(keys.Items) != n {
				t.Errorf("%d keys, k%d twice: %d keys in Extra: %s", n, dup, len(keys.Items), trunc(res.Body))
				continue
			}
			for i, k := range keys.Items {
				if k.Str != fmt.Sprintf("k%d", i) {
					t.Errorf("%d keys, k%d twice: key %d is %q", n, dup, i, k.Str)
					break
				}
			}
			if got, _ := v.Get(fmt.Sprintf("k%d", dup)); got.Str != "last" {
				t.Errorf("%d keys, k%d twice: echoed %v, want the last value", n, dup, got)
			}
			if strings.Count(string(res.Body), fmt.Sprintf(`"k%d":`, dup)) != 1 {
				t.Errorf("%d keys, k%d twice: the key is written more than once: %s", n, dup, trunc(res.Body))
			}
		}
	}
}

// ebNested keeps the unknown keys of a nested object.
type ebNested struct {
	B int `json:"b"`
	framework.Extra
}

type ebNestReq struct {
	In  ebNested   `json:"in"`
	P   *ebNested  `json:"p"`
	L   []ebNested `json:"l"`
	Opt int        `json:"opt"`
}

type ebNestResp struct {
	Got  []framework.Value `json:"got"`
	Lazy int               `json:"lazy"`
	Echo ebNestReq         `json:"echo"`
}

// ebOut is a tool answer with an Extra the handler sets.
type ebOut struct {
	Score float64 `json:"score"`
	Note  string  `json:"note,omitempty"`
	framework.Extra
}

type ebMiscEnv struct{ framework.Base }

func (s *ebMiscEnv) Routes(r *framework.Router) {
	framework.Post(r, "/nest", func(_ context.Context, req ebNestReq) (ebNestResp, error) {
		out := ebNestResp{Got: []framework.Value{}, Echo: req}
		all := append([]ebNested{req.In}, req.L...)
		if req.P != nil {
			all = append(all, *req.P)
		}
		for _, n := range all {
			for _, m := range n.Members() {
				if lazyIn(m.Value) {
					out.Lazy++
				}
				out.Got = append(out.Got, m.Value)
			}
		}
		return out, nil
	})
	framework.Post(r, "/out", func(_ context.Context, req ebReq) (ebOut, error) {
		o := ebOut{Score: 0.5}
		switch req.A {
		case 1: // a key given twice: its first position, its last value
			o.Extra = framework.ExtraOf(framework.Member{Key: "k", Value: framework.NumberValue("1")},
				framework.Member{Key: "j", Value: framework.NumberValue("2")},
				framework.Member{Key: "k", Value: framework.NumberValue("3")})
		case 2: // a key the struct declares and writes: written once, the field's
			o.Set("score", framework.StringValue("extra"))
			o.Set("z", framework.BoolValue(true))
		case 3: // a declared key the struct leaves out (omitempty): written once, from the Extra
			o.Set("note", framework.StringValue("from extra"))
		case 4: // the request's Extra (kept as text), changed
			o.Extra = req.Extra
			o.Set("x", framework.StringValue("replaced"))
			o.Delete("gone")
			o.Set("new", framework.ArrayValue())
		}
		return o, nil
	})
	framework.Post(r, "/conc", func(_ context.Context, req ebReq) (ebCount, error) {
		want, _ := req.Get("x")
		wb, _ := framework.MarshalJSON(want, framework.JSONPydantic)
		var bad atomic.Int64
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for range 20 {
					v, ok := req.Get("x")
					b, _ := framework.MarshalJSON(v, framework.JSONPydantic)
					if !ok || string(b) != string(wb) || lazyIn(v) {
						bad.Add(1)
					}
					for _, v := range req.All() {
						if lazyIn(v) {
							bad.Add(1)
						}
					}
					if len(req.Members()) != req.Len() || !req.Has("x") {
						bad.Add(1)
					}
				}
			})
		}
		wg.Wait()
		return ebCount{int(bad.Load())}, nil
	})
	framework.Verify(r, func(_ context.Context, req XReq) (XResp, error) {
		resp := XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}, Score: 0.5}
		if req.Count == 7 { // the handler's own Extra: no echo; a key given twice once
			resp.Extra = framework.ExtraOf(framework.Member{Key: "mine", Value: framework.NumberValue("1")},
				framework.Member{Key: "mine", Value: framework.NumberValue("2")},
				framework.Member{Key: "reward", Value: framework.NumberValue("5")})
		}
		return resp, nil
	})
}

// TestExtraNestedAndResponse: Extra in nested models (a field, a pointer,
// list items) is read whole and written back as received, on both paths;
// a response Extra the handler builds is written once per key (ExtraOf's
// duplicates collapsed, a key the struct writes itself skipped), over
// HTTP and both MCP paths alike.
func TestExtraNestedAndResponse(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &ebMiscEnv{}, servertest.Options{MCP: true})
	tok := seedToken(t, ts)
	nest := `{"in":{"b":1,"x":[1e5,{"y":"\u00e9"}],"e":{}},"p":{"q":[ ]},"l":[{"b":2,"z":{"k":1,"k":2}},{"w":[[1.50]]}],"opt":1}`
	wantNest := `{"got":[[100000.0,{"y":"é"}],{},{"k":2},[[1.5]],[]],"lazy":0,"echo":{"in":{"b":1,"x":[100000.0,{"y":"é"}],"e":{}},"p":{"b":0,"q":[]},"l":[{"b":2,"z":{"k":2}},{"b":0,"w":[[1.5]]}],"opt":1}}`
	for _, c := range []struct{ path, body, want string }{
		{"/nest", nest, wantNest},
		{"/nest", strings.Replace(nest, `"opt":1`, `"opt":0,"opt":1`, 1), wantNest}, // tree path
		{"/out", `{"a":1}`, `{"score":0.5,"k":3,"j":2}`},
		{"/out", `{"a":2}`, `{"score":0.5,"z":true}`},
		{"/out", `{"a":3}`, `{"score":0.5,"note":"from extra"}`},
		{"/out", `{"a":4,"x":[1],"gone":{"g":1},"y":{ "a" : [ 1E5 ] }}`, `{"score":0.5,"x":"replaced","y":{"a":[100000.0]},"new":[]}`},
		{"/out", `{"a":0,"a":4,"x":[1],"gone":{"g":1},"y":{ "a" : [ 1E5 ] }}`, `{"score":0.5,"x":"replaced","y":{"a":[100000.0]},"new":[]}`},
	} {
		res := ts.Rollout().Post(c.path, c.body)
		if res.Status != 200 || string(res.Body) != c.want {
			t.Errorf("HTTP %s %s:\n got %d %s\nwant %s", c.path, c.body, res.Status, res.Body, c.want)
		}
		wv, _ := framework.ParseJSON([]byte(c.want))
		want, _ := framework.MarshalJSON(wv, framework.JSONPython)
		for _, sdk := range []bool{false, true} {
			isErr, text, raw := mcpCall(t, ts, tok, strings.TrimPrefix(c.path, "/"), c.body, sdk)
			if isErr || text != string(want) {
				t.Errorf("MCP (sdk %v) %s %s:\n got %s\nwant %s", sdk, c.path, c.body, trunc(raw), want)
			}
		}
	}
	res := ts.Rollout().Post("/verify", verifyBody(`"count":7,"zz":1`))
	if want := `"reward":1.0,"score":0.5,"mine":2}`; res.Status != 200 || !strings.HasSuffix(string(res.Body), want) {
		t.Errorf("verify with the handler's Extra: %d %s, want ...%s", res.Status, tail(res.Body, 120), want)
	}
}

// TestExtraConcurrentReads: 32 goroutines reading one request's Extra at
// once (Get, All, Members, Has) all see the whole value, on both paths.
// Run with -race.
func TestExtraConcurrentReads(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &ebMiscEnv{}, servertest.Options{})
	x := `{"k":[1,2,{"d":[1e5,"\u00e9"]}],"k2":{"a":1,"a":2}}`
	for _, body := range []string{`{"a":1,"x":` + x + `,"y":[[]]}`, `{"a":0,"x":` + x + `,"y":[[]],"a":1}`} {
		res := ts.Rollout().Post("/conc", body)
		if res.Status != 200 || string(res.Body) != `{"n":0}` {
			t.Errorf("%s: %d %s, want no bad read", body, res.Status, res.Body)
		}
	}
}

// TestExtraEncodedBodies: a body sent with a UTF-8 BOM or as UTF-16 (with
// and without a BOM, as json.detect_encoding reads it), whose extra keys
// and values hold escapes and lone surrogates (escaped, or as a raw UTF-16
// code unit, which Python decodes with surrogatepass to the same str), is
// answered as its plain UTF-8 form is, on both paths.
func TestExtraEncodedBodies(t *testing.T) {
	t.Parallel()
	ts := servertest.New(t, &ebEnv{}, servertest.Options{})
	// utf16 encodes s as UTF-16LE, each "\x00SUR" marker as the lone code
	// unit 0xD800.
	utf16 := func(s string, bom bool) []byte {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		for _, part := range strings.SplitAfter(s, "\x00SUR") {
			lone := strings.HasSuffix(part, "\x00SUR")
			for _, r := range strings.TrimSuffix(part, "\x00SUR") {
				if r > 0xFFFF {
					r -= 0x10000
					hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
					b = append(b, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
					continue
				}
				b = append(b, byte(r), byte(r>>8))
			}
			if lone {
				b = append(b, 0x00, 0xD8)
			}
		}
		return b
	}
	for _, c := range []struct{ plain, raw string }{
		{`{"a":1,"x":{"\ud800":["\ud800",1e5]},"\ud800":[{}],"é😀":{"k":[1,2]}}`,
			"{\"a\":1,\"x\":{\"\x00SUR\":[\"\x00SUR\",1e5]},\"\x00SUR\":[{}],\"é😀\":{\"k\":[1,2]}}"},
		{`{"a":0,"x":[ "\u00e9" , { } ],"a":1,"y":{"k":1,"k":[2]}}`, `{"a":0,"x":[ "é" , { } ],"a":1,"y":{"k":1,"k":[2]}}`},
	} {
		base := ts.Rollout().Post("/ex", c.plain)
		if base.Status != 200 {
			t.Fatalf("%s: %d %s", c.plain, base.Status, base.Body)
		}
		for name, body := range map[string][]byte{
			"utf-8 BOM":      append([]byte("\xef\xbb\xbf"), strings.ReplaceAll(c.raw, "\x00SUR", `\ud800`)...),
			"utf-16 BOM":     utf16(c.raw, true),
			"utf-16 no BOM":  utf16(c.raw, false),
			"utf-16 escaped": utf16(c.plain, false),
		} {
			res := ts.Rollout().Do("POST", "/ex", jsonCT, body)
			if res.Status != base.Status || string(res.Body) != string(base.Body) {
				t.Errorf("%s of %s:\n got %d %s\nwant %d %s", name, c.plain, res.Status, res.Body, base.Status, base.Body)
			}
		}
	}
}

// ebStoreEnv keeps every request it gets (their Extras unread) for the
// test to read after the answers.
type ebStoreEnv struct {
	framework.Base
	mu   sync.Mutex
	kept []ebReq
	vr   []XReq
}

func (s *ebStoreEnv) Routes(r *framework.Router) {
	framework.Post(r, "/store", func(_ context.Context, req ebReq) (ebCount, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.kept = append(s.kept, req)
		return ebCount{len(s.kept)}, nil
	})
	framework.Verify(r, func(_ context.Context, req XReq) (XResp, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.vr = append(s.vr, req)
		return XResp{VerifyResponse: framework.VerifyResponse{Reward: 1}}, nil
	})
}

// TestExtraKeptRequestsReadLater: requests a handler keeps and reads only
// after many other requests were served (over HTTP, and over MCP, whose
// lean path reads the arguments inside the message's body) still hold
// their own extra keys: nothing they keep is a buffer the server reuses.
func TestExtraKeptRequestsReadLater(t *testing.T) {
	t.Parallel()
	env := &ebStoreEnv{}
	ts := servertest.New(t, env, servertest.Options{MCP: true})
	tok := seedToken(t, ts)
	var want []string
	for i := range 60 {
		x := fmt.Sprintf(`{"i":%d,"s":"%s","l":[%d,{"d":"\u00e9%d"}]}`, i, strings.Repeat(string(rune('a'+i%26)), 100+i), i, i)
		args := fmt.Sprintf(`{"a":%d,"x":%s,"y%d":[%d]}`, i, x, i, i)
		if i%3 == 1 {
			args = fmt.Sprintf(`{"a":0,"x":%s,"y%d":[%d],"a":%d}`, x, i, i, i) // tree path
		}
		switch i % 2 {
		case 0:
			if res := ts.Rollout().Post("/store", args); res.Status != 200 {
				t.Fatalf("%d: %d %s", i, res.Status, res.Body)
			}
		case 1:
			if isErr, text, raw := mcpCall(t, ts, tok, "store", args, i%4 == 3); isErr {
				t.Fatalf("%d: %s %s", i, text, raw)
			}
		}
		v, _ := framework.ParseJSON([]byte(x))
		b, _ := framework.MarshalJSON(v, framework.JSONPydantic)
		want = append(want, string(b))
		vb := verifyBody(`"count":` + fmt.Sprint(i) + `,"x":` + x)
		if i%3 == 1 {
			vb = treeVerify(vb)
		}
		if res := ts.Rollout().Post("/verify", vb); res.Status != 200 {
			t.Fatalf("verify %d: %d %s", i, res.Status, trunc(res.Body))
		}
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	for _, req := range env.kept {
		x, _ := req.Get("x")
		b, _ := framework.MarshalJSON(x, framework.JSONPydantic)
		if string(b) != want[req.A] {
			t.Errorf("kept request %d: x = %s, want %s", req.A, b, want[req.A])
		}
		if y := fmt.Sprintf("y%d", req.A); !req.Has(y) || req.Len() != 2 {
			t.Errorf("kept request %d: keys %v", req.A, req.Keys())
		}
	}
	for _, req := range env.vr {
		x, _ := req.Get("x")
		b, _ := framework.MarshalJSON(x, framework.JSONPydantic)
		if string(b) != want[req.Count] {
			t.Errorf("kept verify request %d: x = %s, want %s", req.Count, b, want[req.Count])
		}
		raw := req.Raw()
		rx, _ := raw.Get("x")
		if b, _ := framework.MarshalJSON(rx, framework.JSONPydantic); string(b) != want[req.Count] {
			t.Errorf("kept verify request %d: Raw().x = %s, want %s", req.Count, b, want[req.Count])
		}
	}
	if len(env.kept) != 60 || len(env.vr) != 60 {
		t.Errorf("kept %d tool and %d verify requests, want 60 each", len(env.kept), len(env.vr))
	}
}
