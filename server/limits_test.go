package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
)

// mcpPost sends body to /mcp (with the session token when not "") and
// returns the answer; chunked sends it without a Content-Length.
func mcpPost(t *testing.T, ts *httptest.Server, token, body string, chunked bool) (*http.Response, string) {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // no length known: chunked
	}
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("X-NeMo-Gym-Session-Token", token)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

func values(n int) string { return "[" + strings.Repeat("1,", n-1) + "1]" }

// max_json_depth and max_json_elements: a body beyond either is answered
// 413 naming the limit on both doors, one at the limit is served.
func TestJSONLimits(t *testing.T) {
	t.Parallel()
	ts := serveTimed(t, newTimed(), configtest.Over(config.Instance{MaxJSONDepth: 5, MaxJSONElements: 50}), nil)
	const (
		deep    = "Request body nested too deeply: more than 5 levels of arrays and objects (max_json_depth)"
		complex = "Request body too complex: more than 50 JSON values (max_json_elements)"
	)
	// {"text":"a","x":V}: 3 values and depth 1 besides V.
	for _, tc := range []struct {
		name, x, detail string
	}{
		{"depth at the limit", nested(4), ""},
		{"depth over", nested(5), deep},
		{"elements at the limit", values(47), ""},
		{"elements over", values(48), complex},
	} {
		body := `{"text":"a","x":` + tc.x + `}`
		resp, got := post(t, ts.Client(), ts.URL+"/echo", body)
		want, status := `{"len":1}`, 200
		if tc.detail != "" {
			want, status = `{"detail":"`+tc.detail+`"}`, 413
		}
		if resp.StatusCode != status || got != want {
			t.Errorf("HTTP %s: %d %s, want %d %s", tc.name, resp.StatusCode, got, status, want)
		}
		if tc.detail == "" {
			continue
		}
		// Over MCP the whole message counts (see below for one at the limits).
		_, token := seedToken(t, ts)
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + body + `}}`
		resp, got = mcpPost(t, ts, token, msg, false)
		want = `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"` + tc.detail + `"}}`
		if resp.StatusCode != 413 || got != want {
			t.Errorf("MCP %s: %d %s, want 413 %s", tc.name, resp.StatusCode, got, want)
		}
	}
	// Over MCP, a message at exactly the limits is served: the envelope
	// {"jsonrpc","id","method","params":{"name","arguments":{...}}} adds 6
	// values and 2 levels around the arguments.
	_, token := seedToken(t, ts)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","x":` + values(41) + `}}}`
	if resp, got := mcpPost(t, ts, token, msg, false); resp.StatusCode != 200 || !strings.Contains(got, `{\"len\":1}`) {
		t.Errorf("MCP at 50 values: %d %s", resp.StatusCode, got)
	}
	msg = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","x":[[]]}}}`
	if resp, got := mcpPost(t, ts, token, msg, false); resp.StatusCode != 200 || !strings.Contains(got, `{\"len\":1}`) {
		t.Errorf("MCP at depth 5: %d %s", resp.StatusCode, got)
	}
}

// The MCP door runs nothing from a body that is more than one JSON value:
// trailing text, or two concatenated messages, get Python's 400 -32700
// (json.loads's "Extra data" message); trailing whitespace is fine.
func TestMCPTrailingData(t *testing.T) {
	t.Parallel()
	ts := serveTimed(t, newTimed(), configtest.Over(config.Instance{}), nil)
	_, token := seedToken(t, ts)
	count := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{}}}`
	for _, tc := range []struct{ name, body, pos string }{
		{"trailing text", count + ` this is not JSON`, "line 1 column 89 (char 88)"},
		{"two messages", count + "\n" + count, "line 2 column 1 (char 88)"},
	} {
		resp, got := mcpPost(t, ts, token, tc.body, false)
		want := `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32700,"message":"Parse error: Extra data: ` + tc.pos + `"}}`
		if resp.StatusCode != 400 || got != want {
			t.Errorf("%s: %d %s\nwant 400 %s", tc.name, resp.StatusCode, got, want)
		}
	}
	// Nothing ran: the first count is 1. Trailing whitespace is allowed.
	resp, got := mcpPost(t, ts, token, count+" \r\n\t", false)
	if resp.StatusCode != 200 || !strings.Contains(got, `{\"count\":1}`) {
		t.Errorf("count after the refused bodies: %d %s, want count 1", resp.StatusCode, got)
	}
}

