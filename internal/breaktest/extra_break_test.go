package breaktest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gymkit/gymkit/framework"
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
