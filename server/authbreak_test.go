package server_test

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gymkit/gymkit/config"
	"github.com/gymkit/gymkit/config/configtest"
)

// rawReq writes one request line + headers verbatim (no client-side path
// cleaning) and returns the status and body.
func rawReq(t *testing.T, addr, method, target string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n")
	body := ""
	if method == http.MethodPost {
		body = callMsg
		b.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	for _, h := range hdr {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n" + body)
	if _, err := c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header, sb.String()
}

// Hostile paths, methods and Authorization headers: nothing reaches the
// tool without the key, and no /mcp-like path escapes the 401.
func TestBreakAuthBypass(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "keys")
	_ = os.WriteFile(file, []byte(keyLine("ci", "k1")), 0o600)
	env := &authEnv{}
	ts, _ := startAuth(t, env, configtest.Over(config.Instance{Auth: &config.AuthConfig{APIKeys: &config.APIKeysConfig{File: file}},
		CORS: &config.CORSConfig{AllowedOrigins: []string{"https://ok.example"}}}))
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, p := range []string{"/mcp", "//mcp", "/mcp%2F", "/mcp/", "/%6dcp", "/ng-rollout/x/mcp", "/ng-rollout/x/mcp/",
		"/ng-rollout/x//mcp", "/ng-rollout//mcp", "/ng-rollout/x/ng-rollout/y/mcp", "/ng-rollout/%78/mcp", "/MCP", "/./mcp",
		"/mcp/../mcp", "/x/../mcp", "/mcp?x=1", "/mcp#f", "http://" + addr + "/mcp", "/ng-rollout/x%2Fmcp", "/mcp;x", "/ng-rollout/.x/mcp"} {
		for _, m := range []string{"POST", "GET", "HEAD", "DELETE", "OPTIONS", "PUT"} {
			code, _, body := rawReq(t, addr, m, p)
			// A 2xx/3xx from the door without a key, or anything that is not a
			// refusal, is a bypass candidate; the counter decides.
			if code < 300 {
				t.Errorf("%s %s without a key: %d %.200s", m, p, code, body)
			}
		}
	}
	for _, a := range []string{"Authorization: bearer  wrong", "Authorization: Bearer\tk1x", "Authorization: Bearer k1 k1",
		"Authorization: Bearer", "Authorization: Bearer k1\r\nAuthorization: Bearer k1", "Authorization: Basic k1",
		"Authorization:  Bearer k1x ", "Authorization: Bearer " + strings.Repeat("A", 1<<20), "X-Authorization: Bearer k1",
		"Authorization: Bearer k1\x00"} {
		code, _, body := rawReq(t, addr, "POST", "/mcp", a)
		if code != 401 && code != 431 && code != 400 {
			t.Errorf("%.60q: %d %.200s", a, code, body)
		}
	}
	// Lenient but correct spellings of the right key do pass.
	for _, a := range []string{"Authorization: bearer k1", "Authorization: Bearer  k1", "Authorization: BEARER k1 "} {
		if code, _, body := rawReq(t, addr, "POST", "/mcp", a); code == 401 {
			t.Errorf("%q: %d %s", a, code, body)
		}
	}
	if n := env.calls.Load(); n != 0 {
		t.Fatalf("the tool ran %d times without a valid key", n)
	}
	// CORS: look-alike origins and "null" are no allowed origin.
	for _, o := range []string{"https://ok.example.evil", "https://evil.ok.example", "null", "https://ok.example/", "http://ok.example"} {
		resp := preflight(t, ts.URL, o)
		if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight from %q: %d %v", o, resp.StatusCode, resp.Header)
		}
	}
	// A preflight without the method header is no preflight: it needs the key.
	if code, h, _ := rawReq(t, addr, "OPTIONS", "/mcp", "Origin: https://ok.example"); code != 401 || h.Get("Access-Control-Allow-Origin") != "https://ok.example" {
		t.Errorf("OPTIONS without Access-Control-Request-Method: %d %v", code, h)
	}
}
