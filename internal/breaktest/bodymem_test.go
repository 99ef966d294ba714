package breaktest

import (
	"runtime"
	"strings"
	"testing"

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

// allocDuring runs f and returns the bytes allocated meanwhile (the whole
// process: the test's client and the server).
func allocDuring(f func()) uint64 {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestBodyMemoryBounded: a body within max_body_bytes costs the server a
// small multiple of its size, whatever its shape, so max_inflight_body_bytes
// (which counts raw body bytes) bounds the process's memory. Measured with a
// gymkit serve process: a 14 MiB int array as a 422 input (POST
// /get_weather {"city":[...]}) peaks at ~550 MiB RSS (40x) over HTTP and
// ~660 MiB (47x) over MCP, as a verify extra echoed back ~620 MiB (44x), and
// three of those at once ~1.9 GB: the default 256 MiB of bodies in flight
// could hold ~11 GB. The bound asserted here is 16x the body, summed over
// every allocation of the request (client side included, which is ~3x);
// today it is 80x (422) and 142x (verify: the body's tree, then
// requestDump's Marshal and second Parse of the decoded request).
func TestBodyMemoryBounded(t *testing.T) {
	t.Skip("known failure: a 14 MiB int array in a 422 input or a verify extra allocates ~40x its size (pyjson.Value tree + 422/echo encoding), so max_inflight_body_bytes does not bound memory; see report")
	ts := servertest.New(t, &weather.Weather{}, servertest.Options{ServerType: weather.Name})
	arr := intArray(14 << 20)
	for _, c := range []struct {
		name, path, body string
		status           int
	}{
		{"422 input", "/get_weather", `{"city":` + arr + `}`, 422},
		{"verify extra", "/verify", verifyBody(`"pad":` + arr), 200},
	} {
		var st int
		n := allocDuring(func() {
			st = ts.Rollout().Do("POST", c.path, jsonCT, c.body).Status
		})
		if st != c.status {
			t.Fatalf("%s: status %d, want %d", c.name, st, c.status)
		}
		ratio := float64(n) / float64(len(c.body))
		t.Logf("%s: body %d bytes, allocated %d bytes (%.1fx)", c.name, len(c.body), n, ratio)
		if ratio > 16 {
			t.Errorf("%s: a %d-byte body allocated %.1fx its size", c.name, len(c.body), ratio)
		}
	}
}
