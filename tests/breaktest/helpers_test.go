// Package breaktest holds hostile tests of gymkit's framework core and
// rollout sessions, driven through real HTTP.
package breaktest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gymkit/gymkit/framework"
	"github.com/gymkit/gymkit/server/servertest"
)

var jsonCT = map[string]string{"Content-Type": "application/json"}

// rawResp is one HTTP answer read off a raw TCP connection.
type rawResp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *rawResp) cookies() []string { return r.Header.Values("Set-Cookie") }

// rawDo writes req verbatim (a full HTTP/1.1 request, CRLFs included) to the
// test server and reads one response.
func rawDo(t testing.TB, ts *servertest.Server, req string) *rawResp {
	t.Helper()
	addr := strings.TrimPrefix(ts.URL, "http://")
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 {
		resp, err = http.ReadResponse(br, nil)
	}
	if err != nil {
		t.Fatalf("reading response to %q: %v", firstLine(req), err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &rawResp{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\r\n")
	return l
}

// rawReq builds an HTTP/1.1 request with Content-Length.
func rawReq(method, target string, headers map[string]string, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n", method, target)
	for k, v := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.String()
}

// want checks status, exact body (when wantBody != "") and the session
// cookie: exactly one Set-Cookie, except on Python's unhandled-exception
// answer (a 500 whose body is a JSON string), which has none, as Starlette
// sends it (nemo-gym-peer goldens).
func want(t *testing.T, label string, status int, header http.Header, body []byte, wantStatus int, wantBody string) {
	t.Helper()
	if status != wantStatus {
		t.Errorf("%s: status %d, want %d; body %s", label, status, wantStatus, trunc(body))
	}
	if wantBody != "" && string(body) != wantBody {
		t.Errorf("%s: body\n got %s\nwant %s", label, trunc(body), wantBody)
	}
	wantCookies := 1
	if wantStatus == 500 && len(body) > 0 && body[0] == '"' {
		wantCookies = 0
	}
	if n := len(header.Values("Set-Cookie")); n != wantCookies {
		t.Errorf("%s: %d Set-Cookie headers, want %d: %q", label, n, wantCookies, header.Values("Set-Cookie"))
	}
}

func trunc(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + fmt.Sprintf("...(%d bytes)", len(b))
	}
	return string(b)
}

func okResponseJSON() string {
	return `{"id":"r","created_at":0,"model":"m","object":"response","output":[],"parallel_tool_calls":false,"tool_choice":"auto","tools":[]}`
}

func verifyBody(extra string) string {
	b := `{"responses_create_params":{"input":"hi"},"response":` + okResponseJSON()
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

var _ = bytes.Equal
var _ = framework.KindNull

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func gz(s string) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(s))
	w.Close()
	return buf.Bytes()
}
