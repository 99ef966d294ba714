package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// mcpAccept is the Accept header an MCP client sends on POST /mcp.
const mcpAccept = "application/json, text/event-stream"

// postJSON posts body to ts at path with Content-Type application/json
// and the headers given as name, value pairs (a pair with an empty value
// is not sent), and returns the status, the response headers and the body.
// A transport error fails the test.
func postJSON(t testing.TB, ts *httptest.Server, path, body string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] != "" {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
