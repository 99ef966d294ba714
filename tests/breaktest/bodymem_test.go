package breaktest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/internal/testkit/benchutil"
	"github.com/gymkit/gymkit/server/servertest"
	weather "github.com/gymkit/gymkit/servers/example_mcp_weather"
)

// intArray returns a JSON array of 7-digit ints n bytes long (about n/8
// values, under max_json_elements for n = 14 MiB).
func intArray(n int) string {
	k := (n - 2) / 8
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('[')
	for i := 0; i < k; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1234567")
	}
	b.WriteByte(']')
	return b.String()
}

// peakDuring runs f and returns the peak growth of the live heap while it
// ran and the bytes allocated meanwhile (the whole process), as
// benchutil.Peak measures them, with the collector at GOGC=10 so that the
// heap's objects stay close to what is live.
func peakDuring(f func()) (peak, alloc uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	return benchutil.Peak(func() (any, error) { f(); return nil, nil })
}

// post sends body to the test server and reads the answer without keeping
// it (so the measure is the server's): its status, length, and whether
// it holds want.
func post(t *testing.T, ts *servertest.Server, path, body string, headers map[string]string, want []byte) (status int, n int64, found bool) {
	t.Helper()
	req, err := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	w := &scan{want: want}
	n, err = io.Copy(w, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, n, w.found
}

// scan is a writer that looks for want in what passes through it, keeping
// only a window of len(want) bytes.
type scan struct {
	want  []byte
	tail  []byte
	found bool
}

func (s *scan) Write(p []byte) (int, error) {
	if !s.found {
		buf := append(s.tail, p...)
		s.found = bytes.Contains(buf, s.want)
		if k := len(s.want); len(buf) > k {
			buf = buf[len(buf)-k:]
		}
		s.tail = append(s.tail[:0], buf...)
	}
	return len(p), nil
}

// TestBodyMemoryBounded: a body within max_body_bytes costs the server a
// small multiple of its size at its peak, whatever its shape, so
// max_inflight_body_bytes (which counts raw body bytes) bounds the process's
// memory (docs/security.md, "Exhaust memory": at most ~4x the body plus a
// constant for what the framework builds; a framework.Value the environment
// asks for is its 72 bytes per JSON value on top). The client here sends from
// one string and discards the answer as it reads it, so what is measured is
// the server's: reading the body, checking it, decoding it and writing the
// answer.
//
// The bounds are what the framework reaches (peak/body; "then" is the
// previous state of this test, five runs, "now" this one's, ten runs on a
// loaded machine), with the 8 MiB constant (about 0.6x here) on top:
//
//	                        before   then         now            bound
//	HTTP 422 input          29.9x    3.86-3.88x   2.56-2.84x     3.5x
//	MCP 422 input           31.9x    5.38-5.54x   2.76-3.03x     3.5x
//	MCP 422 input, go-sdk   -        -            6.78-7.91x     9x
//	json.RawMessage body    -        3.13x        2.13-2.71x     3.5x
//	map[string]any body     -        14.01x       4.00-4.01x     4.5x
//	framework.Value body    -        11.01x       11.01x         12x
//	framework.Value field   -        11.00x       11.00-11.57x   12x
//	any field               -        11.00x       11.00x         12x
//	verify extra            30.9x    12.1-12.3x   3.1-3.8x       4x
//
// (before, as RSS of a gymkit serve process: 553, 657 and 621 MiB).
//
// A 422 costs the body, read without io.ReadAll's overshoot
// (internal/bodyio: its buffer ends at the Content-Length and doubles up to
// it, so a stalled client that announces 16 MiB holds about what it sent),
// and the echo: the items are decoded over a view of the body's text (no
// copy of it), the call's status is read without rendering the 422
// (host.StatusCode), the HTTP door renders its body once (not the MCP
// text beside it), and the MCP door's lean path writes the isError text
// once (host.MCPErrorText) and its JSON-string escaping in 32 KiB
// pieces into the response, not into a second buffer of its size. What
// stays above 2x is the collector's timing at GOGC=10. A call the lean path
// leaves to the go-sdk (here: params with _meta) costs what the SDK's
// reading, decoding and encoding of the message cost (its io.ReadAll, its
// decoder, its encoder: 37x allocated), gymkit's share being the 422's.
//
// A json.RawMessage body is written out once from a view of the text (no
// tree). A map[string]any body is read from the text straight into Go
// values (no Value tree first): a []any of int64s is 24 bytes per value,
// 3x for these 8-byte ints, plus the body. A framework.Value, as the body
// or as a field (an any field holds a Value too), is inherent: 72 bytes
// per JSON value plus its strings (here the 7-byte literals), 10x for
// these ints, plus the body; max_json_elements bounds it (72 bytes x
// elements). A verify extra key that the handler does not read is kept by
// the request's framework.Extra as one copy of its text (not a tree of
// 72-byte Values: that was 12x) and echoed from it: the body, that copy
// and the answer.
func TestBodyMemoryBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("memory figures under -race are the race runtime's")
	}
	ts := servertest.New(t, &weather.Weather{}, servertest.Options{ServerType: weather.Name, MCP: true})
	ro := ts.Rollout()
	if r := ro.Post("/seed_session", `{}`); r.Status != 200 || ro.Token() == "" {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	mcp := map[string]string{"X-NeMo-Gym-Session-Token": ro.Token()}
	ds := servertest.New(t, &dictEnv{}, servertest.Options{})
	arr := intArray(14 << 20)
	padBody := `{"pad":` + arr + `}`
	items := []byte(fmt.Sprintf(`{"n":%d}`, strings.Count(arr, ",")+1))
	echo := []byte("1234567,1234567,1234567,1234567]")
	const slack = 8 << 20 // the constant: buffers, the test server, the sampler
	for _, c := range []struct {
		name, path, body string
		ts               *servertest.Server // nil: the weather server
		status           int
		headers          map[string]string
		want             []byte // in the answer: the input echoed whole
		bound            float64
	}{
		{"HTTP 422 input", "/get_weather", `{"city":` + arr + `}`, nil, 422, nil, echo, 3.5},
		{"MCP 422 input", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":` + arr + `}}}`,
			nil, 200, mcp, []byte("1234567, 1234567, 1234567]"), 3.5},
		{"MCP 422 input, go-sdk", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"get_weather","arguments":{"city":` + arr + `}}}`,
			nil, 200, mcp, []byte("1234567, 1234567, 1234567]"), 9},
		{"json.RawMessage body", "/dict_raw", padBody, ds, 200, nil, []byte(fmt.Sprintf(`{"n":%d}`, len(padBody))), 3.5},
		{"map[string]any body", "/dict_map", padBody, ds, 200, nil, items, 4.5},
		{"framework.Value body", "/dict_value", padBody, ds, 200, nil, items, 12},
		{"framework.Value field", "/field_value", padBody, ds, 200, nil, items, 12},
		{"any field", "/field_any", padBody, ds, 200, nil, items, 12},
		{"verify extra", "/verify", verifyBody(`"pad":` + arr), nil, 200, nil, []byte(`1234567,1234567]}`), 4},
	} {
		var st int
		var n int64
		var found bool
		srv := c.ts
		if srv == nil {
			srv = ts
		}
		peak, alloc := peakDuring(func() { st, n, found = post(t, srv, c.path, c.body, c.headers, c.want) })
		if st != c.status || !found {
			t.Fatalf("%s: status %d, %d bytes, echo found %v; want %d with the input", c.name, st, n, found, c.status)
		}
		ratio := float64(peak) / float64(len(c.body))
		t.Logf("%s: body %d bytes, answer %d bytes, peak %.1f MiB (%.2fx the body), allocated %.1f MiB (%.1fx)",
			c.name, len(c.body), n, float64(peak)/(1<<20), ratio, float64(alloc)/(1<<20), float64(alloc)/float64(len(c.body)))
		if float64(peak) > c.bound*float64(len(c.body))+slack {
			t.Errorf("%s: a %d-byte body peaked at %.2fx its size, want at most %.1fx + %d MiB", c.name, len(c.body), ratio, c.bound, slack>>20)
		}
	}
}
