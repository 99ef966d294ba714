package mcpexpose_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/mcpexpose"
)

// FuzzLeanParity feeds any /mcp body, with one of several header sets, to
// a door with the lean path and to the same door without it (in process),
// and wants the same status, headers and body. Both doors see every input
// in the same order, so the rollouts' state stays the same on both. Run:
//
//	go test ./mcpexpose -run '^$' -fuzz FuzzLeanParity -fuzztime 60s
func FuzzLeanParity(f *testing.F) {
	for _, row := range append(parityRows(), edgeRows()...) {
		f.Add(row.body, uint8(0))
	}
	f.Add(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"append","arguments":{"value":"x"}}}`, uint8(1))
	f.Add(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"raw_step","arguments":{}}}`, uint8(2))
	f.Add(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, uint8(2))
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, uint8(5))
	f.Add(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, uint8(6))

	p := newParityPair(f, func() framework.Server { return &Store{extra: parityRoutes} }, "store", nil)
	p.seedBoth(f, "T", `{}`)
	p.seedBoth(f, "R", `{"allowed_tools":["append"]}`)
	f.Fuzz(func(t *testing.T, body string, variant uint8) {
		var got [2]answer
		for door, h := range []http.Handler{p.leanH, p.sdkH} {
			req := p.request(parityRow{body: body, header: fuzzHeaders(variant)}, door, "http://127.0.0.1")
			req.Host = "127.0.0.1"
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got[door] = reduce(rec.Code, rec.Header(), rec.Body.Bytes())
		}
		if got[0] != got[1] {
			t.Errorf("body %q, headers %v:\nthe lean door answered\n%s\nthe go-sdk door\n%s", body, fuzzHeaders(variant), got[0], got[1])
		}
	})
}

// fuzzHeaders are the header sets of FuzzLeanParity, by variant.
func fuzzHeaders(variant uint8) []string {
	token := []string{"{{T}}", "-", "{{R}}", "forged.x"}[variant%4]
	h := []string{mcpexpose.TokenHeader, token}
	switch variant / 4 % 4 {
	case 1:
		h = append(h, "Mcp-Protocol-Version", "-")
	case 2:
		h = append(h, "Accept", jsonCT, "Mcp-Protocol-Version", "2024-11-05")
	case 3:
		h = append(h, "Content-Type", "application/json; charset=utf-8", "Mcp-Protocol-Version", "2025-11-25")
	}
	if variant >= 16 {
		h = append(h, "Last-Event-ID", "1")
	}
	return h
}