// max_inflight_body_bytes: a body that does not fit beside the ones being
// held waits InflightWait (at least), then gets 503 with Retry-After naming
// the limit (both doors; Content-Length or chunked); once they are done it
// fits. The holding request's handler runs until the test cancels it, so
// the order does not depend on the machine's speed.
func TestInflightBodyBytes(t *testing.T) {
	t.Parallel()
	srv := newTimed()
	ts := serveTimed(t, srv, configtest.Over(config.Instance{MaxBodyBytes: 4000, MaxInflightBodyBytes: 4096}), nil)
	pad := func(json string, size int) string { // json is an object: pad it to size bytes
		return json[:len(json)-1] + `,"pad":"` + strings.Repeat("x", size-len(json)-9) + `"}`
	}
	hold := pad(`{"ms":600000}`, 3000)
	holdCtx, release := context.WithCancel(context.Background())
	defer release()
	var wg sync.WaitGroup
	wg.Go(func() {
		req, _ := http.NewRequestWithContext(holdCtx, "POST", ts.URL+"/sleep", strings.NewReader(hold))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := ts.Client().Do(req); err == nil {
			resp.Body.Close()
			t.Errorf("the holding request was answered %d before the test let it go", resp.StatusCode)
		}
	})
	select { // its handler runs: it holds 3000 of 4096 bytes until it returns
	case <-srv.sleeping:
	case <-time.After(30 * time.Second):
		t.Fatal("the holding request's handler did not start in 30 s")
	}
	const detail = "Server busy: request bodies being read exceed max_inflight_body_bytes (4096 bytes); retry later"
	start := time.Now()
	resp, got := post(t, ts.Client(), ts.URL+"/echo", pad(`{"text":"a"}`, 2000))
	if took := time.Since(start); resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" ||
		got != `{"detail":"`+detail+`"}` || took < 900*time.Millisecond {
		t.Errorf("HTTP over the budget: %d Retry-After %q %s after %v", resp.StatusCode, resp.Header.Get("Retry-After"), got, took)
	}
	want := `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32603,"message":"` + detail + `"}}`
	for _, chunked := range []bool{false, true} {
		resp, got = mcpPost(t, ts, "", pad(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 2000), chunked)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || got != want {
			t.Errorf("MCP over the budget (chunked %v): %d Retry-After %q %s", chunked, resp.StatusCode, resp.Header.Get("Retry-After"), got)
		}
	}
	// A small body still fits beside the held one.
	if resp, got := post(t, ts.Client(), ts.URL+"/echo", pad(`{"text":"a"}`, 1000)); resp.StatusCode != 200 {
		t.Errorf("a body that fits: %d %s", resp.StatusCode, got)
	}
	release()
	wg.Wait()
	// Everything is given back once the holder's handler has returned (it
	// sees its context canceled, and reports on ctxErrs): a body of the
	// whole limit fits, chunked too.
	select {
	case <-srv.ctxErrs:
		<-srv.ctxErrs
	case <-time.After(30 * time.Second):
		t.Fatal("the holding request's handler did not return in 30 s after its client went away")
	}
	var resp4k *http.Response
	var got4k string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		// The handler has returned; the reservation is given back as it
		// unwinds, so poll (a ceiling, not a target).
		if resp4k, got4k = post(t, ts.Client(), ts.URL+"/echo", pad(`{"text":"a"}`, 4000)); resp4k.StatusCode == 200 || time.Now().After(deadline) {
			break
		}
	}
	if resp4k.StatusCode != 200 || got4k != `{"len":1}` {
		t.Errorf("after the holder: %d %s", resp4k.StatusCode, got4k)
	}
	if resp, got := mcpPost(t, ts, "", pad(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 4000), true); resp.StatusCode != 200 {
		t.Errorf("chunked after the holder: %d %s", resp.StatusCode, got)
	}
}
