package mcpexpose_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
	"github.com/gymkit/gymkit/session"
)

// BenchmarkToolCall compares, over real loopback HTTP with keep-alive, one
// tool call through:
//
//	http:        the HTTP door, POST /get_weather with the session cookie;
//	mcp:         the MCP door, POST /mcp tools/call get_weather with the
//	             token (the lean path answers it);
//	mcp_sdkonly: the same door with mcp.lean: false (the go-sdk path);
//	sdk:         the bare go-sdk stateless JSON path, a trivial raw tool on
//	             mcp.NewStreamableHTTPHandler, no gymkit at all.
//
// mcp/sdk is what gymkit adds on top of the SDK; http/mcp is what the MCP
// protocol costs against a plain route. Run:
//
//	go test ./mcpexpose -run '^$' -bench ToolCall -benchmem
func BenchmarkToolCall(b *testing.B) {
	h := benchWeather(b)
	ro := benchSeed(b, h)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	callMsg := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`

	b.Run("http", func(b *testing.B) {
		hdr := http.Header{"Content-Type": {"application/json"}, "Cookie": {h.cookie + "=" + ro.cookie}}
		benchPost(b, client, h.URL+"/get_weather", `{"city":"Paris"}`, hdr, `{"weather":"The weather in Paris is sunny and 72 F."}`)
	})
	b.Run("mcp", func(b *testing.B) {
		hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2025-06-18"}, mcpexpose.TokenHeader: {ro.token}}
		benchPost(b, client, h.URL+"/mcp", callMsg, hdr, `"isError":false`)
	})
	b.Run("mcp_sdkonly", func(b *testing.B) {
		hs := benchWeather(b, func(o *mcpexpose.Options) { o.Config.MCP.Lean = false })
		ros := benchSeed(b, hs)
		hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2025-06-18"}, mcpexpose.TokenHeader: {ros.token}}
		benchPost(b, client, hs.URL+"/mcp", callMsg, hdr, `"isError":false`)
	})
	b.Run("sdk", func(b *testing.B) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "The weather in Paris is sunny and 72 F."}}}, nil
			})
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
		defer ts.Close()
		hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2025-06-18"}}
		benchPost(b, client, ts.URL, callMsg, hdr, `sunny`)
	})
}

// benchServer has the weather tool's shape with constant-size session
// state (NeMo's weather appends every call to the session, so its cost
// grows with b.N): it decodes and validates the request, updates a counter
// in the rollout's session and returns an object.
type benchServer struct{ framework.Base }

type weatherRequest struct {
	City string `json:"city" required:"true"`
}

type weatherResponse struct {
	Weather string `json:"weather"`
}

func (s *benchServer) Routes(r *framework.Router) {
	framework.Post(r, "/get_weather", func(ctx context.Context, req weatherRequest) (weatherResponse, error) {
		err := session.Update(ctx, "calls", func(n *int) error { *n++; return nil })
		return weatherResponse{Weather: "The weather in " + req.City + " is sunny and 72 F."}, err
	}, framework.Description("Get the weather for a city."))
	framework.Verify(r, func(context.Context, framework.VerifyRequest) (framework.VerifyResponse, error) {
		return framework.VerifyResponse{}, nil
	})
}

func benchPost(b *testing.B, client *http.Client, url, body string, hdr http.Header, want string) {
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header = hdr
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(got), want) {
			b.Fatalf("%d %s", resp.StatusCode, got)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func benchWeather(b *testing.B, mod ...func(*mcpexpose.Options)) *host {
	var door func(*mcpexpose.Options)
	if len(mod) > 0 {
		door = mod[0]
	}
	h, handler, err := compose(b, &benchServer{}, hostOptions{instance: "example_mcp_weather", door: door})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(handler)
	b.Cleanup(ts.Close)
	h.URL = ts.URL
	return h
}

func benchSeed(b *testing.B, h *host) rollout {
	resp, err := http.Post(h.URL+"/seed_session", "application/json", strings.NewReader(`{}`))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var seed struct {
		MCP struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&seed); err != nil {
		b.Fatal(err)
	}
	ro := rollout{token: seed.MCP.Headers[mcpexpose.TokenHeader]}
	for _, c := range resp.Cookies() {
		if c.Name == h.cookie {
			ro.cookie = c.Value
		}
	}
	return ro
}

// BenchmarkLeanPath compares, in process (ServeHTTP on the composed
// handler: session middleware, the door, the tool updating its session
// state), one tools/call get_weather on the lean path and on the go-sdk
// path (mcp.lean: false) of the same server:
//
//	lean, sdk: each path alone (ns/op, B/op, allocs/op);
//	ratio:     both in one loop, alternating, reporting each path's ns/op
//	           and sdk/lean, the speed-up measured under the same load.
//
// Run:
//
//	go test ./mcpexpose -run '^$' -bench LeanPath -benchmem
func BenchmarkLeanPath(b *testing.B) {
	p := newParityPair(b, func() framework.Server { return &benchServer{} }, "example_mcp_weather", nil)
	p.seedBoth(b, "T", `{}`)
	row := parityRow{body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`,
		header: []string{mcpexpose.TokenHeader, "{{T}}"}}
	call := func(b *testing.B, door int) {
		req := p.request(row, door, "http://127.0.0.1")
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		[]http.Handler{p.leanH, p.sdkH}[door].ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"isError":false`) {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	b.Run("lean", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call(b, 0)
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call(b, 1)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var lean, sdk time.Duration
		n := 0
		for b.Loop() {
			t0 := time.Now()
			call(b, 0)
			t1 := time.Now()
			call(b, 1)
			lean, sdk = lean+t1.Sub(t0), sdk+time.Since(t1)
			n++
		}
		b.ReportMetric(float64(lean.Nanoseconds())/float64(n), "lean-ns/call")
		b.ReportMetric(float64(sdk.Nanoseconds())/float64(n), "sdk-ns/call")
		b.ReportMetric(float64(sdk)/float64(lean), "sdk/lean")
	})
}
